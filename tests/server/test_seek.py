"""Find a game over HTTP: people seeking the same game are seated together (by rating where
several wait), never with someone either of them blocked; a seek may be cancelled, filled with
bots after the wait, and leaves the list once nobody asks about it; bad requests are refused.
And two server processes on one PostgreSQL database pair people seeking at each of them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import insert, update

from piepmatz.server import db
from piepmatz.server.client import SeatClient
from piepmatz.server.pairing import Pairing, PairingRules, Waiting, choose
from piepmatz.server.players import Players
from piepmatz.server.seats import token_hash
from serverplay import local_hub, running_server, until, ws_url
from serverprocs import free_port, serve_process

SRC = Path(__file__).resolve().parents[2] / "src"
#: Far apart ratings wait: the window never widens in these tests unless one says so.
STILL = PairingRules(bots_after=60, widen=0)


def key(letter: str) -> str:
    """A player's key (as a browser makes it)."""
    return letter * 43


def bearer(letter: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key(letter)}"}


async def rows(url: str, table: Any, *values: dict[str, Any]) -> None:
    """Write rows straight into the database (ratings, blocks, bans the other parts make)."""
    engine = db.make_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.execute(insert(table), list(values))
    finally:
        await engine.dispose()


async def ban(url: str, letter: str) -> None:
    """The operator bans the player (as ``piepmatz admin ban`` does)."""
    engine = db.make_engine(url)
    try:
        async with engine.begin() as conn:
            banned = update(db.players).where(db.players.c.id == token_hash(key(letter)))
            await conn.execute(banned.values(banned=datetime.now(UTC), ban_reason="spam"))
    finally:
        await engine.dispose()


def player(letter: str, **columns: Any) -> dict[str, Any]:
    return {"id": token_hash(key(letter)), "created": datetime.now(UTC)} | columns


@asynccontextmanager
async def http(address: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=f"http://{address}", timeout=30) as client:
        yield client


async def seek(
    client: httpx.AsyncClient, letter: str, players: int = 2, pace: str = "live", status: int = 201
) -> dict[str, Any]:
    body = {"players": players, "pace": pace, "name": f"Player {letter}"}
    answer = await client.post("/api/seek", json=body, headers=bearer(letter))
    assert answer.status_code == status, answer.text
    found: dict[str, Any] = answer.json()
    return found


async def where(client: httpx.AsyncClient, letter: str, status: int = 200) -> dict[str, Any]:
    answer = await client.get("/api/seek", headers=bearer(letter))
    assert answer.status_code == status, answer.text
    found: dict[str, Any] = answer.json()
    return found


async def sit(client: httpx.AsyncClient, letter: str, table: str) -> dict[str, Any]:
    """Take the seat reserved for the player, with their key and their part of the deal."""
    body = {"name": f"Player {letter}", "player": key(letter), "deal_part": letter * 32}
    answer = await client.post(f"/api/tables/{table}/join", json=body)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def tables_of(*answers: dict[str, Any]) -> set[str]:
    return {a["table"] for a in answers}


def test_groups_of_four_gather_the_nearest_ratings_none_kept_apart() -> None:
    now = datetime.now(UTC)
    ratings = {"a": 25.0, "b": 26.0, "c": 24.0, "d": 27.0, "e": 25.5, "f": 40.0}
    waiting = [
        Waiting(p, p, r, now - timedelta(seconds=10 - i))
        for i, (p, r) in enumerate(ratings.items())
    ]
    apart = {frozenset("ae")}  # a blocked e, or e blocked a
    group = choose(waiting, apart, 4, 3.0, now)
    assert group is not None and [w.player for w in group] == ["a", "b", "c", "d"]
    # a cannot make four (d kept apart too, f too far): the next longest waiting, b, can.
    group = choose(waiting, apart | {frozenset("ad")}, 4, 3.0, now)
    assert group is not None and [w.player for w in group] == ["b", "e", "d", "c"]
    # The longest waiting, a, has waited 10 s: at 1.5 a second f is near enough.
    group = choose(waiting, apart | {frozenset("ad")}, 4, 3.0, now, widen=1.5)
    assert group is not None and [w.player for w in group] == ["a", "b", "c", "f"]


