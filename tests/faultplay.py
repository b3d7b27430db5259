"""Steps of the fault tests: a server process to kill and start again, a PostgreSQL to stop and
start again, and seats that play through it all on reconnecting clients."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import faultbots
from piepmatz.server.client import SeatClient
from serverplay import PATIENCE
from serverprocs import free_port

TESTS = Path(__file__).resolve().parent
SRC = TESTS.parent / "src"


class ServerProcess:
    """``piepmatz serve`` on a fixed port and database, killed and started again at will."""

    def __init__(self, log: Path, *options: str) -> None:
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.options = options
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None
        #: How many times it was killed with SIGKILL (each one confirmed by the exit status).
        self.kills = 0
        #: The processes the killed servers had started.
        self.orphans: set[int] = set()

    def start(self) -> None:
        """Start it and return once it answers HTTP."""
        command = [sys.executable, "-m", "piepmatz.cli", "serve", "--port", str(self.port)]
        env = os.environ | {"PYTHONPATH": f"{SRC}{os.pathsep}{TESTS}"}
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [*command, *self.options, "--log-level", "warning"],
                env=env,
                stdout=out,
                stderr=out,
            )
        deadline = time.monotonic() + 60
        while True:
            try:
                url = f"http://{self.address}/api/tables"
                urllib.request.urlopen(url, timeout=1).close()
                return
            except (urllib.error.URLError, OSError):
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"piepmatz serve did not start: see {self.log}") from None
                time.sleep(0.05)

    def kill(self) -> None:
        assert self.process is not None
        self.orphans |= descendants(self.process.pid)
        self.process.send_signal(signal.SIGKILL)
        assert self.process.wait(30) == -signal.SIGKILL
        self.kills += 1

    def orphans_left(self, patience: float = 20) -> set[int]:
        """The processes the killed servers had started (bot workers, their forkserver) that
        are still running after ``patience`` seconds."""
        deadline = time.monotonic() + patience
        while (alive := {p for p in self.orphans if Path(f"/proc/{p}").exists()}) and (
            time.monotonic() < deadline
        ):
            time.sleep(0.1)
        return alive

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(30)


def descendants(pid: int) -> set[int]:
    """Every process started by ``pid``, and by those, from ``/proc`` (Linux)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue  # ended meanwhile
        children.setdefault(parent, []).append(int(stat.parent.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def fault_bot_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The plugin of :mod:`faultbots`, its bots registered in this process only for the test."""
    import piepmatz.bots
    import piepmatz.bots.plugins

    monkeypatch.setattr(piepmatz.bots, "_FACTORIES", dict(piepmatz.bots._FACTORIES))
    monkeypatch.setattr(piepmatz.bots.plugins, "_LOADED", dict(piepmatz.bots.plugins._LOADED))
    return faultbots.plugin(tmp_path)


@contextmanager
def server_process(log: Path, *options: str) -> Iterator[ServerProcess]:
    server = ServerProcess(log, *options)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@dataclass
class Player:
    """One person's seat played at random on a reconnecting client, slowly enough that games
    outlast the faults the test makes."""

    url: str
    token: str
    seed: int
    #: Every acknowledgement received: (move, action).
    acked: list[tuple[int, str]] = field(default_factory=list)
    #: The last state (with the score sheet once the game is over).
    final: dict[str, Any] | None = None
    reconnects: int = 0
    #: Error codes received, in order.
    errors: list[str] = field(default_factory=list)
    #: Reconnects because the server was stopping (closed with 1012).
    restarts: int = 0
    #: For ``SeatClient.connect`` (a TLS context, the address to connect from).
    options: dict[str, Any] = field(default_factory=dict)

    async def play(
        self, pause: float = 0.02, gate: Callable[[], Awaitable[None]] | None = None
    ) -> None:
        """Plays the seat to the end; ``gate()``, if given, is awaited before each move."""
        rng = random.Random(self.seed)
        connect = SeatClient.connect(self.url, self.token, reconnect=True, **self.options)
        async with connect as client:
            try:
                while True:
                    try:
                        # A restart on a busy machine takes a while: twice the usual patience.
                        message = await asyncio.wait_for(client.receive(), 2 * PATIENCE)
                    except TimeoutError:
                        last = client.state and (client.state["move"], client.state["legal"])
                        raise AssertionError(
                            f"{self.url}: nothing for {2 * PATIENCE:g} s; last state {last}, "
                            f"{client.reconnects} reconnects, errors {self.errors}"
                        ) from None
                    if message["type"] == "ack":
                        self.acked.append((message["move"], message["action"]))
                    elif message["type"] == "error":
                        self.errors.append(message["code"])
                    elif message["type"] == "state":
                        if message["result"] is not None:
                            self.final = message
                            return
                        if message["legal"]:
                            await asyncio.sleep(rng.uniform(0, pause))
                            if gate is not None:
                                await gate()
                            await client.act(rng.choice(message["legal"]), message["move"])
            finally:
                self.reconnects = client.reconnects
                self.restarts = client.restarts


# ---------------------------------------------------------------------- PostgreSQL


def _initdb() -> Path:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    initdb = str(found[-1]) if found else shutil.which("initdb")
    if initdb is None:
        raise RuntimeError("no initdb: install Debian's postgresql package (make test does)")
    return Path(initdb)


class Postgres:
    """A PostgreSQL of the test's own (``initdb`` in a temporary directory, a free port) that the
    test stops and starts again; the shared one on 5432 is never touched."""

    def __init__(self) -> None:
        initdb = _initdb()
        self.bindir = initdb.parent
        self.folder = Path(tempfile.mkdtemp(prefix="piepmatz-pg-"))
        # PostgreSQL refuses to run as root; as its own user, it gets the test's signals.
        self.user = "postgres" if os.geteuid() == 0 else None
        if self.user:
            shutil.chown(self.folder, self.user)
        self.port = free_port()
        self.data = self.folder / "data"
        subprocess.run(
            [str(initdb), "-D", str(self.data), "-A", "trust", "-U", "postgres"],
            check=True,
            capture_output=True,
            user=self.user,
        )
        self.process: subprocess.Popen[bytes] | None = None
        self.url = f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                str(self.bindir / "postgres"),
                *("-D", str(self.data), "-p", str(self.port), "-k", str(self.folder)),
                *("-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            user=self.user,
        )
        deadline = time.monotonic() + 30
        while not asyncio.run(self.answers()):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the test's PostgreSQL ({self.bindir}) did not start")
            time.sleep(0.1)

    def stop(self) -> None:
        """A fast shutdown: every connection is cut, as when the database host goes away."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            self.process.wait(30)

    async def answers(self) -> bool:
        import asyncpg

        try:
            conn = await asyncpg.connect(self.url.replace("+asyncpg", ""), timeout=3)
        except (OSError, asyncpg.PostgresError, TimeoutError):
            return False
        await conn.close()
        return True

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


@contextmanager
def own_postgres() -> Iterator[Postgres]:
    postgres = Postgres()
    try:
        postgres.start()
        yield postgres
    finally:
        postgres.remove()
