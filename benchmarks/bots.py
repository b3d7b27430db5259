"""Speed and strength of the bots: prints the figures quoted in docs/benchmarks.md and docs/bots.md.

Commands::

    python benchmarks/bots.py speed                       # decisions/s and ISMCTS iterations/s
    python benchmarks/bots.py match heuristic random --players 2 --games 200
    python benchmarks/bots.py match ismcts:iterations=5000 heuristic --games 100 --processes 2
    python benchmarks/bots.py match ismcts heuristic --players 4 --save a.jsonl
    python benchmarks/bots.py pool a.jsonl b.jsonl           # several runs of one pairing
    python benchmarks/bots.py pool --paired new.jsonl old.jsonl
    python benchmarks/bots.py match --plugin variant.py myvariant heuristic --players 4

Matches use the duplicate format: every deal (``State.new_game(players, seed=deal)``) is played
once with the first bot in each seat, the other seats taken by the second bot, so both bots get
the same cards and turn orders. A game counts 1 for a win of the first bot, 1/k for a win shared
by k players (E5), 0 otherwise (in two-player games: ties count half). The interval is the 95 %
Wilson score interval over the games played (the seat rotations of one deal are counted as
separate games; for ISMCTS against three heuristic bots the variance of the per-deal means is
about the binomial one, so the interval holds).

``match --save FILE`` writes one JSON line per game (bots, players, deal, seat, result, seconds),
so runs can be pooled later or compared game by game: ``pool --paired`` takes two runs over the
same deals and prints the mean difference of the first over the second on the games both played
(same deal, same seat, same bot generators), with its *t* interval. Changes that leave the
search's random stream alone (a different final choice, say) keep the paired games alike, and the
paired interval is then much narrower than the two separate ones.

An ISMCTS iteration budget (``ismcts:iterations=N``) uses no clock: games replay exactly and can
run in parallel processes without one process's load shortening another's thinking time. ``speed``
prints how many iterations one second buys on this machine, to choose ``N``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from piepmatz.args import add_plugin, positive
from piepmatz.bots import load_plugins, make_bot
from piepmatz.bots.base import BotMoveError, bot_rngs, decide
from piepmatz.bots.ismcts import ISMCTSBot
from piepmatz.core.scoring import score
from piepmatz.core.state import State
from piepmatz.core.view import view_of
from piepmatz.sim.stats import mean_interval, wilson


class BotFailed(RuntimeError):
    """A bot of the match broke the protocol; names the deal, the bot and the seat."""


def play_game(specs: Sequence[str], deal: int, seat: int) -> tuple[int, ...]:
    """Play deal ``deal`` with the first bot in ``seat``, seat i by ``specs[i]``; the winners (E5).

    The bots' generators come from the deal and that seat, so the same game replays exactly.
    """
    players = len(specs)
    bots = [make_bot(s) for s in specs]
    state = State.new_game(players, seed=deal, events=False)
    rngs = bot_rngs(players, deal, seat)
    while not state.is_over():
        p = state.current_player
        try:
            action = decide(bots[p], view_of(state, p), state.legal_action_ids(), rngs[p])
        except BotMoveError as exc:
            raise BotFailed(f"deal {deal}: {specs[p]} in seat {p} {exc}") from exc
        state.apply_id(action)
    piles = [state.seed_pile(q) for q in range(players)]
    return score(state.rules, state.collections, piles).winners


Result = tuple[int, int, float, float]  # deal, seat, result, seconds


def _game_task(task: tuple[str, str, int, int, int]) -> Result:
    first, second, players, deal, seat = task
    specs = [second] * players
    specs[seat] = first
    start = time.perf_counter()
    winners = play_game(specs, deal, seat)
    result = 1.0 / len(winners) if seat in winners else 0.0
    return deal, seat, result, time.perf_counter() - start


def match(
    first: str,
    second: str,
    players: int,
    games: int,
    processes: int,
    first_deal: int = 0,
    save: str | None = None,
    plugins: Sequence[str] = (),
) -> tuple[float, int, float, float]:
    """``first`` against ``players - 1`` copies of ``second`` over ``games`` deals × seats."""
    tasks = [
        (first, second, players, deal, seat)
        for deal in range(first_deal, first_deal + games)
        for seat in range(players)
    ]
    start = time.perf_counter()
    results = []
    # Each game is saved as it ends, so an interrupted long run keeps what it played.
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(open(save, "w", encoding="utf-8")) if save else None
        if processes > 1:
            # Workers load the plugins themselves (forkserver and spawn start them afresh).
            pool = stack.enter_context(
                multiprocessing.Pool(processes, initializer=load_plugins, initargs=(plugins,))
            )
            played: Iterable[Result] = pool.imap_unordered(_game_task, tasks)
        else:
            played = map(_game_task, tasks)
        pairing = {"first": first, "second": second, "players": players}
        for game in played:
            results.append(game)
            if out is not None:
                deal, seat, result, seconds = game
                record = pairing | {"deal": deal, "seat": seat, "result": result}
                out.write(json.dumps(record | {"seconds": round(seconds, 3)}) + "\n")
                out.flush()
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


Game = tuple[int, int]  # (deal, seat)


def load_runs(paths: Sequence[str]) -> dict[Game, float]:
    """Results by (deal, seat) from ``match --save`` files of one pairing; refuses a mix."""
    results: dict[Game, float] = {}
    pairing = None
    for path in paths:
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except OSError as e:
            raise SystemExit(f"{path}: cannot read ({e.strerror})") from e
        for line_no, line in enumerate(lines, 1):
            try:
                r = json.loads(line)
                key = (r["first"], r["second"], r["players"])
                game = (int(r["deal"]), int(r["seat"]))
                result = float(r["result"])
            except (ValueError, KeyError, TypeError) as e:
                raise SystemExit(f"{path}:{line_no}: not a match --save record ({e})") from e
            if pairing is None:
                pairing = key
            elif key != pairing:
                raise SystemExit(f"{path}:{line_no}: {key} differs from {pairing}")
            if game in results:
                raise SystemExit(f"{path}:{line_no}: deal {game[0]} seat {game[1]} twice")
            results[game] = result
    if not results:
        raise SystemExit("no games in " + ", ".join(paths))
    return results


def pooled(results: dict[Game, float]) -> str:
    """The win rate of pooled runs with its Wilson interval."""
    n = len(results)
    wins = sum(results.values())
    lo, hi = wilson(wins, n)
    return f"{wins:g}/{n} = {wins / n:.1%}, 95% Wilson [{lo:.1%}, {hi:.1%}]"


def paired(new: dict[Game, float], old: dict[Game, float]) -> str:
    """Mean difference of ``new`` over ``old`` on the games both played, with its interval."""
    common = sorted(set(new) & set(old))
    if len(common) < 3:
        raise SystemExit(f"only {len(common)} games in common: pair runs over the same deals")
    diff = mean_interval([new[g] - old[g] for g in common])
    a = sum(new[g] for g in common) / len(common)
    b = sum(old[g] for g in common) / len(common)
    return (
        f"{len(common)} paired games: {a:.1%} against {b:.1%}, difference {diff.mean:+.1%} "
        f"[{diff.low:+.1%}, {diff.high:+.1%}]"
    )


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


def ismcts_rate(spec: str, positions: Sequence[State]) -> tuple[float, float]:
    """Iterations per second of an ISMCTS spec over the positions, and the share of its
    iteration budget the searched decisions used (below 1 when ``stop=early`` ends them)."""
    bot = make_bot(spec)
    if not isinstance(bot, ISMCTSBot):
        raise SystemExit(f"{spec} is not an ISMCTS bot")
    rng = random.Random(1)
    iterations = searched = 0
    elapsed = 0.0
    for s in positions:
        view, legal = view_of(s, s.current_player), s.legal_action_ids()
        start = time.perf_counter()
        bot.choose(view, legal, rng)
        elapsed += time.perf_counter() - start
        iterations += bot.last_iterations
        searched += bot.last_iterations > 0
    budget = (bot.iterations or 0) * searched
    return iterations / elapsed, iterations / budget if budget else 1.0


def speed(positions: int, ismcts: str) -> None:
    """Print decisions per second of each bot and ISMCTS iterations per second."""
    for players in (2, 4):
        pos = _positions(players, positions, seed=1000 + players)
        for spec in ("random", "greedy", "heuristic"):
            print(
                f"{players} players: {spec}: {decisions_per_second(spec, pos):,.0f} decisions/s",
                flush=True,
            )
        rate, used = ismcts_rate(ismcts, pos[: max(4, positions // 4)])
        print(
            f"{players} players: {ismcts}: {rate:,.0f} iterations/s (one core); "
            f"the searched decisions used {used:.0%} of the iteration budget",
            flush=True,
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sp = sub.add_parser("speed", help="decisions/s of each bot and ISMCTS iterations/s")
    sp.add_argument("--positions", type=positive("--positions"), default=40)
    sp.add_argument("--ismcts", default="ismcts:iterations=1000")
    mp = sub.add_parser("match", help="one bot against copies of another, seats rotated")
    mp.add_argument("first")
    mp.add_argument("second")
    mp.add_argument("--save", metavar="FILE", help="write one JSON line per game to FILE")
    add_plugin(mp)
    pp = sub.add_parser("pool", help="pool saved runs of one pairing, or compare two game by game")
    pp.add_argument("files", nargs="+", metavar="FILE")
    pp.add_argument(
        "--paired", action="store_true", help="two files: the first run against the second"
    )
    mp.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    mp.add_argument(
        "--games", type=positive("--games"), default=100, help="deals (each played in all seats)"
    )
    mp.add_argument("--processes", type=positive("--processes"), default=1)
    mp.add_argument("--first-deal", type=int, default=0)
    args = parser.parse_args(argv)
    if args.command == "speed":
        speed(args.positions, args.ismcts)
        return 0
    if args.command == "match":
        try:
            plugins = load_plugins(args.plugin)
            make_bot(args.first), make_bot(args.second)  # a bad spec fails here, not in a worker
        except ValueError as exc:
            parser.error(str(exc))
        if args.save and not os.access(Path(args.save).resolve().parent, os.W_OK):
            parser.error(f"--save {args.save}: its directory does not exist or is not writable")
        try:
            match(
                args.first,
                args.second,
                args.players,
                args.games,
                args.processes,
                args.first_deal,
                args.save,
                plugins,
            )
        except BotFailed as exc:
            parser.exit(1, f"bots.py: {exc} (the games before it are in --save, if given)\n")
        return 0
    if args.paired:
        if len(args.files) != 2:
            parser.error("--paired compares exactly two files")
        print(paired(load_runs(args.files[:1]), load_runs(args.files[1:])))
    else:
        print(pooled(load_runs(args.files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
