"""Nobody holds a table hostage: paces and clocks, stand-ins for people who are away, resign and
abort, told to everyone and kept across a restart. The tables' time is a :class:`ManualClock`
the test moves on, so a day passes in no time."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import httpx
import pytest

from piepmatz.server.client import SeatClient
from piepmatz.server.clocks import REPRIEVE
from piepmatz.server.hub import Hub, TableRefused
from piepmatz.server.pace import PaceRoster, parse_pace
from piepmatz.server.room import Room
from piepmatz.server.seats import Connection, RoomError
from piepmatz.server.vocabulary import Absence
from serverplay import Listener, ManualClock, get, local_hub, post, settle, ws_url

PACES = PaceRoster.build(["fast=live:10s+2s,away=5s", "hour=turn:1h"])
KEY = "k" * 43


@asynccontextmanager
async def hub_at(database: Path, clock: ManualClock) -> AsyncIterator[Hub]:
    async with local_hub(database, clock, PACES) as hub:
        yield hub


async def two_people(hub: Hub, pace: str, third: str | None = None, **options: Any) -> Room:
    """Anna (seat 0) and Ben (seat 1), and a bot in seat 2 if ``third`` names it, playing."""
    kinds = ["human", "human"] + ([third] if third else [])
    opened = await hub.open(kinds, "standard", name="Anna", pace=pace, player=KEY, **options)
    await opened.room.take_seat(1, "Ben", opened.tokens[1])
    return opened.room


async def both_at_a_live_table(hub: Hub) -> tuple[Room, Listener, Listener, int]:
    """Anna and Ben at a ``fast`` table, both connected; and the seat whose clock runs."""
    room = await two_people(hub, "fast")
    anna, ben = await sit(room, 0), await sit(room, 1)
    return room, anna, ben, room.game.state.current_player


async def sit(room: Room, seat: int | None) -> Listener:
    listener = Listener()
    await room.connect(Connection(listener, seat))
    return listener


def told(listener: Listener, kind: str) -> list[dict[str, Any]]:
    return [m for m in map(json.loads, listener.sent) if m["type"] == kind]


async def until(check: Callable[[], bool], what: str) -> None:
    for _ in range(1000):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


async def person_moves(room: Room, rng: random.Random) -> None:
    """The person to move plays a random legal move."""
    state = room.game.state
    await room.act(state.current_player, room.move, rng.choice(state.legal_action_ids()))


def test_paces_parse_and_refuse_what_is_not_one() -> None:
    live = parse_pace("x", "live:5m+5s")
    assert (live.base, live.increment, live.away) == (300.0, 5.0, 60.0)
    assert parse_pace("y", "turn:1d").per_move == 86400.0
    assert parse_pace("z", "live:90+0,away=2m").away == 120.0
    for bad in ("live:5m", "turn:0s", "turn:2y", "fast", "live:-1+1", "turn:400d"):
        with pytest.raises(ValueError):
            parse_pace("bad", bad)
    with pytest.raises(ValueError, match="NAME=SPEC"):
        PaceRoster.build(["Fast Pace=live:1m+1s"])


def test_a_table_names_its_pace_stand_in_and_resign_rule_from_the_offered_lists(
    tmp_path: Path,
) -> None:
    async def run() -> None:
        async with hub_at(tmp_path / "s.db", ManualClock()) as hub:
            people = ["human", "human"]
            for options, refusal in (
                ({"pace": "glacial"}, "pace: not a pace this server offers"),
                ({"pace": "untimed"}, "only for a table with one person"),
                ({"stand_in": "ppo:/proc/self/fd/5"}, "stand_in: not a bot this server offers"),
            ):
                with pytest.raises(TableRefused, match=refusal):
                    await hub.open(people, "standard", name="A", **options)
            with pytest.raises(TableRefused, match="only at a table of two"):
                await hub.open([*people, "human"], "standard", name="A", resign="end")
            assert not hub.rooms  # nothing was opened
            friends = await hub.open(people, "standard", name="A")
            assert friends.room.setup.pace.name == "turn-based"
            assert friends.room.setup.resign == "end"
            alone = await hub.open(["human", "random"], "standard", name="A")
            assert alone.room.setup.pace.name == "untimed"
            assert alone.room.info().pace == {
                "name": "untimed",
                "kind": "untimed",
                "base": None,
                "increment": None,
                "per_move": None,
                "away": None,
            }

    asyncio.run(run())


def test_a_live_clock_runs_for_the_person_to_move_and_adds_the_increment(tmp_path: Path) -> None:
    async def run() -> None:
        clock = ManualClock()
        async with hub_at(tmp_path / "s.db", clock) as hub:
            room = await two_people(hub, "fast")
            anna = await sit(room, 0)
            first = room.game.state.current_player
            await clock.advance(3)
            await person_moves(room, random.Random(1))
            state = json.loads(anna.sent[-1])
            assert state["type"] == "state"
            left = state["clock"]["left"]
            assert left[first] == 10_000 - 3_000 + 2_000
            mover = room.game.state.current_player
            assert state["clock"]["running"] == mover
            assert state["clock"]["deadline"] == state["clock"]["now"] + left[mover]

    asyncio.run(run())


def test_a_live_person_out_of_time_is_stood_in_then_takes_the_seat_back(tmp_path: Path) -> None:
    async def run() -> None:
        clock = ManualClock()
        async with hub_at(tmp_path / "s.db", clock) as hub:
            room, anna, ben, slow = await both_at_a_live_table(hub)
            await clock.advance(9.9)
            assert room.seats[slow].absent is None and not told(ben, "stand_in")
            await clock.advance(0.2)
            await until(lambda: bool(told(ben, "stand_in")), "the others are told")
            assert told(ben, "stand_in")[0] | {"type": 0} == {
                "type": 0,
                "seat": slow,
                "bot": "medium",
                "reason": "time",
                "move": 0,
            }
            table = told(anna, "table")[-1]
            assert table["seats"][slow]["absent"] == "time"
            # The stand-in plays the seat's move, marked as its.
            await until(lambda: room.move > 0, "the stand-in moves")
            assert room.standins.movers[0] == (slow, "medium")
            with pytest.raises(RoomError) as refused:
                await room.act(slow, room.move, "pass")
            assert refused.value.code == "stood_in"
            # The person comes back by saying hello again: the seat is theirs, with a reprieve.
            back = await sit(room, slow)
            assert room.seats[slow].absent is None
            assert told(back, "returned") or told(anna, "returned")
            assert room.clocks.left[slow] == REPRIEVE

    asyncio.run(run())


def test_coming_back_while_this_copy_is_a_move_behind_is_done_once_caught_up(
    tmp_path: Path,
) -> None:
    """Another process stored a move this copy has not heard of: the database refuses the
    return as made at an earlier move; the copy catches up and the person is back all the
    same, told so (it was lost without a word)."""

    async def run() -> None:
        clock = ManualClock()
        async with hub_at(tmp_path / "s.db", clock) as hub:
            room, anna, _ben, slow = await both_at_a_live_table(hub)
            await clock.advance(10.1)
            await until(lambda: room.seats[slow].absent == "time", "the stand-in plays")
            await until(lambda: room.game.state.current_player != slow, "the stand-in's turn")
            # The other person's move, stored as another process would: this copy is behind.
            other = room.game.state.current_player
            action = str(room.game.state.legal_actions()[0])
            await room.store.add_move(room.id, room.move, other, action, None)
            behind = room.move
            await room.standins.back(slow)
            assert room.move == behind + 1  # caught up
            assert room.seats[slow].absent is None
            assert told(anna, "returned")[-1]["seat"] == slow

    asyncio.run(run())


def test_a_person_disconnected_past_the_limit_is_stood_in(tmp_path: Path) -> None:
    async def run() -> None:
        clock = ManualClock()
        async with hub_at(tmp_path / "s.db", clock) as hub:
            room = await two_people(hub, "fast")
            waiting = 1 - room.game.state.current_player
            stays = await sit(room, 1 - waiting)
            going = Connection(Listener(), waiting)
            await room.connect(going)
            await room.disconnect(going)
            await clock.advance(4)
            assert room.seats[waiting].absent is None
            await clock.advance(1.5)
            await until(lambda: bool(told(stays, "stand_in")), "the stand-in is told")
            assert told(stays, "stand_in")[0]["reason"] == "away"
            assert room.seats[waiting].absent == "away"

    asyncio.run(run())


def test_a_turn_based_deadline_holds_across_a_restart(tmp_path: Path) -> None:
    async def run() -> None:
        clock = ManualClock()
        database = tmp_path / "s.db"
        async with hub_at(database, clock) as hub:
            room = await two_people(hub, "hour")
            table, first = room.id, room.game.state.current_player
            await clock.advance(1800)
        # The server restarts half an hour into the move: the day's clock goes on.
        async with hub_at(database, clock) as hub:
            await hub.resume()
            room = hub.rooms[table]
            await clock.advance(1799)
            assert room.seats[first].absent is None
            # To the hour, and no further: the stand-in thinks in a thread, and a clock moved on
            # before its move is stored would store it later (on a loaded machine).
            await clock.advance(1)
            await until(lambda: room.seats[first].absent == "time", "stood in after the hour")
            await until(lambda: room.move > 0, "the stand-in moves")
            await until(lambda: not room.botseats.thinking(), "the stand-in is done")
            moved_at = room.clocks.since  # when its last move was stored
            assert moved_at == 1_800_000_000 + 3600
        async with hub_at(database, clock) as hub:
            await hub.resume()
            room = hub.rooms[table]
            assert room.seats[first].absent == "time"
            assert room.standins.movers[0] == (first, "medium")
            second = room.game.state.current_player
            if second != first:
                assert room.clocks.deadline() == pytest.approx(moved_at + 3600, abs=0.01)

    asyncio.run(run())


def test_with_every_person_stood_in_the_game_waits_for_one_to_come_back(tmp_path: Path) -> None:
    """Two friends, each an hour late in turn: the stand-in plays the first one's turn while
    the other is there to play on, but with both away it waits, rather than play the game out
    between two bots; the first to come back has the stand-in play the other's moves again."""

    async def run() -> None:
        clock = ManualClock()
        async with hub_at(tmp_path / "s.db", clock) as hub:
            room = await two_people(hub, "hour")
            first = room.game.state.current_player
            second = 1 - first
            await clock.advance(3600)
            await until(lambda: room.game.state.current_player == second, "first's turn played")
            assert room.seats[first].absent == "time" and room.seats[second].absent is None
            await clock.advance(3600)
            await until(lambda: room.seats[second].absent == "time", "second stood in too")
            stopped = room.move
            await asyncio.sleep(0.3)  # time enough for a stand-in to move, were it to
            assert room.move == stopped and not room.botseats.thinking()
            assert room.game.state.current_player == second and not room.game.state.is_over()
            # The first comes back, told how many moves the stand-in made meanwhile; the
            # second's stand-in plays on, up to the first's turn.
            made = sum(1 for seat, by in room.standins.movers if seat == first and by)
            back = await sit(room, first)
            assert room.seats[first].absent is None
            assert [m["moves"] for m in told(back, "returned")] == [made] and made > 0
            await until(lambda: room.game.state.current_player == first, "second's turn played")
            assert room.move > stopped
            assert room.standins.movers[stopped][0] == second
            assert room.standins.movers[stopped][1] == "medium"

    asyncio.run(run())


