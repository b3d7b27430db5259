"""Bots think in worker processes, so that the event loop never waits for one.

A worker receives only the bot's spec, its seat's view, the legal action ids and a seed, and asks
the bot through :func:`piepmatz.bots.base.decide` like every other interface. Hints and game
reviews (:mod:`piepmatz.bots.review`) are searched in the same workers, from one view each.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from piepmatz.bots import Bot, make_bot
from piepmatz.bots.base import decide
from piepmatz.bots.review import (
    DEFAULT_ITERATIONS,
    HINT_BOT,
    HINT_ITERATIONS,
    DecisionReview,
    Hint,
    hint,
    review_decision,
)
from piepmatz.core import PlayerView

T = TypeVar("T")

_bots: dict[str, Bot] = {}  # per worker process: a bot is built once per spec


def choose(spec: str, view: PlayerView, legal: Sequence[int], seed: int) -> int:
    """The bot's move (run in a worker); raises ``BotMoveError`` for a broken answer."""
    bot = _bots.get(spec)
    if bot is None:
        bot = _bots[spec] = make_bot(spec)
    return decide(bot, view, legal, random.Random(seed))


@dataclass(frozen=True)
class Analysis:
    """The budgets of hints and reviews (small ones in tests)."""

    hint_bot: str = HINT_BOT
    hint_iterations: int = HINT_ITERATIONS
    review_iterations: int = DEFAULT_ITERATIONS


class BotPool:
    """A process pool for bot decisions; ``workers=0`` thinks in a thread (tests, tiny hosts)."""

    def __init__(self, workers: int, analysis: Analysis | None = None) -> None:
        self.executor: ProcessPoolExecutor | None = None
        self.analysis = analysis or Analysis()
        #: How many searches of hints and reviews run at once: one per worker. They go to the
        #: executor one decision at a time, so a bot's move, queued directly, waits at most for
        #: one decision's search before it gets a worker.
        self.workers = max(1, workers)
        self._analysing = asyncio.Semaphore(self.workers)
        if workers > 0:
            # forkserver: workers do not inherit the server's threads, sockets or database pool.
            context = multiprocessing.get_context("forkserver")
            self.executor = ProcessPoolExecutor(workers, mp_context=context)

    async def choose(self, spec: str, view: PlayerView, legal: Sequence[int], seed: int) -> int:
        loop = asyncio.get_running_loop()
        if self.executor is None:
            return await asyncio.to_thread(choose, spec, view, list(legal), seed)
        return await loop.run_in_executor(self.executor, choose, spec, view, list(legal), seed)

    async def _analyse(self, work: Callable[..., T], *args: Any) -> T:
        async with self._analysing:
            if self.executor is None:
                return await asyncio.to_thread(work, *args)
            return await asyncio.get_running_loop().run_in_executor(self.executor, work, *args)

    async def hint(self, view: PlayerView, seed: int) -> Hint:
        """The hint bot's suggestion for the viewer's decision, with its estimate."""
        a = self.analysis
        return await self._analyse(
            hint, view._replace(events=None), seed, a.hint_bot, a.hint_iterations
        )

    async def review(self, view: PlayerView, played: int, seed: int, index: int) -> DecisionReview:
        """One decision of a finished game graded (``piepmatz.bots.review.review_decision``)."""
        return await self._analyse(
            review_decision,
            view._replace(events=None),
            played,
            self.analysis.review_iterations,
            seed,
            index,
        )

    def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)
