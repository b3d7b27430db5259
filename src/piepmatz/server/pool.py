"""Bots think in worker processes, so that the event loop never waits for one.

A worker receives only the bot's spec, its seat's view, the legal action ids and a seed, and asks
the bot through :func:`piepmatz.bots.base.decide` like every other interface. Hints and game
reviews (:mod:`piepmatz.bots.analysis`) are searched in the same workers, from one view each.

A bot that fails (its worker dies, it raises, it answers something that is not a legal action)
or takes longer than the pool's ``timeout`` is replaced *for that move* by :data:`FALLBACK_BOT`,
so that its table goes on; a pool with a dead or stuck worker is replaced by a fresh one. The
workers are shared fairly between tables (:mod:`.fairshare`), and every piece of work, hints and
reviews too, is cut off at the same ceiling.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import random
import select
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from piepmatz.bots import Bot, load_plugins, make_bot
from piepmatz.bots.analysis import (
    DEFAULT_ITERATIONS,
    HINT_BOT,
    HINT_ITERATIONS,
    DecisionReview,
    Hint,
    hint,
    review_decision,
)
from piepmatz.bots.base import decide
from piepmatz.core import PlayerView

from . import metrics
from .fairshare import FairShare
from .roster import BotRoster

T = TypeVar("T")
log = logging.getLogger("piepmatz.server")

_bots: dict[str, Bot] = {}  # per worker process: a bot is built once per spec

#: Seconds a bot may think about one move before the fallback plays it instead (``hard``
#: thinks for one second; the rest is room for a loaded host).
BOT_TIMEOUT = 30.0
#: Plays the move of a bot that failed or ran out of time: a cheap rule of thumb that never
#: searches, thinking in the server's own process (the pool may be what broke).
FALLBACK_BOT = "greedy"


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


class Choice(NamedTuple):
    action: int
    #: Why the seat's own bot did not play this move (``None``: it did).
    replaced: str | None = None


def _start_worker(server: int, plugins: tuple[str, ...], metrics_dir: str | None = None) -> None:
    """A worker's start: count its work in ``metrics_dir``, load the server's bot plugins, and
    end with the server."""
    metrics.worker_started(metrics_dir)
    load_plugins(plugins)
    threading.Thread(target=_exit_with, args=(server,), daemon=True).start()


def _timed(work: str, do: Callable[..., T], *args: Any) -> T:
    """``do(*args)``, its time counted as ``work`` (in a worker process; see metrics.py)."""
    start = time.perf_counter()
    try:
        return do(*args)
    finally:
        metrics.thought(work, time.perf_counter() - start)


def _ready() -> None:
    """Nothing: a worker that runs it has started."""


def _exit_with(server: int) -> None:
    # A server killed outright never shuts its pool down, and the worker would wait for work
    # (and keep the forkserver alive) for ever.
    try:
        select.select([os.pidfd_open(server)], [], [])
    except (AttributeError, OSError):  # no pidfd (not Linux 5.3+): look once a second
        while _alive(server):
            time.sleep(1)
    os._exit(0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


#: Work threads when the pool has no worker processes (``workers=0``).
THREAD_SLOTS = 4


class BotPool:
    """A process pool for bot decisions, hints and reviews, shared fairly between the tables
    and reviews that ask (:mod:`.fairshare`); ``workers=0`` thinks in threads (tests, tiny
    hosts: a stuck bot's thread cannot be stopped there, only given up on).

    ``timeout`` is the operator's ceiling on one piece of work (a bot's move, a hint, one
    decision of a review): past it the work is given up and its worker replaced. ``roster``
    is the bots a request may choose (:mod:`.roster`).
    """

    def __init__(
        self,
        workers: int,
        analysis: Analysis | None = None,
        timeout: float = BOT_TIMEOUT,
        plugins: Sequence[str] = (),
        roster: BotRoster | None = None,
        metrics_dir: str | None = None,
    ) -> None:
        self.workers = workers
        #: Where the workers count their work (``None``: they count nothing).
        self.metrics_dir = metrics_dir
        self.analysis = analysis or Analysis()
        self.share = FairShare(workers or THREAD_SLOTS)
        self.timeout = timeout
        self.plugins = load_plugins(plugins)
        self.roster = roster or BotRoster()
        #: The server is draining: no bot starts another move.
        self.closing = False
        self.executor = self._new_executor()

    def _new_executor(self) -> ProcessPoolExecutor | None:
        self.ready: list[Future[None]] = []
        if self.workers == 0:
            return None
        # forkserver: workers do not inherit the server's threads, sockets or database pool.
        executor = ProcessPoolExecutor(
            self.workers,
            mp_context=multiprocessing.get_context("forkserver"),
            initializer=_start_worker,
            initargs=(os.getpid(), self.plugins, self.metrics_dir),
        )
        # Start every worker now: a worker's start (a second or more on a busy host) is not
        # a bot's thinking time.
        self.ready = [executor.submit(_ready) for _ in range(self.workers)]
        return executor

    def _replace(self, broken: ProcessPoolExecutor | None) -> None:
        """A fresh pool instead of ``broken`` (unless that was done already), whose workers are
        killed: a stuck one would never take work again."""
        if broken is None or broken is not self.executor:
            return
        self.executor = self._new_executor()
        # The pool's own processes: Python 3.14's kill_workers() is this, not yet available.
        for process in list((broken._processes or {}).values()):
            process.kill()
        broken.shutdown(wait=False, cancel_futures=True)

    async def _run(self, owner: Hashable, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in a worker once ``owner``'s turn comes. Raises what went wrong:
        ``TimeoutError`` once it has run for longer than ``timeout``, ``BrokenProcessPool`` if
        its worker died; the pool is replaced in both cases. The time counts from when a worker
        takes the work up: there are as many turns as workers, so none waits in the pool."""
        async with self.share.turn(owner):
            while True:
                executor = self.executor
                if executor is None:
                    async with asyncio.timeout(self.timeout):
                        return await asyncio.to_thread(work, *args)
                try:
                    await asyncio.gather(*(asyncio.wrap_future(f) for f in self.ready))
                    answer = asyncio.wrap_future(executor.submit(work, *args))
                    async with asyncio.timeout(self.timeout):
                        return await answer
                except BrokenProcessPool:
                    if executor is self.executor:
                        self._replace(executor)
                        raise
                    # Another owner's work broke the pool this one was in: ask the new pool.
                except TimeoutError:
                    self._replace(executor)
                    raise

    async def choose(
        self, spec: str, view: PlayerView, legal: Sequence[int], seed: int, owner: Hashable = None
    ) -> int:
        """The bot's own move, thought in ``owner``'s turn (see :meth:`_run`)."""
        return await self._run(owner, _timed, "move", choose, spec, view, list(legal), seed)

    async def choose_or_fallback(
        self, spec: str, view: PlayerView, legal: Sequence[int], seed: int, owner: Hashable = None
    ) -> Choice:
        """The bot's move, or :data:`FALLBACK_BOT`'s if the bot failed or took too long. Why is
        said in a few fixed words: what the bot raised goes to the log only (a plugin's error
        may quote its hand)."""
        metrics.BOT_DECISIONS.inc()
        start = time.perf_counter()
        try:
            return Choice(await self.choose(spec, view, legal, seed, owner))
        except TimeoutError:
            reason, why = f"it took longer than {self.timeout:g} s", "timeout"
        except BrokenProcessPool:
            reason, why = "its worker process died", "worker_died"
        except Exception as exc:  # a broken answer (BotMoveError) or a bot that raised
            log.error("bot %s failed: %s", spec, str(exc) or repr(exc))
            reason, why = "it failed", "failed"
        finally:
            metrics.BOT_DECISION_SECONDS.observe(time.perf_counter() - start)
        metrics.BOTS_REPLACED.labels(why).inc()
        action = await asyncio.to_thread(choose, FALLBACK_BOT, view, list(legal), seed)
        return Choice(action, reason)

    async def hint(self, view: PlayerView, seed: int, owner: Hashable = None) -> Hint:
        """The hint bot's suggestion for the viewer's decision, with its estimate."""
        a = self.analysis
        return await self._run(
            owner,
            _timed,
            "hint",
            hint,
            view._replace(events=None),
            seed,
            a.hint_bot,
            a.hint_iterations,
        )

    async def review(
        self, view: PlayerView, played: int, seed: int, index: int, owner: Hashable = None
    ) -> DecisionReview:
        """One decision of a finished game graded (``piepmatz.bots.analysis.review_decision``)."""
        return await self._run(
            owner,
            _timed,
            "review",
            review_decision,
            view._replace(events=None),
            played,
            self.analysis.review_iterations,
            seed,
            index,
        )

    def alive(self) -> str | None:
        """``None`` while the workers are alive; else what is wrong, and a fresh pool is
        started (the next look finds it alive; a bot would have replaced it at its next move)."""
        executor = self.executor
        if executor is None:
            return None
        processes = list((executor._processes or {}).values())
        dead = sum(not process.is_alive() for process in processes)
        if not dead and not executor._broken:
            return None
        self._replace(executor)
        return "a bot worker died: new ones are starting"

    def close(self) -> None:
        """The server is leaving (after its drain): a move still being thought is given up.
        The workers are killed and the pool joined, so that its queues' semaphores are let go:
        left to the exit, Python's resource tracker warns of them on standard error, outside
        the log's format."""
        executor = self.executor
        if executor is None:
            return
        for process in list((executor._processes or {}).values()):
            process.kill()
        executor.shutdown(wait=True, cancel_futures=True)
