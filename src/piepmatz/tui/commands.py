"""``piepmatz play``: the terminal game. Textual is imported only when the command runs."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from piepmatz.args import add_language, add_plugin, rules_spec, seconds

if TYPE_CHECKING:
    from .online import Seating, Server


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
    play.add_argument(
        "--names",
        metavar="NAME,NAME",
        help="the people's names, in seat order, e.g. Anna,Petr (default: Player 1, Player 2)",
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
        "--codes",
        action="store_true",
        help="with --text: birds in the engine's codes (BL5m), as a script reads them, "
        "rather than in words (Blackbird 5♂)",
    )
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
    saved.add_argument(
        "--replay",
        metavar="FILE",
        help="step through a finished game's save or record (with --text: print it whole)",
    )
    add_plugin(play)
    add_language(play)
    online = play.add_argument_group(
        "online play",
        "Sit at a table of a Piepmatz server (piepmatz serve), among browser players: an "
        "invite link joins its seat; with --server alone, a quick game against bots "
        "(--players, --bots BOT); with --seats, a table with friends whose invite links are "
        "printed; --join TABLE takes a public table's free seat, or your own seat back; "
        "--find waits for other people to play a rated game with (--players, --pace).",
    )
    online.add_argument("link", nargs="?", metavar="LINK", help="an invite link to join")
    online.add_argument("--server", metavar="URL", help="the server, e.g. http://host:8000")
    online.add_argument(
        "--join", metavar="LINK_OR_TABLE", help="an invite link, or a table's id at --server"
    )
    online.add_argument(
        "--list", action="store_true", help="list the public tables waiting at --server"
    )
    online.add_argument(
        "--find",
        action="store_true",
        help="find a game at --server: wait for other people (a rated game; after the "
        "server's wait, Enter fills the empty seats with bots)",
    )
    online.add_argument(
        "--name",
        help="your name at the table, which the other players see (default: the name given "
        "last time; asked the first time)",
    )
    online.add_argument(
        "--pace", help="a pace the server offers (GET /api/paces): live, turn-based, untimed"
    )
    online.add_argument(
        "--public", action="store_true", help="list the table for anyone to join (--seats)"
    )
    play.set_defaults(func=run_play, extra="tui")

    games = subparsers.add_parser(
        "games",
        help="list your games at a server (its My games), to go back to one",
        description=(
            "List the tables this terminal sat down at on a Piepmatz server, those waiting for "
            "your move first, and the command that takes you back to each. The terminal keeps "
            "one player key per server in its data directory."
        ),
    )
    games.add_argument("--server", required=True, metavar="URL", help="the server")
    add_language(games)
    games.set_defaults(func=run_games)

    tutorial = subparsers.add_parser(
        "tutorial",
        help="learn to play: a guided first game in the terminal, about five minutes",
        description=(
            "A guided first game against a scripted bot: each step says what to do and why, "
            "marks the move, and tells what happened. Leave it with q; the next "
            "piepmatz tutorial goes on where you left it. With --text it is plain lines on "
            "stdin/stdout, for screen readers and scripts."
        ),
    )
    tutorial.add_argument("--text", action="store_true", help="plain lines on stdin/stdout")
    tutorial.add_argument(
        "--codes",
        action="store_true",
        help="with --text: birds in the engine's codes (BL5m), as a script reads them, "
        "rather than in words (Blackbird 5♂)",
    )
    add_language(tutorial)
    tutorial.set_defaults(func=run_tutorial, extra="tui")


#: What a new game is made from; a saved game brings its own.
_NEW_GAME_OPTIONS = ("seats", "names", "players", "bots", "rules", "seed")


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


def _names(text: str | None, seats: list[str] | None) -> list[str | None] | None:
    """``--names Anna,Petr``: the people's names, one a seat (a bot's seat has none). Without
    ``seats`` the names are the first seats', for the table still to be chosen."""
    from piepmatz.i18n import _
    from piepmatz.records import HUMAN, seat_names

    from .session import SeatError

    if text is None:
        return None
    given = [part.strip() for part in text.split(",")]
    if seats is None:
        if len(given) > 4:
            raise SeatError(
                _("--names gives {count} names: a game has 2, 3 or 4 seats").format(
                    count=len(given)
                )
            )
        seats = [HUMAN] * len(given)  # the first seats, people all
    people = [p for p, seat in enumerate(seats) if seat == HUMAN]
    if len(given) > len(people):
        raise SeatError(
            _("--names gives {count} names, but {people} people sit at this table").format(
                count=len(given), people=len(people)
            )
        )
    names: list[str | None] = [None] * len(seats)
    for p, name in zip(people, given, strict=False):
        names[p] = name
    try:
        return seat_names(seats, names)
    except ValueError as exc:
        raise SeatError(str(exc)) from None


