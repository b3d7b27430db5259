"""Two hubs in one event loop, as two server processes would be: one database, one Redis."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from typing import Any

import pytest
import redis.asyncio as redis
from redis.asyncio.lock import Lock

from piepmatz.args import new_game
from piepmatz.server import db
from piepmatz.server.bus import LEASE, Bus, channel
from piepmatz.server.hub import LISTED_AWAY, Hub
from piepmatz.server.news import AnyNews, MoveNews, PresenceNews
from piepmatz.server.pool import BotPool
from piepmatz.server.room import Room
from piepmatz.server.seats import Connection, new_token
from piepmatz.server.store import StorageUnavailable, Store
from piepmatz.server.vocabulary import Absence
from serverplay import Listener, open_room

PATIENCE = 30.0


@asynccontextmanager
async def hub(url: str, redis_url: str, heard: list[AnyNews] | None = None) -> AsyncIterator[Hub]:
    """A hub on its own bus; every message its bus delivers is noted in ``heard``, in the
    order the bus delivered them."""
    engine = db.make_engine(url)
    await db.upgrade(engine)
    found = Hub(Store(engine), BotPool(0))

    async def hear(table_id: str, message: AnyNews) -> None:
        if heard is not None:
            heard.append(message)  # before any wait: the bus's order
        await found.hear(table_id, message)

    found.bus = Bus(redis_url, hear, found.heard_nothing)
    await found.bus.start()
    try:
        yield found
    finally:
        for room in found.rooms.values():
            if room.botseats.task is not None:
                room.botseats.task.cancel()
        await found.bus.close()
        await found.store.close()
        await engine.dispose()


async def until_move(room: Room, move: int) -> None:
    async with asyncio.timeout(PATIENCE):
        while room.move < move:
            await asyncio.sleep(0.01)


@contextmanager
def unheard(room: Room) -> Iterator[None]:
    """What the room does meanwhile is stored, but its news never leaves the process."""
    bus, room.replica.bus = room.replica.bus, None
    try:
        yield
    finally:
        room.replica.bus = bus


async def play_unheard(room: Room, move: int) -> None:
    """Play the first legal action at ``move``, :func:`unheard`."""
    with unheard(room):
        state = room.game.state
        await room.act(state.current_player, move, str(state.legal_actions()[0]))


async def news_before(
    heard: list[AnyNews], start: int, marker: Callable[[AnyNews], bool]
) -> list[str]:
    """The kinds of the news in ``heard`` from ``start`` up to the first message ``marker``
    accepts, once it has come. One table's news comes in the order it was published, so news
    published before that message, had it been published, is in the list."""
    async with asyncio.timeout(PATIENCE):
        while True:
            kinds = [m.kind for m in heard[start:]]
            found = [i for i, m in enumerate(heard[start:]) if marker(m)]
            if found:
                return kinds[: found[0]]
            await asyncio.sleep(0.01)


def reminder(room: Room) -> Callable[[AnyNews], bool]:
    """Accepts a reminder of who is connected from ``room``'s process that says how far the
    table is now: published after everything the table did so far."""
    assert room.replica.bus is not None
    origin, progress = room.replica.bus.origin, room.progress()

    def accepts(message: AnyNews) -> bool:
        return (
            isinstance(message, PresenceNews)
            and message.origin == origin
            and message.progress == progress
        )

    return accepts


async def _missed(url: str, redis_url: str) -> None:
    async with AsyncExitStack() as stack:
        heard: list[dict[str, Any]] = []
        a = await stack.enter_async_context(hub(url, redis_url))
        b = await stack.enter_async_context(hub(url, redis_url, heard))
        room_a = await open_room(a, ["human", "human"], seed=3)
        room_b = await b.room(room_a.id)
        assert room_b is not room_a and room_b.move == 0
        start = len(heard)
        # Move 0 is stored but its news never leaves process a.
        await play_unheard(room_a, 0)
        second = room_a.game.state.legal_actions()[0]
        await room_a.act(room_a.game.state.current_player, 1, str(second))
        news = await news_before(heard, start, lambda m: isinstance(m, MoveNews) and m.move == 1)
        assert "move" not in news, "b heard nothing of move 0"
        # Move 1's news shows b the gap; b reads both moves from the database.
        await until_move(room_b, 2)
        assert room_b.game.actions == room_a.game.actions and room_b.move == 2


def test_a_process_that_missed_news_catches_up_from_the_database(
    postgres_url: str, redis_url: str
) -> None:
    asyncio.run(_missed(postgres_url, redis_url))


async def _stood_in_elsewhere(url: str, redis_url: str) -> None:
    async with AsyncExitStack() as stack:
        a = await stack.enter_async_context(hub(url, redis_url))
        b = await stack.enter_async_context(hub(url, redis_url))
        room_a = await open_room(a, ["human", "human"], seed=11)
        room_b = await b.room(room_a.id)
        watcher = Listener()
        await room_a.connect(Connection(watcher, None))
        slow = room_b.game.state.current_player

        async def think_for_ever(*_args: Any, **_kwargs: Any) -> Any:
            await asyncio.sleep(3600)

        # The stand-in's moves are the test's: neither process's bot plays (a's, once it has
        # caught up, would race the test's move at b).
        for process in (a, b):
            process.bots.choose_or_fallback = think_for_ever  # type: ignore[method-assign]
        # At b the seat's time ran out at move 0 and the stand-in played it; a heard neither
        # (its own try at the stand-in came second, and it reads the table as it is now). What
        # a tells from here on is kept: b's reminders may make a catch up before the test does.
        watcher.sent.clear()
        with unheard(room_b):
            async with room_b.lock:
                assert await room_b.standins.replace_locked(slow, Absence.TIME)
            action = str(room_b.game.state.legal_actions()[0])
            await room_b.act(slow, 0, action, by=room_b.setup.stand_in)
        await room_a.replica.catch_up()
        assert room_a.move >= 1 and room_a.seats[slow].absent == Absence.TIME
        told = [m for m in map(json.loads, watcher.sent) if m["type"] == "stand_in"]
        # The news tells from which move the stand-in plays, not when this process learnt it.
        assert told == [
            {"type": "stand_in", "seat": slow, "bot": "medium", "reason": "time", "move": 0}
        ]
        # The person takes the seat back at b at move 1, and a move is played; a hears neither.
        watcher.sent.clear()
        with unheard(room_b):
            async with room_b.lock:
                await room_b.standins.back_locked(slow)
            mover = room_b.game.state.current_player
            await room_b.act(mover, 1, str(room_b.game.state.legal_actions()[0]))
        await room_a.replica.catch_up()
        assert room_a.move == 2 and room_a.seats[slow].absent is None
        told = [m for m in map(json.loads, watcher.sent) if m["type"] == "returned"]
        # With the stand-in's one move before it, though a knows of the next move already.
        assert told == [{"type": "returned", "seat": slow, "move": 1, "moves": 1}]


def test_a_stand_in_caught_up_from_the_database_is_told_from_its_first_move(
    postgres_url: str, redis_url: str
) -> None:
    asyncio.run(_stood_in_elsewhere(postgres_url, redis_url))


def ends_game_next(room: Room) -> bool:
    """The first legal action (the one :func:`play_unheard` plays) ends the game."""
    after = room.game.state.copy(events=False)
    after.apply_id(after.legal_action_ids()[0])
    return after.is_over()


async def _reminded(url: str, redis_url: str) -> None:
    async with AsyncExitStack() as stack:
        heard: list[dict[str, Any]] = []
        a = await stack.enter_async_context(hub(url, redis_url))
        b = await stack.enter_async_context(hub(url, redis_url, heard))
        room_a = await open_room(a, ["human", "human"], seed=7, free=(1,))
        room_b = await b.room(room_a.id)
        waiting = Listener()
        await room_b.connect(Connection(waiting, 0))
        # The news of the last seat taken is lost: the game started at a, not at b.
        start = len(heard)
        with unheard(room_a):
            await room_a.take_seat(1, "Ben", new_token())
        assert room_a.status == "playing"
        await room_a.replica.refresh_presence(older=60.0)
        assert "seat" not in await news_before(heard, start, reminder(room_a))
        async with asyncio.timeout(PATIENCE):
            while room_b.status != "playing":
                await asyncio.sleep(0.01)
        assert room_b.seats[1].name == "Ben"
        await room_b.connect(Connection(Listener(), 1))
        waiting.sent.clear()
        # The news of move 0 is lost, and no move follows: b's people wait for it.
        start = len(heard)
        await play_unheard(room_a, 0)
        # a's reminder of who is connected says how far the table is: b sees the gap.
        await room_a.replica.refresh_presence(older=60.0)
        assert "move" not in await news_before(heard, start, reminder(room_a))
        await until_move(room_b, 1)
        assert room_b.game.actions == room_a.game.actions
        states = [m for m in map(json.loads, waiting.sent) if m["type"] == "state"]
        assert [m["move"] for m in states] == [1], "b's connection was shown move 1"
        # The last move's news is lost too: a's table is over and sends no more reminders,
        # but it answers b's, which are behind.
        while not ends_game_next(room_a):
            state = room_a.game.state
            await room_a.act(state.current_player, room_a.move, str(state.legal_actions()[0]))
        await until_move(room_b, room_a.move)
        start = len(heard)
        await play_unheard(room_a, room_a.move)
        assert room_a.status == "over"
        await room_b.replica.refresh_presence(older=60.0)
        assert "move" not in await news_before(heard, start, reminder(room_a))
        async with asyncio.timeout(PATIENCE):
            while room_b.status != "over":
                await asyncio.sleep(0.01)
        assert room_b.game.actions == room_a.game.actions
        # Forgotten at a (over, nobody there): a hears no more of it, b still does.
        assert await a.forget_finished(now=0.0, after=0.0) == [room_a.id]
        assert a.bus is not None and room_a.id not in a.bus.tables
        counts = await a.bus.redis.pubsub_numsub(f"piepmatz:table:{room_a.id}")
        assert counts[0][1] == 1


def test_lost_news_of_a_seat_or_a_move_is_caught_up_at_the_next_reminder(
    postgres_url: str, redis_url: str
) -> None:
    asyncio.run(_reminded(postgres_url, redis_url))


def count_refusals(at: Hub, refused: dict[str, int]) -> None:
    """Count in ``refused`` (by process) each time ``at`` asks for a bot lease in vain."""
    bus = at.bus
    assert bus is not None
    asking = bus.bot_lease
    refused[bus.origin] = 0

    async def bot_lease(table_id: str) -> Lock | None:
        lease = await asking(table_id)
        if lease is None:
            refused[bus.origin] += 1
        return lease

    bus.bot_lease = bot_lease  # type: ignore[method-assign]


async def _takeover(url: str, redis_url: str) -> None:
    async with AsyncExitStack() as stack:
        a = await stack.enter_async_context(hub(url, redis_url))
        b = await stack.enter_async_context(hub(url, redis_url))
        kinds = ["human", "human"]
        kinds[new_game(2, "standard", 4).state.current_player] = "random"  # the bot starts
        room_a = await open_room(a, kinds, seed=4)
        # A process that died holding the bot lease: its lock stays until it expires.
        client = redis.Redis.from_url(redis_url)
        stack.push_async_callback(client.aclose)
        key = f"piepmatz:bots:{room_a.id}"
        assert await client.set(key, "dead process", px=60_000)
        room_b = await b.room(room_a.id)
        refused: dict[str, int] = {}
        count_refusals(a, refused)
        count_refusals(b, refused)
        room_a.botseats.wake()
        room_b.botseats.wake()
        # Each process was refused, waited and asked again, and was refused again.
        async with asyncio.timeout(PATIENCE):
            while min(refused.values()) < 2:
                await asyncio.sleep(0.01)
        assert room_a.move == room_b.move == 0, "no bot thinks while another holds the lease"
        await client.delete(key)  # the dead holder's lease expires
        await until_move(room_a, 1)
        await until_move(room_b, 1)
        # The bot goes on with its next decisions meanwhile: compare the first move, the one
        # both processes waited for, everywhere.
        records = await a.store.load((), table_id=room_a.id)
        first = str(room_a.game.actions[0])
        assert str(room_b.game.actions[0]) == first
        assert records[0].actions[0] == first


async def _stopped(url: str, redis_url: str, where: str) -> None:
    async with AsyncExitStack() as stack:
        a = await stack.enter_async_context(hub(url, redis_url))
        b = await stack.enter_async_context(hub(url, redis_url))
        thinking = asyncio.Event()

        async def for_ever(*_args: Any, **_kwargs: Any) -> Any:
            thinking.set()
            await asyncio.sleep(3600)

        room_a = await open_room(a, ["random", "random"], seed=3)
        if where == "thinking":
            a.bots.choose_or_fallback = for_ever  # type: ignore[method-assign]
        else:  # reading the table after taking the lease (the other may have moved)
            room_a.replica.catch_up = for_ever  # type: ignore[method-assign]
        room_a.botseats.wake()
        await asyncio.wait_for(thinking.wait(), PATIENCE)  # a holds the lease
        client = redis.Redis.from_url(redis_url)
        stack.push_async_callback(client.aclose)
        key = f"piepmatz:bots:{room_a.id}"
        assert await client.exists(key)
        # Process a stops (SIGTERM): its bot is stopped, then its bus closed, as the app does;
        # the lease was given back with the bot, before the bus closed.
        assert a.bus is not None
        await asyncio.wait_for(a.drain(5), PATIENCE)
        assert not await client.exists(key)
        await a.bus.close()
        # Process b takes the table over at once, not once the lease would have expired.
        room_b = await b.room(room_a.id)
        began = time.monotonic()
        room_b.botseats.wake()
        await until_move(room_b, 1)
        assert time.monotonic() - began < LEASE / 2


@pytest.mark.parametrize("where", ["thinking", "catching up"])
def test_a_stopping_process_gives_its_bots_leases_back(
    postgres_url: str, redis_url: str, where: str
) -> None:
    asyncio.run(_stopped(postgres_url, redis_url, where))


def test_bots_wait_for_a_dead_holders_lease_then_one_process_plays(
    postgres_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The test counts the refused asks; how long a process waits between them is not its point.
    monkeypatch.setattr("piepmatz.server.bus.LEASE_RETRY", 0.05)
    asyncio.run(_takeover(postgres_url, redis_url))


async def _database_away(url: str, redis_url: str) -> None:
    async with hub(url, redis_url) as a:
        kinds = ["human", "human"]
        kinds[new_game(2, "standard", 4).state.current_player] = "random"  # the bot starts
        room = await open_room(a, kinds, seed=4)
        # The database is away when the lease holder reads the table before the bot thinks.
        reading, refused = room.store.load, []

        async def away_twice(*args: object, **kwargs: object) -> object:
            if len(refused) < 2:
                refused.append(args)
                raise StorageUnavailable
            return await reading(*args, **kwargs)  # type: ignore[arg-type]

        room.store.load = away_twice  # type: ignore[method-assign]
        room.botseats.wake()
        await until_move(room, 1)
        assert len(refused) == 2
        (stored,) = await reading((), table_id=room.id)
        assert stored.actions[0] == str(room.game.actions[0])


def test_a_bot_whose_table_cannot_be_read_tries_again_once_the_database_is_back(
    postgres_url: str, redis_url: str
) -> None:
    asyncio.run(_database_away(postgres_url, redis_url))


async def _presence(url: str, redis_url: str) -> None:
    async with AsyncExitStack() as stack:
        a = await stack.enter_async_context(hub(url, redis_url))
        b = await stack.enter_async_context(hub(url, redis_url))
        room_a = await open_room(a, ["human", "human"], seed=5)
        room_b = await b.room(room_a.id)
        watcher = Listener()
        await room_a.connect(Connection(watcher, None))
        assert [s.connected for s in room_a.info().seats] == [False, False]
        await room_b.connect(Connection(Listener(), 1))
        async with asyncio.timeout(PATIENCE):
            while not room_a.info().seats[1].connected:
                await asyncio.sleep(0.01)
        # Process a's own watcher was told, and so is a spectator at b.
        assert '"connected":true' in watcher.sent[-1]
        assert room_b.info().spectators == 1
        # b's reminder that changes nothing is not told at a; the news after it is, once.
        told = len(watcher.sent)
        await room_b.replica.refresh_presence(older=60.0)
        await room_b.connect(Connection(Listener(), None))
        async with asyncio.timeout(PATIENCE):
            while room_a.info().spectators < 2:
                await asyncio.sleep(0.01)
        assert len(watcher.sent) == told + 1 and '"spectators":2' in watcher.sent[-1]
        # b goes silent (killed): once its reminders are overdue, a forgets its connections.
        await room_a.replica.refresh_presence(older=0.0)
        assert [s.connected for s in room_a.info().seats] == [False, False]
        assert '"connected":true' not in watcher.sent[-1]


def test_who_is_connected_at_another_process_is_shown_until_it_falls_silent(
    postgres_url: str, redis_url: str
) -> None:
    asyncio.run(_presence(postgres_url, redis_url))


async def _listed_elsewhere(url: str, redis_url: str) -> None:
    async with AsyncExitStack() as stack:
        a = await stack.enter_async_context(hub(url, redis_url))
        b = await stack.enter_async_context(hub(url, redis_url))
        room_a = await open_room(a, ["human", "human"], seed=8, free=(1,), public=True)
        await room_a.connect(Connection(Listener(), 0))
        assert room_a.id not in b.rooms
        # b lists it from the database and holds it from then on; once it has heard that Anna
        # is at a, it lists the table however long she stays.
        assert [r.id for r in await b.open_tables(time.monotonic())] == [room_a.id]
        async with asyncio.timeout(PATIENCE):
            while not await b.open_tables(time.monotonic() + 10 * LISTED_AWAY):
                await asyncio.sleep(0.01)
        assert b.rooms[room_a.id].away_since is None


def test_a_public_table_whose_creator_is_at_another_process_stays_listed(
    postgres_url: str, redis_url: str
) -> None:
    asyncio.run(_listed_elsewhere(postgres_url, redis_url))


async def _lost_subscription(url: str, redis_url: str) -> None:
    async with AsyncExitStack() as stack:
        a = await stack.enter_async_context(hub(url, redis_url))
        b = await stack.enter_async_context(hub(url, redis_url))
        room_a = await open_room(a, ["human", "human"], seed=6)
        room_b = await b.room(room_a.id)
        client = redis.Redis.from_url(redis_url, decode_responses=True)
        stack.push_async_callback(client.aclose)
        assert b.bus is not None
        listening = [
            c
            for c in await client.client_list(_type="pubsub")
            if c["name"] == f"piepmatz-{b.bus.origin}"
        ]
        assert len(listening) == 1
        await client.client_kill_filter(_id=listening[0]["id"])
        # Played while b is without its subscription: b hears nothing of it, and no later move
        # shows it a gap; it catches up once it has subscribed again.
        first = room_a.game.state.legal_actions()[0]
        await room_a.act(room_a.game.state.current_player, 0, str(first))
        await until_move(room_b, 1)
        assert [str(x) for x in room_b.game.actions] == [str(first)]


def test_a_process_that_lost_its_subscription_catches_up_when_back(
    postgres_url: str, redis_url: str
) -> None:
    asyncio.run(_lost_subscription(postgres_url, redis_url))


async def _many_at_once(redis_url: str) -> None:
    heard: list[AnyNews] = []

    async def hear(_table: str, message: AnyNews) -> None:
        heard.append(message)

    sender = Bus(redis_url, hear)
    listener = Bus(redis_url, hear)
    await sender.start()
    await listener.start()
    try:
        await listener.hold("crowd")
        # Far more publishes at once than the process keeps connections to Redis: they wait
        # for a connection instead of failing.
        told = await asyncio.gather(
            *(sender.publish("crowd", MoveNews(move=i, seat=0, action="pass")) for i in range(500))
        )
        assert all(told), f"{told.count(False)} of 500 publishes failed"
        async with asyncio.timeout(PATIENCE):
            while len(heard) < 500:
                await asyncio.sleep(0.01)
        assert sorted(m.move for m in heard if isinstance(m, MoveNews)) == list(range(500))
        assert len(heard) == 500
    finally:
        await sender.close()
        await listener.close()


def test_hundreds_of_tables_publishing_at_once_all_get_through(redis_url: str) -> None:
    asyncio.run(_many_at_once(redis_url))


async def _unreadable(redis_url: str) -> None:
    heard: list[AnyNews] = []

    async def hear(_table: str, message: AnyNews) -> None:
        heard.append(message)

    listener, sender = Bus(redis_url, hear), Bus(redis_url, hear)
    await listener.start()
    await sender.start()
    raw = redis.Redis.from_url(redis_url)
    try:
        await listener.hold("odd")
        # Another version's news, or someone else's: passed over, and the listener goes on.
        await raw.publish(channel("odd"), '{"kind": "move", "move": "three"}')
        await raw.publish(channel("odd"), "not json")
        await sender.publish("odd", MoveNews(move=3, seat=1, action="pass"))
        async with asyncio.timeout(PATIENCE):
            while not heard:
                await asyncio.sleep(0.01)
        assert heard == [MoveNews(origin=sender.origin, move=3, seat=1, action="pass")]
    finally:
        await raw.aclose()
        await sender.close()
        await listener.close()


def test_news_that_cannot_be_read_is_passed_over(redis_url: str) -> None:
    asyncio.run(_unreadable(redis_url))


@asynccontextmanager
async def lone_bus(redis_url: str) -> AsyncIterator[tuple[Bus, redis.Redis]]:
    """A started bus that hears nothing (for its leases), and a Redis client to look with."""

    async def hear(_table: str, _message: AnyNews) -> None:
        pass

    bus = Bus(redis_url, hear)
    await bus.start()
    client = redis.Redis.from_url(redis_url)
    try:
        yield bus, client
    finally:
        await client.aclose()
        await bus.close()


async def _granted_as_stopped(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    asked = asyncio.Event()
    granted = Lock.do_acquire

    async def slow_answer(self: Lock, token: str | bytes) -> bool:
        got = await granted(self, token)  # Redis granted it; its answer is on its way
        asked.set()
        await asyncio.sleep(0.2)
        return got

    monkeypatch.setattr(Lock, "do_acquire", slow_answer)
    async with lone_bus(redis_url) as (bus, client):
        asking = asyncio.create_task(bus.bot_lease("granted"))
        await asyncio.wait_for(asked.wait(), PATIENCE)
        assert await client.exists("piepmatz:bots:granted")
        asking.cancel()  # a drain, before the answer came
        with pytest.raises(asyncio.CancelledError):
            await asking
        assert not await client.exists("piepmatz:bots:granted"), "the lease was given back"


def test_a_lease_granted_as_its_asker_stops_is_given_back(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    asyncio.run(_granted_as_stopped(redis_url, monkeypatch))


async def _closed_holding(redis_url: str) -> None:
    async with lone_bus(redis_url) as (bus, client):
        assert await bus.bot_lease("held") is not None
        given = await bus.bot_lease("given")
        assert given is not None
        await bus.release(given)
        assert await client.exists("piepmatz:bots:held")
        # Closed still holding one (whatever left it held): given back, not left to expire.
        await bus.close()
        assert not await client.exists("piepmatz:bots:held")


def test_a_bus_closing_gives_back_the_leases_it_still_holds(redis_url: str) -> None:
    asyncio.run(_closed_holding(redis_url))


async def _opened_without_redis(url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    async with hub(url, redis_url) as a:
        assert a.bus is not None

        async def away(*_channels: str) -> None:
            raise redis.ConnectionError("Error 111 connecting to 127.0.0.1:6379")

        monkeypatch.setattr(a.bus._pubsub, "subscribe", away)
        # Redis carries news only: a table opens while it is away, held and played here.
        opened = await a.open(["human", "random"], "standard", name="Q")
        assert opened.room.id in a.rooms and opened.room.id in a.bus.tables
        assert opened.room.status == "playing"
        stored = await a.store.load((), table_id=opened.room.id)
        assert [s.name for s in stored[0].seats] == ["Q", None]
        monkeypatch.undo()
        # Subscribed again with the others once Redis answers (as the listener does).
        await a.bus._pubsub.subscribe(*(channel(t) for t in a.bus.tables))
        assert channel(opened.room.id).encode() in a.bus._pubsub.channels


def test_a_table_opens_while_redis_is_away(
    sqlite_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    asyncio.run(_opened_without_redis(sqlite_url, redis_url, monkeypatch))
