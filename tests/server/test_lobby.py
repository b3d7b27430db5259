"""The lobby's list of open tables leaves out a public table whose people have all been gone
for a while: whoever joined it would wait for nobody; and a table the operator closed while it
waited takes nobody more."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from piepmatz.server import admin
from piepmatz.server.hub import LISTED_AWAY
from piepmatz.server.room import RoomError
from piepmatz.server.seats import Connection
from serverplay import Listener, local_hub, open_room


async def _listed(database: Path) -> None:
    async with local_hub(database) as hub:
        opened = time.monotonic()
        room = await open_room(hub, ["human", "human", "random"], seed=1, free=(1,), public=True)
        await open_room(hub, ["human", "human"], seed=2, free=(1,))  # by invite only
        await open_room(hub, ["human", "random"], seed=3, public=True)  # playing already

        async def listed(at: float) -> list[str]:
            return [r.id for r in await hub.open_tables(at)]

        # Nobody has sat down at it yet: listed for a while after it opened, then not.
        assert await listed(opened) == [room.id]
        assert await listed(opened + LISTED_AWAY - 1) == [room.id]
        assert await listed(time.monotonic() + LISTED_AWAY) == []
        # Its creator comes (a spectator does not count): listed however long they stay.
        watcher = Connection(Listener(), None)
        await room.connect(watcher)
        assert await listed(time.monotonic() + LISTED_AWAY) == []
        anna = Connection(Listener(), 0)
        await room.connect(anna)
        assert await listed(time.monotonic() + 10 * LISTED_AWAY) == [room.id]
        # She goes: listed for a while after she left, then not.
        await room.disconnect(anna)
        left = time.monotonic()
        assert await listed(left + LISTED_AWAY - 1) == [room.id]
        assert await listed(time.monotonic() + LISTED_AWAY) == []
        # A broken connection, not yet dropped, is nobody either.
        await room.connect(anna)
        anna.broken = True
        await room.replica.ask_presence()
        assert await listed(time.monotonic() + LISTED_AWAY) == []


def test_a_public_table_whose_people_are_gone_is_listed_only_for_a_while(
    tmp_path: Path,
) -> None:
    asyncio.run(_listed(tmp_path / "tables.db"))


async def _closed(database: Path) -> None:
    async with local_hub(database) as hub:
        room = await open_room(hub, ["human", "human", "random"], seed=1, free=(1,), public=True)
        assert [r.id for r in await hub.open_tables(time.monotonic())] == [room.id]
        # The operator closes it (another process: this server is not told).
        await admin.close_table(hub.store.engine, room.id)
        with pytest.raises(RoomError, match="this table has been closed") as refused:
            await room.take_seat(None, "Carl", None)
        assert refused.value.code == "not_playing"
        # Nothing was stored for Carl; this copy knows the table is over and lists it no more.
        stored = (await hub.store.load((), table_id=room.id))[0]
        assert stored.status == "over" and stored.ending and stored.ending["how"] == "aborted"
        assert [s.name for s in stored.seats] == ["P0", None, None]
        assert room.status == "over" and room.ending == stored.ending
        assert await hub.open_tables(time.monotonic()) == []


def test_a_waiting_table_the_operator_closed_takes_nobody_more(tmp_path: Path) -> None:
    asyncio.run(_closed(tmp_path / "tables.db"))
