"""Two ``piepmatz serve`` processes, one PostgreSQL database and one Redis: the same tables.

Players connected to different processes play one game; a process killed mid-game leaves its
players to finish at the other; bots move once per turn however many processes hold the table.
"""

from __future__ import annotations

import asyncio
import random
import signal
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, ExitStack, asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from piepmatz.core import Game, GameOptions
from piepmatz.server import db
from piepmatz.server.client import SeatClient
from piepmatz.server.store import MoveTaken, Store, StoredSeat, StoredTable
from serverplay import (
    get,
    open_table,
    play_and_kill,
    play_randomly,
    post,
    sheet_from_json,
    until,
    ws_url,
)
from serverprocs import free_port, serve_process

SRC = Path(__file__).resolve().parents[2] / "src"
# The two processes the tests share (a module fixture) start once: one worker runs the module.
pytestmark = pytest.mark.xdist_group("scaleout")


@contextmanager
def two_servers(
    postgres_url: str, redis_url: str, folder: Path
) -> Iterator[list[tuple[str, subprocess.Popen[bytes]]]]:
    """Two server processes on their own ports, sharing the database and Redis; started one
    after the other (the first migrates the schema)."""
    options = ("--database-url", postgres_url, "--redis", redis_url, "--bot-workers", "0")
    options += ("--tables-per-minute", "0")  # the tests open tables by the dozen
    options += ("--pace", "quick=turn:3s")  # a day's move in three seconds
    with ExitStack() as stack:
        started = []
        for name in ("a", "b"):
            port = free_port()
            log = stack.enter_context((folder / f"serve-{name}.log").open("ab"))
            process = stack.enter_context(
                serve_process(port, *options, pythonpath=str(SRC), output=log)
            )
            started.append((f"127.0.0.1:{port}", process))
        yield started


