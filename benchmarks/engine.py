"""Engine speed: random games, one core, decisions and games per second.

A decision is one legal-action generation plus one ``apply_id`` (the unchecked fast path), as a
search loop uses them. ``--checked`` measures the checked path (``apply``) and ``--events`` keeps
the event log, as interfaces do. Time is the process's CPU time, which other processes on the
machine disturb less than the clock; ``--games`` plays the same seeded games in every run instead
of running for ``--seconds``, to compare two versions side by side.

    python benchmarks/engine.py [--seconds 3 | --games 450] [--players 2 3 4]
        [--rules standard overview] [--checked] [--events]
"""

from __future__ import annotations

import argparse
import random
import time

from piepmatz.core import State
from piepmatz.core.state import GAME_OVER


def run(
    players: int, rules: str, seconds: float, events: bool, checked: bool, count: int = 0
) -> tuple[float, float]:
    rng = random.Random(1)
    decisions = games = 0
    seed = 0
    start = time.process_time()
    deadline = start + seconds
    while games < count if count else time.process_time() < deadline:
        state = State.new_game(players=players, rules=rules, seed=seed, events=events)
        seed += 1
        while state.phase != GAME_OVER:
            ids = state.legal_action_ids()
            choice = ids[rng.randrange(len(ids))]
            if checked:
                state.apply(choice)
            else:
                state.apply_id(choice)
            decisions += 1
        games += 1
    elapsed = time.process_time() - start
    return decisions / elapsed, games / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per configuration")
    parser.add_argument("--games", type=int, default=0, help="per configuration, not --seconds")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--rules", nargs="+", default=["standard", "overview"])
    parser.add_argument("--events", action="store_true", help="keep the event log")
    parser.add_argument("--checked", action="store_true", help="use the checked apply()")
    args = parser.parse_args()
    mode = ("checked" if args.checked else "fast path") + (", event log" if args.events else "")
    print(f"engine benchmark: random games, one core, {mode}")
    print(f"{'players':>7}  {'rules':<9}  {'decisions/s':>12}  {'games/s':>8}")
    for rules in args.rules:
        for players in args.players:
            dps, gps = run(players, rules, args.seconds, args.events, args.checked, args.games)
            print(f"{players:>7}  {rules:<9}  {dps:>12,.0f}  {gps:>8,.0f}")


if __name__ == "__main__":
    main()
