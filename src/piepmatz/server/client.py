"""A small asyncio client of the game server's protocol, for scripts, tests and benchmarks::

async with SeatClient.connect("ws://127.0.0.1:8000/ws/TABLE", token) as seat:
    state = await seat.until("state")
    await seat.act(state["legal"][0], state["move"])
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from websockets.asyncio.client import ClientConnection, connect


class SeatClient:
    """One connection at a table: a seat's or a spectator's."""

    def __init__(self, websocket: ClientConnection) -> None:
        self.websocket = websocket
        #: Every message received, in order.
        self.received: list[dict[str, Any]] = []
        #: The receiver's log, put together from the ``state`` messages.
        self.events: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None

    @classmethod
    @asynccontextmanager
    async def connect(cls, url: str, token: str | None) -> AsyncIterator[SeatClient]:
        async with connect(url, max_size=None) as websocket:
            client = cls(websocket)
            if token is not None:
                await client.send({"type": "hello", "token": token})
            yield client

    async def send(self, message: dict[str, Any] | str) -> None:
        await self.websocket.send(message if isinstance(message, str) else json.dumps(message))

    async def act(self, action: str, move: int) -> None:
        await self.send({"type": "action", "move": move, "action": action})

    async def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(await self.websocket.recv())
        self.received.append(message)
        if message["type"] == "state":
            del self.events[message["events_from"] :]
            self.events.extend(message["events"])
            self.state = message
        return message

    async def until(self, kind: str) -> dict[str, Any]:
        """Receive until a message of type ``kind`` arrives; return it."""
        while True:
            message = await self.receive()
            if message["type"] == kind:
                return message
