"""``/healthz`` and ``/readyz``, as load balancers and Kubernetes probe them: ready only while
the database answers with the current schema, the bus is connected and the bot workers live."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx
import redis

from piepmatz.server import db
from serverplay import running_server
from serverprocs import _execute, free_port, serve_process


def _probe(address: str, path: str = "/readyz") -> tuple[int, Any]:
    response = httpx.get(f"http://{address}{path}", timeout=10)
    return response.status_code, response.json()


def _until(address: str, status: int, within: float = 20.0) -> dict[str, str]:
    """The checks of the first ``/readyz`` answer with ``status``."""
    deadline = time.monotonic() + within
    while True:
        code, body = _probe(address)
        if code == status:
            checks: dict[str, str] = body["checks"]
            return checks
        assert time.monotonic() < deadline, body
        time.sleep(0.2)


def _grandchildren(pid: int) -> list[int]:
    """The processes whose parent's parent is ``pid`` (the bot workers, under the forkserver)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    children = {p for p, parent in parents.items() if parent == pid}
    return [p for p, parent in parents.items() if parent in children]


def test_ready_while_database_bus_and_bots_answer_and_not_while_one_does_not(
    tmp_path: Path, own_redis: str
) -> None:
    path = tmp_path / "server.db"
    port = free_port()
    address = f"127.0.0.1:{port}"
    options = ("--database-url", f"sqlite+aiosqlite:///{path}", "--redis", own_redis)
    with serve_process(port, *options, "--bot-workers", "1") as process:
        assert _probe(address, "/healthz") == (200, {"status": "alive"})
        assert _until(address, 200) == {"database": "ok", "bus": "ok", "bots": "ok"}

        # A schema older than this server's: another version's database, or a failed migration.
        head = db.head_revision()
        with sqlite3.connect(path) as conn:
            conn.execute("UPDATE alembic_version SET version_num = '0003'")
        checks = _until(address, 503)
        assert checks["database"] == f"the schema is at migration 0003, this server needs {head}"
        with sqlite3.connect(path) as conn:
            conn.execute("UPDATE alembic_version SET version_num = ?", (head,))
        _until(address, 200)

        # A bot worker killed: not ready until a fresh pool is up, which the probe starts.
        (worker,) = _grandchildren(process.pid)
        os.kill(worker, signal.SIGKILL)
        checks = _until(address, 503)
        assert checks == {"database": "ok", "bus": "ok", "bots": checks["bots"]}
        assert "worker" in checks["bots"]
        assert _until(address, 200)["bots"] == "ok"

        # Redis gone: this process hears no other process's moves.
        redis.Redis.from_url(own_redis).shutdown(nosave=True)
        assert _until(address, 503)["bus"] == "Redis does not answer"
        # Alive all along: nothing here needs a restart.
        assert _probe(address, "/healthz")[0] == 200


def test_not_ready_while_postgresql_refuses_and_ready_again_when_it_is_back(
    postgres_url: str,
) -> None:
    name = postgres_url.rsplit("/", 1)[1]
    admin = postgres_url.replace("+asyncpg", "").rsplit("/", 1)[0] + "/postgres"
    with running_server(postgres_url) as address:
        assert _until(address, 200) == {"database": "ok", "bots": "ok"}
        asyncio.run(_execute(admin, f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false'))
        terminate = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
        asyncio.run(_execute(admin, f"{terminate}'{name}'"))
        try:
            assert _until(address, 503)["database"] == "the database does not answer"
        finally:
            asyncio.run(_execute(admin, f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true'))
        _until(address, 200)
        assert _probe(address, "/healthz")[0] == 200
