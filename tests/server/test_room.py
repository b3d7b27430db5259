"""A table driven directly: a client that stops reading cannot hold up the others."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from piepmatz.server import room as room_module
from piepmatz.server.room import Connection
from serverplay import playing_room


class Reader:
    def __init__(self) -> None:
        self.messages: list[str] = []
        self.closed = False

    async def send(self, text: str) -> None:
        self.messages.append(text)

    async def close(self) -> None:
        self.closed = True


class Stalled(Reader):
    """A client whose messages never leave (it stopped reading; its buffers are full)."""

    async def send(self, text: str) -> None:
        await asyncio.Event().wait()


def test_a_client_that_stops_reading_is_cut_off_and_the_table_plays_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(room_module, "SEND_TIMEOUT", 0.2)

    async def run() -> None:
        async with playing_room(tmp_path / "server.db", 2, "standard", 4) as room:
            reader, stalled = Reader(), Stalled()
            await room.connect(Connection(reader, 0))
            await room.connect(Connection(stalled, 1))
            rng = random.Random(1)
            for _ in range(10):
                legal = [str(a) for a in room.game.state.legal_actions()]
                await room.act(room.game.state.current_player, room.move, rng.choice(legal))
            states = [m for m in reader.messages if '"type":"state"' in m]
            assert len(states) == 11, "the reading seat heard every move at once"
            assert stalled.closed, "cut off after the timeout, and closed"
            assert [s.connected for s in room.info().seats] == [True, False]

    asyncio.run(asyncio.wait_for(run(), 20))
