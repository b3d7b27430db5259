"""The bot workers shared fairly between the tables (and reviews) that ask for them.

Each piece of work has an owner: a table (its bots' moves and its hints) or a game review. A
free worker goes to the waiting owner with the fewest pieces running, the longest-waiting first
among equals. So a table whose bot thinks for seconds waits behind its own moves, never in front
of another table's: a table with nothing running is always served before one that has a move
in a worker, and an owner alone on the server (a review) may still use every idle worker.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field


@dataclass(order=True)
class _Waiter:
    running: int  # the owner's pieces running when it asked (kept up to date while it waits)
    arrived: int
    owner: Hashable = field(compare=False)
    granted: asyncio.Future[None] = field(compare=False)


class FairShare:
    """``slots`` workers, handed out one at a time; ``async with share.turn(owner): ...`` holds
    one for the block."""

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError(f"a fair share needs at least one slot, not {slots}")
        self.slots = slots
        self.running: Counter[Hashable] = Counter()
        self._waiting: list[_Waiter] = []
        self._order = itertools.count()

    @property
    def busy(self) -> int:
        return sum(self.running.values())

    @asynccontextmanager
    async def turn(self, owner: Hashable) -> AsyncIterator[None]:
        await self._acquire(owner)
        try:
            yield
        finally:
            self._release(owner)

    async def _acquire(self, owner: Hashable) -> None:
        if self.busy < self.slots and not self._waiting:
            self.running[owner] += 1
            return
        waiter = _Waiter(
            self.running[owner],
            next(self._order),
            owner,
            asyncio.get_running_loop().create_future(),
        )
        self._waiting.append(waiter)
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
        while self._waiting and self.busy < self.slots:
            for waiter in self._waiting:
                waiter.running = self.running[waiter.owner]
            waiter = min(self._waiting)
            self._waiting.remove(waiter)
            self.running[waiter.owner] += 1
            waiter.granted.set_result(None)


__all__ = ["FairShare"]