@pytest.mark.parametrize("pace", ["fast", "hour"])
def test_a_planned_restart_gives_back_the_time_the_server_was_away(
    tmp_path: Path, pace: str
) -> None:
    """The one process stops (drains) 4 s into a move and starts 10 minutes later: the person
    to move has the time they had when it stopped, once, and not again at a later start."""

    async def run() -> None:
        clock = ManualClock()
        database = tmp_path / "s.db"
        async with hub_at(database, clock) as hub:
            room = await two_people(hub, pace)
            table, mover = room.id, room.game.state.current_player
            await clock.advance(4)
            before = room.clocks.deadline()
            assert before is not None
            await hub.drain(5)
        await clock.advance(600)
        async with hub_at(database, clock) as hub:
            await hub.resume()
            room = hub.rooms[table]
            assert room.clocks.running() == mover and room.seats[mover].absent is None
            assert room.clocks.deadline() == pytest.approx(before + 600, abs=0.01)
        # Killed this time (no drain), a minute later: the minute counts, nothing is given again.
        await clock.advance(60)
        async with hub_at(database, clock) as hub:
            await hub.resume()
            assert hub.rooms[table].clocks.deadline() == pytest.approx(before + 600, abs=0.01)

    asyncio.run(run())


def test_behind_a_bus_a_stopping_process_leaves_the_clocks_running(tmp_path: Path) -> None:
    """Other processes hold the table and play on: its clock must not stop with one of them."""

    async def run() -> None:
        clock = ManualClock()
        database = tmp_path / "s.db"
        async with hub_at(database, clock) as hub:
            room = await two_people(hub, "fast")
            table = room.id
            await clock.advance(4)
            before = room.clocks.deadline()
            hub.bus = cast(Any, object())  # a bus: nothing of it is used by the drain
            await hub.drain(5)
        await clock.advance(3)
        async with hub_at(database, clock) as hub:
            await hub.resume()
            assert hub.rooms[table].clocks.deadline() == pytest.approx(before, abs=0.01)

    asyncio.run(run())


