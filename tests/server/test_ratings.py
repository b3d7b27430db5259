"""Ratings for people: a rated table's game, once over, moves each person's rating as OpenSkill's
Plackett-Luce model says (2 and 3 players, a tie, a bot's fixed rating); the games that are never
rated and the anti-farming rules are kept. The tables are driven through the hub, without a
network; their time is a :class:`ManualClock`."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
from contextlib import AbstractAsyncContextManager
from datetime import timedelta
from typing import Any

import httpx
import pytest
from openskill.models import PlackettLuce
from sqlalchemy import select, update

from piepmatz.core.scoring import PlayerScore, ScoreSheet
from piepmatz.server import admin, db, ratings
from piepmatz.server.client import SeatClient
from piepmatz.server.hub import Hub, TableRefused
from piepmatz.server.pace import PaceRoster
from piepmatz.server.ratings import BOT_RATINGS, MU, SIGMA, judge
from piepmatz.server.room import Room
from piepmatz.server.roster import BotRoster
from piepmatz.server.seats import token_hash
from serverplay import ManualClock, local_hub, play_randomly, running_server, settle, ws_url

PACES = PaceRoster.build(["hour=turn:1h"])
ANNA, BEN, CLARA = "a" * 43, "b" * 43, "c" * 43
_DAY = timedelta(hours=24, minutes=1)


def hub_on(
    url: str, clock: ManualClock | None = None, roster: BotRoster | None = None
) -> AbstractAsyncContextManager[Hub]:
    return local_hub(url, clock or ManualClock(), PACES, roster)


async def rated_table(hub: Hub, kinds: list[str], keys: list[str], **options: Any) -> Room:
    """A rated table of ``kinds``, its people sat down with ``keys`` in order, playing."""
    people = [i for i, k in enumerate(kinds) if k == "human"]
    opened = await hub.open(
        kinds, "standard", name="P0", pace="hour", player=keys[0], rated=True, **options
    )
    for seat, key in zip(people[1:], keys[1:], strict=True):
        await opened.room.take_seat(seat, f"P{seat}", opened.tokens[seat], player=key)
    return opened.room


async def play_out(room: Room, rng: random.Random) -> None:
    """The people play random legal moves (the bots theirs) until the game is over."""
    while room.status == "playing":
        state = room.game.state
        if (
            room.seats[state.current_player].is_human
            and room.seats[state.current_player].absent is None
        ):
            await room.act(state.current_player, room.move, rng.choice(state.legal_action_ids()))
        else:
            await settle()


async def row(hub: Hub, key: str) -> Any:
    async with hub.store.reading() as conn:
        return (
            await conn.execute(select(db.players).where(db.players.c.id == token_hash(key)))
        ).first()


async def history(hub: Hub, key: str) -> list[Any]:
    async with hub.store.reading() as conn:
        return list(
            await conn.execute(
                select(db.rating_history)
                .where(db.rating_history.c.player_id == token_hash(key))
                .order_by(db.rating_history.c.id)
            )
        )


def expected(priors: list[tuple[float, float]], places: list[int]) -> list[tuple[float, float]]:
    model = PlackettLuce()
    teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma in priors]
    return [(t[0].mu, t[0].sigma) for t in model.rate(teams, ranks=[float(p) for p in places])]


def test_a_rated_two_player_game_moves_both_ratings_as_plackett_luce_says(
    database_url: str,
) -> None:
    async def run() -> None:
        async with hub_on(database_url) as hub:
            room = await rated_table(hub, ["human", "human"], [ANNA, BEN])
            await play_out(room, random.Random(1))
            places = judge(room)
            assert places is not None and places.reason is None
            winners = set(room.game.score().winners)
            assert [p == 1 for p in places.places] == [i in winners for i in range(2)]
            want = expected([(MU, SIGMA)] * 2, places.places)
            for seat, key in enumerate((ANNA, BEN)):
                found = await row(hub, key)
                assert found.rated_games == 1
                assert (found.mu, found.sigma) == pytest.approx(want[seat])
                (entry,) = await history(hub, key)
                assert entry.table_id == room.id and entry.place == places.places[seat]
                assert entry.players == 2
            if len(winners) == 1:
                (winner,) = winners
                assert (await row(hub, (ANNA, BEN)[winner])).mu > MU
                assert (await row(hub, (ANNA, BEN)[1 - winner])).mu < MU
            # Rated once: the same end heard again changes nothing.
            await hub.ratings.rate(room)
            assert len(await history(hub, ANNA)) == 1

    asyncio.run(run())


def test_a_rated_three_player_game_with_a_bot_uses_its_fixed_rating(tmp_path: Any) -> None:
    async def run() -> None:
        async with hub_on(f"sqlite+aiosqlite:///{tmp_path / 's.db'}") as hub:
            room = await rated_table(hub, ["human", "human", "greedy"], [ANNA, BEN])
            await play_out(room, random.Random(2))
            verdict = judge(room)
            assert verdict is not None and verdict.reason is None and verdict.rated == [0, 1]
            want = expected([(MU, SIGMA), (MU, SIGMA), BOT_RATINGS["greedy"]], verdict.places)
            for seat, key in enumerate((ANNA, BEN)):
                found = await row(hub, key)
                assert (found.mu, found.sigma) == pytest.approx(want[seat])
            assert BOT_RATINGS["greedy"] == (32.2, 1.7), "a bot's rating is never updated"
            async with hub.store.reading() as conn:
                rows = (await conn.execute(select(db.players.c.id))).all()
            assert len(rows) == 2, "a bot has no row"

    asyncio.run(run())


def test_a_tie_shares_the_place_and_the_update(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three people; seats 0 and 1 tie for the win (E5: equal totals and birds)."""

    def tied(_state: object) -> ScoreSheet:
        totals = [(40, 12), (40, 12), (30, 9)]
        scores = [
            PlayerScore(i, 0, 0, 0, {}, birds, total) for i, (total, birds) in enumerate(totals)
        ]
        return ScoreSheet(tuple(scores), {}, (0, 1), None, True)

    monkeypatch.setattr(ratings, "score_state", tied)

    async def run() -> None:
        async with hub_on(f"sqlite+aiosqlite:///{tmp_path / 's.db'}") as hub:
            room = await rated_table(hub, ["human"] * 3, [ANNA, BEN, CLARA])
            await play_out(room, random.Random(3))
            verdict = judge(room)
            assert verdict is not None and verdict.places == [1, 1, 3]
            anna, ben, clara = [await row(hub, k) for k in (ANNA, BEN, CLARA)]
            assert anna.mu == pytest.approx(ben.mu) and anna.sigma == pytest.approx(ben.sigma)
            assert anna.mu > MU > clara.mu
            assert [h.place for k in (ANNA, BEN, CLARA) for h in await history(hub, k)] == [
                1,
                1,
                3,
            ]

    asyncio.run(run())


