"""The ``piepmatz`` command: ``demo`` and ``replay``, and the interfaces' commands."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from piepmatz import __version__
from piepmatz.args import (
    Parser,
    add_language,
    add_plugin,
    add_rules,
    extra_of,
    install_hint,
    missing_extra,
    new_game,
    unwritable,
)
from piepmatz.bots import make_bot
from piepmatz.bots.base import BotMoveError, bot_rngs, decide
from piepmatz.core import dump_json
from piepmatz.core.view import view_of
from piepmatz.i18n import _, choose_language, set_language
from piepmatz.text import scoresheet
from piepmatz.text.words import bot_level, rules_words, seat_name, tell

INTERFACE_COMMANDS = (
    "piepmatz.engine.commands",
    "piepmatz.tui.commands",
    "piepmatz.sim.commands",
    "piepmatz.envs.commands",
    "piepmatz.rl.commands",
    "piepmatz.server.commands",
    "piepmatz.review.commands",
)


def _demo(args: argparse.Namespace) -> int:
    """Play one game between bots and print it as it happens."""
    from piepmatz.bots.plugins import PluginError, load_plugins

    try:
        load_plugins(args.plugin)
    except PluginError as exc:
        return _demo_error(f"argument --plugin: {exc}")
    specs = args.bots or ["random"]
    if len(specs) > args.players:
        return _demo_error(f"{len(specs)} bots for {args.players} seats: name at most one per seat")
    try:
        bots = [make_bot(spec) for spec in specs * args.players][: args.players]
    except ValueError as exc:
        return _demo_error(f"argument --bots: {exc}")
    if args.record:
        problem = unwritable(args.record)
        if problem:
            return _demo_error(f"argument --record: {problem}")
    game = new_game(args.players, args.rules, args.seed)
    rngs = bot_rngs(args.players, game.options.seed)
    shown = 0
    out = sys.stdout
    labels = [
        _("{seat} ({bot} bot)").format(seat=seat_name(p), bot=bot_level(bot.name))
        for p, bot in enumerate(bots)
    ]
    header = (
        _("Piepmatz demo · {rules} · seed {seed} · {players}")
        if args.bots
        else _("Piepmatz demo · {rules} · seed {seed} · {players} (choose with --bots)")
    )
    out.write(
        header.format(
            rules=rules_words(game.state.rules.name),
            seed=game.options.seed,
            players=", ".join(labels),
        )
        + "\n"
    )
    while True:
        events = game.state.events or []
        for event in events[shown:]:
            out.write(tell(event) + "\n")
        shown = len(events)
        if game.state.is_over():
            break
        p = game.state.current_player
        try:
            choice = decide(bots[p], view_of(game.state, p), game.state.legal_action_ids(), rngs[p])
        except BotMoveError as exc:
            sys.stderr.write(f"piepmatz demo: bot {bots[p].name!r} in seat {p} {exc}\n")
            return 1
        game.apply(choice)
    out.write("\n" + scoresheet.table(game.score(), labels) + "\n")
    if args.record:
        try:
            Path(args.record).write_text(dump_json(game.record(), indent=1), encoding="utf-8")
        except OSError as exc:
            return _demo_error(f"cannot write {args.record}: {exc.strerror or exc}")
    return 0


def _demo_error(message: str) -> int:
    sys.stderr.write(f"piepmatz demo: error: {message}\n")
    return 2


def _replay(args: argparse.Namespace) -> int:
    from piepmatz.records import GameFileError, list_games, load_game, replay_text

    try:
        if args.list:
            sys.stdout.write("\n".join(list_games(args.file)) + "\n")
            return 0
        loaded = load_game(args.file, args.game, finished=True)
    except GameFileError as exc:
        sys.stderr.write(f"piepmatz replay: {exc}\n")
        return 2
    replay_text(loaded, sys.stdout)
    return 0


def _verify(args: argparse.Namespace) -> int:
    """Check a finished online game's record: who could have chosen its deal, and its replay."""
    from piepmatz.core.commitment import verify_record
    from piepmatz.records import GameFileError, read_documents

    try:
        docs = read_documents(args.file)
    except GameFileError as exc:
        sys.stderr.write(f"piepmatz verify: {exc}\n")
        return 2
    if len(docs) != 1:
        sys.stderr.write(f"piepmatz verify: {args.file} holds {len(docs)} documents, not one\n")
        return 2
    checks = verify_record(docs[0][1])
    for check in checks:
        sys.stdout.write(f"{'ok ' if check.holds else 'NO '} {check.name}: {check.detail}\n")
    if all(check.holds for check in checks):
        sys.stdout.write(
            "verified: the deal comes from the committed secret and every person's part, "
            "and the game replays to its result\n"
        )
        return 0
    return 1


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="piepmatz", description="Piepmatz (Little Songbirds)")
    parser.add_argument("--version", action="version", version=f"piepmatz {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser(
        "demo",
        help="watch bots play one game, printed as it happens",
        description="Watch bots play one game of Piepmatz: every event as it happens, then the "
        "score sheet. The bots are random unless --bots names others.",
    )
    demo.add_argument("--players", type=int, default=3, choices=(2, 3, 4), help="seats (3)")
    add_rules(demo)
    demo.add_argument("--seed", type=int, default=None, help="deal with this seed (random)")
    demo.add_argument(
        "--bots",
        nargs="+",
        metavar="BOT",
        help="bot per seat, repeated to fill the table (random): e.g. medium hard",
    )
    demo.add_argument("--record", help="write the game record (JSON) to this file")
    add_plugin(demo)
    add_language(demo)
    demo.set_defaults(func=_demo)

    replay = sub.add_parser(
        "replay",
        help="replay a finished game and print its log and score sheet",
        description="Print a finished game: every event, hidden cards included, and the score "
        "sheet. FILE is a game record (demo --record), a terminal-game save, a tournament's "
        "--records file (JSON lines: one game each, chosen with --game), or a finished online "
        "game's link (SERVER/play/TABLE, SERVER/replay/TABLE).",
    )
    replay.add_argument(
        "file", metavar="FILE", help="the game record, save or records file, or a game's link"
    )
    which = replay.add_mutually_exclusive_group()
    which.add_argument(
        "--game", type=int, metavar="N", help="game N of a records file (its tournament index)"
    )
    which.add_argument("--list", action="store_true", help="list the games of a records file")
    add_language(replay)
    replay.set_defaults(func=_replay)

    verify = sub.add_parser(
        "verify",
        help="check that nobody alone chose an online game's deal, and that it replays",
        description="Check a finished online game's record (GET /api/tables/TABLE/record): the "
        "server's secret matches the commitment shown when the table opened, every person's "
        "part of the seed went in, the seed is the one they give, and the actions replay to the "
        "record's result. Exits 0 when every check holds, 1 when one fails.",
    )
    verify.add_argument(
        "file",
        metavar="RECORD",
        help="the finished game's record (JSON), or its link (SERVER/play/TABLE, "
        "SERVER/replay/TABLE): the server gives the record",
    )
    verify.set_defaults(func=_verify)

    # Each interface package adds its own commands from a light ``commands`` module that imports
    # its heavy dependencies only when the command runs.
    for name in INTERFACE_COMMANDS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is None or not name.startswith(exc.name):
                raise
            continue
        module.register(sub)
    return parser