def test_a_claim_that_fails_stores_no_table_and_keeps_everyone_waiting(tmp_path: Path) -> None:
    """A process that loses the race for a group (or dies half-way) leaves no table behind: the
    table and the claim of the rows are one transaction."""

    async def run() -> None:
        async with local_hub(tmp_path / "server.db") as hub:
            await rows(
                f"sqlite+aiosqlite:///{tmp_path / 'server.db'}", db.players, player("b", mu=40)
            )
            pairing = Pairing(hub, Players(hub.store), STILL)  # 15 apart: they wait
            for letter in "ab":
                await pairing.seek(token_hash(key(letter)), letter, 2, "live")
            pairing.rules = PairingRules(spread=20)
            waiting, apart = await pairing._waiting(2, "live")
            assert len(waiting) == 2 and apart == set()

            async def lost(conn: Any, table_id: str) -> None:
                await pairing._claim(conn, table_id, waiting, [0, 1])  # seats them...
                raise RuntimeError("the process died")  # ...and the transaction goes

            with pytest.raises(RuntimeError):
                await hub.open(["human", "human"], "standard", name=None, pace="live", claim=lost)
            assert await hub.store.load(("waiting", "playing")) == [] and hub.rooms == {}
            assert (await pairing.status(token_hash(key("a")), pair=False))["status"] == "waiting"
            # The next pairing seats them once.
            assert await pairing.pair(2, "live") == 1
            assert await pairing.pair(2, "live") == 0
            tables = await hub.store.load(("waiting",))
            assert len(tables) == 1
            for letter in "ab":
                seated = await pairing.status(token_hash(key(letter)))
                assert seated["status"] == "seated" and seated["table"] == tables[0].id

    asyncio.run(run())


@pytest.fixture
def still(sqlite_url: str) -> Iterator[str]:
    with running_server(sqlite_url, pairing=STILL) as address:
        yield address


def test_two_seeking_the_same_game_sit_at_one_rated_table(database_url: str) -> None:
    async def run(address: str) -> None:
        async with http(address) as client:
            first = await seek(client, "a")
            assert (first["status"], first["others"], first["players"]) == ("waiting", 0, 2)
            assert first["bots_after"] == STILL.bots_after
            # Another game (three players, or another pace) is another list.
            assert (await seek(client, "c", players=3))["status"] == "waiting"
            assert (await seek(client, "d", pace="turn-based"))["status"] == "waiting"
            second = await seek(client, "b")
            assert second["status"] == "seated"
            mine = await where(client, "a")
            assert mine["status"] == "seated" and mine["table"] == second["table"]
            assert {mine["seat"], second["seat"]} == {0, 1}
            table = second["table"]
            info = (await client.get(f"/api/tables/{table}")).json()
            # Nobody sits until they come, nobody else may take the seat, and it is not listed.
            assert info["status"] == "waiting" and [s["name"] for s in info["seats"]] == [None] * 2
            assert info["pace"]["name"] == "live" and info["rated"] is True
            assert table not in tables_of(*(await client.get("/api/tables")).json())
            stranger = {"name": "Eve", "player": key("e"), "deal_part": "e" * 32}
            refused = await client.post(f"/api/tables/{table}/join", json=stranger)
            assert refused.status_code == 403
            anna, ben = await sit(client, "a", table), await sit(client, "b", table)
            assert (anna["seat"], ben["seat"]) == (mine["seat"], second["seat"])
            info = (await client.get(f"/api/tables/{table}")).json()
            assert info["status"] == "playing" and info["commitment"]
            # Seated: the seek is done, and a second sitting finds no seat reserved.
            assert "not looking" in (await where(client, "a", 404))["detail"]
            again = {"name": "Player a", "player": key("a"), "deal_part": "a" * 32}
            assert (await client.post(f"/api/tables/{table}/join", json=again)).status_code == 403
            # The seat's own token plays it.
            async with SeatClient.connect(ws_url(address, table), anna["token"]) as seat:
                assert (await until(seat, "welcome"))["seat"] == anna["seat"]
                assert (await until(seat, "state"))["move"] == 0
            assert (await where(client, "c"))["status"] == "waiting"

    with running_server(database_url, pairing=STILL) as address:
        asyncio.run(run(address))


