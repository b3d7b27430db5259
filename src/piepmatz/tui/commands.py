"""``piepmatz play``: the terminal game. Textual is imported only when the command runs."""

from __future__ import annotations

import argparse
import sys

from piepmatz.args import add_language, add_plugin, rules_spec, seconds


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    play = subparsers.add_parser(
        "play",
        help="play in the terminal against bots or friends (hot-seat)",
        description=(
            "Play Piepmatz in the terminal. Without options a new-game screen opens; "
            "pressing Enter starts a game of one person against two bots."
        ),
    )
    play.add_argument(
        "--seats",
        help="who sits where, e.g. human,easy,hard (2-4 seats; 'human' or a bot name)",
    )
    play.add_argument("--players", type=int, choices=(2, 3, 4), help="number of seats")
    play.add_argument(
        "--bots",
        nargs="+",
        metavar="BOT",
        help="bots for the seats after the first (one person), repeated to fill the table",
    )
    play.add_argument(
        "--rules",
        type=rules_spec,
        help="preset, optionally with flags: standard (default), overview:last_hand=true",
    )
    play.add_argument("--seed", type=int, default=None, help="deal with this seed")
    play.add_argument("--text", action="store_true", help="plain lines on stdin/stdout")
    play.add_argument(
        "--no-hints", action="store_true", help="no hints from the bot at this table (key h)"
    )
    play.add_argument(
        "--delay",
        type=seconds(zero=True),
        default=None,
        help="seconds between bot moves (default 0.6 on screen, 0 with --text)",
    )
    saved = play.add_mutually_exclusive_group()
    saved.add_argument("--resume", metavar="FILE", help="resume a saved game")
    saved.add_argument("--replay", metavar="FILE", help="step through a saved game or record")
    add_plugin(play)
    add_language(play)
    play.set_defaults(func=run_play, extra="tui")

    tutorial = subparsers.add_parser(
        "tutorial",
        help="learn to play: a guided first game in the terminal, about five minutes",
        description=(
            "A guided first game against a scripted bot: each step says what to do and why, "
            "marks the move, and tells what happened. Leave it with q; the next "
            "piepmatz tutorial goes on where you left it."
        ),
    )
    add_language(tutorial)
    tutorial.set_defaults(func=run_tutorial, extra="tui")


#: What a new game is made from; a saved game brings its own.
_NEW_GAME_OPTIONS = ("seats", "players", "bots", "rules", "seed")


def _seats(args: argparse.Namespace) -> list[str] | None:
    from piepmatz.records import HUMAN

    from .session import SeatError, check_seat, default_bot, parse_seats

    if args.seats:
        seats = parse_seats(args.seats)
        if args.players is not None and args.players != len(seats):
            raise SeatError(f"--players {args.players} but --seats names {len(seats)} seats")
        return seats
    if args.players is None and not args.bots:
        return None
    players = args.players or 3
    bots = [check_seat(b) for b in (args.bots or [default_bot()])]
    return [HUMAN] + [bots[i % len(bots)] for i in range(players - 1)]


def run_play(args: argparse.Namespace) -> int:
    from piepmatz.bots.plugins import PluginError, load_plugins
    from piepmatz.records import GameFileError, load_game

    from .session import SeatError, Session, default_seats

    try:
        load_plugins(args.plugin)
    except PluginError as exc:
        sys.stderr.write(f"piepmatz play: argument --plugin: {exc}\n")
        return 2
    given = [f"--{name}" for name in _NEW_GAME_OPTIONS if getattr(args, name) is not None]
    if (args.resume or args.replay) and given:
        which = "--resume" if args.resume else "--replay"
        sys.stderr.write(
            f"piepmatz play: {which} plays a saved game with its own seats, rules and deal: "
            f"drop {', '.join(given)}\n"
        )
        return 2
    rules = args.rules or "standard"
    try:
        seats = _seats(args)
        session: Session | None = None
        if args.resume:
            session = Session.load(args.resume)
        elif args.replay:
            replay = load_game(args.replay, finished=True)
    except (SeatError, GameFileError) as exc:
        sys.stderr.write(f"piepmatz play: {exc}\n")
        return 2

    if session is not None and args.no_hints:
        session.hints = False
    if args.text:
        from piepmatz.records import replay_text

        from .textmode import TextGame

        if args.replay:
            replay_text(replay, sys.stdout)
            return 0
        if session is None:
            seats = seats or default_seats()
            session = Session.new(seats, rules, args.seed, hints=not args.no_hints)
        delay = 0.0 if args.delay is None else args.delay
        return TextGame(session, sys.stdout, sys.stdin, delay).run()

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        from piepmatz.i18n import _

        sys.stderr.write(
            "piepmatz play: "
            + _(
                "stdin and stdout must be a terminal for the full-screen game; "
                "for plain lines on a pipe use piepmatz play --text"
            )
            + "\n"
        )
        return 2
    from .app import PiepmatzApp

    delay = 0.6 if args.delay is None else args.delay
    if args.replay:
        app = PiepmatzApp.for_replay(replay.game, replay.seats)
    else:
        app = PiepmatzApp(
            session=session,
            seats=seats,
            rules=rules,
            seed=args.seed,
            bot_delay=delay,
            hints=not args.no_hints,
        )
    app.run()
    return 0


def _terminal_needed(command: str) -> bool:
    """A full-screen command on a pipe says so (and what to use instead) rather than hang."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        return False
    from piepmatz.i18n import _

    sys.stderr.write(
        f"piepmatz {command}: "
        + _(
            "stdin and stdout must be a terminal for the full-screen game; "
            "for plain lines on a pipe use piepmatz play --text"
        )
        + "\n"
    )
    return True


def run_tutorial(args: argparse.Namespace) -> int:
    if _terminal_needed("tutorial"):
        return 2
    from .app import PiepmatzApp

    PiepmatzApp(lesson=True).run()
    return 0
