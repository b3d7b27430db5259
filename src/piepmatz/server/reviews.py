"""Reviews of finished games for the replay page: one player's decisions graded by the search.

A review is asked for over HTTP and takes a while (every option of every decision is searched),
so it runs as a task that searches the decisions one by one in the bot pool's workers and counts
them: the page polls and shows the progress. Finished reviews are kept in memory per table and
player, so a second request is answered at once; a game's review never changes, because its
seed is fixed.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from typing import Any

from piepmatz.bots.analysis import GRADES, DecisionReview, decision_seed, decisions, summarise
from piepmatz.core import Game

from .pool import BotPool

log = logging.getLogger("piepmatz.server")

#: The search's seed: ``piepmatz review``'s default, so that both give the same report.
REVIEW_SEED = 1
#: Finished reviews kept (least recently asked for dropped first); each is some 10-50 kB.
KEPT = 256


class ReviewJob:
    """One player's review of one finished game, searched in the bot pool."""

    def __init__(self, game: Game, player: int, bots: BotPool, table: str = "") -> None:
        self.player = player
        #: Whose turn in the bot pool this review's searches take (one owner per review).
        self.owner = ("review", table, player)
        self.todo = list(decisions(game, player))
        self.total = len(self.todo)
        self.done = 0
        self.result: dict[str, Any] | None = None
        self.error: str | None = None
        self.iterations = bots.analysis.review_iterations
        self.task = asyncio.create_task(self._run(bots), name=f"review {player}")

    async def _run(self, bots: BotPool) -> None:
        found: dict[int, DecisionReview] = {}
        pending = iter(self.todo)

        async def search() -> None:
            for d in pending:
                seed = decision_seed(REVIEW_SEED, d.index)
                found[d.index] = await bots.review(d.view, d.played, seed, d.index, self.owner)
                self.done += 1

        try:
            # A search per worker, taking turns with the tables' bots (an idle worker goes to
            # the review only when no table waits): each decision's seed is its own, so the
            # review is the same in whatever order its decisions are searched.
            async with asyncio.TaskGroup() as group:
                for _ in range(max(1, bots.workers)):  # workers=0: one thread
                    group.create_task(search())
            reviews = [found[d.index] for d in self.todo]
        except Exception as exc:  # a dead worker: said to the asker, who may ask again
            log.exception("review of player %d failed", self.player)
            self.error = f"the review could not be computed: {exc!r}"
            return
        finally:
            self.todo = []  # the views are not needed once searched
        self.result = {
            "player": self.player,
            "iterations": self.iterations,
            "seed": REVIEW_SEED,
            "grades": dict(GRADES),
            "summary": summarise(reviews).to_json(),
            "decisions": [r.to_json() for r in reviews],
        }

    def progress(self) -> dict[str, Any]:
        return {"status": "computing", "done": self.done, "total": self.total}


class Reviews:
    """The reviews asked for, by table and player: running ones and the finished ones kept."""

    def __init__(self, bots: BotPool) -> None:
        self.bots = bots
        self.jobs: OrderedDict[tuple[str, int], ReviewJob] = OrderedDict()

    def known(self, table: str, player: int) -> bool:
        """Whether ``player``'s review at ``table`` is computed or being computed (asking for
        it again starts nothing)."""
        job = self.jobs.get((table, player))
        return job is not None and job.error is None

    def computing(self) -> int:
        """Reviews being computed now."""
        return sum(not job.task.done() for job in self.jobs.values())

    def get(self, table: str, game: Game, player: int) -> ReviewJob:
        """The review of ``player`` at ``table`` (a finished ``game``), started if it is new."""
        key = (table, player)
        job = self.jobs.get(key)
        if job is not None and job.error is not None:
            job = None  # failed: a new request starts it again
        if job is None:
            job = self.jobs[key] = ReviewJob(game, player, self.bots, table)
            finished = [k for k, j in self.jobs.items() if j.task.done()]
            for old in finished[: max(0, len(self.jobs) - KEPT)]:
                del self.jobs[old]
        self.jobs.move_to_end(key)
        return job

    def close(self) -> None:
        for job in self.jobs.values():
            job.task.cancel()
