"""Real server processes for the tests and the benchmarks: :func:`serve_process` starts
``piepmatz serve`` on a :func:`free_port`, and :func:`fresh_database` gives it a PostgreSQL
database of its own. Scaffolding, not product: it lives beside the tests, and the benchmarks
find it here too."""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO


def free_port() -> int:
    """A TCP port on the loopback interface that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def serve_process(
    port: int, *options: str, pythonpath: str | None = None, output: IO[bytes] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """``piepmatz serve --port PORT OPTIONS…`` in a subprocess, once it answers HTTP; stopped
    (if still running) on leaving. For tests and benchmarks that need a real server process."""
    env = os.environ | ({"PYTHONPATH": pythonpath} if pythonpath else {})
    command = [sys.executable, "-m", "piepmatz.cli", "serve", "--port", str(port), *options]
    process = subprocess.Popen(command, env=env, stdout=output, stderr=output)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables", timeout=1).close()
                break
            except (urllib.error.URLError, OSError):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"piepmatz serve on port {port} did not start") from None
                time.sleep(0.1)
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(30)


@contextmanager
def fresh_database(server: str, prefix: str = "piepmatz", admin: str = "postgres") -> Iterator[str]:
    """A PostgreSQL database of its own on ``server`` (a URL without a database,
    ``postgresql+asyncpg://user@host:port/``), made through the database ``admin`` and dropped
    afterwards with whatever is still connected; yields its URL. For tests and benchmarks that
    must leave the rest of the server as it was."""
    name = f"{prefix}_{secrets.token_hex(6)}"
    admin_url = server.replace("+asyncpg", "") + admin
    asyncio.run(_execute(admin_url, f'CREATE DATABASE "{name}"'))
    try:
        yield server + name
    finally:
        asyncio.run(_execute(admin_url, f'DROP DATABASE "{name}" WITH (FORCE)'))


async def _execute(url: str, statement: str) -> None:
    """One SQL statement on PostgreSQL, outside a transaction (as ``CREATE DATABASE`` must be)."""
    import asyncpg  # type: ignore[import-untyped]

    conn = await asyncpg.connect(url, timeout=10)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()
