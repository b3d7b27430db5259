"""The reinforcement-learning baseline's figures: learning curve, training speed, the ladder.

One training run of a length fixed in advance (``piepmatz train`` with these options), then the
final policy plays the levels ladder (``random < easy < greedy < medium``; ``hard`` thinks a
second per move and is left out unless asked for) on fresh deals::

    python benchmarks/rl.py --out /tmp/rl-run [--steps 400000] [--ladder-games 400]

Prints the learning curve (win rate with 95 % Wilson intervals against ``random``, ``easy`` and
``medium`` at each evaluation), learner steps per second while training (evaluation excluded),
and the ladder; writes the checkpoints, ``curve.json`` and ``curve.png`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from piepmatz.rl.curve import play_checkpoint, win_rate
from piepmatz.rl.ppo import TrainConfig, train

LADDER = ("random", "easy", "greedy", "medium")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--steps", type=int, default=400_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opponents", nargs="+", default=["random", "easy"])
    parser.add_argument("--hidden", type=int, nargs="+", default=[64])
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--eval-every", type=int, default=80_000)
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--ladder", nargs="+", default=list(LADDER))
    parser.add_argument("--ladder-games", type=int, default=400)
    parser.add_argument("--ladder-seed", type=int, default=31_000, help="fresh deals")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args()
    config = TrainConfig(
        steps=args.steps,
        seed=args.seed,
        opponents=tuple(args.opponents),
        hidden=tuple(args.hidden),
        learning_rate=args.learning_rate,
        eval_every=args.eval_every,
        eval_games=args.eval_games,
    )
    print(f"config: {json.dumps({k: v for k, v in vars(args).items()})}", flush=True)
    print(f"cpus: {os.cpu_count()}, load average at start: {os.getloadavg()}", flush=True)
    started = time.perf_counter()
    result = train(config, args.out, progress=args.progress, report=lambda s: print(s, flush=True))
    print(
        f"training: {result.steps:,} learner steps in {result.train_seconds:.0f} s "
        f"= {result.steps_per_second:,.0f} steps/s (evaluation excluded); "
        f"wall {time.perf_counter() - started:.0f} s with the evaluations",
        flush=True,
    )
    print(
        f"ladder of {result.final} ({args.ladder_games} games each, deals seed "
        f"{args.ladder_seed}):",
        flush=True,
    )
    for opponent in args.ladder:
        games = play_checkpoint(result.final, opponent, args.ladder_games, args.ladder_seed)
        rate = win_rate(opponent, games)
        low, high = rate.interval
        print(
            f"  vs {opponent:<8} {100 * rate.rate:5.1f} % [{100 * low:.1f}, {100 * high:.1f}] "
            f"of {rate.games}",
            flush=True,
        )
    print(f"load average at end: {os.getloadavg()}; curve: {Path(args.out) / 'curve.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
