"""What a stranger may ask of the server: bots by name only, searches with a ceiling and a fair
share of the workers, limits on what one address opens, the deal's seed kept secret, and a
socket that never says hello let go."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from piepmatz.bots import load_plugins
from piepmatz.core import Game
from piepmatz.server.botplay import NOT_OFFERED
from piepmatz.server.fairshare import FairShare
from piepmatz.server.limits import AddressBuckets, Limits
from piepmatz.server.pool import BotPool
from piepmatz.server.roster import LEVELS, BotRoster, UnknownBot
from piepmatz.server.seats import Connection
from piepmatz.server.store import StoredSeat, StoredTable
from serverplay import Listener, local_hub, post, running_server, ws_url

#: Bot specs a request once could name: files of the server's, a search without end.
HOSTILE_BOTS = [
    "ppo:/proc/self/fd/5",
    "ppo:/etc/hostname",
    "ppo:/nonexistent/policy.npz",
    "ppo:/tmp",
    "ismcts:time=100000",
    "heuristic:noise=0.3",
    "human",
]


# ---------------------------------------------------------------------- bots by name only


def test_a_request_chooses_a_bot_by_name_and_learns_nothing_else() -> None:
    roster = BotRoster.build(["deep=ismcts:iterations=50"])
    assert roster.names() == [*LEVELS, "deep"]
    assert roster.choose(" Hard ") == "hard" and roster.spec("deep") == "ismcts:iterations=50"
    answers = set()
    for bot in HOSTILE_BOTS:
        with pytest.raises(UnknownBot) as refused:
            roster.choose(bot)
        answers.add(str(refused.value))
        assert bot not in str(refused.value)
    assert len(answers) == 1  # a missing file, a directory, a pipe: the same answer


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ("deep", "expected NAME=SPEC"),
        ("Deep One=random", "a name is"),
        ("human=random", "a name is"),
        ("hard=ismcts:iterations=9", "a level every server offers"),
        ("deep=grandmaster", "unknown bot"),
    ],
)
def test_an_operators_bad_bot_is_refused_at_start(entry: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        BotRoster.build([entry])


def test_serve_refuses_a_bot_that_would_always_pass_the_ceiling(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from piepmatz.cli import main

    assert main(["serve", "--bot", "slow=ismcts:time=40", "--bot-timeout", "30"]) == 2
    assert "slow (ismcts:time=40: 40 s a move)" in capsys.readouterr().err
    assert main(["serve", "--bot", "../x=random"]) == 2
    assert "a name is" in capsys.readouterr().err


def test_no_request_reaches_a_file_or_an_unbounded_search(server: str) -> None:
    """The request that froze the server (``ppo:/proc/self/fd/5`` read on the event loop) and
    its relatives are refused at once, alike, and the server goes on answering."""

    async def run() -> None:
        async with httpx.AsyncClient(base_url=f"http://{server}", timeout=5) as http:
            answers = set()
            for bot in HOSTILE_BOTS:
                asked = [("/api/quick", {"name": "Eve", "bot": bot})]
                if bot != "human":
                    asked.append(("/api/tables", {"seats": ["human", bot], "name": "Eve"}))
                for path, body in asked:
                    started = time.monotonic()
                    answer = await http.post(path, json=body)
                    assert answer.status_code == 422, answer.text
                    assert time.monotonic() - started < 2
                    detail = answer.json()["detail"]
                    assert bot not in detail
                    answers.add(detail.partition(": ")[2])
            assert len(answers) == 1, answers
            assert (await http.get("/api/tables")).json() == []  # nothing was opened
            assert (await http.get("/api/bots")).json() == list(LEVELS)
            made = await http.post("/api/quick", json={"name": "Ann", "bot": "Medium"})
            assert made.status_code == 201
            info = (await http.get(f"/api/tables/{made.json()['table']}")).json()
            assert {s["kind"] for s in info["seats"][1:]} == {"medium"}

    asyncio.run(run())


def test_a_stored_bot_this_server_does_not_offer_is_replaced_and_the_table_told(
    tmp_path: Path,
) -> None:
    """A table stored by an older server with a spec taken from a request is resumed with
    the fallback bot in that seat; the spec is never built, and each connection is told."""

    async def run() -> None:
        async with local_hub(tmp_path / "server.db") as hub:
            options = Game.new(2, seed=5).options.to_json() | {"spec": "standard"}
            seats = [StoredSeat("human", "Anna", "1" * 64), StoredSeat("ppo:/proc/self/fd/5")]
            stored = StoredTable("oldtable", options, "playing", False, "0" * 64, seats)
            await hub.store.create(stored)
            assert await hub.resume() == 1
            resumed = hub.rooms["oldtable"]
            assert [s.kind for s in resumed.seats] == ["human", "medium"]
            listener = Listener()
            await resumed.connect(Connection(listener, seat=None))
            told = [m for m in map(_json, listener.sent) if m["type"] == "bot_replaced"]
            assert told == [
                {
                    "type": "bot_replaced",
                    "seat": 1,
                    "bot": "ppo:/proc/self/fd/5",
                    "fallback": "medium",
                    "move": resumed.move,
                    "reason": NOT_OFFERED,
                }
            ]
            if resumed.botseats.task is not None:
                resumed.botseats.task.cancel()

    asyncio.run(run())


def _json(text: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(text)
    return loaded


# ---------------------------------------------------------------------- a fair share


def test_a_free_worker_goes_to_the_owner_with_least_running() -> None:
    async def run() -> list[str]:
        share = FairShare(2)
        order: list[str] = []
        release = {name: asyncio.Event() for name in ("slow1", "slow2", "a", "b", "slow3")}

        async def work(owner: str, name: str) -> None:
            async with share.turn(owner):
                order.append(name)
                await release[name].wait()

        tasks = [asyncio.create_task(work("slow", "slow1"))]
        tasks.append(asyncio.create_task(work("slow", "slow2")))  # alone: may use both
        await asyncio.sleep(0)
        assert order == ["slow1", "slow2"]
        tasks.append(asyncio.create_task(work("slow", "slow3")))
        await asyncio.sleep(0)
        tasks.append(asyncio.create_task(work("a", "a")))
        tasks.append(asyncio.create_task(work("b", "b")))
        await asyncio.sleep(0)
        release["slow1"].set()  # the slow table asked first, but has a move running
        await asyncio.sleep(0.01)
        release["slow2"].set()  # now the slow table has nothing running, and asked before b
        await asyncio.sleep(0.01)
        for event in release.values():
            event.set()
        await asyncio.gather(*tasks)
        return order

    assert asyncio.run(run()) == ["slow1", "slow2", "a", "slow3", "b"]


def test_slow_owners_leave_one_worker_to_quick_work() -> None:
    async def run() -> None:
        share = FairShare(2, long=0.05)
        async with share.turn("search"):
            await asyncio.sleep(0.06)  # a search: the owner counts as slow from now on
        assert "search" in share.slow
        release = asyncio.Event()

        async def search() -> None:
            async with share.turn("search"):
                await release.wait()

        searches = [asyncio.create_task(search()) for _ in range(2)]
        await asyncio.sleep(0)
        assert share.running == {"search": 1}  # the other worker is kept for quick work
        async with asyncio.timeout(1), share.turn("quick"):
            assert share.running == {"search": 1, "quick": 1}
        assert "quick" not in share.slow
        release.set()
        await asyncio.gather(*searches)
        async with share.turn("search"):
            pass  # quick this time: no longer slow
        assert "search" not in share.slow

    asyncio.run(run())


def test_a_cancelled_wait_gives_its_turn_away() -> None:
    async def run() -> None:
        share = FairShare(1)
        held = asyncio.Event()

        async def hold() -> None:
            async with share.turn("x"):
                await held.wait()

        holder = asyncio.create_task(hold())
        await asyncio.sleep(0)
        waiter = asyncio.create_task(hold())
        await asyncio.sleep(0)
        waiter.cancel()
        held.set()
        await holder
        with pytest.raises(asyncio.CancelledError):
            await waiter
        assert share.busy == 0
        async with asyncio.timeout(1), share.turn("y"):
            assert share.busy == 1

    asyncio.run(run())


def test_a_slot_freed_before_a_cancelled_waiter_wakes_passes_it_over() -> None:
    async def run() -> None:
        share = FairShare(1)

        async def wait_turn() -> None:
            async with share.turn("b"):
                pass

        async with share.turn("a"):
            waiter = asyncio.create_task(wait_turn())
            await asyncio.sleep(0)
            waiter.cancel()  # its wait is cancelled now; the task has not run since
        with pytest.raises(asyncio.CancelledError):
            await waiter
        assert share.busy == 0 and not share.running

    asyncio.run(run())


def test_tables_at_the_ceiling_hold_up_no_other_tables_bots(fault_bots: str) -> None:
    """Two workers and two tables whose bots search (known to be slow from their first
    moves): one of them thinks, the other waits for it, and the worker kept for quick work
    answers ten tables of random bots meanwhile. How fast it answers them is
    ``benchmarks/bot_share.py``'s to measure (a figure, not a test)."""

    async def run() -> None:
        pool = BotPool(2, timeout=30.0, plugins=[fault_bots])
        game = Game.new(3, seed=4)
        view = game.view(game.state.current_player)
        legal = game.state.legal_action_ids()
        try:
            # First moves: each search shows it is slow.
            await asyncio.gather(
                *(pool.choose("servertest_sleepy:0.3", view, legal, 1, owner=o) for o in "ab")
            )
            searching = {
                owner: asyncio.create_task(
                    pool.choose("servertest_sleepy:4", view, legal, 1, owner=owner)
                )
                for owner in "ab"
            }
            while pool.share.busy == 0:
                await asyncio.sleep(0.01)
            answered = 0
            for n in range(10):
                await pool.choose("random", view, legal, n, owner=f"table{n}")
                answered += 1
            # All ten answered while a search still thinks, and the other search still waits
            # for it: the slow tables together hold one worker, not both.
            assert answered == 10
            assert not any(task.done() for task in searching.values())
            assert len(pool.share.running) == 1 and pool.share.busy == 1
            waiting = next(o for o in "ab" if o not in pool.share.running)
            searching[waiting].cancel()
            await asyncio.gather(*searching.values(), return_exceptions=True)
        finally:
            pool.close()

    asyncio.run(run())


