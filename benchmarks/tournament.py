"""Tournament throughput: games per second on each backend, and the speed-up from one core to all.

    .venv/bin/python benchmarks/tournament.py --games 600 --bots random
    .venv/bin/python benchmarks/tournament.py --games 60 --bots heuristic random --backends process

Each backend plays the same tournament (same seed), and the script checks that they agree. Pool
and Ray start-up are timed separately from play, since they are paid once per run.
"""

from __future__ import annotations

import argparse
import os
import time

from piepmatz.sim import MatchConfig, run_games
from piepmatz.sim.play import GameResult


def timed(
    config: MatchConfig, backend: str, workers: int, batch: int | None
) -> tuple[float, list[GameResult]]:
    start = time.perf_counter()
    results = run_games(config, backend=backend, workers=workers, batch_size=batch)
    return time.perf_counter() - start, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--bots", nargs="+", default=["random"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=None)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="'all cores'")
    parser.add_argument("--backends", nargs="+", default=["inline", "process", "ray"])
    args = parser.parse_args()

    config = MatchConfig(args.players, tuple(args.bots), args.games, args.seed)
    n = config.total_games
    cores = args.workers
    print(f"{n} games, {args.players} players, bots {' '.join(args.bots)}, {cores} cores "
          f"(os.cpu_count() = {os.cpu_count()})")  # fmt: skip
    print(f"{'backend':<10} {'workers':>7} {'seconds':>8} {'games/s':>8} {'speed-up':>8}")
    reference: list[GameResult] | None = None
    base_rate: float | None = None

    def row(name: str, workers: int, seconds: float, results: list[GameResult]) -> None:
        nonlocal reference, base_rate
        if reference is None:
            reference = results
        elif results != reference:
            raise SystemExit(f"{name} with {workers} workers gave different games!")
        rate = n / seconds
        if base_rate is None:
            base_rate = rate
        print(f"{name:<10} {workers:>7} {seconds:>8.2f} {rate:>8.1f} {rate / base_rate:>7.2f}x")

    if "inline" in args.backends:
        seconds, results = timed(config, "inline", 1, args.batch_size)
        row("inline", 1, seconds, results)
    if "process" in args.backends:
        for workers in sorted({1, cores}):
            seconds, results = timed(config, "process", workers, args.batch_size)
            row("process", workers, seconds, results)
    if "ray" in args.backends:
        import ray

        start = time.perf_counter()
        ray.init(num_cpus=cores, include_dashboard=False, log_to_driver=False)
        print(f"(Ray start-up: {time.perf_counter() - start:.1f} s, not counted below)")
        try:
            run_games(MatchConfig(args.players, ("random",), 2 * cores, 0), backend="ray")  # warm
            # A Ray run uses every CPU of the instance; workers only sizes the batches.
            seconds, results = timed(config, "ray", cores, args.batch_size)
            row("ray", cores, seconds, results)
        finally:
            ray.shutdown()
    print("speed-up is relative to the first row (one core); process rows include pool start-up")


if __name__ == "__main__":
    main()
