"""The database going away and coming back while the server runs: PostgreSQL stopped and
started again, an SQLite file that cannot grow (what a full disk does). Requests fail with a
clear error and change nothing; service resumes by itself, with no restart of the server."""

from __future__ import annotations

import asyncio
import json
import random
import resource
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from faultplay import fault_bot_plugin, own_postgres, server_process
from piepmatz.core import Game, state_to_json
from piepmatz.server.client import SeatClient
from piepmatz.server.seats import Connection, RoomError
from piepmatz.server.store import StorageUnavailable
from serverplay import PATIENCE, playing_room, post, running_server, ws_url

Switch = Callable[[], Awaitable[None]]


@pytest.fixture
def fault_bots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    return fault_bot_plugin(tmp_path, monkeypatch)


async def _my_turn(client: SeatClient) -> dict[str, Any]:
    """The next state in which ``client``'s seat decides (or the game is over)."""
    while True:
        message = await asyncio.wait_for(client.receive(), PATIENCE)
        if message["type"] == "state" and (message["legal"] or message["result"] is not None):
            return message


async def _next(client: SeatClient, kind: str) -> dict[str, Any]:
    while (message := await asyncio.wait_for(client.receive(), PATIENCE))["type"] != kind:
        pass
    return message


async def _through_outages(
    address: str, go_away: Switch, come_back: Switch, marker: Path, reads_fail: bool
) -> None:
    rng = random.Random(7)
    table = await post(
        address,
        "/api/tables",
        {"seats": ["human", "servertest_slow", "random"], "name": "Anna", "seed": 11},
    )
    url = ws_url(address, table["table"])
    async with (
        httpx.AsyncClient(base_url=f"http://{address}") as http,
        SeatClient.connect(url, table["token"], reconnect=True) as anna,
    ):
        while (state := await _my_turn(anna))["move"] < 3:
            await anna.act(rng.choice(state["legal"]), state["move"])

        # 0. Away and back with nothing asked meanwhile: the next move is played at once.
        await go_away()
        await come_back()
        await anna.act(state["legal"][0], state["move"])
        assert (await _next(anna, "ack"))["move"] == state["move"]
        while (state := await _my_turn(anna))["move"] < 6:
            await anna.act(rng.choice(state["legal"]), state["move"])

        # 1. A person's move while the database is away is refused and not played; the same
        # move goes through as soon as the database is back.
        await go_away()
        move, action = state["move"], state["legal"][0]
        await anna.act(action, move)
        error = await _next(anna, "error")
        assert error["code"] == "unavailable" and "database is unavailable" in error["message"]
        await anna.send({"type": "sync"})
        again = await _next(anna, "state")
        assert (again["move"], again["legal"]) == (move, state["legal"])
        assert (await http.get(f"/api/tables/{table['table']}")).json()["move"] == move
        refused = await http.post("/api/tables", json={"seats": ["human", "random"], "name": "B"})
        assert refused.status_code == 503 and "unavailable" in refused.json()["detail"]
        assert refused.headers["retry-after"] == "2"
        await anna.send({"type": "chat", "text": "anyone?"})
        assert (await _next(anna, "error"))["code"] == "unavailable"
        if reads_fail:
            # A table the server does not hold cannot be looked up: not "no such table".
            async with SeatClient.connect(ws_url(address, "notheldhere"), "x" * 43) as other:
                assert (await _next(other, "error"))["code"] == "unavailable"
        await come_back()
        await anna.act(action, move)
        assert await _next(anna, "ack") == {"type": "ack", "move": move, "action": action}
        opened = await http.post("/api/tables", json={"seats": ["human", "random"], "name": "B"})
        assert opened.status_code == 201, opened.text

        # 2. A bot's move while the database is away: the table is told, and the move is
        # stored once the database is back, with nobody doing anything.
        marker.touch()  # the bot in seat 1 now thinks 2 s a move: time to take the database away
        while (state := await _next(anna, "state"))["view"]["current_player"] != 1:
            assert state["result"] is None, "the game ended before the slow bot's turn"
            if state["legal"]:
                await anna.act(rng.choice(state["legal"]), state["move"])
        thinking = state["move"]
        await go_away()
        assert (await _next(anna, "error"))["code"] == "unavailable"
        marker.unlink()
        await come_back()
        assert (await _next(anna, "state"))["move"] == thinking + 1

        # 3. The game ends, as its record replays, with every acknowledged move.
        while (state := await _my_turn(anna))["result"] is None:
            await anna.act(rng.choice(state["legal"]), state["move"])
        record = (await http.get(f"/api/tables/{table['table']}/record")).json()
    acked = [(m["move"], m["action"]) for m in anna.received if m["type"] == "ack"]
    assert len(acked) >= 5
    for move, action in acked:
        assert record["actions"][move] == action
    assert state["result"] == record["result"] == Game.from_record(record).score().to_json()


