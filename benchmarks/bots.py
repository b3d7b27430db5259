"""Speed and strength of the bots: prints the figures quoted in the README.

Commands::

    python benchmarks/bots.py speed                       # decisions/s and ISMCTS iterations/s
    python benchmarks/bots.py match heuristic random --players 2 --games 200
    python benchmarks/bots.py match ismcts:iterations=5000 heuristic --games 100 --processes 2
    python benchmarks/bots.py all --games 100 --budget auto --processes 2
    python benchmarks/bots.py match ismcts heuristic --players 4 --save a.jsonl
    python benchmarks/bots.py pool a.jsonl b.jsonl           # several runs of one bot, pooled
    python benchmarks/bots.py pool --paired new.jsonl old.jsonl
    python benchmarks/bots.py match --plugin variant.py myvariant heuristic --players 4

Matches use the duplicate format: every deal (``State.new_game(players, seed=deal)``) is played
once with the first bot in each seat, the other seats taken by the second bot, so both bots get
the same cards and turn orders. A game counts 1 for a win of the first bot, 1/k for a win shared
by k players (E5), 0 otherwise (in two-player games: ties count half). The interval is the 95 %
Wilson score interval over the games played (the seat rotations of one deal are counted as
separate games). ``pool`` also prints a per-deal interval (the four seat rotations of a deal
summed, then a *t* interval over deals) and the design effect, the ratio of its variance to
Wilson's: near 1, the rotations of a deal are about as independent as separate games and the
Wilson interval is the right one. The Wilson interval is valid for one look at a number of games
fixed in advance; a figure pooled again after every run until it decides needs an interval valid
at every look, so ``pool`` prints a confidence sequence over the deals too
(``piepmatz.sim.stats.confidence_sequence``), about twice as wide.

``match --save FILE`` writes one JSON line per game (bots, players, deal, seat, result, seconds),
so runs can be pooled later or compared game by game: ``pool --paired`` takes two runs over the
same deals and prints the mean difference of the first over the second on the games both played
(same deal, same seat, same bot seed), with its *t* interval. Changes that leave the search's
random stream alone (a different final choice, say) keep the paired games alike, and the paired
interval is then much narrower than the two separate ones.

``--budget auto`` measures how many ISMCTS iterations one second buys on this machine (one core,
for two and for four players) and plays ``ismcts:iterations=<that>`` in place of
``ismcts:time=1.0``: the same strength, but the games can run in parallel processes without one
process's load shortening another's thinking time, and they are reproducible.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from piepmatz.args import positive
from piepmatz.bots import load_plugins, make_bot
from piepmatz.bots.base import Bot, BotMoveError, decide
from piepmatz.bots.ismcts import ISMCTSBot
from piepmatz.core.scoring import score
from piepmatz.core.state import State
from piepmatz.core.view import view_of
from piepmatz.sim.stats import confidence_sequence, mean_interval, wilson


class BotFailed(RuntimeError):
    """A bot of the match broke the protocol; names the deal, the bot and the seat."""


def play_game(
    specs: Sequence[str],
    deal: int,
    players: int,
    bot_seed: int,
    prepare: Callable[[list[Bot], State], None] | None = None,
) -> tuple[int, ...]:
    """Play one game, seat i by ``specs[i]``; returns the winners (E5).

    ``prepare`` sees the bots and the game's state (which the moves then change in place)
    before the first move: ``ceiling.py`` tells its search the hidden cards that way.
    """
    bots = [make_bot(s) for s in specs]
    state = State.new_game(players, seed=deal, events=False)
    if prepare is not None:
        prepare(bots, state)
    rng = random.Random(bot_seed)
    while not state.is_over():
        p = state.current_player
        try:
            action = decide(bots[p], view_of(state, p), state.legal_action_ids(), rng)
        except BotMoveError as exc:
            raise BotFailed(f"deal {deal}: {specs[p]} in seat {p} {exc}") from exc
        state.apply_id(action)
    piles = [state.seed_pile(q) for q in range(players)]
    return score(state.rules, state.collections, piles).winners


Result = tuple[int, int, float, float]  # deal, seat, result, seconds
#: Plays one game: (specs, seat of the first bot, deal, players, bot seed) → the winners.
Play = Callable[[Sequence[str], int, int, int, int], tuple[int, ...]]


def _play_specs(
    specs: Sequence[str], seat: int, deal: int, players: int, seed: int
) -> tuple[int, ...]:
    return play_game(specs, deal, players, seed)


def _game_task(task: tuple[Play, str, str, int, int, int]) -> Result:
    play, first, second, players, deal, seat = task
    specs = [second] * players
    specs[seat] = first
    start = time.perf_counter()
    winners = play(specs, seat, deal, players, deal * 16 + seat)
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
    play: Play = _play_specs,
    label: str | None = None,
) -> tuple[float, int, float, float]:
    """``first`` against ``players - 1`` copies of ``second`` over ``games`` deals × seats.

    ``play`` plays each game (a module-level function, so that workers can unpickle it);
    ``label`` names the first bot in the records and the summary (its spec by default).
    """
    tasks = [
        (play, first, second, players, deal, seat)
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
        label = label or first
        pairing = {"first": label, "second": second, "players": players}
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
        f"{label} vs {players - 1}x {second}, {players} players: "
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


def deal_means(results: dict[Game, float]) -> list[float]:
    """The mean result of each deal played in every seat, in the order of the deals."""
    by_deal: dict[int, list[float]] = {}
    for (deal, _), r in results.items():
        by_deal.setdefault(deal, []).append(r)
    seats = max(len(v) for v in by_deal.values())
    return [sum(v) / seats for _, v in sorted(by_deal.items()) if len(v) == seats]


def pooled(results: dict[Game, float]) -> str:
    """The win rate with its Wilson interval, and the per-deal interval with the design effect."""
    n = len(results)
    wins = sum(results.values())
    lo, hi = wilson(wins, n)
    full = deal_means(results)
    text = f"{wins:g}/{n} = {wins / n:.1%}, 95% Wilson [{lo:.1%}, {hi:.1%}]"
    if len(full) > 2:
        per_deal = mean_interval(full)
        p = wins / n
        binomial = p * (1 - p) / n
        effect = per_deal.sd**2 / len(full) / binomial if binomial else float("nan")
        text += (
            f"; per deal ({len(full)} deals) [{per_deal.low:.1%}, {per_deal.high:.1%}], "
            f"design effect {effect:.2f}"
        )
    return text


def verdict(results: dict[Game, float], target: float) -> str:
    """Whether the Wilson interval decides against ``target``, and if not, roughly how many
    games would at the rate measured so far (the rate itself unknown: an estimate, no promise)."""
    n = len(results)
    rate = sum(results.values()) / n
    side = _side(*wilson(sum(results.values()), n), target)
    if side:
        return f"decided: the Wilson interval lies {side} {target:.1%}"
    gap = abs(rate - target)
    if gap < 1e-9:
        return f"not decided: the rate is {target:.1%} itself; no number of games decides it"
    needed = math.ceil(1.96**2 * rate * (1 - rate) / gap**2)
    return (
        f"not decided: the Wilson interval holds {target:.1%}; if the true rate were {rate:.1%}, "
        f"about {needed:,} games in all would decide it ({max(0, needed - n):,} more)"
    )


def anytime(results: dict[Game, float], target: float | None = None) -> str:
    """The confidence sequence over the deals, in deal order: valid however often runs were
    pooled and looked at before, which the Wilson interval is not (and whether it decides)."""
    lo, hi = confidence_sequence(deal_means(results))
    text = f"valid at every look (a confidence sequence over the deals): [{lo:.1%}, {hi:.1%}]"
    if target is not None:
        side = _side(lo, hi, target)
        text += f"; decided: it lies {side}" if side else "; not decided: it holds"
        text += f" {target:.1%}"
    return text


def _side(low: float, high: float, target: float) -> str | None:
    """Where the interval ``[low, high]`` lies from ``target``: "above", "below", or None."""
    return "above" if low > target else "below" if high < target else None


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
        rate, used = ismcts_rate(ismcts, pos[: max(4, positions // 4)])
        print(
            f"{players} players: {ismcts}: {rate:,.0f} iterations/s (one core); "
            f"the searched decisions used {used:.0%} of the iteration budget",
            flush=True,
        )
        rates[players] = rate
    return rates


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
    mp.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="FILE_OR_MODULE",
        help="load a file or module that registers more bots, e.g. a variant to measure",
    )
    pp = sub.add_parser("pool", help="pool saved runs of one pairing, or compare two game by game")
    pp.add_argument("files", nargs="+", metavar="FILE")
    pp.add_argument(
        "--paired", action="store_true", help="two files: the first run against the second"
    )
    pp.add_argument(
        "--target",
        type=float,
        default=None,
        metavar="RATE",
        help="say whether the interval decides against this win rate (e.g. 0.4)",
    )
    for p in (mp,):
        p.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    ap = sub.add_parser("all", help="the speed figures and the three strength targets")
    ap.add_argument(
        "--budget",
        default="auto",
        help="ISMCTS iterations per move, 'auto' (what one second buys here) or 'time' "
        "(really think one second per move; run with --processes 1)",
    )
    ap.add_argument("--ismcts-options", default="", help="extra ISMCTS options, e.g. depth=8")
    ap.add_argument("--positions", type=positive("--positions"), default=40)
    for p in (mp, ap):
        p.add_argument(
            "--games",
            type=positive("--games"),
            default=100,
            help="deals (each played in all seats)",
        )
        p.add_argument("--processes", type=positive("--processes"), default=1)
        p.add_argument("--first-deal", type=int, default=0)
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
    if args.command == "pool":
        if args.paired:
            if len(args.files) != 2:
                parser.error("--paired compares exactly two files")
            print(paired(load_runs(args.files[:1]), load_runs(args.files[1:])))
        else:
            results = load_runs(args.files)
            if args.target is not None and not 0 < args.target < 1:
                parser.error(f"--target is a win rate between 0 and 1, not {args.target}")
            print(pooled(results))
            print(anytime(results, args.target))
            if args.target is not None:
                print(verdict(results, args.target))
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
