"""A small asyncio client of the game server's protocol, for scripts, tests and benchmarks::

async with SeatClient.connect("ws://127.0.0.1:8000/ws/TABLE", token) as seat:
    state = await seat.until("state")
    await seat.act(state["legal"][0], state["move"])

With ``reconnect=True`` a dropped connection (a restarted server, a network hiccup) is opened
again with exponential backoff and the seat says ``hello`` again: the server answers with the
whole state, so the caller only sees the next ``state`` message. A server that stops on purpose
(SIGTERM) closes with :data:`RESTART_CLOSE`, and the client reconnects at once (behind a proxy,
to another process).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Generator
from contextlib import asynccontextmanager
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.client import backoff
from websockets.exceptions import ConcurrencyError, ConnectionClosed

#: The close code of a server that stops on purpose and asks its clients to come back (RFC 6455:
#: Service Restart).
RESTART_CLOSE = 1012


def reconnect_delays() -> Generator[float]:
    """Seconds between attempts to reconnect: a random first wait (so that the clients of a
    restarted server do not all come back at once), then growing by 1.6 up to 5 s."""
    return backoff(initial_delay=0.5, min_delay=0.2, max_delay=5.0)


class SeatClient:
    """One connection at a table: a seat's or a spectator's."""

    def __init__(
        self,
        websocket: ClientConnection,
        keep: bool = True,
        reopen: AsyncIterator[ClientConnection] | None = None,
        token: str | None = None,
        gap: float = 0.0,
    ) -> None:
        self.websocket = websocket
        #: The fewest seconds between two messages sent, and when the next may go.
        self.gap = gap
        self._next_send = 0.0
        #: Where new connections come from when this one drops (``None``: no reconnecting).
        self.reopen = reopen
        self.token = token
        #: How many times the connection was opened again, and how many of those because the
        #: server was stopping (closed with :data:`RESTART_CLOSE`).
        self.reconnects = 0
        self.restarts = 0
        #: Keep every message and the log (tests); a load generator keeps only the last state.
        self.keep = keep
        #: Every message received, in order.
        self.received: list[dict[str, Any]] = []
        #: The receiver's log, put together from the ``state`` messages.
        self.events: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None
        #: The move this client last sent an action for.
        self.answered: int | None = None
        #: Told ``False`` when a reconnecting client's connection drops and ``True`` once it is
        #: open again (a screen shows "reconnecting" meanwhile).
        self.on_connection: Callable[[bool], None] | None = None

    @classmethod
    @asynccontextmanager
    async def connect(
        cls,
        url: str,
        token: str | None,
        keep: bool = True,
        reconnect: bool = False,
        delays: Callable[[], Generator[float]] = reconnect_delays,
        ping: bool = True,
        gap: float = 0.0,
        **options: Any,
    ) -> AsyncIterator[SeatClient]:
        """A connection at ``url`` that says hello with ``token``; with ``reconnect`` a dropped
        connection is opened again (waiting ``delays`` between failed attempts, for ever).
        Messages go out at least ``gap`` seconds apart, in the order sent (see :meth:`send`).
        ``ping=False`` sends no keepalive pings of its own, as a browser (the server's pings
        still keep the connection alive). ``options`` go to ``websockets``' ``connect`` (``ssl=``
        a context for ``wss://``, ``local_addr=`` the address to connect from)."""
        if not reconnect:
            pings = 20 if ping else None
            websocket = await connect(url, max_size=None, ping_interval=pings, **options)
            client = cls(websocket, keep, token=token, gap=gap)
            try:
                await client._hello()
                yield client
            finally:
                await client.close()
            return
        # websockets' reconnecting iterator: each step closes the old connection and opens a
        # new one, retrying transient failures (refused, 5xx, timeouts) with backoff.
        connections = aiter(connect(url, max_size=None, reconnect_delays=delays, **options))
        client = cls(await anext(connections), keep, connections, token, gap)
        try:
            await client._hello()
            yield client
        finally:
            await client.close()
            await connections.aclose()  # type: ignore[attr-defined]

    async def close(self) -> None:
        """Close the connection, dropping what was not read. (With more unread messages than
        ``websockets``' queue holds it stops reading from the socket, would not see the server's
        closing frame, and would wait ``close_timeout`` for it.)"""

        async def discard() -> None:
            try:
                while True:
                    await self.websocket.recv()
            except (ConnectionClosed, ConcurrencyError):
                pass  # closed; or a caller's task is reading, and so draining it

        draining = asyncio.create_task(discard())
        try:
            await self.websocket.close()
        finally:
            draining.cancel()
            await asyncio.gather(draining, return_exceptions=True)

    async def _hello(self) -> None:
        if self.token is not None:
            await self.websocket.send(json.dumps({"type": "hello", "token": self.token}))

    async def _reconnect(self) -> None:
        assert self.reopen is not None
        if self.websocket.close_code == RESTART_CLOSE:
            self.restarts += 1
        if self.on_connection is not None:
            self.on_connection(False)
        while True:
            self.websocket = await anext(self.reopen)
            self.reconnects += 1
            try:
                await self._hello()
                break
            except ConnectionClosed:
                continue  # gone again before the hello (a server killed twice): once more
        if self.on_connection is not None:
            self.on_connection(True)

    async def send(self, message: dict[str, Any] | str) -> None:
        """Send ``message``; on a reconnecting client a message sent while the connection is
        down is dropped (the state after reconnecting asks again). With a ``gap``, a message
        waits its turn: a person's client stays under the server's message rate however fast
        keys repeat, where going over it would have answers refused and, past a few, the
        connection cut off as a flood."""
        text = message if isinstance(message, str) else json.dumps(message)
        if self.gap:
            # Each message takes the next free slot before it waits: sent at once, in order.
            now = asyncio.get_running_loop().time()
            at = max(now, self._next_send)
            self._next_send = at + self.gap
            if at > now:
                await asyncio.sleep(at - now)
        try:
            await self.websocket.send(text)
        except ConnectionClosed:
            if self.reopen is None:
                raise

    async def act(self, action: str, move: int) -> None:
        await self.send({"type": "action", "move": move, "action": action})
        self.answered = move

    async def receive(self) -> dict[str, Any]:
        while True:
            try:
                text = await self.websocket.recv()
                break
            except ConnectionClosed:
                if self.reopen is None:
                    raise
                await self._reconnect()
        message: dict[str, Any] = json.loads(text)
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
