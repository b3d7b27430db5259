"""``piepmatz serve`` as a host starts it: options said wrong by the name they typed, a port in
use found before the database is touched, one server per SQLite file (a killed one's lock
does not count), a warning for a second one on PostgreSQL, and a start that names its
database. ``serve`` runs in this process, with uvicorn replaced: no server listens."""

from __future__ import annotations

import logging
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest

from piepmatz.cli import main
from piepmatz.server import db
from piepmatz.server.app import create_app
from serverprocs import free_port

SRC = Path(__file__).resolve().parents[2] / "src"
#: A line of the server's text log: ``2026-12-07 15:51:02,611 INFO piepmatz.server: …``.
LOGGED = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [A-Z]+ [\w.]+: ")


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """What ``serve`` handed uvicorn, each time it got that far (nothing listens)."""
    import uvicorn

    runs: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: runs.append(options))
    return runs


def _serve(url: str, *options: str) -> list[str]:
    return [
        "serve",
        "--database-url",
        url,
        "--port",
        str(free_port()),
        "--bot-workers",
        "0",
        *options,
    ]


def test_forwarded_allow_ips_is_checked_as_metrics_allow_is(
    sqlite_url: str, capsys: pytest.CaptureFixture[str], started: list[dict[str, Any]]
) -> None:
    for wrong, said in (
        ("banana", "'banana' is not an address or a network (or * for any)"),
        ("127.0.0.1,10.0.0.300", "'10.0.0.300' is not an address or a network"),
        ("127.0.0.1,*", "* (any address) stands alone, not in a list"),
    ):
        assert main(_serve(sqlite_url, "--forwarded-allow-ips", wrong)) == 2
        assert f"piepmatz serve: --forwarded-allow-ips: {said}" in capsys.readouterr().err
    assert not started
    # What uvicorn takes: *, addresses, and networks (one written with its host's bits is its
    # network, which uvicorn would have taken for a name that never matches).
    for given, passed in (
        ("*", "*"),
        ("127.0.0.1", "127.0.0.1"),
        ("10.0.0.5/24, ::1", "10.0.0.0/24,::1"),
    ):
        assert main(_serve(sqlite_url, "--forwarded-allow-ips", given)) == 0
        assert started.pop()["forwarded_allow_ips"] == passed


def test_a_limit_said_wrong_is_named_by_its_option(
    sqlite_url: str, capsys: pytest.CaptureFixture[str], started: list[dict[str, Any]]
) -> None:
    for option, value, said in (
        ("--message-rate", "-1", "--message-rate must be 0 (no limit) or more, not -1"),
        ("--message-rate", "nan", "--message-rate must be 0 (no limit) or more, not nan"),
        ("--reviews-at-once", "-2", "--reviews-at-once must be 0 (no limit) or more, not -2"),
        ("--seek-bots-after", "-3", "--seek-bots-after must be 0 or more seconds, not -3"),
    ):
        assert main(["serve", option, value]) == 2
        assert capsys.readouterr().err == f"piepmatz serve: {said}\n"
    # A burst of none would refuse every message while there is a rate (none: no limit).
    assert main(["serve", "--message-burst", "0"]) == 2
    assert "--message-burst must be 1 or more while --message-rate" in capsys.readouterr().err
    assert not started
    assert main(_serve(sqlite_url, "--message-rate", "0", "--message-burst", "0")) == 0
    assert len(started) == 1


def test_a_port_in_use_is_said_before_the_database_is_touched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], started: list[dict[str, Any]]
) -> None:
    path = tmp_path / "server.db"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        argv = ["serve", "--database-url", f"sqlite:///{path}", "--port", str(port)]
        assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"piepmatz serve: --port {port}: 127.0.0.1 port {port} is in use (address already in "
        "use): stop what listens there, or choose another --port\n"
    )
    assert not path.exists() and not started
    assert main([*argv[:-1], str(port)]) == 0  # let go: the same start goes ahead
    assert main([*argv[:3], "--host", "no-such-host.invalid"]) == 2
    assert "--host no-such-host.invalid: no such address" in capsys.readouterr().err


def test_a_second_server_on_one_sqlite_file_is_refused_while_the_first_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import uvicorn

    url = f"sqlite:///{tmp_path / 'server.db'}"
    second: list[int] = []

    def run(app: Any, **options: Any) -> None:
        # While the first server runs: a second start on the same file, as a host might.
        monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("a second server ran"))
        second.append(main(_serve(url)))

    monkeypatch.setattr(uvicorn, "run", run)
    assert main(_serve(url)) == 0
    assert second == [2]
    # Beside the first server's log (its start says where players open it), one line.
    said = [line for line in capsys.readouterr().err.splitlines() if not LOGGED.match(line)]
    assert said == [
        f"piepmatz serve: --database-url {url}: another piepmatz serve (process {os.getpid()}) "
        "serves this database already: stop it first (several processes share tables through "
        "PostgreSQL and --redis: docs/scaling.md)"
    ]
    # The first let go as it stopped: the next start goes ahead.
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: None)
    assert main(_serve(url)) == 0


