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


def run_collector(young: float, full: float, body: Callable[[], Awaitable[None]]) -> None:
    async def main() -> None:
        task = asyncio.create_task(collect(young, full))
        try:
            await body()
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(main())


def test_automatic_passes_are_off_while_it_runs_and_back_after() -> None:
    assert gc.isenabled()
    seen: list[bool] = []

    async def body() -> None:
        await asyncio.sleep(0.05)
        seen.append(gc.isenabled())

    run_collector(0.01, 3600, body)
    assert seen == [False]
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0  # nothing left frozen


def test_a_young_cycle_is_freed_by_the_next_young_pass() -> None:
    async def body() -> None:
        watched = cycle()
        assert watched() is not None  # automatic passes are off: nothing else frees it
        await asyncio.sleep(0.15)
        assert watched() is None

    run_collector(0.05, 3600, body)


def test_survivors_are_frozen_and_only_the_full_pass_frees_their_cycles() -> None:
    async def body() -> None:
        a, b = Node(), Node()
        a.other, b.other = b, a
        watched = weakref.ref(a)
        await asyncio.sleep(0.1)  # several young passes: the pair survived them
        assert gc.get_freeze_count() > 0
        assert not any(o is a for o in gc.get_objects())  # frozen: no pass scans it
        del a, b
        await asyncio.sleep(0.1)
        assert watched() is not None  # young passes leave the frozen cycle alone
        await asyncio.sleep(0.5)
        assert watched() is None  # the full pass (every 0.4 s here) found it

    run_collector(0.02, 0.4, body)


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