def run_play(args: argparse.Namespace) -> int:
    from piepmatz.bots.plugins import PluginError, load_plugins

    if args.codes and not args.text:
        sys.stderr.write(
            "piepmatz play: argument --codes: goes with --text "
            "(the full-screen game switches between codes and tiles with the c key)\n"
        )
        return 2
    if args.server or args.join or args.link or args.list or args.find:
        if args.names is not None:
            sys.stderr.write(
                "piepmatz play: argument --names: names the people at one terminal; "
                "at a server each person gives their own (--name)\n"
            )
            return 2
        return run_online(args)
    from piepmatz.records import GameFileError, load_game

    from .session import SeatError, Session, autosave_path, default_seats

    try:
        plugins = load_plugins(args.plugin)
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
        names = _names(args.names, seats)
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
            if seats is None:  # one person against bots, or the people --names names
                people = len(names) if names else 1
                seats = default_seats(max(3, people), people)
                names = names and names + [None] * (len(seats) - people)
            session = Session.new(seats, rules, args.seed, hints=not args.no_hints, names=names)
        delay = 0.0 if args.delay is None else args.delay
        # Kept after every move where the full-screen game keeps it (Ctrl+C loses nothing).
        text = TextGame(
            session,
            sys.stdout,
            sys.stdin,
            delay,
            codes=args.codes,
            keep=autosave_path(),
            plugins=plugins,
        )
        if args.resume:  # left before a move, the game is where it was resumed from
            text.saved = (args.resume, len(session.game.actions))
        return text.run()

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
        app = PiepmatzApp.for_replay(replay)
    else:
        app = PiepmatzApp(
            session=session,
            seats=seats,
            names=names,
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
            "for plain lines on a pipe use {command}"
        ).format(command=f"piepmatz {command} --text")
        + "\n"
    )
    return True


def run_tutorial(args: argparse.Namespace) -> int:
    if args.codes and not args.text:
        sys.stderr.write(
            "piepmatz tutorial: argument --codes: goes with --text "
            "(the full-screen lesson switches between codes and tiles with the c key)\n"
        )
        return 2
    if args.text:
        from .learning import progress_path, resume_lesson
        from .tutorialtext import TutorialText

        path = progress_path()
        text = TutorialText(
            resume_lesson(path), sys.stdout, sys.stdin, codes=args.codes, progress=path
        )
        return text.run()
    if _terminal_needed("tutorial"):
        return 2
    from .app import PiepmatzApp

    PiepmatzApp(lesson=True).run()
    return 0


#: Options that open an online table (a quick game or one with friends).
_OPENING = ("seats", "players", "bots", "rules", "seed", "pace", "public")
#: Options of the local game that an online table does not take (the server has its own).
_LOCAL_ONLY = ("resume", "replay", "delay")
#: What "Find a game" takes of the options that open a table.
_FIND = ("players", "pace")


