"""Servers started together on a fresh database migrate it once: the others wait and find the
schema current (``db.upgrade`` serialises across processes; issue 39)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
import sys
import textwrap
import time
from contextlib import ExitStack
from pathlib import Path

from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import text

from piepmatz.server import db
from serverprocs import fresh_database

SRC = Path(__file__).resolve().parents[2] / "src"
#: Processes that migrate at once, and the rounds (each on a fresh database) they do it in:
#: without the lock one round failed in 8 of 10 tries, four rounds in each of 10.
PROCESSES = 4
ROUNDS = 4

#: One process: warm a connection (so that all start the migration at the same moment), then
#: in each round wait for the go file and run ``db.upgrade``; a failure ends it nonzero.
_CHILD = textwrap.dedent(
    """
    import asyncio, sys, time
    from pathlib import Path
    from sqlalchemy import text
    from piepmatz.server import db

    folder, index, urls = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]

    async def main():
        for number, url in enumerate(urls):
            engine = db.make_engine(url)
            try:
                async with engine.connect() as connection:
                    await connection.execute(text("SELECT 1"))
                (folder / f"ready-{number}-{index}").touch()
                while not (folder / f"go-{number}").exists():
                    time.sleep(0.001)
                await db.upgrade(engine)
            finally:
                await engine.dispose()

    asyncio.run(main())
    """
)


def _head() -> str:
    config = Config()
    config.set_main_option("script_location", str(Path(db.__file__).parent / "migrations"))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


async def _version(url: str) -> list[str]:
    engine = db.make_engine(url)
    try:
        async with engine.connect() as connection:
            rows = await connection.execute(text("SELECT version_num FROM alembic_version"))
            return [row[0] for row in rows]
    finally:
        await engine.dispose()


def _migrate_together(folder: Path, urls: list[str]) -> None:
    """``PROCESSES`` processes run ``db.upgrade`` on each of ``urls`` in turn, all at the same
    moment; every one ends well and each database is at the newest migration."""
    env = os.environ | {"PYTHONPATH": str(SRC)}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(folder), str(index), *urls],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for index in range(PROCESSES)
    ]
    try:
        for number in range(len(urls)):
            deadline = time.monotonic() + 60
            while len(list(folder.glob(f"ready-{number}-*"))) < PROCESSES:
                if any(p.poll() is not None for p in processes) or time.monotonic() > deadline:
                    break
                time.sleep(0.005)
            (folder / f"go-{number}").touch()
        outputs = [p.communicate(timeout=60)[0].decode() for p in processes]
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    failed = [out for p, out in zip(processes, outputs, strict=True) if p.returncode != 0]
    assert not failed, f"{len(failed)} of {PROCESSES} processes failed:\n" + failed[0][-3000:]
    head = _head()
    for url in urls:
        assert asyncio.run(_version(url)) == [head], url


def test_servers_started_together_on_a_fresh_postgresql_migrate_it_once(
    postgres_url: str, postgres_server: str, tmp_path: Path
) -> None:
    # More fresh databases, made through this test's own: one round alone does not fail
    # reliably without the lock.
    admin = postgres_url.rsplit("/", 1)[1]
    with ExitStack() as stack:
        more = [
            stack.enter_context(fresh_database(postgres_server, "piepmatz_test", admin))
            for _ in range(ROUNDS - 1)
        ]
        _migrate_together(tmp_path, [postgres_url, *more])


def test_servers_started_together_on_a_fresh_sqlite_file_migrate_it_once(
    tmp_path: Path,
) -> None:
    urls = [f"sqlite+aiosqlite:///{tmp_path / f'server-{n}.db'}" for n in range(ROUNDS)]
    _migrate_together(tmp_path, urls)


def test_the_migration_lock_is_the_fixed_key_named_piepmatz_migrations() -> None:
    digest = hashlib.sha256(b"piepmatz migrations").digest()
    assert int.from_bytes(digest[:8], "big", signed=True) == db.MIGRATION_LOCK


def test_the_server_lock_is_the_fixed_key_named_piepmatz_server() -> None:
    # Fixed, so that servers of this version and later ones find each other.
    digest = hashlib.sha256(b"piepmatz server").digest()
    assert int.from_bytes(digest[:8], "big", signed=True) == db.SERVER_LOCK
    assert db.SERVER_LOCK != db.MIGRATION_LOCK