def test_three_seeking_three_players_sit_at_one_table(still: str) -> None:
    async def run() -> None:
        async with http(still) as client:
            await seek(client, "a", players=3)
            second = await seek(client, "b", players=3)
            assert (second["status"], second["others"]) == ("waiting", 1)
            third = await seek(client, "c", players=3)
            assert third["status"] == "seated"
            answers = [await where(client, letter) for letter in "ab"] + [third]
            assert len(tables_of(*answers)) == 1
            assert sorted(a["seat"] for a in answers) == [0, 1, 2]
            for letter in "abc":
                await sit(client, letter, third["table"])
            info = (await client.get(f"/api/tables/{third['table']}")).json()
            assert info["status"] == "playing"

    asyncio.run(run())


def test_where_several_wait_the_closest_ratings_sit_together(sqlite_url: str) -> None:
    async def run(address: str) -> None:
        ratings = {"a": 10.0, "b": 40.0, "c": 38.5, "d": 11.0}
        await rows(sqlite_url, db.players, *(player(p, mu=mu) for p, mu in ratings.items()))
        async with http(address) as client:
            assert (await seek(client, "a"))["status"] == "waiting"
            assert (await seek(client, "b"))["status"] == "waiting"  # 30 apart: not yet
            c = await seek(client, "c")  # closest to b, though a waited longer
            assert c["status"] == "seated" and (await where(client, "a"))["status"] == "waiting"
            assert (await where(client, "b"))["table"] == c["table"]
            d = await seek(client, "d")
            assert d["status"] == "seated" and (await where(client, "a"))["table"] == d["table"]

    with running_server(sqlite_url, pairing=STILL) as address:
        asyncio.run(run(address))


def test_ratings_far_apart_meet_once_they_have_waited(sqlite_url: str) -> None:
    async def run(address: str) -> None:
        await rows(sqlite_url, db.players, player("a", mu=10.0), player("b", mu=40.0))
        async with http(address) as client:
            await seek(client, "a")
            await seek(client, "b")
            for _ in range(100):  # the window widens by 20 a second: 30 apart in 1.5 s
                if (found := await where(client, "b"))["status"] == "seated":
                    break
                await asyncio.sleep(0.1)
            assert found["status"] == "seated"
            assert (await where(client, "a"))["table"] == found["table"]

    with running_server(sqlite_url, pairing=PairingRules(spread=0, widen=20)) as address:
        asyncio.run(run(address))


def test_nobody_is_seated_with_someone_either_of_them_blocked(sqlite_url: str) -> None:
    async def run(address: str) -> None:
        a, b, c = (token_hash(key(p)) for p in "abc")
        now = datetime.now(UTC)
        await rows(sqlite_url, db.players, player("a"), player("b"), player("c"))
        await rows(
            sqlite_url,
            db.blocks,
            {"player_id": a, "blocked_id": b, "since": now},  # a blocked b
            {"player_id": c, "blocked_id": a, "since": now},  # c blocked a
        )
        async with http(address) as client:
            await seek(client, "a")
            assert (await seek(client, "b"))["status"] == "waiting"
            assert (await seek(client, "c"))["status"] == "seated"  # with b; a blocked both ways
            assert (await where(client, "b"))["table"] == (await where(client, "c"))["table"]
            assert (await where(client, "a"))["status"] == "waiting"
            assert (await seek(client, "d"))["status"] == "seated"
            assert (await where(client, "a"))["table"] == (await where(client, "d"))["table"]

    with running_server(sqlite_url, pairing=STILL) as address:
        asyncio.run(run(address))


