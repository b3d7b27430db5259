"""Faults: a server killed with SIGKILL at random moments, again and again, while several games
run; every game still ends, with every acknowledged move and the score sheet of its record.
Bots whose worker crashes or hangs are replaced for the move, and the table goes on."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import httpx
import pytest

from faultplay import Player, ServerProcess, fault_bot_plugin, server_process
from piepmatz.bots import load_plugins
from piepmatz.core import Game
from piepmatz.server.client import SeatClient
from piepmatz.server.pool import BotPool, Choice
from piepmatz.server.roster import BotRoster
from serverplay import game_at, get, post, running_server, ws_url

#: The tables: people and bots (the bots think in a worker process).
TABLES = [
    ["human", "human", "random"],
    ["human", "human", "human"],
    ["human", "greedy", "random", "human"],
    ["human", "human"],
]


async def seat_everyone(address: str, seats: list[str], seed: int) -> tuple[str, list[str]]:
    """Open a table and take every person's seat; the table id and the people's tokens."""
    # A seed is the creator's choice only at a table where nobody else sits.
    chosen = {"seed": seed} if seats.count("human") == 1 else {}
    table = await post(address, "/api/tables", {"seats": seats, "name": "P0"} | chosen)
    tokens = [table["token"]]
    for i, invite in enumerate(table["invites"]):
        joined = await post(
            address,
            f"/api/tables/{table['table']}/join",
            {"name": f"P{i + 1}", "token": invite["token"]},
            status=200,
        )
        tokens.append(joined["token"])
    return table["table"], tokens


async def _kill_while_playing(server: ServerProcess, kills: int, rng: random.Random) -> None:
    tables: dict[str, list[Player]] = {}
    for n, seats in enumerate(TABLES):
        table, tokens = await seat_everyone(server.address, seats, seed=rng.randrange(10**6))
        url = ws_url(server.address, table)
        tables[table] = [Player(url, t, seed=10 * n + i) for i, t in enumerate(tokens)]
    players = [p for ps in tables.values() for p in ps]
    playing = asyncio.gather(*(p.play() for p in players))

    def moves_acked() -> int:
        return sum(len(p.acked) for p in players)

    async def killer() -> None:
        for _ in range(kills):
            # Each kill comes after a random number of the people's moves (so that it falls
            # mid-game however fast the machine is), at a random moment after the last of them.
            target = moves_acked() + rng.randint(5, 25)
            while moves_acked() < target:
                await asyncio.sleep(0.005)
            await asyncio.sleep(rng.uniform(0, 0.05))
            server.kill()
            await asyncio.sleep(rng.uniform(0, 0.2))
            await asyncio.to_thread(server.start)

    await asyncio.wait_for(asyncio.gather(playing, killer()), 150)

    assert server.kills == kills
    # The killed servers' bot workers (and their forkserver) ended with them.
    assert server.orphans, "the killed servers had bot worker processes"
    assert server.orphans_left() == set()
    async with httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        for table, seated in tables.items():
            response = await http.get(f"/api/tables/{table}/record")
            assert response.status_code == 200, response.text
            record: dict[str, Any] = response.json()
            for player in seated:
                assert player.final is not None, "the game ended for every seat"
                for move, action in player.acked:
                    assert record["actions"][move] == action, "an acknowledged move is kept"
                assert player.final["result"] == record["result"]
                assert player.reconnects >= 1, "the client came back on its own"
            sheet = Game.from_record(record).score().to_json()
            assert sheet == record["result"], "the score sheet is the replayed record's"
            # The record is the one stored: no move twice, none missing.
            assert player.final["move"] == len(record["actions"])


@pytest.mark.parametrize("database", ["sqlite", "postgres"])
def test_games_survive_a_server_killed_again_and_again(
    database: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = request.getfixturevalue(f"{database}_url")
    rng = random.Random(f"kill {database}")
    with server_process(
        tmp_path / "serve.log", "--database-url", url, "--bot-workers", "1"
    ) as server:
        asyncio.run(_kill_while_playing(server, kills=3, rng=rng))


# ---------------------------------------------------------------------- bots


@pytest.fixture
def fault_bots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    return fault_bot_plugin(tmp_path, monkeypatch)


REASONS = {"crash": "its worker process died", "hang": "it took longer than 1 s"}


async def _table_with_a_failing_bot(address: str, failure: str) -> None:
    table = await post(
        address, "/api/tables", {"seats": ["human", "failing", "random"], "name": "A", "seed": 3}
    )
    told: list[dict[str, Any]] = []
    async with SeatClient.connect(ws_url(address, table["table"]), table["token"]) as anna:
        while True:
            message = await asyncio.wait_for(anna.receive(), 60)
            if message["type"] == "bot_replaced":
                told.append(message)
            elif message["type"] == "state":
                if message["result"] is not None:
                    break
                if message["legal"]:
                    await anna.act(message["legal"][0], message["move"])
    record = await get(address, f"/api/tables/{table['table']}/record")
    failing = [
        m
        for m in range(len(record["actions"]))
        if (game := game_at(record, m)).state.current_player == 1 and 3 <= game.view(1).turn < 6
    ]
    # Each decision of the failing turn was played by the fallback, and nothing else: the bot
    # played its own moves again afterwards, and the random bot beside it was never replaced,
    # so the pool the broken worker was in has been replaced by one that works.
    assert failing and [t["move"] for t in told] == failing, told
    for notice in told:
        assert notice["seat"] == 1 and notice["bot"] == "failing" and notice["fallback"] == "greedy"
        assert notice["reason"] == REASONS[failure]
    assert message["result"] == Game.from_record(record).score().to_json()


@pytest.mark.parametrize("failure", ["crash", "hang"])
def test_a_bot_whose_worker_crashes_or_hangs_is_replaced_and_the_table_goes_on(
    failure: str, sqlite_url: str, fault_bots: str
) -> None:
    load_plugins([fault_bots])
    # The operator offers the bot that fails from its third turn on, by a name of its own.
    roster = BotRoster.build([f"failing=servertest_{failure}:3"])
    with running_server(
        sqlite_url, bot_workers=1, bot_timeout=1.0, plugins=[fault_bots], roster=roster
    ) as address:
        asyncio.run(_table_with_a_failing_bot(address, failure))


def test_a_bot_waiting_behind_others_is_not_timed_while_it_waits(fault_bots: str) -> None:
    """Six questions to one worker, each thought about for 0.4 s against a limit of 1.6 s:
    the last is answered 2.4 s after it was asked, and still with its own bot's move (a
    question goes to the pool only when a worker is free for it)."""

    async def run() -> list[Choice]:
        pool = BotPool(1, timeout=1.6, plugins=[fault_bots])
        try:
            game = Game.new(3, seed=4)
            view = game.view(game.state.current_player)
            legal = game.state.legal_action_ids()
            asked = [
                pool.choose_or_fallback("servertest_sleepy:0.4", view, legal, seed)
                for seed in range(6)
            ]
            return await asyncio.gather(*asked)
        finally:
            pool.close()

    choices = asyncio.run(run())
    assert [c.replaced for c in choices] == [None] * 6


def test_a_pool_closed_while_its_bot_thinks_leaves_nothing_outside_the_log(
    fault_bots: str,
) -> None:
    """A server stopped (SIGTERM) while a bot thinks: its pool is closed, and the process
    exits with nothing on standard error. (Left to the exit, the pool's queues made Python's
    resource tracker warn of leaked semaphores there, a line no JSON log collector reads.)"""
    script = textwrap.dedent(
        f"""
        import asyncio
        from piepmatz.core import Game
        from piepmatz.server.pool import BotPool

        async def main():
            pool = BotPool(1, plugins=[{fault_bots!r}])
            game = Game.new(3, seed=4)
            view = game.view(game.state.current_player)
            legal = game.state.legal_action_ids()
            thinking = asyncio.create_task(
                pool.choose("servertest_sleepy:30", view, legal, 1, owner="a")
            )
            while pool.share.busy == 0:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.5)
            pool.close()
            print("closed, still thinking:", not thinking.done())

        asyncio.run(main())
        """
    )
    tests = str(Path(__file__).parents[1])
    env = os.environ | {"PYTHONPATH": os.pathsep.join([tests, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=20, env=env
    )
    assert done.stdout == "closed, still thinking: True\n"
    assert done.stderr == ""