def test_resigning_a_two_player_game_ends_it_and_the_other_wins(tmp_path: Path) -> None:
    async def run() -> None:
        async with hub_at(tmp_path / "s.db", ManualClock()) as hub:
            room = await two_people(hub, "hour")
            ben = await sit(room, 1)
            await room.standins.resign(0)
            assert room.status == "over"
            ending = told(ben, "table")[-1]["ending"]
            assert ending == {
                "how": "resigned",
                "move": 0,
                "seat": 0,
                "winners": [1],
                "resigned": [0],
                "stood_in": [0, 0],
            }
            from piepmatz.server import archive

            assert archive.record(room)["ending"] == ending
            with pytest.raises(RoomError) as refused:
                await room.act(1, 0, "pass")
            assert refused.value.code == "not_playing"
            stored = await hub.store.load((), table_id=room.id)
            assert stored[0].status == "over" and stored[0].ending == ending

    asyncio.run(run())


def test_resigning_at_three_the_stand_in_plays_on_to_the_end(tmp_path: Path) -> None:
    async def run() -> None:
        rng = random.Random(3)
        async with hub_at(tmp_path / "s.db", ManualClock()) as hub:
            room = await two_people(hub, "hour", third="random")
            await room.standins.resign(1)
            assert room.seats[1].absent == "resigned"
            with pytest.raises(RoomError) as refused:
                await room.standins.back(1)
            assert refused.value.code == "resigned"
            with pytest.raises(RoomError) as again:
                await room.standins.resign(1)
            assert again.value.code == "resigned"
            while room.status == "playing":
                if room.game.state.current_player == 0:
                    await person_moves(room, rng)
                else:
                    await settle()
            ending = room.ending
            assert ending is not None and ending["how"] == "played_out"
            assert ending["resigned"] == [1] and ending["stood_in"][1] > 0
            assert list(ending["winners"]) == list(room.game.score().winners)
            marks = archive_stand_ins(room)
            assert marks and {m["seat"] for m in marks} == {1}
            assert all(m["bot"] == "medium" for m in marks)

    asyncio.run(run())