def test_a_resignation_is_the_result_as_recorded(tmp_path: Any) -> None:
    async def run() -> None:
        async with hub_on(f"sqlite+aiosqlite:///{tmp_path / 's.db'}") as hub:
            room = await rated_table(hub, ["human", "human"], [ANNA, BEN])
            await room.standins.resign(0)
            want = expected([(MU, SIGMA)] * 2, [2, 1])
            assert ((await row(hub, ANNA)).mu, (await row(hub, BEN)).mu) == pytest.approx(
                (want[0][0], want[1][0])
            )

    asyncio.run(run())


def test_tables_that_could_never_be_rated_are_refused_when_opened(tmp_path: Any) -> None:
    async def run() -> None:
        async with hub_on(f"sqlite+aiosqlite:///{tmp_path / 's.db'}") as hub:
            refusals = {
                "seed": {"seed": 7},
                "hints": {"hints": True},
            }
            for word, options in refusals.items():
                with pytest.raises(TableRefused, match=word):
                    await hub.open(
                        ["human", "random"],
                        "standard",
                        name="A",
                        player=ANNA,
                        rated=True,
                        **options,
                    )
            with pytest.raises(TableRefused, match="player key"):
                await hub.open(["human", "random"], "standard", name="A", rated=True)
            assert not hub.rooms

    asyncio.run(run())