@pytest.fixture
def fault_bots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    from faultplay import fault_bot_plugin

    plugin = fault_bot_plugin(tmp_path, monkeypatch)
    load_plugins([plugin])
    return plugin


# ---------------------------------------------------------------------- limits per address


def test_an_address_opens_so_many_tables_a_minute(sqlite_url: str) -> None:
    limits = Limits(tables_per_minute=2, tables_burst=2)
    with running_server(sqlite_url, limits=limits) as address:

        async def run() -> None:
            for _ in range(2):
                await post(address, "/api/quick", {"name": "Ann", "bot": "random"})
            async with httpx.AsyncClient(base_url=f"http://{address}") as http:
                body = {"seats": ["human", "human"], "name": "Ann"}
                refused = await http.post("/api/tables", json=body)
                assert refused.status_code == 429
                assert refused.headers["retry-after"] == "30"
                assert "2 tables a minute" in refused.json()["detail"]

        asyncio.run(run())


def test_address_buckets_refill_and_forget_full_buckets() -> None:
    now = [0.0]
    buckets = AddressBuckets(per_minute=6, burst=2, clock=lambda: now[0])
    assert [buckets.take("a") for _ in range(3)] == [True, True, False]
    assert buckets.take("b")
    now[0] += 10  # one more a minute / 6
    assert buckets.take("a") and not buckets.take("a")
    assert buckets.retry_after() == 10
    buckets.SWEEP_AT = 2
    now[0] += 60
    assert buckets.take("c")
    assert set(buckets.buckets) == {"c"}  # a and b had filled up again
    assert AddressBuckets(per_minute=0, burst=1).take("a")