def archive_stand_ins(room: Room) -> list[dict[str, Any]]:
    from piepmatz.server import archive

    record = archive.record(room)
    from piepmatz.core import Game

    assert Game.from_record(record).score().to_json() == record["result"]
    return list(record["stand_ins"])


def test_a_game_is_aborted_in_its_first_round_when_everyone_asks(tmp_path: Path) -> None:
    async def run() -> None:
        async with hub_at(tmp_path / "s.db", ManualClock()) as hub:
            room = await two_people(hub, "hour")
            anna = await sit(room, 0)
            await room.standins.abort(0)
            assert room.status == "playing"
            assert told(anna, "table")[-1]["abort"] == [0]
            await room.standins.abort(1)
            assert room.status == "over"
            assert room.ending is not None and room.ending["how"] == "aborted"
            assert room.ending["winners"] == []

    asyncio.run(run())


def test_a_game_past_its_first_round_cannot_be_aborted(tmp_path: Path) -> None:
    async def run() -> None:
        rng = random.Random(5)
        async with hub_at(tmp_path / "s.db", ManualClock()) as hub:
            room = await two_people(hub, "hour")
            anna = await sit(room, 0)
            await room.standins.abort(0)
            assert told(anna, "table")[-1]["abortable"]
            while room.game.state.turn <= 2:
                await person_moves(room, rng)
            assert not room.info().abortable
            # The move that ended the first round told everyone: no Abort button lingers.
            last = told(anna, "table")[-1]
            assert not last["abortable"] and last["abort"] == [0]
            with pytest.raises(RoomError) as refused:
                await room.standins.abort(0)
            assert refused.value.code == "not_abortable"
            assert room.status == "playing"

    asyncio.run(run())