def test_a_rated_tables_bots_are_those_with_a_fixed_rating(tmp_path: Any) -> None:
    async def run() -> None:
        roster = BotRoster.build(["deep=ismcts:iterations=10"])
        async with hub_on(f"sqlite+aiosqlite:///{tmp_path / 's.db'}", roster=roster) as hub:
            with pytest.raises(TableRefused, match="deep has no fixed rating"):
                await hub.open(["human", "deep"], "standard", name="A", player=ANNA, rated=True)
            opened = await hub.open(["human", "deep"], "standard", name="A", player=ANNA)
            assert not opened.room.setup.rated

    asyncio.run(run())


def test_never_rated_a_chosen_deal_an_abort_or_one_player_at_two_seats(tmp_path: Any) -> None:
    async def run() -> None:
        async with hub_on(f"sqlite+aiosqlite:///{tmp_path / 's.db'}") as hub:
            # A chosen deal (a table stored rated by hand: the open refuses it).
            opened = await hub.open(["human", "random"], "standard", name="A", player=ANNA, seed=4)
            room = opened.room
            room.setup = dataclasses.replace(room.setup, rated=True)
            await play_out(room, random.Random(4))
            verdict = judge(room)
            assert verdict is not None and verdict.reason == "a person chose the deal"
            # Aborted in the first round.
            aborted = await rated_table(hub, ["human", "human"], [ANNA, BEN])
            await aborted.standins.abort(0)
            await aborted.standins.abort(1)
            assert aborted.status == "over"
            verdict = judge(aborted)
            assert verdict is not None and verdict.reason == "aborted"
            assert await rating_of(hub, aborted.id) == db.RATING_DONE
            # Closed by the operator (an abort too).
            closed = await rated_table(hub, ["human", "human"], [ANNA, BEN])
            await admin.close_table(hub.store.engine, closed.id)
            assert await rating_of(hub, closed.id) == db.RATING_DONE
            assert await row(hub, ANNA) is None and await row(hub, BEN) is None
            # One player at both seats of a rated table is refused.
            twice = await hub.open(
                ["human", "human"], "standard", name="A", pace="hour", player=ANNA, rated=True
            )
            with pytest.raises(Exception, match="rated table already"):
                await twice.room.take_seat(1, "A again", twice.tokens[1], player=ANNA)

    asyncio.run(run())


def test_a_person_who_left_takes_last_place_and_nobody_else_is_rated(tmp_path: Any) -> None:
    """Ben's time runs out: the stand-in plays his seat (a bot played for a person), so Anna's
    game is not rated; Ben's is, as last, so that leaving never saves a rating."""

    async def run() -> None:
        clock = ManualClock()
        async with hub_on(f"sqlite+aiosqlite:///{tmp_path / 's.db'}", clock) as hub:
            room = await rated_table(hub, ["human", "human"], [ANNA, BEN])
            rng = random.Random(5)
            while room.game.state.current_player != 1:
                await room.act(0, room.move, rng.choice(room.game.state.legal_action_ids()))
            await clock.advance(3601)
            await settle()
            assert room.seats[1].absent == "time"
            await play_out(room, rng)
            verdict = judge(room)
            assert verdict is not None and verdict.left == (1,) and verdict.places[1] == 2
            assert await history(hub, ANNA) == []
            ben = await row(hub, BEN)
            assert ben.rated_games == 1 and ben.mu < MU

    asyncio.run(run())


