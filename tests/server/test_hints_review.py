"""Hints at tables where every person allowed them, and the review of a finished game: from the
seat's view only, refused clearly otherwise, searched in the bot pool with small budgets."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from piepmatz.bots.analysis import GRADE_NAMES, decisions, review_game
from piepmatz.core import Game, State
from piepmatz.core.view import determinise, view_of
from piepmatz.server import archive
from piepmatz.server.client import SeatClient
from piepmatz.server.pool import Analysis
from piepmatz.server.reviews import REVIEW_SEED
from piepmatz.server.room import Room
from piepmatz.server.seats import RoomError
from scenarios import scenario
from serverplay import (
    PATIENCE,
    get,
    play_randomly,
    playing_room,
    post,
    running_server,
    until,
    ws_url,
)

#: Small budgets, so that a hint or a whole review takes a fraction of a second.
HINT_BOT = "ismcts:iterations=300"
BUDGETS = {"hint_bot": HINT_BOT, "hint_iterations": 100, "review_iterations": 8}


@pytest.fixture
def address(sqlite_url: str) -> Iterator[str]:
    with running_server(sqlite_url, **BUDGETS) as address:
        yield address


async def _answer(client: SeatClient) -> dict[str, Any]:
    """The next ``hint`` or ``error`` message."""
    while True:
        message = await asyncio.wait_for(client.receive(), PATIENCE)
        if message["type"] in ("hint", "error"):
            return message


async def _ask(client: SeatClient, move: int) -> dict[str, Any]:
    await client.send({"type": "hint", "move": move})
    return await _answer(client)


# ---------------------------------------------------------------------- over the network


def test_hints_are_off_unless_every_person_allowed_them(address: str) -> None:
    async def run() -> None:
        # Anna allows hints, Ben joins without: hints are off, and everyone is told so.
        made = await post(
            address,
            "/api/tables",
            {"seats": ["human", "human"], "name": "Anna", "hints": True},
        )
        info = await get(address, f"/api/tables/{made['table']}")
        assert info["hints"] is False, "a free seat has not allowed them yet"
        await post(
            address,
            f"/api/tables/{made['table']}/join",
            {"name": "Ben", "token": made["invites"][0]["token"]},
            status=200,
        )
        info = await get(address, f"/api/tables/{made['table']}")
        assert [s["hints"] for s in info["seats"]] == [True, False]
        assert info["hints"] is False
        async with SeatClient.connect(ws_url(address, made["table"]), made["token"]) as anna:
            table = await until(anna, "table")
            assert table["hints"] is False
            state = anna.state or await until(anna, "state")
            refused = await _ask(anna, state["move"])
            assert refused == {
                "type": "error",
                "code": "hints_off",
                "message": "hints are off at this table: not every person allowed them",
            }

    asyncio.run(run())


def test_a_hint_is_refused_to_spectators_out_of_turn_and_for_another_move(address: str) -> None:
    async def run() -> None:
        made = await post(
            address,
            "/api/tables",
            {"seats": ["human", "human"], "name": "Anna", "hints": True},
        )
        joined = await post(
            address,
            f"/api/tables/{made['table']}/join",
            {"name": "Ben", "token": made["invites"][0]["token"], "hints": True},
            status=200,
        )
        assert (await get(address, f"/api/tables/{made['table']}"))["hints"] is True
        url = ws_url(address, made["table"])
        tokens = {made["seat"]: made["token"], joined["seat"]: joined["token"]}
        async with (
            SeatClient.connect(url, tokens[0]) as first,
            SeatClient.connect(url, tokens[1]) as second,
            SeatClient.connect(url, made["spectator_token"]) as spectator,
        ):
            state = await until(first, "state")
            await until(second, "state")
            await until(spectator, "state")
            move = state["move"]
            seats = {0: first, 1: second}
            me = state["view"]["current_player"]
            mover, waiter = seats[me], seats[1 - me]
            watching = await _ask(spectator, move)
            assert (watching["type"], watching["code"]) == ("error", "spectator")
            waiting = await _ask(waiter, move)
            assert (waiting["type"], waiting["code"]) == ("error", "not_your_turn")
            for stale in (move + 1, move + 7):
                late = await _ask(mover, stale)
                assert (late["type"], late["code"]) == ("error", "stale")
            # Two requests at once: one is worked out, the other refused while it is.
            await mover.send({"type": "hint", "move": move})
            await mover.send({"type": "hint", "move": move})
            answers = [await _answer(mover), await _answer(mover)]
            kinds = sorted((a["type"], a.get("code")) for a in answers)
            assert kinds == [("error", "hint_busy"), ("hint", None)]
            given = next(a for a in answers if a["type"] == "hint")
            legal = (await asyncio.wait_for(_state_of(mover, move), PATIENCE))["legal"]
            assert given["move"] == move and given["action"] in legal
            assert given["bot"] == HINT_BOT and given["worlds"] == 100
            assert given["lead_spread"] > 0 and 0 <= given["win"] <= 1
            # Asked again for the same decision: the same hint, at once.
            assert await _ask(mover, move) == given
            # The seat still plays its own move (a hint changes nothing).
            await mover.act(legal[0], move)
            assert (await until(mover, "ack"))["move"] == move

    asyncio.run(run())


async def _state_of(client: SeatClient, move: int) -> dict[str, Any]:
    if client.state is not None and client.state["move"] == move:
        return client.state
    while True:
        state = await client.until("state")
        if state["move"] == move:
            return state


def test_a_quick_game_has_hints_unless_turned_off(address: str) -> None:
    async def run() -> None:
        on = await post(address, "/api/quick", {"name": "Anna", "players": 2, "bot": "random"})
        off = await post(
            address, "/api/quick", {"name": "Anna", "players": 2, "bot": "random", "hints": False}
        )
        assert (await get(address, f"/api/tables/{on['table']}"))["hints"] is True
        assert (await get(address, f"/api/tables/{off['table']}"))["hints"] is False

    asyncio.run(run())


# ---------------------------------------------------------------------- the room directly


def _free_pair() -> State:
    """Player 0 holds CH2f and has CH2m in the collection: after a play that does not chase
    (T2.2), collecting CH2f makes a mated pair (5 points) at no cost."""
    state = scenario(
        rows=[["BL6m"], ["SP6m"]],
        hands=[["BU3m", "CH2f", "GR5m", "SP1f"], ["GR6f", "BU1m", "BL4f", "SP2m"]],
        collections=[["CH2m"], []],
        display=["BL1f", "BL2f", "BL3f"],
    )
    state.apply("play BU3m 1")
    return state


async def _hint_at(tmp_path: Path, name: str, state: State) -> dict[str, Any]:
    """The room's hint for seat 0 at a table whose game stands at ``state``."""
    async with playing_room(tmp_path / f"{name}.db", 2, "standard", 11) as room:
        room.game.state = state
        for seat in room.seats:
            seat.hints = True
        room.bots.analysis = Analysis(HINT_BOT, 100)
        answer: dict[str, Any] = json.loads(await room.advice.hint(0, room.move))
        return answer