def test_one_asks_to_abort_when_the_other_never_showed_up(tmp_path: Path) -> None:
    async def run() -> None:
        clock = ManualClock()
        async with hub_at(tmp_path / "s.db", clock) as hub:
            room = await two_people(hub, "hour")
            missing = room.game.state.current_player
            await clock.advance(3601)
            await until(lambda: room.seats[missing].absent == "time", "stood in")
            await room.standins.abort(1 - missing)
            assert room.status == "over"
            assert room.ending is not None and room.ending["how"] == "aborted"

    asyncio.run(run())


def test_a_table_still_waiting_is_aborted_by_whoever_sits_there(tmp_path: Path) -> None:
    async def run() -> None:
        async with hub_at(tmp_path / "s.db", ManualClock()) as hub:
            opened = await hub.open(["human", "human"], "standard", name="Anna")
            anna = await sit(opened.room, 0)
            await opened.room.standins.abort(0)
            assert opened.room.status == "over"
            assert not told(anna, "state")  # the stand-in deal was never shown

    asyncio.run(run())


def test_the_player_key_says_hello_for_its_seats(tmp_path: Path) -> None:
    async def run() -> None:
        async with hub_at(tmp_path / "s.db", ManualClock()) as hub:
            room = await two_people(hub, "hour")
            assert room.seat_for(KEY, await hub.players.identify(KEY)) == 0
            assert room.seat_for(KEY) is None  # not a seat's own token
            games = await hub.store.games_of(room.seats[0].player_hash or "", 50)
            assert [(g.table_id, g.seat) for g in games] == [(room.id, 0)]

    asyncio.run(run())


def test_my_games_lists_a_players_tables_their_turn_first(server: str) -> None:
    async def run() -> None:
        anna, ben = "a" * 43, "b" * 43
        assert [p["name"] for p in await get(server, "/api/paces")] == [
            "live",
            "turn-based",
            "untimed",
        ]
        tables = []
        for _ in range(2):
            opened = await post(
                server,
                "/api/tables",
                {"seats": ["human", "human"], "name": "Anna", "player": anna, "pace": "live"},
            )
            invite = opened["invites"][0]
            await post(
                server,
                f"/api/tables/{opened['table']}/join",
                {"name": "Ben", "token": invite["token"], "player": ben},
                200,
            )
            tables.append(opened["table"])
        quick = await post(server, "/api/quick", {"name": "Anna", "player": anna, "players": 2})
        async with httpx.AsyncClient(base_url=f"http://{server}") as http:
            for wrong in ({}, {"Authorization": "Bearer short"}, {"Authorization": anna}):
                refused = await http.get("/api/games", headers=wrong)
                assert refused.status_code == 401
                assert "Authorization: Bearer" in refused.json()["detail"]
            nobody = await http.get("/api/games", headers={"Authorization": "Bearer " + "c" * 43})
            assert nobody.json() == {"playing": [], "finished": []}
            mine = (
                await http.get("/api/games", headers={"Authorization": f"Bearer {anna}"})
            ).json()
            theirs = (
                await http.get("/api/games", headers={"Authorization": f"Bearer {ben}"})
            ).json()
        listed = [g["table"] for g in mine["playing"]]
        assert sorted(listed) == sorted([*tables, quick["table"]])
        turns = [g["your_turn"] for g in mine["playing"]]
        assert turns == sorted(turns, reverse=True), "their turn first"
        assert {g["table"] for g in theirs["playing"]} == set(tables)
        for game in mine["playing"]:
            if game["table"] in tables:
                assert game["players"] == ["Anna", "Ben"] and game["pace"] == "live"
                other = next(g for g in theirs["playing"] if g["table"] == game["table"])
                assert game["your_turn"] != other["your_turn"]  # one of them is to move
        # The key says hello for the seat, so the page needs no token in its address.
        async with SeatClient.connect(ws_url(server, tables[0]), anna) as seat:
            welcome = await seat.until("welcome")
            assert welcome["seat"] == 0
            await seat.send({"type": "resign"})
            while (await seat.until("table"))["status"] != "over":
                pass
        async with httpx.AsyncClient(base_url=f"http://{server}") as http:
            mine = (
                await http.get("/api/games", headers={"Authorization": f"Bearer {anna}"})
            ).json()
        assert [g["table"] for g in mine["finished"]] == [tables[0]]
        assert mine["finished"][0]["ending"]["how"] == "resigned"
        assert mine["finished"][0]["players"] == ["Anna", "Ben"]
        assert tables[0] not in [g["table"] for g in mine["playing"]]

    asyncio.run(run())


