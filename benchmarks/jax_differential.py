"""The long differential test of the JAX environment: random games played in it and in the core
from the same deals, every legal mask, observation, reward and end compared
(:mod:`piepmatz.jax.differential`; the test suite runs a few games of each kind).

It plays ``--games`` games of every player count and preset (default 1,700: 10,200 in all) and
prints the games and steps compared; it stops at the first disagreement, naming the game, the
position and the fields that differ.

    python benchmarks/jax_differential.py [--games 1700] [--batch 64] [--seed 0]
"""

from __future__ import annotations

import argparse
import time

from piepmatz.core.rules import Rules
from piepmatz.jax.differential import run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_700, help="per player count and preset")
    parser.add_argument("--batch", type=int, default=64, help="games played at once")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    total_games = total_steps = 0
    started = time.perf_counter()
    for players in (2, 3, 4):
        for preset in ("standard", "overview"):
            t0 = time.perf_counter()
            tally = run(players, Rules.preset(preset), args.games, args.seed, args.batch)
            total_games += tally.games
            total_steps += tally.steps
            print(
                f"{players} players, {preset:<8}: {tally.games:>6,} games, "
                f"{tally.steps:>9,} steps agree ({time.perf_counter() - t0:,.0f} s)",
                flush=True,
            )
    print(
        f"all: {total_games:,} games, {total_steps:,} steps, every mask, observation, reward "
        f"and end the core's ({time.perf_counter() - started:,.0f} s)"
    )


if __name__ == "__main__":
    main()