def test_the_hint_for_a_free_mated_pair_is_to_collect_it(tmp_path: Path) -> None:
    answer = asyncio.run(_hint_at(tmp_path, "pair", _free_pair()))
    assert answer["action"] == "collect CH2f"
    assert answer["lead_spread"] > 0 and answer["worlds"] == 100


def test_a_hint_depends_on_nothing_hidden_from_the_seat(tmp_path: Path) -> None:
    view = view_of(_free_pair(), 0)
    first, second = (determinise(view, random.Random(s)) for s in (1, 2))
    assert (first.hands[1], first.bird_deck) != (second.hands[1], second.bird_deck)
    assert view_of(first, 0) == view_of(second, 0) == view
    hints = [asyncio.run(_hint_at(tmp_path, f"w{i}", s)) for i, s in enumerate((first, second))]
    assert hints[0] == hints[1]
    assert hints[0]["action"] == "collect CH2f"


def test_a_seat_that_has_not_allowed_hints_keeps_them_off(tmp_path: Path) -> None:
    async def run() -> None:
        async with playing_room(tmp_path / "off.db", 2, "standard", 11) as room:
            room.seats[0].hints = True
            with pytest.raises(RoomError, match="hints are off") as refused:
                await room.advice.hint(room.game.state.current_player, room.move)
            assert refused.value.code == "hints_off"
            assert room.info().hints is False

    asyncio.run(run())


def test_consent_to_hints_is_stored_with_the_table(tmp_path: Path) -> None:
    async def run() -> None:
        async with playing_room(tmp_path / "kept.db", 2, "standard", 11) as room:
            room.seats[1].token_hash = room.seats[1].name = None
            room.status = "waiting"
            await room.store.create(_renamed(room))
            stored_room = archive.from_stored(
                (await room.store.load((), table_id="again"))[0],
                room.store,
                room.bots,
                room.clocks.clock,
            )
            assert [s.hints for s in stored_room.seats] == [False, False]
            await stored_room.take_seat(1, "Ben", "a-token", hints=True)
            again = (await room.store.load((), table_id="again"))[0]
            assert [s.hints for s in again.seats] == [False, True]

    asyncio.run(run())