def test_the_same_people_count_three_times_a_day(tmp_path: Any) -> None:
    async def run() -> None:
        async with hub_on(f"sqlite+aiosqlite:///{tmp_path / 's.db'}") as hub:
            for _ in range(ratings.SAME_PEOPLE_PER_DAY + 1):
                room = await rated_table(hub, ["human", "human"], [ANNA, BEN])
                await room.standins.resign(0)
            assert (await row(hub, ANNA)).rated_games == ratings.SAME_PEOPLE_PER_DAY
            assert len(await history(hub, BEN)) == ratings.SAME_PEOPLE_PER_DAY
            # The verdict not to rate the last is kept: no start judges it again.
            assert await rating_of(hub, room.id) == db.RATING_DONE
            assert await hub.judge_unrated() == 0
            # Another person is other people: Anna and Clara count.
            room = await rated_table(hub, ["human", "human"], [ANNA, CLARA])
            await room.standins.resign(1)
            assert (await row(hub, ANNA)).rated_games == ratings.SAME_PEOPLE_PER_DAY + 1
            # A day later they count again.
            async with hub.store.writing() as conn:
                await conn.execute(
                    update(db.rating_history).values(at=db.rating_history.c.at - _DAY)
                )
            again = await rated_table(hub, ["human", "human"], [ANNA, BEN])
            await again.standins.resign(0)
            assert (await row(hub, BEN)).rated_games == ratings.SAME_PEOPLE_PER_DAY + 1

    asyncio.run(run())


async def rating_of(hub: Hub, table_id: str) -> str | None:
    async with hub.store.reading() as conn:
        found: str | None = await conn.scalar(
            select(db.tables.c.rating).where(db.tables.c.id == table_id)
        )
        return found


def test_a_game_whose_process_died_before_rating_it_is_rated_at_the_next_start(
    database_url: str,
) -> None:
    """The end is stored and the process dies before it rates the game: the next start rates
    it, as of its last move, exactly as the process would have; and only once."""

    async def run() -> None:
        async with hub_on(database_url) as hub:
            room = await rated_table(hub, ["human", "human"], [ANNA, BEN])
            room.on_over = None  # the process is gone before what follows the end
            await play_out(room, random.Random(6))
            verdict = judge(room)
            assert verdict is not None and verdict.reason is None
            table = room.id
            assert await history(hub, ANNA) == [] and await row(hub, ANNA) is None
            assert await rating_of(hub, table) == db.RATING_DUE
            assert await hub.store.rating_due() == [table]
            (stored,) = await hub.store.load((), table_id=table)
        want = expected([(MU, SIGMA)] * 2, verdict.places)
        for start in range(2):
            async with hub_on(database_url) as hub:
                await hub.resume()
                assert table not in hub.rooms  # over: rated, not held
                assert await rating_of(hub, table) == db.RATING_DONE
                assert await hub.store.rating_due() == []
                for seat, key in enumerate((ANNA, BEN)):
                    found = await row(hub, key)
                    assert found.rated_games == 1, f"start {start}: rated once"
                    assert (found.mu, found.sigma) == pytest.approx(want[seat])
                    (entry,) = await history(hub, key)
                    assert entry.place == verdict.places[seat]
                    assert entry.at.timestamp() == pytest.approx(stored.last_at / 1000)

    asyncio.run(run())


def test_two_processes_judging_one_game_rate_it_once(postgres_url: str) -> None:
    """Two processes start at once and both find the same game due: the table's row is locked
    while it is judged, so the second finds it done."""

    async def run() -> None:
        async with hub_on(postgres_url) as hub:
            rooms = []
            for _ in range(4):
                room = await rated_table(hub, ["human", "human"], [ANNA, BEN])
                room.on_over = None
                await room.standins.resign(0)
                rooms.append(room.id)
        async with hub_on(postgres_url) as one, hub_on(postgres_url) as two:
            judged = await asyncio.gather(one.judge_unrated(), two.judge_unrated())
            assert await one.store.rating_due() == []
            # Both may have seen the four as due; each game was rated by exactly one of them.
            assert sum(judged) >= 4
            entries = await history(one, BEN)
            assert sorted(e.table_id for e in entries) == sorted(
                rooms[: ratings.SAME_PEOPLE_PER_DAY]
            )

    asyncio.run(run())