def test_a_seek_given_up_leaves_the_list(still: str) -> None:
    async def run() -> None:
        async with http(still) as client:
            await seek(client, "a")
            assert (await client.delete("/api/seek", headers=bearer("a"))).status_code == 204
            await where(client, "a", 404)
            assert (await seek(client, "b"))["others"] == 0
            assert (await client.delete("/api/seek", headers=bearer("a"))).status_code == 404
            # A seat reserved is given up the same way (the table's absent rules do the rest).
            seated = await seek(client, "c")
            assert seated["status"] == "seated"
            assert (await client.delete("/api/seek", headers=bearer("b"))).status_code == 204
            body = {"name": "B", "player": key("b"), "deal_part": "b" * 32}
            joined = await client.post(f"/api/tables/{seated['table']}/join", json=body)
            assert joined.status_code == 403

    asyncio.run(run())


def test_after_the_wait_bots_fill_the_empty_seats(sqlite_url: str) -> None:
    async def run(address: str) -> None:
        async with http(address) as client:
            await seek(client, "a", players=3)
            early = await client.post("/api/seek/bots", json={}, headers=bearer("a"))
            assert early.status_code == 409 and "after 0.5 s" in early.json()["detail"]
            await asyncio.sleep(0.6)
            made = await client.post(
                "/api/seek/bots", json={"deal_part": "a" * 32}, headers=bearer("a")
            )
            assert made.status_code == 201, made.text
            table = (await client.get(f"/api/tables/{made.json()['table']}")).json()
            assert table["status"] == "playing" and table["rated"] is True
            assert sorted(s["kind"] for s in table["seats"]) == ["human", "medium", "medium"]
            assert table["seats"][made.json()["seat"]]["name"] == "Player a"
            await where(client, "a", 404)
            # With someone else waiting, they come too: one bot in the seat left.
            await seek(client, "b", players=3)
            await seek(client, "c", players=3)
            await asyncio.sleep(0.6)
            made = await client.post("/api/seek/bots", json={}, headers=bearer("c"))
            assert made.status_code == 201, made.text
            reserved = await where(client, "b")
            assert reserved["table"] == made.json()["table"] and reserved["status"] == "seated"
            await sit(client, "b", reserved["table"])
            table = (await client.get(f"/api/tables/{reserved['table']}")).json()
            assert sorted(s["kind"] for s in table["seats"]) == ["human", "human", "medium"]
            assert table["status"] == "playing"

    with running_server(sqlite_url, pairing=PairingRules(bots_after=0.5, widen=0)) as address:
        asyncio.run(run(address))


def test_a_banned_player_may_not_seek(sqlite_url: str) -> None:
    async def run(address: str) -> None:
        banned = player("a", banned=datetime.now(UTC), ban_reason="insults in the chat")
        await rows(sqlite_url, db.players, banned)
        async with http(address) as client:
            refused = await seek(client, "a", status=403)
            assert "insults in the chat" in refused["detail"]
            assert (await seek(client, "b"))["others"] == 0
            # Banned while waiting: never seated, nor given bots.
            await seek(client, "c", players=3)
            await ban(sqlite_url, "c")
            await seek(client, "d", players=3)
            assert (await seek(client, "e", players=3))["status"] == "waiting"
            assert (await where(client, "d"))["others"] == 1  # e, not c
            await asyncio.sleep(0.6)
            bots = await client.post("/api/seek/bots", json={}, headers=bearer("c"))
            assert bots.status_code == 403 and "spam" in bots.json()["detail"]

    rules = PairingRules(bots_after=0.5, widen=0)
    with running_server(sqlite_url, pairing=rules) as address:
        asyncio.run(run(address))


def test_bad_seeks_are_refused_saying_what_was_wrong(still: str) -> None:
    async def run() -> None:
        async with http(still) as client:
            unknown = await seek(client, "a", pace="../../etc/passwd", status=422)
            assert "live, turn-based, untimed" in unknown["detail"]
            assert "passwd" not in unknown["detail"]  # what was sent is not repeated
            assert "no clock" in (await seek(client, "a", pace="untimed", status=422))["detail"]
            assert "players" in (await seek(client, "a", players=5, status=422))["detail"]
            nameless = await client.post(
                "/api/seek", json={"players": 2, "pace": "live"}, headers=bearer("a")
            )
            assert nameless.status_code == 422 and "name" in nameless.json()["detail"]
            anonymous = await client.post("/api/seek", json={"players": 2, "pace": "live"})
            assert anonymous.status_code == 401
            await where(client, "a", 404)  # nothing refused was kept
            await seek(client, "a")
            assert "already" in (await seek(client, "a", status=409))["detail"]
            assert (await where(client, "a"))["others"] == 0

    asyncio.run(run())


