"""A small asyncio client of the game server's protocol, for scripts, tests and benchmarks::

async with SeatClient.connect("ws://127.0.0.1:8000/ws/TABLE", token) as seat:
    state = await seat.until("state")
    await seat.act(state["legal"][0], state["move"])
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import IO, Any

from websockets.asyncio.client import ClientConnection, connect


class SeatClient:
    """One connection at a table: a seat's or a spectator's."""

    def __init__(self, websocket: ClientConnection, keep: bool = True) -> None:
        self.websocket = websocket
        #: Keep every message and the log (tests); a load generator keeps only the last state.
        self.keep = keep
        #: Every message received, in order.
        self.received: list[dict[str, Any]] = []
        #: The receiver's log, put together from the ``state`` messages.
        self.events: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None

    @classmethod
    @asynccontextmanager
    async def connect(
        cls, url: str, token: str | None, keep: bool = True
    ) -> AsyncIterator[SeatClient]:
        async with connect(url, max_size=None) as websocket:
            client = cls(websocket, keep)
            if token is not None:
                await client.send({"type": "hello", "token": token})
            yield client

    async def send(self, message: dict[str, Any] | str) -> None:
        await self.websocket.send(message if isinstance(message, str) else json.dumps(message))

    async def act(self, action: str, move: int) -> None:
        await self.send({"type": "action", "move": move, "action": action})

    async def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(await self.websocket.recv())
        if message["type"] == "state":
            self.state = message
        if self.keep:
            self.received.append(message)
            if message["type"] == "state":
                del self.events[message["events_from"] :]
                self.events.extend(message["events"])
        return message

    async def until(self, kind: str) -> dict[str, Any]:
        """Receive until a message of type ``kind`` arrives; return it."""
        while True:
            message = await self.receive()
            if message["type"] == kind:
                return message


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
