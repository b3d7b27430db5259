"""The server's garbage collection on a clock (``collector.collect``): young cycles go at once,
survivors are frozen until the full pass, and a closed connection leaves no cycle behind."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from piepmatz.server.collector import collect
from piepmatz.server.outbox import WebSocketClient


class Node:
    """An object that can sit in a cycle and be watched with a weak reference."""

    def __init__(self) -> None:
        self.other: Any = None


def cycle() -> weakref.ref[Node]:
    """A two-node cycle nobody else holds; a weak reference to one of its nodes."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


#: No test waits longer than this for the collector (only a safety net: time is the test's).
PATIENCE = 30.0


class Clock:
    """The collector's clock, moved on by the test: the collector's sleep ends only when the
    test says its next pass is due (:meth:`tick`)."""

    def __init__(self) -> None:
        self.time = 0.0
        self._until = 0.0
        self._wake: asyncio.Future[None] | None = None
        self._asleep = asyncio.Event()

    def now(self) -> float:
        return self.time

    async def sleep(self, seconds: float) -> None:
        self._until = self.time + seconds
        self._wake = asyncio.get_running_loop().create_future()
        self._asleep.set()
        await self._wake

    async def asleep(self) -> None:
        """Return once the collector waits for its next pass."""
        async with asyncio.timeout(PATIENCE):
            await self._asleep.wait()

    async def tick(self) -> None:
        """Move time on to the collector's next pass; return once that pass is done."""
        await self.asleep()
        assert self._wake is not None
        self._asleep.clear()
        self.time = self._until
        self._wake.set_result(None)
        await self.asleep()


def run_collector(young: float, full: float, body: Callable[[Clock], Awaitable[None]]) -> None:
    async def main() -> None:
        clock = Clock()
        task = asyncio.create_task(collect(young, full, now=clock.now, sleep=clock.sleep))
        try:
            await clock.asleep()  # started: the automatic passes are off
            await body(clock)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(main())


def test_automatic_passes_are_off_while_it_runs_and_back_after() -> None:
    assert gc.isenabled()
    seen: list[bool] = []

    async def body(clock: Clock) -> None:
        seen.append(gc.isenabled())
        await clock.tick()
        seen.append(gc.isenabled())

    run_collector(1, 3600, body)
    assert seen == [False, False]
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0  # nothing left frozen


def test_a_young_cycle_is_freed_by_the_next_young_pass() -> None:
    async def body(clock: Clock) -> None:
        watched = cycle()
        assert watched() is not None  # automatic passes are off: nothing else frees it
        await clock.tick()
        assert watched() is None

    run_collector(1, 3600, body)


def test_survivors_are_frozen_and_only_the_full_pass_frees_their_cycles() -> None:
    async def body(clock: Clock) -> None:
        a, b = Node(), Node()
        a.other, b.other = b, a
        watched = weakref.ref(a)
        await clock.tick()  # a young pass at 1 s: the pair survived it
        assert gc.get_freeze_count() > 0
        assert not any(o is a for o in gc.get_objects())  # frozen: no pass scans it
        del a, b
        while clock.time < 9:
            await clock.tick()
        assert watched() is not None  # young passes leave the frozen cycle alone
        await clock.tick()
        assert clock.time == 10
        assert watched() is None  # the full pass (every 10 s here) found it

    run_collector(1, 10, body)


class Socket:
    async def send_text(self, text: str) -> None:
        await asyncio.sleep(0)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        pass


def test_a_stopped_connection_is_freed_without_the_collector() -> None:
    """Reference counting alone frees a client whose writer was cancelled: its task's
    CancelledError holds the client, and the client no longer holds the task."""

    async def main() -> weakref.ref[WebSocketClient]:
        client = WebSocketClient(Socket())  # type: ignore[arg-type]
        await client.send("hello")
        await client.flush()
        writer = client.writer
        assert writer is not None
        client.stop()
        await asyncio.gather(writer, return_exceptions=True)
        assert writer.cancelled()
        del writer
        return weakref.ref(client)

    gc.collect()
    gc.disable()
    try:
        watched = asyncio.run(main())
        assert watched() is None
    finally:
        gc.enable()