def test_postgresql_stopped_and_started_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault_bots: str
) -> None:
    marker = tmp_path / "slow"
    monkeypatch.setenv("PIEPMATZ_TEST_SLOW_MARKER", str(marker))
    with (
        own_postgres() as postgres,
        running_server(postgres.url, plugins=[fault_bots]) as address,
    ):

        async def go_away() -> None:
            await asyncio.to_thread(postgres.stop)

        async def come_back() -> None:
            await asyncio.to_thread(postgres.start)

        asyncio.run(_through_outages(address, go_away, come_back, marker, reads_fail=True))


def test_an_sqlite_file_that_cannot_grow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault_bots: str
) -> None:
    """Files are made unwritable by a file-size limit on the server process (``prlimit``): the
    server holds its database open, so a ``chmod`` would change nothing for it, and a full disk
    does just this. Reads go on; every write is refused."""
    marker = tmp_path / "slow"
    monkeypatch.setenv("PIEPMATZ_TEST_SLOW_MARKER", str(marker))
    url = f"sqlite+aiosqlite:///{tmp_path / 'server.db'}"
    options = ("--database-url", url, "--bot-workers", "0", "--plugin", fault_bots)
    with server_process(tmp_path / "serve.log", *options) as server:
        assert server.process is not None
        pid = server.process.pid
        _, hard = resource.prlimit(pid, resource.RLIMIT_FSIZE)

        async def go_away() -> None:
            resource.prlimit(pid, resource.RLIMIT_FSIZE, (1, hard))

        async def come_back() -> None:
            resource.prlimit(pid, resource.RLIMIT_FSIZE, (hard, hard))

        asyncio.run(_through_outages(server.address, go_away, come_back, marker, reads_fail=False))


def test_a_move_being_stored_is_not_seen_and_a_failed_one_never_happened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a move's write is under way, whoever looks (a ``sync``, the table's HTTP answer)
    sees the position before it; if the write fails, the game is as if it was never sent."""

    async def run() -> None:
        async with playing_room(tmp_path / "server.db", 3, "standard", 8) as room:
            before = (room.move, state_to_json(room.game.state), room.game.record())
            written, go_on = asyncio.Event(), asyncio.Event()

            async def slow_and_failing(*args: object, **kwargs: object) -> None:
                written.set()
                await go_on.wait()
                raise StorageUnavailable

            monkeypatch.setattr(room.store, "add_move", slow_and_failing)
            player = room.game.state.current_player
            action = str(room.game.state.legal_actions()[0])
            acting = asyncio.create_task(room.act(player, room.move, action))
            await written.wait()
            seen = Connection(Reader(), player)
            message = json.loads(room.audience.state_message(seen, full=True))
            assert message["move"] == before[0] and action in message["legal"]
            go_on.set()
            with pytest.raises(RoomError) as refused:
                await acting
            assert refused.value.code == "unavailable"
            assert (room.move, state_to_json(room.game.state), room.game.record()) == before

    asyncio.run(asyncio.wait_for(run(), 20))


class Reader:
    async def send(self, text: str) -> None:
        pass

    async def close(self) -> None:
        pass
