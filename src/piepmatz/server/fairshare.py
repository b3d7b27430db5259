"""The bot workers shared fairly between the tables (and reviews) that ask for them.

Each piece of work has an owner: a table (its bots' moves and its hints) or a game review. A
free worker goes to the waiting owner with the fewest pieces running, the longest-waiting first
among equals. So a table whose bot thinks for seconds waits behind its own moves, never in front
of another table's: a table with nothing running is always served before one that has a move
in a worker, and an owner alone on the server (a review) may still use idle workers.

One worker is kept for quick work: an owner whose last piece took :data:`LONG` seconds or more
(a search) counts as slow, and the slow owners together hold at most all workers but one. So
however many tables think to the ceiling, a table of cheap bots never waits for a search.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager
from dataclasses import dataclass

#: Seconds a piece of work takes for its owner to count as slow (a random or heuristic bot's
#: move takes about a millisecond; a search, a hint or a review's decision a second or so).
LONG = 0.25
#: Owners remembered as slow, the least recently heard of forgotten first.
REMEMBERED = 4096


@dataclass(eq=False)
class _Waiter:
    arrived: int
    owner: Hashable
    granted: asyncio.Future[None]


class FairShare:
    """``slots`` workers, handed out one at a time; ``async with share.turn(owner): ...`` holds
    one for the block."""

    def __init__(self, slots: int, long: float = LONG) -> None:
        if slots < 1:
            raise ValueError(f"a fair share needs at least one slot, not {slots}")
        self.slots = slots
        self.long = long
        #: The slots slow owners may hold together: all but one, when there are two or more.
        self.slow_slots = max(1, slots - 1)
        self.running: Counter[Hashable] = Counter()
        self.slow: OrderedDict[Hashable, None] = OrderedDict()
        self._waiting: list[_Waiter] = []
        self._order = itertools.count()

    @property
    def busy(self) -> int:
        return sum(self.running.values())

    def _slow_running(self) -> int:
        return sum(n for owner, n in self.running.items() if owner in self.slow)

    def _may_start(self, owner: Hashable) -> bool:
        return self.busy < self.slots and (
            owner not in self.slow or self._slow_running() < self.slow_slots
        )

    @asynccontextmanager
    async def turn(self, owner: Hashable) -> AsyncIterator[None]:
        await self._acquire(owner)
        started = time.monotonic()
        try:
            yield
        finally:
            self._note(owner, time.monotonic() - started)
            self._release(owner)

    def _note(self, owner: Hashable, took: float) -> None:
        if took >= self.long:
            self.slow[owner] = None
            self.slow.move_to_end(owner)
            while len(self.slow) > REMEMBERED:
                self.slow.popitem(last=False)
        else:
            self.slow.pop(owner, None)

    async def _acquire(self, owner: Hashable) -> None:
        if not self._waiting and self._may_start(owner):
            self.running[owner] += 1
            return
        waiter = _Waiter(next(self._order), owner, asyncio.get_running_loop().create_future())
        self._waiting.append(waiter)
        self._grant()  # a slot may be free to this owner though slow owners wait for one
        try:
            await waiter.granted
        except asyncio.CancelledError:
            if waiter in self._waiting:
                self._waiting.remove(waiter)
            elif waiter.granted.done() and not waiter.granted.cancelled():
                self._release(owner)  # granted just as it was cancelled: pass it on
            raise

    def _release(self, owner: Hashable) -> None:
        self.running[owner] -= 1
        if self.running[owner] <= 0:
            del self.running[owner]
        self._grant()

    def _grant(self) -> None:
        # A waiter cancelled but not yet woken to leave the list is passed over.
        self._waiting = [w for w in self._waiting if not w.granted.done()]
        while self._waiting and self.busy < self.slots:
            ready = [w for w in self._waiting if self._may_start(w.owner)]
            if not ready:
                return  # only slow owners wait, and they hold all they may
            # The fewest pieces running first, the longest-waiting among equals.
            waiter = min(ready, key=lambda w: (self.running[w.owner], w.arrived))
            self._waiting.remove(waiter)
            self.running[waiter.owner] += 1
            waiter.granted.set_result(None)


__all__ = ["FairShare"]