def run_online(args: argparse.Namespace) -> int:
    """``piepmatz play --server`` (or an invite link): sit down at an online table, then play
    it full-screen (``--text``: as plain lines). Every refusal is told in one line first."""
    from piepmatz.i18n import _

    from .online import OnlineError

    try:
        seating = seat_online(args)
    except OnlineError as exc:
        sys.stderr.write(f"piepmatz play: {exc}\n")
        return 2
    if seating is None:  # --list: printed
        return 0
    if seating.invites:
        from .screens.online import invites_text

        # Kept in the terminal's scrollback too, for when the game's screen has closed.
        sys.stdout.write(_("Send each friend their own link:") + "\n")
        sys.stdout.write(invites_text(seating.invites, seating.spectate) + "\n")
        sys.stdout.flush()
    from .online import join_command

    back = _("Your seat stays yours; {command} takes you back.").format(
        command=join_command(seating)
    )
    if args.text:
        from .onlinetext import OnlineText

        try:
            return OnlineText(seating, sys.stdout, sys.stdin, sys.stderr, args.codes).run()
        except KeyboardInterrupt:  # Ctrl+C: left, as with quit, without a traceback
            sys.stdout.write("\n" + back + "\n")
            return 130
    from .app import PiepmatzApp

    app = PiepmatzApp(online=seating)
    app.run()
    screen = app.online_screen
    if seating.seat is not None and screen is not None and not screen.ended:
        # Left mid-game: the way back stays in the terminal's scrollback.
        sys.stdout.write(back + "\n")
    return 0


def seat_online(args: argparse.Namespace) -> Seating | None:
    """The seat ``piepmatz play``'s online options ask for, taken at the server (None for
    ``--list``, which prints the public tables); :class:`~piepmatz.tui.online.OnlineError`
    saying what was wrong, before anything changes at the server where it can."""
    from piepmatz.i18n import _

    from .online import (
        OnlineError,
        Seating,
        Server,
        parse_link,
        player_key,
        server_url,
        table_name,
    )

    local = [f"--{n}" for n in _LOCAL_ONLY if getattr(args, n) not in (None, False)]
    local += ["--plugin"] if args.plugin else []
    if local:
        raise OnlineError(
            _(
                "an online table is played full-screen with the server's bots: drop {options}"
            ).format(options=", ".join(local))
        )
    if args.link and args.join:
        raise OnlineError(_("give the invite link once: as LINK or as --join"))
    target = args.link or args.join
    invite = None
    if target and "://" in target:
        invite = parse_link(target)
        if args.server and server_url(args.server) != invite.server:
            raise OnlineError(
                _("the link is for {link}, not for --server {server}").format(
                    link=invite.server, server=args.server
                )
            )
        server = Server(invite.server)
    elif args.server:
        server = Server(args.server)
    else:
        what = f"--join {target}" if target else "--find" if args.find else "--list"
        raise OnlineError(_("{option} needs --server, the server's address").format(option=what))
    if args.list:
        sys.stdout.write(_public_tables(server) + "\n")
        return None
    # What opens a table means nothing to one joined: said, rather than silently dropped.
    opening = [f"--{n}" for n in _OPENING if getattr(args, n) not in (None, False)]
    if target and opening:
        raise OnlineError(
            _("a table joined comes with its own seats and rules: drop {options}").format(
                options=", ".join(opening)
            )
        )
    if args.find:
        # A found game's table is the server's (rated, standard rules): only its size and pace.
        given = [
            f"--{n}" for n in _OPENING if n not in _FIND and getattr(args, n) not in (None, False)
        ]
        given += [str(target)] if target else []
        if given:
            raise OnlineError(
                _(
                    "--find looks for people to play with (--players, --pace): drop {options}"
                ).format(options=", ".join(given))
            )
    if args.public and not args.seats:
        raise OnlineError(_("--public lists a table with friends: it needs --seats"))
    if args.bots and len(args.bots) > 1 and not (target or args.seats):
        raise OnlineError(_("a quick game has one bot level (--bots BOT); --seats mixes them"))
    _online_terminal(full_screen=not args.text)
    if invite is not None and invite.spectator:
        if args.name:
            raise OnlineError(_("a spectator has no name at the table: drop --name"))
        server.table(invite.table)  # told at once if there is no such table
        return Seating(server, invite.table, None, str(invite.token))
    name = table_name(args.name, ask=input if sys.stdin.isatty() else None)
    key = player_key(server.url)
    hints = not args.no_hints
    if target:
        table = invite.table if invite is not None else str(target)
        token = invite.token if invite is not None else None
        seat = invite.seat if invite is not None else None
        return _sit(server, table, seat, token, name, key, hints)
    if args.find:
        return _find(server, name, key, args)
    if args.seats:
        seats = [
            s.strip().lower() if s.strip().lower() == "human" else s.strip()
            for s in args.seats.split(",")
        ]
        if not 2 <= len(seats) <= 4:  # said here, in the player's words, not by the server
            raise OnlineError(
                _("a table has 2, 3 or 4 seats, not {count} ({seats})").format(
                    count=len(seats), seats=args.seats
                )
            )
        return server.open_table(
            seats,
            name,
            rules=args.rules,
            pace=args.pace,
            public=args.public or None,
            hints=hints,
            seed=args.seed,
            player=key,
        )
    return server.quick(
        name,
        players=args.players,
        bot=args.bots[0] if args.bots else None,
        rules=args.rules,
        pace=args.pace,
        hints=hints,
        seed=args.seed,
        player=key,
    )


