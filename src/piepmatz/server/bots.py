"""Bots think in worker processes, so that the event loop never waits for one.

A worker receives only the bot's spec, its seat's view, the legal action ids and a seed, and asks
the bot through :func:`piepmatz.bots.base.decide` like every other interface.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from piepmatz.bots import Bot, make_bot
from piepmatz.bots.base import decide
from piepmatz.core import PlayerView

_bots: dict[str, Bot] = {}  # per worker process: a bot is built once per spec


def choose(spec: str, view: PlayerView, legal: Sequence[int], seed: int) -> int:
    """The bot's move (run in a worker); raises ``BotMoveError`` for a broken answer."""
    bot = _bots.get(spec)
    if bot is None:
        bot = _bots[spec] = make_bot(spec)
    return decide(bot, view, legal, random.Random(seed))


class BotPool:
    """A process pool for bot decisions; ``workers=0`` thinks in a thread (tests, tiny hosts)."""

    def __init__(self, workers: int) -> None:
        self.executor: ProcessPoolExecutor | None = None
        if workers > 0:
            # forkserver: workers do not inherit the server's threads, sockets or database pool.
            context = multiprocessing.get_context("forkserver")
            self.executor = ProcessPoolExecutor(workers, mp_context=context)

    async def choose(self, spec: str, view: PlayerView, legal: Sequence[int], seed: int) -> int:
        loop = asyncio.get_running_loop()
        if self.executor is None:
            return await asyncio.to_thread(choose, spec, view, list(legal), seed)
        return await loop.run_in_executor(self.executor, choose, spec, view, list(legal), seed)

    def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)
