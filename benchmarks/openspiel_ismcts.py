"""OpenSpiel's Python ISMCTS against our ``ismcts`` bot, equal time per move, two players.

Both bots play the same game, ``python_piepmatz`` through the OpenSpiel binding: OpenSpiel's
``ISMCTSBot`` (random-rollout evaluator, UCT, final move by visit count) searches through the
binding — ``resample_from_infostate`` at every iteration, explicit chance nodes in every rollout;
ours (``ismcts:time=T``) plays through the binding's public adapter,
``piepmatz.envs.openspiel_bot.PiepmatzBot``, which gives it the acting player's view of the same
position. OpenSpiel's bot counts simulations, not seconds, so its search loop is run until the
same deadline (``TimedISMCTSBot``: OpenSpiel's ``run_search`` with the simulation count replaced
by the clock). Seats alternate; chance follows a seeded generator, one per game.

The result is our bot's score (win 1, shared win 1/2, loss 0) with a 95 % Wilson interval.

    python benchmarks/openspiel_ismcts.py [--games 30] [--time 0.1] [--seed 1]
    python benchmarks/openspiel_ismcts.py --full      # 200 games at 0.5 s per move
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import pyspiel

from piepmatz.envs.openspiel_bot import PiepmatzBot  # registers python_piepmatz too
from piepmatz.envs.openspiel_ismcts import TimedISMCTSBot
from piepmatz.sim.stats import wilson


def play(game: Any, time_limit: float, openspiel_seat: int, seed: int) -> tuple[float, Any, Any]:
    """One game; returns our bot's score (1, 1/2 or 0) and both bots (for their statistics)."""
    theirs = TimedISMCTSBot(game, time_limit, seed)
    ours = PiepmatzBot(f"ismcts:time={time_limit}", seed=seed)
    chance = np.random.RandomState(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(chance.choice(outcomes, p=probabilities)))
        elif state.current_player() == openspiel_seat:
            state.apply_action(int(theirs.step(state)))
        else:
            state.apply_action(ours.step(state))
    returns = state.returns()
    mine = returns[1 - openspiel_seat]
    return (1.0 if mine > 0 else 0.5 if mine == 0 else 0.0), theirs, ours.bot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--time", type=float, default=0.1, help="seconds per move, both bots")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--preset", default="standard")
    parser.add_argument("--full", action="store_true", help="200 games at 0.5 s per move")
    args = parser.parse_args()
    if args.full:
        args.games, args.time = 200, 0.5
    game = pyspiel.load_game("python_piepmatz", {"players": 2, "preset": args.preset})
    print(
        f"OpenSpiel ISMCTSBot vs piepmatz ismcts: {args.games} two-player games, "
        f"{args.time} s per move, {args.preset} rules, "
        f"seeds {args.seed}..{args.seed + args.games - 1}"
    )
    score = 0.0
    sims: list[int] = []
    start = time.perf_counter()
    for i in range(args.games):
        result, theirs, ours = play(game, args.time, i % 2, args.seed + i)
        score += result
        sims += theirs.simulations
        print(
            f"  game {i + 1:3d}: OpenSpiel in seat {i % 2}, ours scores {result:.1f} "
            f"(running {score:.1f}/{i + 1}; last move: OpenSpiel {theirs.simulations[-1]} "
            f"simulations, ours {ours.last_iterations} iterations)",
            flush=True,
        )
    low, high = wilson(score, args.games)
    print(
        f"ours: {score:.1f}/{args.games} = {score / args.games:.1%}, "
        f"95 % Wilson interval [{low:.1%}, {high:.1%}]"
    )
    print(
        f"OpenSpiel ISMCTS: {np.mean(sims):.1f} simulations per move on average; "
        f"{time.perf_counter() - start:.0f} s in all"
    )


if __name__ == "__main__":
    main()