def _renamed(room: Room) -> Any:
    stored = archive.to_stored(room)
    stored.id = "again"
    return stored


# ---------------------------------------------------------------------- the review


def test_the_review_comes_after_the_end_and_is_the_search_of_the_seats_view(
    address: str,
) -> None:
    async def run() -> None:
        made = await post(
            address, "/api/quick", {"name": "Anna", "players": 2, "bot": "random", "seed": 8}
        )
        path = f"/api/tables/{made['table']}/review"
        early = await get(address, f"{path}?player=0", status=409)
        assert "not over" in early["detail"]
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            czech = await http.get(path, params={"player": 0}, headers={"accept-language": "cs"})
            assert czech.status_code == 409 and "neskončila" in czech.json()["detail"]
        async with SeatClient.connect(ws_url(address, made["table"]), made["token"]) as anna:
            await play_randomly(anna, random.Random(2))
        record = await get(address, f"/api/tables/{made['table']}/record")
        game = Game.from_record(record)
        unknown = await get(address, f"{path}?player=2", status=422)
        assert "no player 2" in unknown["detail"]
        await get(address, "/api/tables/nonesuch/review?player=0", status=404)

        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            first = await http.get(path, params={"player": 1})
            assert first.status_code == 202
            total = len(list(decisions(game, 1)))
            assert first.json() == {"status": "computing", "done": 0, "total": total}
            while (answer := await http.get(path, params={"player": 1})).status_code == 202:
                progress = answer.json()
                assert 0 <= progress["done"] <= total
                await asyncio.sleep(0.05)
            assert answer.status_code == 200, answer.text
            review = answer.json()
            # Asked again: kept, so it is answered at once (never 202 again).
            again = await http.get(path, params={"player": 1})
            assert again.status_code == 200 and again.json() == review

        expected = review_game(game, 1, iterations=8, seed=REVIEW_SEED)
        assert review["player"] == 1 and review["iterations"] == 8
        assert review["decisions"] == [r.to_json() for r in expected]
        assert [d["index"] for d in review["decisions"]] == [d.index for d in decisions(game, 1)]
        for d in review["decisions"]:
            assert d["played"] == record["actions"][d["index"]]
            assert d["grade"] in GRADE_NAMES
        summary = review["summary"]
        assert summary["decisions"] == total
        assert sum(summary["grades"].values()) == total
        assert summary["loss"] == pytest.approx(sum(d["loss"] for d in review["decisions"]), 1e-2)

    asyncio.run(run())


def test_tables_stored_before_hints_keep_their_seats_with_hints_off(database_url: str) -> None:
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import insert, select

    from piepmatz.server import db

    def to_first(connection: Any) -> None:
        config = Config()
        config.set_main_option("script_location", str(Path(db.__file__).parent / "migrations"))
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")

    async def run() -> None:
        engine = db.make_engine(database_url)
        try:
            async with engine.begin() as conn:
                await conn.run_sync(to_first)
                await conn.execute(
                    insert(db.tables).values(
                        id="old",
                        options={},
                        status="waiting",
                        public=False,
                        spectator_hash="x",
                        created=datetime.now(UTC),
                    )
                )
                # Only the columns of the first schema: the new one has a server default.
                await conn.execute(insert(db.seats).values(table_id="old", seat=0, kind="human"))
            await db.upgrade(engine)
            async with engine.connect() as conn:
                rows = (await conn.execute(select(db.seats.c.seat, db.seats.c.hints))).all()
            assert [tuple(r) for r in rows] == [(0, False)]
        finally:
            await engine.dispose()

    asyncio.run(run())


def test_the_terminal_game_and_the_server_hint_the_same_position_alike(tmp_path: Path) -> None:
    """One seed scheme (``bots.review.hint_seed``): the same decision of the same game gets the
    same hint in the terminal game as at the server."""
    from piepmatz.bots.analysis import hint
    from piepmatz.tui.hints import hint_seed

    async def run() -> tuple[Game, dict[str, Any]]:
        async with playing_room(tmp_path / "same.db", 2, "standard", 11) as room:
            for seat in room.seats:
                seat.hints = True
            room.bots.analysis = Analysis(HINT_BOT, 100)
            seat = room.game.state.current_player
            answer: dict[str, Any] = json.loads(await room.advice.hint(seat, room.move))
            return room.game, answer

    game, answer = asyncio.run(run())
    terminal = hint(game.view(game.state.current_player), hint_seed(game), HINT_BOT, 100)
    assert answer["action"] == terminal.estimate.text
    assert answer["lead"] == round(terminal.estimate.lead, 3)
