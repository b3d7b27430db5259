"""A WebSocket whose client stopped reading holds up nobody: its messages queue, then it is cut
off; the rest of its table hears every move at once."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

from piepmatz.server import outbox as outbox_module
from piepmatz.server import seats as seats_module
from piepmatz.server.outbox import ClientGone, WebSocketClient
from piepmatz.server.seats import Connection
from serverplay import PATIENCE, playing_room


class Socket:
    """The part of Starlette's WebSocket the outbox uses, recording what leaves."""

    def __init__(self, stuck: bool = False) -> None:
        self.sent: list[str] = []
        self.closed: tuple[int, str] | None = None
        self.stuck = stuck
        self.entered = 0

    async def send_text(self, text: str) -> None:
        self.entered += 1
        if self.stuck:  # the client's buffers are full: this never completes
            await asyncio.Event().wait()
        await asyncio.sleep(0)
        self.sent.append(text)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = (code, reason)


class Reader:
    def __init__(self) -> None:
        self.messages: list[str] = []

    async def send(self, text: str) -> None:
        self.messages.append(text)

    async def close(self) -> None:
        raise AssertionError("a reading client was closed")


def test_messages_leave_in_order() -> None:
    async def run() -> list[str]:
        socket = Socket()
        client = WebSocketClient(socket)  # type: ignore[arg-type]
        for i in range(100):
            await client.send(str(i))
        await client.flush()
        client.stop()
        return socket.sent

    assert asyncio.run(run()) == [str(i) for i in range(100)]


def test_a_client_that_stops_reading_holds_up_nobody_then_is_cut_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A send that waits would now wait for ever: the table must not wait at all.
    monkeypatch.setattr(seats_module, "SEND_TIMEOUT", 10**6)
    monkeypatch.setattr(outbox_module, "SEND_TIMEOUT", 10**6)
    monkeypatch.setattr(outbox_module, "MAX_BACKLOG", 30)

    async def run() -> tuple[Reader, Socket, Any, list[bool]]:
        async with playing_room(tmp_path / "server.db", 2, "standard", 4) as room:
            reader, socket = Reader(), Socket(stuck=True)
            stuck = WebSocketClient(socket)  # type: ignore[arg-type]
            await room.connect(Connection(reader, 0))
            await room.connect(Connection(stuck, 1))
            rng = random.Random(1)
            for _ in range(40):
                if room.game.state.is_over():
                    break
                legal = [str(a) for a in room.game.state.legal_actions()]
                await room.act(room.game.state.current_player, room.move, rng.choice(legal))
            await asyncio.sleep(0.1)  # the cut-off connection's close runs as its own task
            with pytest.raises(ClientGone):
                await stuck.send("more")
            stuck.stop()
            return reader, socket, room.move, [s.connected for s in room.info().seats]

    reader, socket, moves, connected = asyncio.run(asyncio.wait_for(run(), PATIENCE))
    states = [m for m in reader.messages if '"type":"state"' in m]
    assert len(states) == moves + 1 == 41, "the reading seat heard every move"
    assert socket.entered == 1 and socket.sent == [], "nothing left for the stuck client"
    assert socket.closed == (1008, "not reading its messages")
    assert connected == [True, False]