def test_a_killed_servers_lock_does_not_keep_the_next_one_from_starting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], started: list[dict[str, Any]]
) -> None:
    database = tmp_path / "server.db"
    holder = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        from piepmatz.server import db
        held = db.lock_sqlite(Path({str(database)!r}), shared=False)
        print("held", flush=True)
        time.sleep(120)
        """
    )
    process = subprocess.Popen(
        [sys.executable, "-c", holder],
        env=os.environ | {"PYTHONPATH": str(SRC)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None and process.stdout.readline() == "held\n"
        url = f"sqlite:///{database}"
        assert main(_serve(url)) == 2
        assert f"another piepmatz serve (process {process.pid})" in capsys.readouterr().err
        process.send_signal(signal.SIGKILL)
        process.wait(30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)
    assert database.with_name("server.db.lock").exists()  # left behind, and no matter
    assert main(_serve(url)) == 0 and len(started) == 1


def test_servers_with_redis_share_an_sqlite_file_but_not_with_one_without(
    tmp_path: Path, redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "server.db"
    shared = db.lock_sqlite(database, shared=True)
    try:
        other = db.lock_sqlite(database, shared=True)
        assert other is not None
        other.close()
        with pytest.raises(db.ServerRunning, match="processes with --redis serve this database"):
            db.lock_sqlite(database, shared=False)
    finally:
        assert shared is not None
        shared.close()
    alone = db.lock_sqlite(database, shared=False)
    try:
        url = f"sqlite:///{database}"
        assert main(_serve(url, "--redis", redis_url)) == 2
        assert "serves this database without --redis: stop it first" in capsys.readouterr().err
    finally:
        assert alone is not None
        alone.close()


def _lifespan(url: str) -> AbstractAsyncContextManager[None]:
    """A server's start and stop (migration, resumed tables, locks), without a network."""
    app = create_app(url, bot_workers=0)
    return app.router.lifespan_context(app)


def test_the_start_names_the_database_and_its_schema(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import asyncio

    caplog.set_level(logging.INFO, logger="piepmatz.server")
    path = tmp_path / "server.db"

    async def start_twice() -> None:
        for _ in range(2):
            async with _lifespan(f"sqlite+aiosqlite:///{path}"):
                pass

    asyncio.run(start_twice())
    said = [r.getMessage() for r in caplog.records if r.name == "piepmatz.server"]
    head = db.head_revision()
    assert f"database SQLite file {path}: schema migrated from nothing to {head}" in said
    assert f"database SQLite file {path}: schema is current (migration {head})" in said


def test_a_second_server_on_one_postgresql_without_redis_is_warned_of(
    postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    import asyncio

    caplog.set_level(logging.INFO, logger="piepmatz.server")
    # With a password (the local server trusts, and ignores it): starred out in the log.
    url = postgres_url.replace("://postgres@", "://postgres:hush@")

    async def run() -> None:
        async with _lifespan(url), _lifespan(url):
            pass
        async with _lifespan(url):  # the others let go as they stopped
            pass

    asyncio.run(run())
    said = [r.getMessage() for r in caplog.records if r.name == "piepmatz.server"]
    warned = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert [r.getMessage()[:56] for r in warned] == [
        "another Piepmatz server serves this database: moves made"
    ]
    shown = url.replace("+asyncpg", "").replace(":hush@", ":***@")
    assert any(m.startswith(f"database {shown}: schema ") for m in said), said
    assert not any("hush" in m for m in said)


@pytest.mark.parametrize(
    ("host", "network", "said"),
    [
        (
            "127.0.0.1",
            "192.168.1.5",
            "players open http://127.0.0.1:8000/ (this machine or a proxy on it: --host 0.0.0.0 "
            "for the network)",
        ),
        (
            "0.0.0.0",
            "192.168.1.5",
            "players on this network open http://192.168.1.5:8000/ "
            "(http://127.0.0.1:8000/ on this machine)",
        ),
        (
            "0.0.0.0",
            None,
            "players open http://THIS-MACHINE'S-ADDRESS:8000/ "
            "(http://127.0.0.1:8000/ on this machine)",
        ),
        ("10.1.2.3", None, "players open http://10.1.2.3:8000/"),
        (
            "::1",
            None,
            "players open http://[::1]:8000/ (this machine or a proxy on it: --host "
            "0.0.0.0 for the network)",
        ),
    ],
)
def test_the_start_says_which_address_players_open(
    host: str, network: str | None, said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """uvicorn names the address it listens on, 0.0.0.0, which is no page's: the host is told
    the one to give players, or that only this machine (or its proxy) reaches the server."""
    from piepmatz.server import commands

    monkeypatch.setattr(commands, "_network_address", lambda: network)
    assert commands._where_to_open(host, 8000) == said


def test_the_network_address_is_this_machines_own_and_never_loopback() -> None:
    import ipaddress

    from piepmatz.server import commands

    found = commands._network_address()
    assert found is None or not ipaddress.ip_address(found).is_loopback
    # The address a datagram would leave from is bound here: a socket can be bound to it.
    if found is not None:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.bind((found, 0))
            assert sock.getsockname()[0] == found