@pytest.fixture(scope="module")
def pair(
    module_postgres_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    """Two processes for the tests that leave them running (each opens tables of its own)."""
    folder = tmp_path_factory.mktemp("pair")
    with two_servers(module_postgres_url, redis_url, folder) as [(a, _), (b, _)]:
        yield a, b


def replayed_result(record: dict[str, Any]) -> dict[str, Any]:
    return replay(record)[0]


def replay(record: dict[str, Any]) -> tuple[dict[str, Any], list[int]]:
    """The score sheet of the record replayed, and who took each action."""
    game = Game(GameOptions.from_json(record["options"]))
    players = []
    for action in record["actions"]:
        players.append(game.state.current_player)
        game.apply(action)
    assert game.state.is_over()
    result: dict[str, Any] = game.score().to_json()
    return result, players


def moves_seen(client: SeatClient) -> list[int]:
    return [m["move"] for m in client.received if m["type"] == "state"]


async def _across_processes(a: str, b: str) -> None:
    table = await open_table(a, ["human", "human", "random"])
    anna_url, ben_url = ws_url(a, table["table"]), ws_url(b, table["table"])
    async with (
        SeatClient.connect(anna_url, table["token"]) as anna,
        SeatClient.connect(ben_url, table["second_token"]) as ben,
        SeatClient.connect(ben_url, table["spectator_token"]) as watcher,
    ):
        await until(anna, "state")
        # Ben's hello done first: a line said while a hello is under way can miss the newcomer
        # (read neither with the history nor live), a race this test is not about.
        await until(ben, "state")
        await anna.send({"type": "chat", "text": "hello from process a"})
        heard = await until(ben, "chat")
        assert (heard["name"], heard["text"]) == ("Anna", "hello from process a")
        ends = await asyncio.wait_for(
            asyncio.gather(
                play_randomly(anna, random.Random(1)),
                play_randomly(ben, random.Random(2)),
                play_randomly(watcher, random.Random(3)),
            ),
            120,
        )
    record = await get(a, f"/api/tables/{table['table']}/record")
    assert await get(b, f"/api/tables/{table['table']}/record") == record
    assert ends[0]["result"] == ends[1]["result"] == ends[2]["result"] == record["result"]
    assert record["result"] == replayed_result(record)
    assert sheet_from_json(record["result"]).final
    last = len(record["actions"])
    for client in (anna, ben, watcher):
        # Each process sent every move on its own, as it happened: one state per move, in order.
        seen = sorted(set(moves_seen(client)))
        assert seen == list(range(seen[0], last + 1))
        assert moves_seen(client) == sorted(moves_seen(client))
        # A bot that moved twice for one turn would have been refused and said so.
        assert [m for m in client.received if m["type"] == "error"] == []
    assert 2 in replay(record)[1], "the bot played"


async def _bot_seated_across_processes(a: str, b: str) -> None:
    """Anna, at process a, lets a bot take the free seat; Ben, at b, hears the game begin."""
    table = await open_table(a, ["human", "human", "human"])
    async with (
        SeatClient.connect(ws_url(a, table["table"]), table["token"]) as anna,
        SeatClient.connect(ws_url(b, table["table"]), table["second_token"]) as ben,
    ):
        await until(anna, "welcome")
        await until(ben, "table")  # Ben's hello done: the game's start reaches him live
        await anna.send({"type": "seat_bot", "seat": 2, "bot": "random"})
        ends = await asyncio.wait_for(
            asyncio.gather(
                play_randomly(anna, random.Random(1)), play_randomly(ben, random.Random(2))
            ),
            120,
        )
    record = await get(b, f"/api/tables/{table['table']}/record")
    assert [s["kind"] for s in record["seats"]] == ["human", "human", "random"]
    assert ends[0]["result"] == ends[1]["result"] == record["result"] == replayed_result(record)
    assert 2 in replay(record)[1], "the bot played"


def test_a_bot_seated_at_one_process_plays_for_the_people_at_both(pair: tuple[str, str]) -> None:
    asyncio.run(_bot_seated_across_processes(*pair))


async def _turn_based_across_processes(a: str, b: str) -> None:
    key = "q" * 43  # Ben's browser's player key
    body = {"seats": ["human", "human"], "name": "Anna", "pace": "quick"}
    opened = await post(a, "/api/tables", body)
    table, ben_token = opened["table"], opened["invites"][0]["token"]
    joined = {"name": "Ben", "token": ben_token, "player": key}
    # Anna is at the table before the game starts: the clock starts when Ben sits down.
    async with SeatClient.connect(ws_url(a, table), opened["token"]) as anna:
        # Her hello done first (her table tells she is there): a slow hello could otherwise
        # end after the first stand-ins, and she would hear only later ones.
        await until(anna, "table")
        await post(b, f"/api/tables/{table}/join", joined, 200)
        async with SeatClient.connect(ws_url(b, table), ben_token) as ben:
            state = await until(anna, "state")
            slow = state["clock"]["running"]
            assert state["clock"]["deadline"] - state["clock"]["now"] <= 3000
            # Nobody moves: when the move's time is up one process stands in, and both tell.
            first = {"type": "stand_in", "seat": slow, "bot": "medium", "reason": "time", "move": 0}
            assert await until(anna, "stand_in") == first
            heard = await until(ben, "stand_in")
            # Ben said hello at the other process after Ben's join; on a loaded machine that
            # can take longer than the move's 3 s, and then his first table already shows the
            # seat stood in (the news came before him).
            tables = [m for m in ben.received if m["type"] == "table"]
            if tables[0]["seats"][slow].get("absent") != "time":
                assert heard == first
            seat = (anna, ben)[slow]
            # The stand-in moves for the seat (the bot thinks at one process, the lease holder's).
            while (await until(seat, "state"))["move"] == 0:
                pass
            await seat.send({"type": "back"})
            back = [await until(client, "returned") for client in (anna, ben)]
            assert back[0]["seat"] == back[1]["seat"] == slow
            await anna.send({"type": "resign"})
            over = [await until(client, "table") for client in (anna, ben)]
            while over[1]["status"] != "over":
                over[1] = await until(ben, "table")
    # "My games" at the other process lists the table (the database holds the player's seats).
    async with httpx.AsyncClient(base_url=f"http://{a}") as http:
        mine = await http.get("/api/games", headers={"Authorization": f"Bearer {key}"})
    assert [(g["table"], g["seat"]) for g in mine.json()["finished"]][:1] == [(table, 1)]
    record = await get(b, f"/api/tables/{table}/record")
    assert record["ending"]["how"] == "resigned" and record["ending"]["winners"] == [1]
    # One stand-in moved for the seat whose time ran out. (On a busy machine the other seat's
    # 3 s may run out too before the resignation: a later move, not this test's point.)
    assert record["stand_ins"][0] == {"move": 0, "seat": slow, "bot": "medium"}
    assert record == await get(a, f"/api/tables/{table}/record")


def test_a_turn_based_table_across_two_processes_stands_in_once(pair: tuple[str, str]) -> None:
    asyncio.run(asyncio.wait_for(_turn_based_across_processes(*pair), 60))


def test_players_at_two_processes_play_one_game_with_a_bot(pair: tuple[str, str]) -> None:
    asyncio.run(_across_processes(*pair))


async def _killed(a: str, b: str, process: subprocess.Popen[bytes]) -> None:
    table = await open_table(a, ["human", "human", "random"])
    acked: list[tuple[int, str]] = []
    # Anna plays at process a, Ben at b; a is killed, Anna comes back at b.
    async with (
        SeatClient.connect(ws_url(a, table["table"]), table["token"]) as anna,
        SeatClient.connect(ws_url(b, table["table"]), table["second_token"]) as ben,
    ):
        rngs = random.Random(1), random.Random(2)
        first = asyncio.create_task(play_and_kill(anna, rngs[0], process, 12, acked))
        ben_state = asyncio.create_task(play_randomly(ben, rngs[1]))
        await asyncio.wait_for(first, 60)
        assert process.returncode == -signal.SIGKILL
        async with SeatClient.connect(ws_url(b, table["table"]), table["token"]) as again:
            state = await until(again, "state")
            assert state["move"] > max(m for m, _ in acked), "every acknowledged move is there"
            if state["legal"]:
                await again.act(rngs[0].choice(state["legal"]), state["move"])
            ends = await asyncio.wait_for(
                asyncio.gather(play_randomly(again, rngs[0]), ben_state), 120
            )
    record = await get(b, f"/api/tables/{table['table']}/record")
    for move, action in acked:
        assert record["actions"][move] == action
    assert ends[0]["result"] == ends[1]["result"] == record["result"] == replayed_result(record)


def test_a_killed_process_leaves_its_players_to_finish_at_the_other(
    postgres_url: str, redis_url: str, tmp_path: Path
) -> None:
    with two_servers(postgres_url, redis_url, tmp_path) as [(a, process), (b, _)]:
        asyncio.run(_killed(a, b, process))


# ---------------------------------------------------------------------- the same-seat race

RACES = 50


async def _race(first: str, second: str) -> int:
    """Both people have two connections, one at ``first`` and one at ``second``; at every
    decision both of the deciding seat's connections send an action for the same move at once.
    Returns how many races were run (tables are played to the end until there were enough)."""
    races = 0
    while races < RACES:
        table = await open_table(first, ["human", "human"])
        tokens = [table["token"], table["second_token"]]
        async with _two_each(table["table"], tokens, first, second) as seats:
            acked: dict[int, str] = {}
            state = seats[0][0].state
            assert state is not None
            while state["result"] is None:
                move, player = state["move"], state["view"]["current_player"]
                pair = seats[player]
                legal = [s.state["legal"] for s in pair if s.state is not None]
                assert all(legal) and len(legal) == 2
                rng = random.Random(move)
                actions = [rng.choice(legal[0]), rng.choice(legal[1])]
                await asyncio.gather(*(c.act(a, move) for c, a in zip(pair, actions, strict=True)))
                answers = await asyncio.gather(*(_answer(c) for c in pair))
                won = [a for a in answers if a["type"] == "ack"]
                lost = [a for a in answers if a["type"] == "error"]
                assert len(won) == 1 and len(lost) == 1, answers
                assert won[0]["move"] == move
                acked[move] = won[0]["action"]
                races += 1
                # Every connection, at both processes, is shown the one move that was played.
                every = [c for pair in seats for c in pair]
                states = await asyncio.gather(*(_state_after(c, move) for c in every))
                assert len({s["move"] for s in states}) == 1
                state = states[0]
                # Refused as answering an old position, or, when the move it lost to ended the
                # game, as coming after the end.
                if state["result"] is not None and lost[0]["code"] == "not_playing":
                    assert lost[0]["message"] == "the game is over"
                else:
                    assert lost[0]["code"] == "stale" and "not played" in lost[0]["message"]
            record = await get(second, f"/api/tables/{table['table']}/record")
            assert await get(first, f"/api/tables/{table['table']}/record") == record
            assert {m: record["actions"][m] for m in acked} == acked
            assert len(record["actions"]) == len(acked), "one action for each race, no more"
            assert record["result"] == replayed_result(record) == state["result"]
    return races


@asynccontextmanager
async def _two_each(
    table: str, tokens: list[str], first: str, second: str
) -> AsyncIterator[list[list[SeatClient]]]:
    """Two connections for each seat: ``[seat][0]`` at ``first``, ``[seat][1]`` at ``second``."""
    async with AsyncExitStack() as stack:
        seats = []
        for token in tokens:
            pair = []
            for address in (first, second):
                client = await stack.enter_async_context(
                    SeatClient.connect(ws_url(address, table), token)
                )
                await until(client, "state")
                pair.append(client)
            seats.append(pair)
        yield seats


async def _answer(client: SeatClient) -> dict[str, Any]:
    while True:
        message = await asyncio.wait_for(client.receive(), 30)
        if message["type"] in ("ack", "error"):
            return message


async def _state_after(client: SeatClient, move: int) -> dict[str, Any]:
    while client.state is None or client.state["move"] <= move:
        await asyncio.wait_for(client.receive(), 30)
    return client.state


def test_the_same_seat_racing_itself_at_one_process_plays_one_move(server: str) -> None:
    assert asyncio.run(_race(server, server)) >= RACES


def test_the_same_seat_racing_itself_at_two_processes_plays_one_move(
    pair: tuple[str, str],
) -> None:
    assert asyncio.run(_race(*pair)) >= RACES


# ---------------------------------------------------------------------- the store decides


async def _one_commit_two_tables(url: str) -> None:
    engine = db.make_engine(url)
    await db.upgrade(engine)
    store = Store(engine)
    try:
        for table in ("t1", "t2"):
            seats = [StoredSeat("human")]
            await store.create(StoredTable(table, {"players": 2}, "playing", False, "x", seats))
        await store.add_move("t1", 0, 0, "pass", None)
        # Both reach the writer together: one commit, in which t1's move 0 is already taken.
        outcomes = await asyncio.gather(
            store.add_move("t1", 0, 1, "draw deck", "over"),
            store.add_move("t2", 0, 0, "draw deck", None),
            return_exceptions=True,
        )
        assert isinstance(outcomes[0], MoveTaken) and outcomes[1] is None
        (t1,) = await store.load((), table_id="t1")
        (t2,) = await store.load((), table_id="t2")
        # The refused move changed nothing, not even the status it would have set.
        assert (t1.actions, t1.status) == (["pass"], "playing")
        assert t2.actions == ["draw deck"]
    finally:
        await store.close()
        await engine.dispose()


def test_a_taken_move_number_is_refused_and_the_rest_of_its_commit_stands(
    database_url: str,
) -> None:
    asyncio.run(_one_commit_two_tables(database_url))


# ---------------------------------------------------------------------- seats


async def _join_at_once(a: str, b: str) -> None:
    for _ in range(10):
        table = await open_table(a, ["human", "human", "human"], public=True)
        path = f"/api/tables/{table['table']}/join"
        joined = await asyncio.gather(
            post(a, path, {"name": "Ben"}, status=200), post(b, path, {"name": "Cleo"}, status=200)
        )
        assert sorted(j["seat"] for j in joined) == [1, 2]
        # The last two seats were taken at two processes at once: the game started all the same.
        for address in (a, b):
            info = await get(address, f"/api/tables/{table['table']}")
            assert info["status"] == "playing"
            names = {s["seat"]: s["name"] for s in info["seats"]}
            assert names == {0: "Anna", joined[0]["seat"]: "Ben", joined[1]["seat"]: "Cleo"}


def test_people_joining_a_public_table_at_two_processes_get_a_seat_each(
    pair: tuple[str, str],
) -> None:
    asyncio.run(_join_at_once(*pair))
