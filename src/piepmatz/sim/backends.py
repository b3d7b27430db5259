"""Running a tournament's games: in this process, on local processes, or on a Ray cluster.

Games go out in batches of consecutive indices. Results are put back in index order, and a game
depends only on the tournament seed and its index, so every backend, batch size and worker count
gives the same results.
"""

from __future__ import annotations

import math
import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final

from .play import BotFailure, GameResult, MatchConfig, play_batch

BACKENDS: Final = ("inline", "process", "ray")
#: Batches per worker when the batch size is chosen automatically: enough for an even finish and
#: a progress bar that moves, few enough that scheduling costs little.
BATCHES_PER_WORKER: Final = 16
MAX_AUTO_BATCH: Final = 250

Progress = Callable[[int], None]


class BackendError(RuntimeError):
    """The backend could not be started or reached (for example no Ray cluster at the address)."""


def auto_batch_size(games: int, workers: int) -> int:
    """Batch size for ``games`` games on ``workers`` workers.

    >>> auto_batch_size(2000, 2), auto_batch_size(10, 4), auto_batch_size(10**6, 8)
    (63, 1, 250)
    """
    return max(1, min(MAX_AUTO_BATCH, math.ceil(games / (workers * BATCHES_PER_WORKER))))


def batches(start: int, stop: int, size: int) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` index ranges of at most ``size`` games.

    >>> list(batches(0, 7, 3))
    [(0, 3), (3, 6), (6, 7)]
    """
    if size < 1:
        raise ValueError(f"the batch size must be at least 1, not {size}")
    for lo in range(start, stop, size):
        yield lo, min(stop, lo + size)


def local_cpus() -> int:
    return os.cpu_count() or 1


def run_games(
    config: MatchConfig,
    backend: str = "process",
    workers: int | None = None,
    batch_size: int | None = None,
    progress: Progress | None = None,
    address: str | None = None,
) -> list[GameResult]:
    """Play every game of ``config``; returns the results in game-index order.

    ``progress`` is called with the number of games just finished after every batch. ``workers``
    defaults to every local core (``process``) or every CPU of the Ray cluster (``ray``).
    ``address`` joins an existing Ray cluster (``"auto"`` or ``"host:port"``); without it a local
    Ray instance is started, unless Ray is already initialised in this process. The plugins and
    bot specs are checked here first (:meth:`~piepmatz.sim.play.MatchConfig.load_bots`). A
    :class:`~piepmatz.sim.play.BotFailure` stops the run and carries the games finished before it
    in its ``finished``.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: choose one of {', '.join(BACKENDS)}")
    if workers is not None and workers < 1:
        raise ValueError(f"the number of workers must be at least 1, not {workers}")
    config.load_bots()
    total = config.total_games
    results: list[GameResult] = []
    try:
        if backend == "inline":
            for lo, hi in batches(0, total, batch_size or auto_batch_size(total, 1)):
                results.extend(play_batch(config, lo, hi))
                if progress:
                    progress(hi - lo)
        elif backend == "process":
            _run_processes(config, workers or local_cpus(), batch_size, progress, results)
        else:
            _run_ray(config, workers, batch_size, progress, address, results)
    except BotFailure as exc:
        # What finished is kept: a long run can still save its records.
        exc.finished = sorted(results, key=lambda r: r.index)
        raise
    results.sort(key=lambda r: r.index)
    return results


def _pool_context() -> Any:
    # Not fork: the parent may hold threads (Ray, a progress bar) that a forked child would inherit
    # half-locked. forkserver starts clean workers cheaply where it exists.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _run_processes(
    config: MatchConfig,
    workers: int,
    batch_size: int | None,
    progress: Progress | None,
    results: list[GameResult],
) -> None:
    total = config.total_games
    size = batch_size or auto_batch_size(total, workers)
    with ProcessPoolExecutor(max_workers=workers, mp_context=_pool_context()) as pool:
        pending: dict[Future[list[GameResult]], tuple[int, int]] = {
            pool.submit(play_batch, config, lo, hi): (lo, hi) for lo, hi in batches(0, total, size)
        }
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    lo, hi = pending.pop(future)
                    try:
                        batch = future.result()
                    except BrokenProcessPool as exc:
                        raise BackendError(
                            f"a worker process died while playing games {lo}-{hi - 1} (killed, out "
                            "of memory, or ended by a bot); replay one alone with --only N to see "
                            "which"
                        ) from exc
                    results.extend(batch)
                    if progress:
                        progress(len(batch))
        except BaseException:
            for future in pending:
                future.cancel()
            raise


def _run_ray(
    config: MatchConfig,
    workers: int | None,
    batch_size: int | None,
    progress: Progress | None,
    address: str | None,
    results: list[GameResult],
) -> None:
    try:
        import ray
    except ImportError:
        raise BackendError('the ray backend needs Ray: pip install "piepmatz[ray]"') from None

    started = False
    if not ray.is_initialized():
        try:
            if address:
                import piepmatz

                # Ship this package to the cluster's workers, so they play the same code.
                ray.init(
                    address=address,
                    runtime_env={"py_modules": [piepmatz]},
                    include_dashboard=False,
                    log_to_driver=False,
                )
            else:
                ray.init(
                    num_cpus=workers or local_cpus(), include_dashboard=False, log_to_driver=False
                )
        except Exception as exc:  # Ray raises several kinds (ConnectionError, RuntimeError, ...)
            where = f"join the Ray cluster at {address}" if address else "start a local Ray"
            raise BackendError(f"cannot {where}: {exc}") from exc
        started = True
    try:
        cpus = int(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]
        total = config.total_games
        size = batch_size or auto_batch_size(total, workers or cpus)
        task = ray.remote(num_cpus=1)(play_batch)
        config_ref = ray.put(config)
        pending = [task.remote(config_ref, lo, hi) for lo, hi in batches(0, total, size)]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            try:
                finished = ray.get(done)
            except ray.exceptions.RayTaskError as exc:
                # The bot's own error, not Ray's wrapping of it with the remote traceback.
                if isinstance(exc.cause, BotFailure):
                    raise exc.cause from None
                raise
            for batch in finished:
                results.extend(batch)
                if progress:
                    progress(len(batch))
    finally:
        if started:
            ray.shutdown()
