"""Game review speed and stability (``piepmatz review``).

Speed: the time to review one player's decisions of a whole two-player game (a fixed game:
``ismcts:iterations=300`` against the heuristic, deal ``--seed``) at a budget, on a process pool
as the command runs it:

    python benchmarks/review.py [--iterations 1000] [--processes 2] [--player 1 2]

Stability: the same decisions reviewed with two review seeds at each budget; how often the two
name the same best option and give the move played the same grade (also with best and good
taken as one), and how far the points lost differ:

    python benchmarks/review.py --stability 250 500 1000 2000 [--player 1 2]
"""

from __future__ import annotations

import argparse
import os
import random
import time

from piepmatz.bots import make_bot
from piepmatz.bots.analysis import DEFAULT_ITERATIONS, DecisionReview, decisions, review_game
from piepmatz.bots.base import decide
from piepmatz.core import Game


def fixed_game(seed: int) -> Game:
    """A whole two-player game between the search and the heuristic, the same for a seed."""
    game = Game.new(players=2, seed=seed)
    bots = [make_bot("ismcts:iterations=300"), make_bot("heuristic")]
    rng = random.Random(seed)
    while not game.state.is_over():
        p = game.state.current_player
        game.apply(decide(bots[p], game.view(p), game.state.legal_action_ids(), rng))
    return game


def speed(game: Game, players: list[int], iterations: int, processes: int) -> None:
    for player in players:
        found = list(decisions(game, player))
        options = sum(d.options for d in found)
        start = time.perf_counter()
        review_game(game, player, iterations, seed=1, processes=processes)
        elapsed = time.perf_counter() - start
        print(
            f"review of player {player + 1}: {len(found)} decisions, {options} options, "
            f"{iterations:,} iterations each, {processes} processes: {elapsed:.1f} s "
            f"({options * iterations / elapsed:,.0f} iterations/s)"
        )


def stability(game: Game, players: list[int], budgets: list[int], processes: int) -> None:
    print(
        f"{'iterations':>10}  {'same best':>9}  {'same grade':>10}  "
        f"{'same, best = good':>17}  {'mean |Δloss|':>12}"
    )
    for budget in budgets:
        a = [r for p in players for r in review_game(game, p, budget, 1, processes)]
        b = [r for p in players for r in review_game(game, p, budget, 2, processes)]
        n = len(a)
        best = sum(x.best.action == y.best.action for x, y in zip(a, b, strict=True)) / n
        grade = sum(x.grade == y.grade for x, y in zip(a, b, strict=True)) / n
        verdict = sum(_verdict(x) == _verdict(y) for x, y in zip(a, b, strict=True)) / n
        loss = sum(abs(x.loss - y.loss) for x, y in zip(a, b, strict=True)) / n
        print(f"{budget:>10,}  {best:>9.0%}  {grade:>10.0%}  {verdict:>17.0%}  {loss:>12.2f}")


def _verdict(review: DecisionReview) -> str:
    """The grade, with best and good as one: a move within a point of the best is accurate."""
    return "good" if review.grade == "best" else review.grade


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=2026, help="the fixed game's deal")
    parser.add_argument(
        "--player", type=int, nargs="+", default=[1], help="players to review, from 1 (1)"
    )
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--stability", type=int, nargs="+", metavar="ITERATIONS")
    args = parser.parse_args()
    game = fixed_game(args.seed)
    print(f"fixed game: seed {args.seed}, {len(game.actions)} actions")
    if args.stability:
        stability(game, [p - 1 for p in args.player], args.stability, args.processes)
    else:
        speed(game, [p - 1 for p in args.player], args.iterations, args.processes)


if __name__ == "__main__":
    main()
