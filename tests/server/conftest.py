"""Fixtures of the server tests: a real uvicorn on a free loopback port, SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import glob
import logging
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from serverplay import running_server
from serverprocs import free_port
from serverprocs import fresh_database as _fresh_database

#: A throwaway server: loopback only, no fsync (its data dies with the test run).
SERVER_OPTIONS = ("-c", "listen_addresses=127.0.0.1", "-c", "fsync=off")
LOCAL_POSTGRES = "postgresql+asyncpg://postgres@127.0.0.1:5432/"


@pytest.fixture(autouse=True)
def _root_logger_as_it_was() -> Iterator[None]:
    """A test that runs ``serve`` in this process leaves the server's handler on the root logger
    (``logs.configure``: INFO, to standard error), and the next tests of the worker would log
    their own HTTP clients' requests among what they read there."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'server.db'}"


@pytest.fixture
def server(sqlite_url: str) -> Iterator[str]:
    with running_server(sqlite_url) as address:
        yield address


# ---------------------------------------------------------------------- PostgreSQL


async def _answers(url: str) -> bool:
    import asyncpg

    try:
        conn = await asyncpg.connect(url, timeout=3)
    except (OSError, asyncpg.PostgresError, TimeoutError):
        return False
    await conn.close()
    return True


def _initdb() -> str | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return found[-1] if found else shutil.which("initdb")


@contextmanager
def throwaway_postgres() -> Iterator[str]:
    """A PostgreSQL of our own: ``initdb`` in a temporary directory, a free port."""
    initdb = _initdb()
    if initdb is None:
        pytest.fail(
            "PostgreSQL does not answer on 127.0.0.1:5432 and no initdb was found to start one: "
            "install Debian's postgresql package (make test does) or start a server there"
        )
    bindir = Path(initdb).parent
    folder = Path(tempfile.mkdtemp(prefix="piepmatz-pg-"))
    prefix: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        shutil.chown(folder, "postgres")
        prefix = ["runuser", "-u", "postgres", "--"]
    port = free_port()
    data = folder / "data"
    options = ["-k", str(folder)]
    subprocess.run(
        [*prefix, str(initdb), "-D", str(data), "-A", "trust", "-U", "postgres"],
        check=True,
        capture_output=True,
    )
    process = subprocess.Popen(
        [
            *prefix,
            str(bindir / "postgres"),
            "-D",
            str(data),
            "-p",
            str(port),
            *options,
            *SERVER_OPTIONS,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
    try:
        deadline = time.monotonic() + 30
        while not asyncio.run(_answers(url)):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the throwaway PostgreSQL ({bindir}) did not start")
            time.sleep(0.2)
        yield f"postgresql+asyncpg://postgres@127.0.0.1:{port}/"
    finally:
        process.terminate()
        process.wait(30)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A PostgreSQL URL without a database: the local one, or a throwaway one. Never skipped.

    ``PIEPMATZ_TEST_POSTGRES=throwaway`` starts the throwaway one even when the local answers.
    """
    local = os.environ.get("PIEPMATZ_TEST_POSTGRES") != "throwaway"
    if local and asyncio.run(_answers(LOCAL_POSTGRES.replace("+asyncpg", "") + "test")):
        yield LOCAL_POSTGRES
    else:
        with throwaway_postgres() as url:
            yield url


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A database of this test's own, dropped afterwards: nothing else is touched."""
    with fresh_database(postgres_server) as url:
        yield url


@pytest.fixture
def second_postgres_url(postgres_server: str) -> Iterator[str]:
    """Another database of this test's own (to restore a dump into), dropped afterwards."""
    with fresh_database(postgres_server) as url:
        yield url


@pytest.fixture(scope="module")
def module_postgres_url(postgres_server: str) -> Iterator[str]:
    """A database for the tests of one module (servers they share), dropped afterwards."""
    with fresh_database(postgres_server) as url:
        yield url


@contextmanager
def fresh_database(postgres_server: str) -> Iterator[str]:
    # The local server was found answering at "test" (postgres_server); a throwaway one has
    # only "postgres".
    admin = "test" if postgres_server == LOCAL_POSTGRES else "postgres"
    with _fresh_database(postgres_server, "piepmatz_test", admin) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest) -> str:
    url: str = request.getfixturevalue(f"{request.param}_url")
    return url


# ---------------------------------------------------------------------- Redis

LOCAL_REDIS = "redis://127.0.0.1:6379/0"


def _redis_answers(url: str) -> bool:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=3)
    try:
        return bool(client.ping())
    except (redis.RedisError, OSError):
        return False
    finally:
        client.close()


@contextmanager
def throwaway_redis() -> Iterator[str]:
    """A Redis of our own: ``redis-server`` on a free port, its files in a temporary directory,
    nothing saved to disk."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail(
            "Redis does not answer on 127.0.0.1:6379 and no redis-server was found to start one: "
            "install Debian's redis-server package (make test does) or start a server there"
        )
    folder = Path(tempfile.mkdtemp(prefix="piepmatz-redis-"))
    port = free_port()
    process = subprocess.Popen(
        [
            *(binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder)),
            *("--save", "", "--appendonly", "no"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        deadline = time.monotonic() + 30
        while not _redis_answers(url):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the throwaway redis-server did not start")
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(30)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A Redis URL: the local one, or a throwaway one. Never skipped. Tests share it safely:
    every channel and key names a table, and table ids are random.

    ``PIEPMATZ_TEST_REDIS=throwaway`` starts the throwaway one even when the local answers.
    """
    if os.environ.get("PIEPMATZ_TEST_REDIS") != "throwaway" and _redis_answers(LOCAL_REDIS):
        yield LOCAL_REDIS
    else:
        with throwaway_redis() as url:
            yield url


@pytest.fixture
def own_redis() -> Iterator[str]:
    """A Redis of this test's own (a throwaway ``redis-server``), which the test may shut down."""
    with throwaway_redis() as url:
        yield url