def _find(server: Server, name: str, key: str, args: argparse.Namespace) -> Seating:
    """ "Find a game": the wait told line by line; past the server's wait, Enter (at a
    terminal) fills the empty seats with bots."""

    def tell(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    return server.find(name, key, args.players or 2, args.pace or "live", tell, _enter_pressed)


def _enter_pressed() -> bool:
    """Whether a line was typed at the terminal (read only when it is there: no thread may be
    left reading the input the full-screen game reads next)."""
    import select

    if not sys.stdin.isatty():
        return False
    try:
        ready, _, _ = select.select([sys.stdin], [], [], 0)
    except (OSError, ValueError):  # no select on this input (Windows): no Enter to offer
        return False
    if ready:
        sys.stdin.readline()
    return bool(ready)


def _online_terminal(full_screen: bool = True) -> None:
    """Online play needs the WebSocket client and, full-screen, a terminal: said before a table
    is opened or a seat taken."""
    from importlib.util import find_spec

    from piepmatz.i18n import _

    from .online import OnlineError

    if find_spec("websockets") is None:
        raise OnlineError(
            "online play needs websockets: pip install 'piepmatz[tui]' (in a clone: make play)"
        )
    if full_screen and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise OnlineError(
            _(
                "stdin and stdout must be a terminal for the full-screen game; "
                "for plain lines on a pipe use piepmatz play --text"
            )
        )


def _sit(
    server: Server,
    table: str,
    seat: int | None,
    token: str | None,
    name: str,
    key: str,
    hints: bool,
) -> Seating:
    """The seat at ``table``: the invite's (``token``), taken now, or already taken with this
    link (whoever holds it sits there: the token is the seat's credential); without a token
    this player's own seat there (their key sits there: "My games"), else a public table's
    first free seat."""
    from .online import Seating, dicts

    if token is None:
        for game in server.my_games(key)["playing"]:
            if game.get("table") == table and type(game.get("seat")) is int:
                return Seating(server, table, game["seat"], key)
        return server.join(table, name, None, hints=hints, player=key)
    seats = dicts(server.table(table).get("seats"))
    if any(s.get("seat") == seat and s.get("name") for s in seats):
        return Seating(server, table, int(seat or 0), token)
    return server.join(table, name, token, hints=hints, player=key)


def _public_tables(server: Server) -> str:
    """The public tables waiting for people, one a line, with the command that joins each."""
    from .online import open_tables_text

    return open_tables_text(server.open_tables(), server.url)


def run_games(args: argparse.Namespace) -> int:
    """``piepmatz games --server URL``: the server's "My games" for this terminal's key."""
    from .online import OnlineError, Server, games_text, player_key

    try:
        server = Server(args.server)
        games = server.my_games(player_key(server.url))
    except OnlineError as exc:
        sys.stderr.write(f"piepmatz games: {exc}\n")
        return 2
    sys.stdout.write(games_text(games, server.url) + "\n")
    return 0
