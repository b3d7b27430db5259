"""Speed and strength of the bots: prints the figures quoted in the README.

Commands::

    python benchmarks/bots.py speed                       # decisions/s and ISMCTS iterations/s
    python benchmarks/bots.py match heuristic random --players 2 --games 200
    python benchmarks/bots.py match ismcts:iterations=5000 heuristic --games 100 --processes 2
    python benchmarks/bots.py all --games 100 --budget auto --processes 2

Matches use the duplicate format: every deal (``State.new_game(players, seed=deal)``) is played
once with the first bot in each seat, the other seats taken by the second bot, so both bots get
the same cards and turn orders. A game counts 1 for a win of the first bot, 1/k for a win shared
by k players (E5), 0 otherwise (in two-player games: ties count half). The interval is the 95 %
Wilson score interval over the games played (the seat rotations of one deal are counted as
separate games).

``--budget auto`` measures how many ISMCTS iterations one second buys on this machine (one core,
for two and for four players) and plays ``ismcts:iterations=<that>`` in place of
``ismcts:time=1.0``: the same strength, but the games can run in parallel processes without one
process's load shortening another's thinking time, and they are reproducible.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Sequence

from piepmatz.bots import make_bot
from piepmatz.bots.ismcts import ISMCTSBot
from piepmatz.core.scoring import score
from piepmatz.core.state import State
from piepmatz.core.view import view_of


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a win rate."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def play_game(specs: Sequence[str], deal: int, players: int, bot_seed: int) -> tuple[int, ...]:
    """Play one game, seat i by ``specs[i]``; returns the winners (E5)."""
    bots = [make_bot(s) for s in specs]
    state = State.new_game(players, seed=deal, events=False)
    rng = random.Random(bot_seed)
    while not state.is_over():
        p = state.current_player
        legal = state.legal_action_ids()
        action = bots[p].choose(view_of(state, p), legal, rng)
        if action not in legal:
            raise RuntimeError(f"{specs[p]} chose illegal action {action} in deal {deal}")
        state.apply_id(action)
    piles = [state.seed_pile(q) for q in range(players)]
    return score(state.rules, state.collections, piles).winners


def _game_task(task: tuple[str, str, int, int, int]) -> tuple[int, int, float, float]:
    first, second, players, deal, seat = task
    specs = [second] * players
    specs[seat] = first
    start = time.perf_counter()
    winners = play_game(specs, deal, players, bot_seed=deal * 16 + seat)
    result = 1.0 / len(winners) if seat in winners else 0.0
    return deal, seat, result, time.perf_counter() - start


def match(
    first: str, second: str, players: int, games: int, processes: int, first_deal: int = 0
) -> tuple[float, int, float, float]:
    """``first`` against ``players - 1`` copies of ``second`` over ``games`` deals × seats."""
    tasks = [
        (first, second, players, deal, seat)
        for deal in range(first_deal, first_deal + games)
        for seat in range(players)
    ]
    start = time.perf_counter()
    if processes > 1:
        with multiprocessing.Pool(processes) as pool:
            results = list(pool.imap_unordered(_game_task, tasks))
    else:
        results = [_game_task(t) for t in tasks]
    wins = sum(r[2] for r in results)
    n = len(results)
    lo, hi = wilson(wins, n)
    elapsed = time.perf_counter() - start
    print(
        f"{first} vs {players - 1}x {second}, {players} players: "
        f"{wins:g}/{n} = {wins / n:.1%} won, 95% Wilson [{lo:.1%}, {hi:.1%}] "
        f"({games} deals x {players} seats, {processes} process(es), {elapsed:.0f} s)",
        flush=True,
    )
    return wins / n, n, lo, hi


def _positions(players: int, count: int, seed: int) -> list[State]:
    """Positions with a real decision, from games of heuristic bots."""
    bot = make_bot("heuristic")
    rng = random.Random(seed)
    out: list[State] = []
    deal = seed
    while len(out) < count:
        state = State.new_game(players, seed=deal, events=False)
        deal += 1
        k = 0
        while not state.is_over() and len(out) < count:
            p = state.current_player
            legal = state.legal_action_ids()
            if len(legal) > 1 and k % 7 == 3:
                out.append(state.copy(events=False))
            state.apply_id(bot.choose(view_of(state, p), legal, rng))
            k += 1
    return out


def decisions_per_second(spec: str, positions: Sequence[State]) -> float:
    bot = make_bot(spec)
    rng = random.Random(1)
    views = [(view_of(s, s.current_player), s.legal_action_ids()) for s in positions]
    start = time.perf_counter()
    for view, legal in views:
        bot.choose(view, legal, rng)
    return len(views) / (time.perf_counter() - start)


def ismcts_rate(spec: str, positions: Sequence[State]) -> float:
    """Iterations per second of an ISMCTS spec over the positions."""
    bot = make_bot(spec)
    if not isinstance(bot, ISMCTSBot):
        raise SystemExit(f"{spec} is not an ISMCTS bot")
    rng = random.Random(1)
    iterations = 0
    elapsed = 0.0
    for s in positions:
        view, legal = view_of(s, s.current_player), s.legal_action_ids()
        start = time.perf_counter()
        bot.choose(view, legal, rng)
        elapsed += time.perf_counter() - start
        iterations += bot.last_iterations
    return iterations / elapsed


def speed(positions: int, ismcts: str) -> dict[int, float]:
    """Print the speed figures; returns ISMCTS iterations per second by number of players."""
    rates: dict[int, float] = {}
    for players in (2, 4):
        pos = _positions(players, positions, seed=1000 + players)
        for spec in ("random", "greedy", "heuristic"):
            print(
                f"{players} players: {spec}: {decisions_per_second(spec, pos):,.0f} decisions/s",
                flush=True,
            )
        rate = ismcts_rate(ismcts, pos[: max(4, positions // 4)])
        print(f"{players} players: {ismcts}: {rate:,.0f} iterations/s (one core)", flush=True)
        rates[players] = rate
    return rates


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sp = sub.add_parser("speed", help="decisions/s of each bot and ISMCTS iterations/s")
    sp.add_argument("--positions", type=int, default=40)
    sp.add_argument("--ismcts", default="ismcts:iterations=1000")
    mp = sub.add_parser("match", help="one bot against copies of another, seats rotated")
    mp.add_argument("first")
    mp.add_argument("second")
    for p in (mp,):
        p.add_argument("--players", type=int, default=2)
    ap = sub.add_parser("all", help="the speed figures and the three strength targets")
    ap.add_argument(
        "--budget",
        default="auto",
        help="ISMCTS iterations per move, 'auto' (what one second buys here) or 'time' "
        "(really think one second per move; run with --processes 1)",
    )
    ap.add_argument("--ismcts-options", default="", help="extra ISMCTS options, e.g. depth=8")
    ap.add_argument("--positions", type=int, default=40)
    for p in (mp, ap):
        p.add_argument("--games", type=int, default=100, help="deals (each played in all seats)")
        p.add_argument("--processes", type=int, default=1)
        p.add_argument("--first-deal", type=int, default=0)
    args = parser.parse_args(argv)
    if args.command == "speed":
        speed(args.positions, args.ismcts)
        return 0
    if args.command == "match":
        match(args.first, args.second, args.players, args.games, args.processes, args.first_deal)
        return 0
    extra = f",{args.ismcts_options}" if args.ismcts_options else ""
    rates = speed(args.positions, f"ismcts:iterations=1000{extra}")
    match("heuristic", "random", 2, args.games, args.processes, args.first_deal)
    for players in (2, 4):
        if args.budget == "auto":
            # Iterations cost more with more players: one second buys fewer.
            ismcts = f"ismcts:iterations={int(rates[players])}{extra}"
        elif args.budget == "time":
            ismcts = f"ismcts:time=1.0{extra}"
        else:
            ismcts = f"ismcts:iterations={int(args.budget)}{extra}"
        print(f"ISMCTS for one second per move, {players} players: {ismcts}", flush=True)
        match(ismcts, "heuristic", players, args.games, args.processes, args.first_deal)
    return 0


if __name__ == "__main__":
    sys.exit(main())