# ---------------------------------------------------------------------- the deal's seed


def test_a_chosen_seed_only_where_nobody_else_sits(server: str) -> None:
    async def run() -> None:
        alone = {"seats": ["human", "random"], "name": "Ann", "seed": 424242}
        made = await post(server, "/api/tables", alone)
        record_seed = Game.new(2, seed=424242).options.seed
        assert made["table"] and record_seed == 424242
        with_others = {"seats": ["human", "human", "random"], "name": "Ann", "seed": 424242}
        refused = await post(server, "/api/tables", with_others, status=422)
        assert "only for a table with one person" in refused["detail"]

    asyncio.run(run())


# ---------------------------------------------------------------------- sockets


def test_a_socket_that_never_says_hello_is_closed(sqlite_url: str) -> None:
    with running_server(sqlite_url, limits=Limits(hello_within=0.5)) as address:

        async def run() -> None:
            made = await post(address, "/api/quick", {"name": "Ann", "bot": "random"})
            async with connect(ws_url(address, made["table"])) as silent:
                started = time.monotonic()
                # Talking without saying hello does not keep it open either.
                await silent.send('{"type": "sync"}')
                with pytest.raises(ConnectionClosed) as closed:
                    while True:
                        await asyncio.wait_for(silent.recv(), 5)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
                assert "hello" in closed.value.rcvd.reason
                assert 0.4 < time.monotonic() - started < 3
            async with connect(ws_url(address, made["table"])) as polite:
                await polite.send(f'{{"type": "hello", "token": "{made["token"]}"}}')
                await asyncio.sleep(1.0)
                await polite.send('{"type": "sync"}')  # still open past the limit
                assert "welcome" in await asyncio.wait_for(polite.recv(), 5)

        asyncio.run(run())