def test_my_games_says_when_a_bot_plays_the_players_seat(server: str) -> None:
    """Anna resigns at a table of three: the game goes on, with her seat the stand-in's, and
    her list says so; Ben's seat is his."""

    async def run() -> None:
        anna, ben = "d" * 43, "e" * 43
        seats = {"seats": ["human", "human", "random"], "name": "Anna", "player": anna}
        opened = await post(server, "/api/tables", seats)
        body = {"name": "Ben", "token": opened["invites"][0]["token"], "player": ben}
        await post(server, f"/api/tables/{opened['table']}/join", body, 200)
        async with SeatClient.connect(ws_url(server, opened["table"]), anna) as seat:
            await seat.until("welcome")
            await seat.send({"type": "resign"})
            while (await seat.until("table"))["seats"][0]["absent"] != "resigned":
                pass
        async with httpx.AsyncClient(base_url=f"http://{server}") as http:
            for key, absent in ((anna, "resigned"), (ben, None)):
                games = await http.get("/api/games", headers={"Authorization": f"Bearer {key}"})
                (game,) = games.json()["playing"]
                assert game["absent"] == absent and not (absent and game["your_turn"])

    asyncio.run(run())


def test_a_request_names_paces_and_stand_ins_from_the_offered_lists_only(server: str) -> None:
    async def run() -> None:
        for body, field in (
            ({"pace": "/etc/passwd"}, "pace: not a pace this server offers"),
            ({"stand_in": "ismcts:time=1e9"}, "stand_in: not a bot this server offers"),
            ({"resign": "surrender"}, "resign"),
            ({"player": "not a key"}, "player"),
        ):
            answer = await post(
                server, "/api/tables", {"seats": ["human", "human"], "name": "A", **body}, 422
            )
            assert field in answer["detail"]
            assert "passwd" not in answer["detail"] and "1e9" not in answer["detail"]

    asyncio.run(run())


def test_a_seat_the_stand_in_plays_is_sent_no_choices(tmp_path: Path) -> None:
    async def run() -> None:
        clock = ManualClock()
        async with hub_at(tmp_path / "s.db", clock) as hub:
            room = await two_people(hub, "hour", third=None)
            slow = room.game.state.current_player
            # The stand-in thinks in the pool: held back, so that the position stays.
            room.bots.choose_or_fallback = never  # type: ignore[method-assign]
            seen = await sit(room, slow)
            assert told(seen, "state")[-1]["legal"]
            async with room.lock:
                await room.standins.replace_locked(slow, Absence.TIME)
            state = told(seen, "state")[-1]
            assert state["legal"] == [] and state["choices"] == []
            assert state["clock"]["running"] is None

    asyncio.run(run())


async def never(*args: object, **kwargs: object) -> object:
    await asyncio.Event().wait()
    raise AssertionError
