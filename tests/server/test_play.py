"""Whole games over real WebSockets: seats, a bot, the record, reconnection, both databases."""

from __future__ import annotations

import asyncio
import io
import json
import random
from contextlib import redirect_stdout
from pathlib import Path

from piepmatz.cli import main
from piepmatz.records import seat_labels
from piepmatz.server.client import SeatClient
from piepmatz.text import scoresheet
from serverplay import (
    PATIENCE,
    get,
    open_two_person_table,
    play_randomly,
    running_server,
    sheet_from_json,
    until,
    ws_url,
)


async def _whole_game(address: str, tmp_path: Path) -> None:
    table = await open_two_person_table(address)
    url = ws_url(address, table["table"])
    async with (
        SeatClient.connect(url, table["token"]) as anna,
        SeatClient.connect(url, table["second_token"]) as ben,
        SeatClient.connect(url, table["spectator_token"]) as watcher,
    ):
        assert (await until(anna, "welcome"))["seat"] == 0
        assert (await until(ben, "welcome"))["seat"] == 1
        assert (await until(watcher, "welcome"))["seat"] is None
        ends = await asyncio.gather(
            play_randomly(anna, random.Random(1)),
            play_randomly(ben, random.Random(2)),
            play_randomly(watcher, random.Random(3)),
        )
        acks = [[m for m in c.received if m["type"] == "ack"] for c in (anna, ben)]
    results = {json.dumps(end["result"], sort_keys=True) for end in ends}
    assert len(results) == 1, "every seat and the spectator see the same score sheet"
    moves = {end["move"] for end in ends}
    record = await get(address, f"/api/tables/{table['table']}/record")
    assert moves == {len(record["actions"])}
    # Every action of a person was acknowledged, in order, with the move it answered.
    for seat_acks in acks:
        assert [a["move"] for a in seat_acks] == sorted({a["move"] for a in seat_acks})
        assert all(record["actions"][a["move"]] == a["action"] for a in seat_acks)
    assert len(acks[0]) + len(acks[1]) < len(record["actions"]), "the bot played its seat too"
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["replay", str(path)]) == 0
    sheet = sheet_from_json(ends[0]["result"])
    # The record says who sat where, and the replay names them as the table did.
    assert record["seats"] == [
        {"kind": "human", "name": "Anna"},
        {"kind": "human", "name": "Ben"},
        {"kind": "random", "name": None},
    ]
    labels = seat_labels(["human", "human", "random"], 3, ["Anna", "Ben", "Bot 3"])
    assert labels == ["Anna", "Ben", "Bot 3 (random)"]
    assert out.getvalue().endswith("\n" + scoresheet.table(sheet, labels) + "\n")
    # The log each seat put together from the state messages is the one replay prints,
    # hidden cards aside: the same number of entries (after replay's two header lines).
    replay_lines = out.getvalue().split("\n\n")[0].splitlines()[2:]
    assert [e["kind"] for e in anna.events] == [e["kind"] for e in watcher.events]
    assert len(anna.events) == len(replay_lines)


def test_a_whole_game_between_two_clients_and_a_bot_scores_as_replay_does(
    database_url: str, tmp_path: Path
) -> None:
    with running_server(database_url) as address:
        asyncio.run(_whole_game(address, tmp_path))


async def told_gone(client: SeatClient, seat: int) -> None:
    """Wait until ``client`` has been told that ``seat``, once connected, is not any more.
    (``client`` may be read by another task meanwhile: it keeps what it receives.)"""
    async with asyncio.timeout(PATIENCE):
        while True:
            tables = [m for m in client.received if m["type"] == "table"]
            connected = [m["seats"][seat]["connected"] for m in tables]
            if True in connected and False in connected[connected.index(True) :]:
                return
            await asyncio.sleep(0.01)


async def _reconnect(address: str) -> None:
    table = await open_two_person_table(address)
    url = ws_url(address, table["table"])
    async with SeatClient.connect(url, table["second_token"]) as ben:
        ben_plays = asyncio.create_task(play_randomly(ben, random.Random(2)))
        async with SeatClient.connect(url, table["token"]) as anna:
            state = await play_randomly(anna, random.Random(1), stop_at_move=12)
            seen = anna.events[:]
        # Anna is gone: every other seat is told so, and the table says so from then on.
        await told_gone(ben, 0)
        info = await get(address, f"/api/tables/{table['table']}")
        assert [s["connected"] for s in info["seats"]] == [False, True, True]
        async with SeatClient.connect(url, table["token"]) as anna_again:
            assert (await until(anna_again, "welcome"))["seat"] == 0
            resumed = await until(anna_again, "state")
            assert resumed["move"] >= state["move"]
            assert resumed["events_from"] == 0
            assert resumed["events"][: len(seen)] == seen, "the same log, from the start"
            if resumed["move"] == state["move"]:
                assert resumed["view"] == state["view"]
            if resumed["legal"]:
                await anna_again.act(random.Random(4).choice(resumed["legal"]), resumed["move"])
            end = await play_randomly(anna_again, random.Random(1))
        assert end["result"] is not None, "the reconnected seat played the game to its end"
        await asyncio.wait_for(ben_plays, 30)


def test_a_seat_that_disconnects_and_reconnects_carries_on(server: str) -> None:
    asyncio.run(_reconnect(server))