def _command_name(args: argparse.Namespace) -> str:
    """The command as typed: ``envs layout``, ``db upgrade``, ``admin tables``."""
    sub = getattr(args, f"{args.command}_command", None)
    return f"{args.command} {sub}" if sub else str(args.command)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if hasattr(args, "lang"):  # a command that shows a player text
        set_language(choose_language(args.lang, os.environ))
    # A command whose extra is missing says which one, before any work (``make play`` installs
    # only the terminal game's).
    extra = getattr(args, "extra", None)
    missing = missing_extra(extra) if extra else None
    if extra and missing:
        sys.stderr.write(install_hint(_command_name(args), extra, missing) + "\n")
        return 2
    try:
        code: int = args.func(args)
    except ModuleNotFoundError as exc:
        # A module only some runs import (``--backend ray``), found missing on the way.
        needed = extra_of(exc.name or "")
        if needed is None:
            raise
        sys.stderr.write(install_hint(_command_name(args), needed, exc.name or "") + "\n")
        return 2
    except BrokenPipeError:
        # The reader went away (``piepmatz demo | head``): stop quietly, as Unix tools do, and
        # point stdout at nothing so the interpreter's final flush cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a tool killed by a closed pipe
    return code


if __name__ == "__main__":
    raise SystemExit(main())