async def _set(hub: Hub, key: str, mu: float, games: int) -> None:
    await hub.players.ensure(token_hash(key))
    async with hub.store.writing() as conn:
        await conn.execute(
            update(db.players)
            .where(db.players.c.id == token_hash(key))
            .values(mu=mu, sigma=2.0, rated_games=games)
        )


def test_games_against_bots_count_while_provisional_or_within_reach(tmp_path: Any) -> None:
    async def run() -> None:
        async with hub_on(f"sqlite+aiosqlite:///{tmp_path / 's.db'}") as hub:

            async def games_after(bot: str) -> int:
                room = await rated_table(hub, ["human", bot], [ANNA])
                await room.standins.resign(0)
                return int((await row(hub, ANNA)).rated_games)

            best = BOT_RATINGS["medium"][0] + ratings.REACH
            await _set(hub, ANNA, best + 1, ratings.PROVISIONAL_GAMES)
            assert await games_after("medium") == ratings.PROVISIONAL_GAMES, "out of reach"
            assert await games_after("hard") == ratings.PROVISIONAL_GAMES + 1, "within reach"
            await _set(hub, ANNA, best + 1, ratings.PROVISIONAL_GAMES - 1)
            assert await games_after("random") == ratings.PROVISIONAL_GAMES, "provisional"

    asyncio.run(run())


def test_a_players_page_shows_the_rating_and_tells_nothing_hidden(sqlite_url: str) -> None:
    async def run() -> None:
        with running_server(sqlite_url) as address:
            async with httpx.AsyncClient(base_url=f"http://{address}") as http:
                quick = {"name": "Anna", "player": ANNA, "players": 2, "bot": "random"}
                hinted = await http.post("/api/quick", json=quick | {"rated": True})
                assert hinted.status_code == 422 and "hints" in hinted.json()["detail"]
                rated = quick | {"rated": True, "hints": False}
                done = (await http.post("/api/quick", json=rated)).json()
                going = (await http.post("/api/quick", json=rated)).json()
                async with SeatClient.connect(ws_url(address, done["table"]), done["token"]) as s:
                    await s.until("welcome")
                    await play_randomly(s, random.Random(6))
                # Rated once the end is stored, just after the last state is sent.
                for _ in range(200):
                    mine = (
                        await http.get("/api/account", headers={"Authorization": f"Bearer {ANNA}"})
                    ).json()
                    if mine["rated_games"]:
                        break
                    await asyncio.sleep(0.05)
                assert mine["rated_games"] == 1 and mine["provisional"]
                page = (await http.get(f"/api/players/{mine['page']}")).json()
                assert page["rating"] == mine["rating"] != 1000
                assert [h["table"] for h in page["history"]] == [done["table"]]
                assert page["history"][0]["players"] == 2
                seats = (await http.get(f"/api/tables/{going['table']}/ratings")).json()
                assert seats["rated"] is True
                assert [s["rating"] for s in seats["seats"]] == [
                    mine["rating"],
                    ratings.bot_shown("random"),
                ]
                assert seats["seats"][0]["page"] == mine["page"]
                unrated = (await http.post("/api/quick", json=quick)).json()
                assert (await http.get(f"/api/tables/{unrated['table']}/ratings")).json() == {
                    "rated": False,
                    "seats": [],
                }
                missing = await http.get("/api/players/nobody")
                assert missing.status_code == 404 and "no player" in missing.json()["detail"]
                # Nothing of a key: neither the key, nor its hash (the player's id), nor a
                # seat's credential; nothing of the game still going.
                told = json.dumps(page) + json.dumps(seats) + json.dumps(mine)
                for secret in (ANNA, token_hash(ANNA), done["token"], token_hash(done["token"])):
                    assert secret not in told
                assert going["table"] not in json.dumps(page)

    asyncio.run(run())
