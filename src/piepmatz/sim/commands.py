"""``piepmatz tournament``, ``piepmatz compare`` and ``piepmatz baselines``: light argument
parsing; the work (and the heavy imports: OpenSkill, matplotlib, tqdm, Ray) happens only when a
command runs."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from piepmatz.args import add_plugin, positive, rules_spec, seconds, unwritable
from piepmatz.core import Rules, dump_json
from piepmatz.text import scoresheet

if TYPE_CHECKING:  # the sim extra's modules load when a command runs
    from .baselines import Baselines, Pairing, Settings

TOURNAMENT_NOTES = """\
Duplicate format: every deal (card seed) is played once with every lineup, so luck falls on every
bot alike. With as many bots as seats the lineups are the cyclic rotations of the bot list over
the seats (--seating permutations: every ordering); with fewer bots the seats are filled by
cycling the list (A B at 3 seats is A B A) and its distinct rotations are played; with more bots,
every combination of bots is rotated. --games is rounded up to whole deals.

Statistics are per seat-game. A shared win (E5: still tied after the most-birds tiebreak) counts
as 1/w of a win for each of the w winners. Win rates have Wilson 95 % intervals, mean scores
Student t 95 % intervals cut at 0 (no score is negative). "1st, 2nd, ..." is the turn order
(first player first). Ratings are OpenSkill Plackett-Luce, updated game by game in index order.

Game i is deal i // L played with lineup i % L (L lineups); its cards and every bot's random
generator derive from --seed and i alone, so any backend, batch size or worker count gives the
same results. --records writes a JSON-lines file: one game record per line (replayable with
`piepmatz replay` or piepmatz.core.Game.from_record), with a "tournament" field naming the game
index, deal and the bot in each seat.

Your own bot: --plugin mybots.py (a file or an importable module, repeatable) is loaded before
the bots are built, here and in every worker; it calls piepmatz.bots.register("name", factory).
Installed packages can declare bots as entry points in the group "piepmatz.bots" instead."""

COMPARE_NOTES = """\
Every rule set plays the same deals with the same bots and the same bot random seeds. A rule set
is a preset, optionally with flags: standard, overview, standard:last_hand=false,
overview:draw=refill,pairs=mated. Margin is the winner's total minus the lowest total; a shared
win counts 1/w; first-player win rates have Wilson 95 % intervals."""


def _add_common(p: argparse.ArgumentParser, games: int) -> None:
    p.add_argument("--players", type=int, default=3, choices=(2, 3, 4), help="seats (default 3)")
    p.add_argument(
        "--games",
        type=positive("--games"),
        default=games,
        help=f"games to play, rounded up to whole deals (default {games})",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="tournament seed (default: a fresh one, printed with the results)",
    )
    p.add_argument(
        "--seating",
        choices=("cyclic", "permutations"),
        default="cyclic",
        help="lineups per deal: cyclic rotations (default) or every ordering",
    )
    p.add_argument(
        "--backend",
        choices=("inline", "process", "ray"),
        default="process",
        help="inline: this process; process: local processes (default); ray: Ray (pip install "
        "'piepmatz[ray]')",
    )
    p.add_argument(
        "--workers",
        type=positive("--workers"),
        default=None,
        help="worker processes, or the CPUs of a locally started Ray (default: every core)",
    )
    p.add_argument(
        "--batch-size",
        type=positive("--batch-size"),
        default=None,
        help="games per batch sent to a worker (default: about 16 batches per worker)",
    )
    p.add_argument(
        "--address",
        default=None,
        help="join this Ray cluster ('auto' or host:port); needs --backend ray",
    )
    p.add_argument(
        "--move-limit",
        type=seconds(zero=False),
        default=None,
        metavar="SECONDS",
        help="fail a game whose bot thinks longer than this per move (default: no limit)",
    )
    p.add_argument("--json", metavar="PATH", help="write the results as JSON ('-': stdout)")
    p.add_argument("--csv", metavar="PATH", help="write the results as CSV ('-': stdout)")
    p.add_argument("--plots", metavar="DIR", help="write PNG plots into this directory")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_plugin(p)


BASELINE_BOTS = ("random", "greedy", "easy", "medium", "hard")

BASELINES_NOTES = """\
Every pair plays the same deals at each player count (deal k of every pair is the same cards),
the two bots cycled over the seats and rotated (both ways round at three players), so each holds
half the seat-games of every deal. Head to head: the row bot's share of the wins of a deal's
games (a shared win counts 1/w; even is 50 % at every player count), its mean over the deals
with a Student t 95 % interval, paired by deal, within 0-100 % and at least as wide as the
Wilson interval of the deals as trials (a bot that wins every deal of a few still gets an
interval, not a point). Strengths: one Plackett-Luce fit over all the
games of a player count (random = 0), by maximum likelihood with a weak normal prior (sd 10);
the +- is a 95 % interval from the observed information. At two players a bot theta ahead
wins with probability 1/(1 + exp(-theta)). The pairs of a --slow bot play --slow-deals deals.

