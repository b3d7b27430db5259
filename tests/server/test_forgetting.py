"""A server running for months does not keep every game ever played: a finished table nobody
uses is forgotten after a while, and read again from the database when asked for."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from piepmatz.server import archive
from piepmatz.server.room import Room
from piepmatz.server.seats import Connection
from serverplay import Listener, local_hub, open_room

AFTER = 10.0


async def play_to_the_end(room: Room, rng: random.Random) -> None:
    while not room.game.state.is_over():
        state = room.game.state
        await room.act(state.current_player, room.move, str(rng.choice(state.legal_actions())))


async def _forgotten(database: Path) -> None:
    async with local_hub(database) as hub:
        room = await open_room(hub, ["human", "human"], seed=9)
        # Playing, with nobody connected, for longer than a finished table would be kept.
        assert await hub.forget_finished(0.0, AFTER) == []
        assert await hub.forget_finished(2 * AFTER, AFTER) == []
        watcher = Connection(Listener(), None)
        await room.connect(watcher)
        await play_to_the_end(room, random.Random(9))
        assert await hub.forget_finished(100.0, AFTER) == []
        assert await hub.forget_finished(100.0 + 2 * AFTER, AFTER) == [], "someone watches"
        await room.disconnect(watcher)
        assert await hub.forget_finished(200.0, AFTER) == []  # idle from here
        # Someone comes back for a moment: the wait starts again when they leave.
        await room.connect(watcher)
        assert await hub.forget_finished(205.0, AFTER) == []
        await room.disconnect(watcher)
        assert await hub.forget_finished(211.0, AFTER) == []
        assert await hub.forget_finished(211.0 + AFTER - 0.5, AFTER) == []
        assert await hub.forget_finished(211.0 + AFTER, AFTER) == [room.id]
        assert room.id not in hub.rooms
        again = await hub.room(room.id)
        assert again is not room and again.status == "over"
        assert archive.record(again) == archive.record(room)
        assert archive.record(again)["result"] is not None


def test_a_finished_table_nobody_uses_is_forgotten_and_read_again(tmp_path: Path) -> None:
    asyncio.run(_forgotten(tmp_path / "tables.db"))


async def _saying_hello(database: Path) -> None:
    async with local_hub(database) as hub:
        room = await open_room(hub, ["human", "human"], seed=10)
        await play_to_the_end(room, random.Random(10))
        # A connection whose hello waits for the chat's history: not yet among the table's.
        released = asyncio.Event()
        reading = room.store.recent_chat

        async def slow_chat(table_id: str, count: int) -> object:
            await released.wait()
            return await reading(table_id, count)

        room.store.recent_chat = slow_chat  # type: ignore[method-assign,assignment]
        listener = Listener()
        hello = asyncio.create_task(room.connect(Connection(listener, 0)))
        await asyncio.sleep(0.05)
        assert not room.audience.connections()
        assert await hub.forget_finished(0.0, AFTER) == []
        assert await hub.forget_finished(2 * AFTER, AFTER) == [], "a hello is under way"
        released.set()
        await hello
        assert hub.rooms[room.id] is room and '"type":"state"' in listener.sent[0]


def test_a_finished_table_is_kept_while_someone_says_hello(tmp_path: Path) -> None:
    asyncio.run(_saying_hello(tmp_path / "tables.db"))