def test_serve_refuses_a_seek_bot_it_cannot_rate_and_a_negative_wait(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from piepmatz.cli import main

    assert main(["serve", "--seek-bot", "../bot"]) == 2
    assert "--seek-bot: not a bot this server offers" in capsys.readouterr().err
    assert main(["serve", "--bot", "quick=greedy", "--seek-bot", "quick"]) == 2
    assert "quick has no fixed rating: choose one of random, easy" in capsys.readouterr().err
    assert main(["serve", "--seek-bots-after", "-1"]) == 2
    assert "--seek-bots-after must be 0 or more seconds, not -1" in capsys.readouterr().err


def test_a_seek_nobody_asks_about_leaves_the_list(sqlite_url: str) -> None:
    async def run(address: str) -> None:
        await rows(sqlite_url, db.players, player("a", mu=10.0), player("b", mu=40.0))
        async with http(address) as client:
            await seek(client, "a")
            await seek(client, "b")  # too far from a to sit together
            for _ in range(8):  # asked about (for longer than a seek stays unasked): kept
                for letter in "ab":
                    assert (await where(client, letter))["status"] == "waiting"
                await asyncio.sleep(0.2)
            await asyncio.sleep(1.3)
            assert (await seek(client, "c"))["status"] == "waiting"  # not with a nor b: gone
            assert "not looking" in (await where(client, "a", 404))["detail"]
            assert (await where(client, "c"))["others"] == 0

    with running_server(sqlite_url, pairing=PairingRules(stale=1, widen=0)) as address:
        asyncio.run(run(address))


def test_two_processes_on_one_database_pair_people_seeking_at_each(
    postgres_url: str, redis_url: str, tmp_path: Path
) -> None:
    """Ten people seek a two-player game at once, five at each process: five tables, each
    person seated once; the first two then sit down, each at their own process, and play."""
    options = ("--database-url", postgres_url, "--redis", redis_url, "--bot-workers", "0")
    options += ("--tables-per-minute", "0")

    async def run(a: str, b: str) -> None:
        letters = "abcdefghij"
        async with http(a) as at_a, http(b) as at_b:
            clients = [at_a if i % 2 == 0 else at_b for i in range(len(letters))]
            await asyncio.gather(*(seek(c, p) for c, p in zip(clients, letters, strict=True)))
            for _ in range(50):  # a process that lost every race pairs on the next question
                answers = [await where(c, p) for c, p in zip(clients, letters, strict=True)]
                if all(answer["status"] == "seated" for answer in answers):
                    break
                await asyncio.sleep(0.2)
            assert all(answer["status"] == "seated" for answer in answers)
            seats = [(answer["table"], answer["seat"]) for answer in answers]
            assert len(set(seats)) == 10 and len(tables_of(*answers)) == 5
            table = answers[0]["table"]
            partner = next(i for i in range(1, 10) if answers[i]["table"] == table)
            mine = await sit(clients[0], "a", table)
            theirs = await sit(clients[partner], letters[partner], table)
            urls = [ws_url(a if i % 2 == 0 else b, table) for i in (0, partner)]
            async with (
                SeatClient.connect(urls[0], mine["token"]) as first,
                SeatClient.connect(urls[1], theirs["token"]) as second,
            ):
                assert (await until(first, "welcome"))["seat"] == mine["seat"]
                assert (await until(second, "welcome"))["seat"] == theirs["seat"]
                dealt = await until(first, "state"), await until(second, "state")
                assert dealt[0]["move"] == dealt[1]["move"] == 0

    with ExitStack() as stack:
        started = []
        for name in ("a", "b"):
            port = free_port()
            log = stack.enter_context((tmp_path / f"serve-{name}.log").open("ab"))
            stack.enter_context(serve_process(port, *options, pythonpath=str(SRC), output=log))
            started.append(f"127.0.0.1:{port}")
        asyncio.run(run(*started))