--extend FILE adds --bots to an earlier run (its --json): only the pairs with a new bot are
played, on that run's deals (its players, deals, seed and slow deals), and the strengths are
fitted over all the games. --slow may name new bots that are slow. Write the result to a new
--json to extend it again."""


def register(subparsers: Any) -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    t = subparsers.add_parser(
        "tournament",
        help="bots against bots over many games, seats rotated on the same deals",
        description="Play a duplicate-format tournament between bots.",
        epilog=TOURNAMENT_NOTES,
        formatter_class=formatter,
    )
    t.add_argument(
        "--bots",
        nargs="+",
        required=True,
        metavar="BOT",
        help="bots by registry name, e.g. random heuristic ismcts:1s (or a --plugin's bots)",
    )
    t.add_argument(
        "--rules",
        type=rules_spec,
        default="standard",
        help="preset, optionally with flags: standard, overview:last_hand=true",
    )
    _add_common(t, games=300)
    t.add_argument("--records", metavar="PATH", help="write every game record (JSON lines)")
    t.add_argument(
        "--only",
        type=int,
        metavar="INDEX",
        default=None,
        help="play only game INDEX of this tournament, exactly as in the full run, and print it",
    )
    t.set_defaults(func=run_tournament_command, extra="sim")

    c = subparsers.add_parser(
        "compare",
        help="compare rule presets or flags on the same deals",
        description="Compare rule sets: game length, score spread, first-player advantage.",
        epilog=COMPARE_NOTES,
        formatter_class=formatter,
    )
    c.add_argument(
        "--rules",
        nargs="+",
        required=True,
        type=rules_spec,
        metavar="RULES",
        help="rule sets to compare, e.g. standard overview standard:last_hand=false",
    )
    c.add_argument(
        "--bots",
        nargs="+",
        metavar="BOT",
        default=None,
        help="bots playing (cycled over the seats; default: heuristic when it is "
        "registered, else random)",
    )
    _add_common(c, games=500)
    c.set_defaults(func=run_compare_command, extra="sim")

    b = subparsers.add_parser(
        "baselines",
        help="every bot against every other at 2, 3 and 4 players: the baseline table",
        description="Play every pair of bots on the same deals at each player count; print "
        "the head-to-head shares of the wins (paired by deal) and strengths fitted over all "
        "the games at once (Plackett-Luce).",
        epilog=BASELINES_NOTES,
        formatter_class=formatter,
    )
    b.add_argument(
        "--bots",
        nargs="+",
        metavar="BOT",
        help=f"bots (default: {' '.join(BASELINE_BOTS)}; add ppo:PATH or a --plugin's bots); "
        "with --extend, the bots to add",
    )
    # Defaults are filled in after parsing: --extend refuses what its file settles.
    b.add_argument("--players", type=int, nargs="+", choices=(2, 3, 4), help="(2 3 4)")
    b.add_argument("--deals", type=positive("--deals"), help="deals per pair (100)")
    b.add_argument(
        "--slow",
        nargs="*",
        metavar="BOT",
        help="bots whose pairs play only --slow-deals deals (default: hard)",
    )
    b.add_argument(
        "--slow-deals", type=positive("--slow-deals"), help="deals per pair with a --slow bot (10)"
    )
    b.add_argument("--seed", type=int, help="the deals' seed (48)")
    b.add_argument(
        "--extend",
        metavar="FILE",
        help="add --bots to an earlier run's --json, playing only their pairs",
    )
    b.add_argument(
        "--workers",
        type=positive("--workers"),
        default=None,
        help="worker processes (default: every core)",
    )
    b.add_argument("--markdown", metavar="PATH", help="write the tables as Markdown")
    b.add_argument("--json", metavar="PATH", help="write every figure as JSON ('-': stdout)")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    add_plugin(b)
    b.set_defaults(func=run_baselines_command, extra="sim")


def _fail(command: str, message: str) -> int:
    sys.stderr.write(f"piepmatz {command}: error: {message}\n")
    return 2


def _check_bots(args: argparse.Namespace) -> str | None:
    """Load the plugins, then check the bot specs (which may name a plugin's bots)."""
    from piepmatz.bots import make_bot
    from piepmatz.bots.plugins import PluginError, load_plugins

    try:
        args.plugin = list(load_plugins(args.plugin))
    except PluginError as exc:
        return f"argument --plugin: {exc}"
    for spec in args.bots or ():
        try:
            make_bot(spec)
        except ValueError as exc:
            return f"argument --bots: {exc}"
    return None


def _check_outputs(args: argparse.Namespace) -> str | None:
    """A reason an output cannot be written, found before any game is played."""
    if args.json == "-" and args.csv == "-":
        return "--json - and --csv - both want stdout: send one of them to a file"
    files = [args.json, args.csv, getattr(args, "records", None)]
    for path in [f for f in files if f and f != "-"]:
        problem = unwritable(path)
        if problem:
            return problem
    if args.plots:
        plots = Path(args.plots).resolve()
        if plots.exists() and not plots.is_dir():
            return f"--plots {args.plots} exists and is not a directory"
        # The directory is made after the games; its nearest existing ancestor must allow it.
        nearest = next(d for d in (plots, *plots.parents) if d.exists())
        if not nearest.is_dir() or not os.access(nearest, os.W_OK):
            return f"cannot write plots into {args.plots}: {nearest} is not a writable directory"
    if args.address and args.backend != "ray":
        return "--address joins a Ray cluster: add --backend ray"
    return None


def _progress_bar(total: int, quiet: bool, label: str) -> Any:
    from tqdm import tqdm

    return tqdm(
        total=total,
        desc=label,
        unit="game",
        file=sys.stderr,
        disable=quiet or not sys.stderr.isatty(),
        smoothing=0.1,
    )


def _run(args: argparse.Namespace, config: Any, label: str) -> Any:
    from .backends import run_games

    with _progress_bar(config.total_games, args.quiet, label) as bar:
        return run_games(
            config,
            backend=args.backend,
            workers=args.workers,
            batch_size=args.batch_size,
            progress=bar.update,
            address=args.address,
        )


def _write_outputs(command: str, outputs: Callable[[], None]) -> int:
    """Write the result files; a failure the early checks could not foresee (a full disk, a
    read-only mount) is reported plainly, after the table has been printed."""
    try:
        outputs()
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        sys.stderr.write(
            f"piepmatz {command}: error: cannot write{where}: {exc.strerror or exc} "
            "(the table above is complete; what was written before this stays)\n"
        )
        return 1
    return 0


def _write(path: str | None, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
    elif path:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def _table(args: argparse.Namespace, report: Any) -> None:
    """The table on stdout, unless ``--json -`` or ``--csv -`` put the data there instead."""
    if "-" not in (args.json, args.csv):
        sys.stdout.write(report.table() + "\n")


def run_tournament_command(args: argparse.Namespace) -> int:
    from .backends import BackendError
    from .play import BotFailure, MatchConfig
    from .tournament import json_safe, summarise

    problem = _check_bots(args) or _check_outputs(args)
    if problem:
        return _fail("tournament", problem)
    if args.only is not None and (args.json or args.csv or args.plots):
        return _fail("tournament", "--only plays one game: save it with --records")
    if args.only is not None and args.seed is None:
        return _fail("tournament", "--only replays a game of a seeded tournament: add its --seed")
    seed = args.seed if args.seed is not None else secrets.randbits(31)
    config = MatchConfig(
        args.players,
        tuple(args.bots),
        args.games,
        seed,
        Rules.parse(args.rules),
        args.seating,
        tuple(args.plugin),
        args.move_limit,
    )
    if args.only is not None:
        if not 0 <= args.only < config.total_games:
            return _fail("tournament", f"--only {args.only}: games are 0-{config.total_games - 1}")
        return _one_game(args, config, args.only)
    try:
        results = _run(args, config, "tournament")
    except BotFailure as exc:
        sys.stderr.write(f"piepmatz tournament: {exc}\n{_after_failure(args, config, exc)}")
        return 1
    except BackendError as exc:
        sys.stderr.write(f"piepmatz tournament: {exc}\n")
        return 1
    report = summarise(config, results)
    _table(args, report)

    def outputs() -> None:
        # The records first: they are what a long run cannot recompute cheaply.
        if args.records:
            write_records(args.records, config, results)
        _write(args.json, dump_json(json_safe(report.to_json()), indent=1) + "\n")
        _write(args.csv, report.csv())
        if args.plots:
            from .plots import tournament_plots

            tournament_plots(report, args.plots)

    return _write_outputs("tournament", outputs)


def _baselines_plan(
    args: argparse.Namespace,
) -> tuple[Settings, list[Pairing], Baselines | None]:
    """The settings, the pairings to play and the earlier run (or None) that the arguments
    ask for; ``ValueError`` says what is wrong with them."""
    from piepmatz.bots import make_bot

    from .baselines import Baselines, Settings, extend

    plugins = tuple(args.plugin)
    if args.extend is None:
        settings = Settings(
            tuple(args.bots or BASELINE_BOTS),
            tuple(args.players or (2, 3, 4)),
            args.deals or 100,
            48 if args.seed is None else args.seed,
            tuple(["hard"] if args.slow is None else args.slow),
            args.slow_deals or 10,
        )
        return settings, settings.pairings(plugins), None
    settled = [
        name
        for name, value in (
            ("--players", args.players),
            ("--deals", args.deals),
            ("--seed", args.seed),
            ("--slow-deals", args.slow_deals),
        )
        if value is not None
    ]
    if settled:
        raise ValueError(f"--extend plays the deals of {args.extend}: leave out {settled[0]}")
    if not args.bots:
        raise ValueError("--extend: name the bots to add with --bots")
    try:
        with open(args.extend, encoding="utf-8") as file:
            earlier = Baselines.from_json(json.load(file))
    except OSError as exc:
        raise ValueError(f"--extend: cannot read {args.extend}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"--extend {args.extend}: not JSON (line {exc.lineno}, column {exc.colno}): give "
            "the file a baselines run wrote with --json"
        ) from None
    except UnicodeDecodeError:
        raise ValueError(
            f"--extend {args.extend}: not JSON but binary data: give the file a baselines run "
            "wrote with --json"
        ) from None
    except ValueError as exc:  # the run's own checks (Baselines.from_json)
        raise ValueError(f"--extend {args.extend}: {exc}") from None
    for spec in earlier.bots:
        try:
            make_bot(spec)
        except ValueError as exc:
            raise ValueError(f"--extend {args.extend} has {spec}: {exc} (add --plugin?)") from None
    settings, pairings = extend(earlier, args.bots, args.slow or (), plugins)
    return settings, pairings, earlier


def run_baselines_command(args: argparse.Namespace) -> int:
    from .backends import BackendError, run_games
    from .baselines import run_baselines
    from .play import BotFailure, MatchConfig
    from .tournament import json_safe

    problem = _check_bots(args)
    for path in (args.markdown, args.json):
        if not problem and path and path != "-":
            problem = unwritable(path)
    if problem:
        return _fail("baselines", problem)
    try:
        settings, pairings, earlier = _baselines_plan(args)
    except ValueError as exc:
        return _fail("baselines", str(exc))
    total = sum(p.games for p in pairings)
    with _progress_bar(total, args.quiet, "baselines") as bar:

        def play(config: MatchConfig) -> list[Any]:
            return run_games(config, workers=args.workers, progress=bar.update)

        try:
            baselines = run_baselines(settings, pairings, play, earlier)
        except (BotFailure, BackendError) as exc:
            sys.stderr.write(f"piepmatz baselines: {exc}\n")
            return 1
    table = baselines.markdown()
    if args.json != "-":
        sys.stdout.write(table)

    def outputs() -> None:
        _write(args.markdown, table)
        _write(args.json, dump_json(json_safe(baselines.to_json()), indent=1) + "\n")

    return _write_outputs("baselines", outputs)


def _after_failure(args: argparse.Namespace, config: Any, failure: Any) -> str:
    """How to replay the game a bot failed in, and where the games finished before it went."""
    lines = []
    if failure.index is not None:
        lines.append(
            f"replay that game alone, with the bot's traceback: add --seed {config.seed} "
            f"--only {failure.index}"
        )
    finished = failure.finished
    if args.records and finished:
        try:
            write_records(args.records, config, finished)
            lines.append(f"the {len(finished)} games that had finished are in {args.records}")
        except OSError as exc:
            lines.append(f"cannot write {args.records}: {exc.strerror or exc}")
    elif finished:
        lines.append(f"{len(finished)} games had finished; --records FILE keeps them next time")
    return "".join(f"  {line}\n" for line in lines)


def _one_game(args: argparse.Namespace, config: Any, index: int) -> int:
    from .play import BotFailure, play_game

    try:
        result = play_game(config, index)
    except BotFailure as exc:
        sys.stderr.write(f"piepmatz tournament: {exc}\n")
        # Played here, the bot's own error is at hand: where in its code it went wrong.
        raised = exc.__cause__.__cause__ if exc.__cause__ is not None else None
        if raised is not None:
            told = traceback.format_exception(raised)
            sys.stderr.write("the bot's error, where it was raised:\n" + "".join(told))
        return 1
    from piepmatz.text.words import seat_name

    labels = [seat_name(s) for s in range(len(result.lineup))]
    seats = ", ".join(f"{labels[s]}: {config.labels[e]}" for s, e in enumerate(result.lineup))
    sys.stdout.write(
        f"game {index} of tournament seed {config.seed} (deal {result.deal}; {seats}; "
        f"{labels[result.first_player]} plays first)\n\n"
    )
    sys.stdout.write(scoresheet.table(result.sheet, labels) + "\n")
    if args.records:
        write_records(args.records, config, [result])
    return 0


def write_records(path: str, config: Any, results: Any) -> None:
    """One game record per line, with the game's place in the tournament."""
    with open(path, "w", encoding="utf-8") as f:
        for result in results:
            record = result.record(config)
            record["tournament"] = {
                "seed": config.seed,
                "index": result.index,
                "deal": result.deal,
                "seats": [config.labels[e] for e in result.lineup],
            }
            f.write(dump_json(record, separators=(",", ":")) + "\n")


def run_compare_command(args: argparse.Namespace) -> int:
    from piepmatz.bots import bot_names

    from .backends import BackendError
    from .compare import ComparisonReport, summarise_rules
    from .play import BotFailure, MatchConfig
    from .tournament import json_safe

    problem = _check_bots(args) or _check_outputs(args)
    if problem:
        return _fail("compare", problem)
    seed = args.seed if args.seed is not None else secrets.randbits(31)
    bots = tuple(args.bots or ["heuristic" if "heuristic" in bot_names() else "random"])
    plugins = tuple(args.plugin)
    summaries = []
    for spec in args.rules:
        config = MatchConfig(
            args.players,
            bots,
            args.games,
            seed,
            Rules.parse(spec),
            args.seating,
            plugins,
            args.move_limit,
        )
        try:
            summaries.append(summarise_rules(spec, config, _run(args, config, spec)))
        except (BotFailure, BackendError) as exc:
            sys.stderr.write(f"piepmatz compare: rules {spec}: {exc}\n")
            if isinstance(exc, BotFailure) and exc.index is not None:
                sys.stderr.write(
                    f"  replay that game alone: piepmatz tournament --rules {spec} --seed {seed} "
                    f"--only {exc.index} (and the same --players, --bots, --games, --seating)\n"
                )
            return 1
    report = ComparisonReport(tuple(summaries))
    _table(args, report)

    def outputs() -> None:
        _write(args.json, dump_json(json_safe(report.to_json()), indent=1) + "\n")
        _write(args.csv, report.csv())
        if args.plots:
            from .plots import comparison_plots

            comparison_plots(report, args.plots)

    return _write_outputs("compare", outputs)
