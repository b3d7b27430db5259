"""The sending side of one WebSocket: a queue and a writer, so that no table waits on a client.

A table announces each move to every connection under its lock, in order. If the announcement
awaited each client's network, one client that stops reading (its socket buffers full) would hold
the lock, and the whole table, until its send timed out, and could do it again after every
reconnect. Here a send only queues the message; a writer task per connection sends them in
order. A client whose queue grows past :data:`MAX_BACKLOG`, or whose one message takes longer
than ``SEND_TIMEOUT`` to leave, is cut off.
"""

from __future__ import annotations

import asyncio
import contextlib

from starlette.websockets import WebSocket

from .limits import POLICY_CLOSE
from .seats import SEND_TIMEOUT

#: Messages waiting for one connection: a whole game's announcements, far more than a reading
#: client ever lets pile up behind its socket buffers.
MAX_BACKLOG = 512


class ClientGone(ConnectionError):
    """The connection is closed, or was cut off for not reading."""


class WebSocketClient:
    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket
        self.outbox: asyncio.Queue[str] = asyncio.Queue()
        self.writer: asyncio.Task[None] | None = None
        self.gone = False

    async def send(self, text: str) -> None:
        """Queue ``text``; raises :class:`ClientGone` if the client is gone or not reading."""
        if self.gone:
            raise ClientGone("the connection is closed")
        if self.outbox.qsize() >= MAX_BACKLOG:
            self.gone = True
            raise ClientGone(f"more than {MAX_BACKLOG} messages unread")
        self.outbox.put_nowait(text)
        if self.writer is None:
            self.writer = asyncio.create_task(self._write())

    async def _write(self) -> None:
        try:
            while True:
                text = await self.outbox.get()
                async with asyncio.timeout(SEND_TIMEOUT):
                    await self.websocket.send_text(text)
                self.outbox.task_done()
        except asyncio.CancelledError:
            raise
        except Exception:
            self.gone = True
            with contextlib.suppress(Exception):
                async with asyncio.timeout(SEND_TIMEOUT):
                    await self.websocket.close(code=POLICY_CLOSE, reason="not reading its messages")

    async def flush(self) -> None:
        """Wait (a bounded time) until every queued message has left."""
        if self.writer is not None and not self.gone:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(SEND_TIMEOUT):
                    await self.outbox.join()

    async def close(
        self, code: int = POLICY_CLOSE, reason: str = "not reading its messages"
    ) -> None:
        """Close now (best effort: the client may be gone already)."""
        self.stop()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(SEND_TIMEOUT):
                await self.websocket.close(code=code, reason=reason)

    def stop(self) -> None:
        """The connection is over: nothing more is sent."""
        self.gone = True
        if self.writer is not None:
            # Let go of the task: its CancelledError's traceback holds this client, and a
            # reference back would make the whole connection a cycle for the collector.
            self.writer.cancel()
            self.writer = None
