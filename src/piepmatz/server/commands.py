"""``piepmatz serve`` and ``piepmatz db upgrade``; the web stack is imported only when they run.

Every option may come from the environment instead, as container platforms pass settings:
``PIEPMATZ_`` and the option's name in capitals (``--database-url``: ``PIEPMATZ_DATABASE_URL``;
a repeatable option takes its values separated by spaces); the command line wins.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from piepmatz.args import add_plugin
from piepmatz.i18n import LANGUAGES

#: What every option's environment variable starts with.
ENV_PREFIX = "PIEPMATZ_"
#: Seconds a command waits for its database to answer before it says that it does not.
DATABASE_PATIENCE = 10.0
#: ``serve``'s options that set :class:`.limits.Limits`, each the field of its name.
LIMIT_OPTIONS = (
    "message_rate",
    "message_burst",
    "connections_per_address",
    "tables_per_minute",
    "reviews_per_minute",
    "reviews_at_once",
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = subparsers.add_parser(
        "serve",
        help="the online game server (tables, invite links, WebSocket play)",
        description=(
            "Serve online games: tables with invite links, bots, spectators and records. "
            "Games are stored in an SQLite file in your data directory unless "
            "--database-url names another database (postgresql://...)."
        ),
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8000, help="port to listen on (8000)")
    _database_url(serve)
    serve.add_argument(
        "--bot-workers",
        type=int,
        default=max(2, (os.cpu_count() or 2) - 1),
        help="processes the bots, hints and reviews think in, shared fairly between the "
        "tables (default: one less than the cores, at least 2, so that one slow bot never "
        "holds them all); 0: they think in threads of the server's process, for a host "
        "too small for more (a bot past --bot-timeout is then given up on, not stopped)",
    )
    serve.add_argument(
        "--bot-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="the ceiling on one piece of a worker's work: a bot that takes longer for a move "
        "(or fails) is replaced for that move by the greedy bot, and a hint or a review's "
        "decision that takes longer is given up (30)",
    )
    serve.add_argument(
        "--bot",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help="offer a bot by NAME beside the levels random, easy, greedy, medium and hard, "
        "built from SPEC (e.g. deep=ismcts:iterations=20000, champion=ppo:policy.npz); "
        "requests choose bots by name only (repeatable)",
    )
    from .pace import PACES

    serve.add_argument(
        "--pace",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help="offer a pace by NAME beside "
        + ", ".join(f"{name} ({spec})" for name, spec in PACES.items())
        + ", or redefine one: SPEC is live:BASE+INCREMENT[,away=T], turn:PER_MOVE or untimed, "
        "times in seconds or with s, m, h, d (e.g. blitz=live:3m+2s, relaxed=turn:3d); "
        "requests choose paces by name only (repeatable)",
    )
    serve.add_argument(
        "--language",
        choices=LANGUAGES,
        default=LANGUAGES[0],
        help="the language of the pages for a browser that asks for none of the game's: "
        "a club's own (a browser's or a player's choice still comes first) (en)",
    )
    serve.add_argument(
        "--chat",
        choices=("on", "off"),
        default="on",
        help="whether people write to their tables: off for a class of children or a quiet "
        "tournament (no line is taken, none is shown) (on)",
    )
    serve.add_argument(
        "--accounts",
        choices=("off", "passwords"),
        default="passwords",
        help="what players may have beside their browser's key: off (the key alone) or "
        "passwords (a username and a password, to sign in on another browser) (passwords)",
    )
    add_plugin(serve)
    from piepmatz.bots.analysis import DEFAULT_ITERATIONS, HINT_BOT, HINT_ITERATIONS

    serve.add_argument(
        "--hint-bot",
        default=HINT_BOT,
        metavar="SPEC",
        help=f"the bot whose move a hint suggests ({HINT_BOT}; any bot spec, as for seats)",
    )
    serve.add_argument(
        "--hint-iterations",
        type=int,
        default=HINT_ITERATIONS,
        metavar="N",
        help=f"search iterations of the estimate shown with a hint ({HINT_ITERATIONS:,})",
    )
    serve.add_argument(
        "--review-iterations",
        type=int,
        default=DEFAULT_ITERATIONS,
        metavar="N",
        help=f"search iterations per decision of a game review ({DEFAULT_ITERATIONS:,})",
    )
    serve.add_argument(
        "--redis",
        default=None,
        metavar="URL",
        help=(
            "Redis URL (redis://HOST:6379/0) to serve the same tables from several processes: "
            "they share --database-url (PostgreSQL) and tell each other moves over Redis "
            "(default: none, one process)"
        ),
    )
    serve.add_argument(
        "--log-level",
        default="info",
        type=_lower,
        choices=("critical", "error", "warning", "info", "debug"),
        help="the least severe log lines written, in either case (info: starting, the database "
        "and its migrations, resumed tables and every request)",
    )
    serve.add_argument(
        "--log-format",
        default="text",
        type=_lower,
        choices=("text", "json"),
        help="log lines as text (time, level, logger, message) or one JSON object a line, for "
        "log collectors (text)",
    )
    serve.add_argument(
        "--forwarded-allow-ips",
        default="127.0.0.1",
        metavar="ADDRESSES",
        help="the proxies trusted to say who the client is (X-Forwarded-For, X-Forwarded-Proto): "
        "addresses or networks separated by commas, or * alone for any (127.0.0.1)",
    )
    serve.add_argument(
        "--drain-timeout",
        type=int,
        default=10,
        metavar="SECONDS",
        help="on SIGTERM: stop accepting, tell every WebSocket to reconnect (close code 1012), "
        "wait this long for requests and moves in flight, then as long again for the bots' "
        "moves being stored, and exit (10)",
    )
    serve.add_argument(
        "--metrics",
        default="on",
        choices=("on", "off"),
        help="count moves, latency, connections, bots, refusals, the database and the bus for "
        "/metrics in Prometheus' format (on)",
    )
    serve.add_argument(
        "--metrics-allow",
        default="127.0.0.1,::1",
        metavar="ADDRESSES",
        help="the clients that may read /metrics: addresses or networks separated by commas, "
        "as seen after a trusted proxy (127.0.0.1,::1: this machine)",
    )
    from .limits import (
        CONNECTIONS_PER_ADDRESS,
        MESSAGE_BURST,
        MESSAGE_RATE,
        REVIEWS_AT_ONCE,
        REVIEWS_PER_MINUTE,
        TABLES_PER_MINUTE,
    )

    serve.add_argument(
        "--message-rate",
        type=float,
        default=MESSAGE_RATE,
        help=f"messages a connection may send per second ({MESSAGE_RATE:g}; 0: no limit)",
    )
    serve.add_argument(
        "--message-burst",
        type=int,
        default=MESSAGE_BURST,
        help=f"messages a connection may send at once ({MESSAGE_BURST})",
    )
    serve.add_argument(
        "--connections-per-address",
        type=int,
        default=CONNECTIONS_PER_ADDRESS,
        help=f"open WebSockets per client address ({CONNECTIONS_PER_ADDRESS}; 0: no limit)",
    )
    serve.add_argument(
        "--tables-per-minute",
        type=float,
        default=TABLES_PER_MINUTE,
        help="tables and quick games one client address may open per minute "
        f"({TABLES_PER_MINUTE:g}; 0: no limit)",
    )
    serve.add_argument(
        "--reviews-per-minute",
        type=float,
        default=REVIEWS_PER_MINUTE,
        help="game reviews one client address may start per minute "
        f"({REVIEWS_PER_MINUTE:g}; 0: no limit)",
    )
    serve.add_argument(
        "--reviews-at-once",
        type=int,
        default=REVIEWS_AT_ONCE,
        help=f"reviews computed at once on the server ({REVIEWS_AT_ONCE}; 0: no limit)",
    )
    from .limits import BOTS_AFTER

    serve.add_argument(
        "--seek-bots-after",
        type=float,
        default=BOTS_AFTER,
        metavar="SECONDS",
        help="how long a player finding a game waits before they may fill the empty seats with "
        f"bots ({BOTS_AFTER:g})",
    )
    serve.add_argument(
        "--seek-bot",
        default="medium",
        metavar="NAME",
        help="the bot (a name the server offers) that fills the empty seats of a game found "
        "(medium)",
    )
    serve.set_defaults(func=run_serve, extra="server")
    from_environment(serve, os.environ)

    database = subparsers.add_parser("db", help="the game server's database")
    actions = database.add_subparsers(dest="db_command", required=True)
    upgrade = actions.add_parser("upgrade", help="apply the schema migrations (serve does too)")
    _database_url(upgrade)
    upgrade.set_defaults(func=run_upgrade, extra="server")
    from_environment(upgrade, os.environ)
    _register_admin(subparsers)


def _register_admin(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    admin = subparsers.add_parser(
        "admin",
        help="the game server's tables, reports and bans: list, close, purge, back up, ban",
        description="Work on the server's database beside a running server (docs/serving.md).",
    )
    # The database may be named before the command (admin --database-url URL tables) or after
    # it; the environment's is the admin's default, and a command's own wins.
    _database_url(admin)
    from_environment(admin, os.environ, only=("database_url",))
    actions = admin.add_subparsers(dest="admin_command", required=True)
    listing = actions.add_parser("tables", help="list the tables, oldest first")
    listing.add_argument(
        "--status", choices=("waiting", "playing", "over"), default=None, help="only these"
    )
    listing.add_argument("--older-than", metavar="AGE", help="opened more than AGE ago (7d)")
    listing.add_argument("--younger-than", metavar="AGE", help="opened less than AGE ago (12h)")
    close = actions.add_parser("close", help="end an unfinished table as aborted (nobody wins)")
    close.add_argument("table", metavar="TABLE", help="the table's id (as admin tables lists it)")
    close.add_argument(
        "--redis", default=None, metavar="URL", help="tell the serving processes at once"
    )
    purge = actions.add_parser(
        "purge", help="delete finished tables, their records written out first"
    )
    purge.add_argument(
        "--finished-before", required=True, metavar="DATE", help="last move before DATE"
    )
    keep = purge.add_mutually_exclusive_group(required=True)
    keep.add_argument("--export", metavar="DIR", help="write each record to DIR/TABLE.json first")
    keep.add_argument("--discard", action="store_true", help="keep no record")
    backup = actions.add_parser(
        "backup", help="copy an SQLite database while it is served (PostgreSQL: pg_dump)"
    )
    backup.add_argument("file", metavar="FILE", help="the copy (a new file)")
    reports = actions.add_parser("reports", help="list the open reports players made")
    reports.add_argument("--all", action="store_true", help="the closed ones too")
    report = actions.add_parser("report", help="show a report: its chat and moves in words")
    report.add_argument("number", metavar="N", type=int, help="the report's number")
    close_report = actions.add_parser("close-report", help="mark a report dealt with")
    close_report.add_argument("number", metavar="N", type=int, help="the report's number")
    ban = actions.add_parser("ban", help="ban a player: no tables, no joining, no chat")
    unban = actions.add_parser("unban", help="lift a player's ban")
    for parser in (ban, unban):
        parser.add_argument(
            "player", metavar="PLAYER", help="an account's name, or the id the reports show"
        )
    ban.add_argument("--reason", required=True, help="why (the player is told it)")
    moderating = (reports, report, close_report, ban, unban)
    for parser in (listing, close, purge, backup, *moderating):
        _database_url(parser, after=True)
        parser.set_defaults(func=run_admin, extra="server")
    # The other setting the admin shares with the server: which Redis.
    from_environment(close, os.environ, only=("redis",), problems="redis_environment_problems")


def environment_name(action: argparse.Action) -> str:
    """The environment variable of an option: ``--bot-workers`` is ``PIEPMATZ_BOT_WORKERS``."""
    return ENV_PREFIX + action.dest.upper()


def from_environment(
    parser: argparse.ArgumentParser,
    environ: Mapping[str, str],
    only: tuple[str, ...] | None = None,
    problems: str = "environment_problems",
) -> None:
    """Take each option's default from its environment variable where one is set, and name the
    variable in the option's help (``only``: of these options alone, by ``dest``). A value that
    is no good is said when the command runs (not while the parser is built, which every other
    command does too), and nothing starts: it is kept in the ``problems`` attribute (a
    subcommand's own, so that it does not hide its parent command's)."""
    said: list[str] = []
    for action in parser._actions:
        if not action.option_strings or action.dest in ("help", "func"):
            continue
        if only is not None and action.dest not in only:
            continue
        name = environment_name(action)
        action.help = f"{action.help} [{name}]"
        raw = environ.get(name)
        if raw is None:
            continue
        try:
            value = _convert(action, raw)
        except (TypeError, ValueError) as exc:
            said.append(f"{name}={_shown(raw)!r} (for {action.option_strings[0]}): {exc}")
            continue
        parser.set_defaults(**{action.dest: value})
    parser.set_defaults(**{problems: said})


def _convert(action: argparse.Action, raw: str) -> Any:
    """``raw`` as the option's type (each of a repeatable option's values separated by spaces),
    or ValueError saying why not."""

    def one(text: str) -> Any:
        try:
            value = action.type(text) if callable(action.type) else text
        except argparse.ArgumentTypeError as exc:  # the type's own words
            raise ValueError(str(exc)) from None
        except (TypeError, ValueError):
            kind = getattr(action.type, "__name__", "value")
            raise ValueError(f"not a {'number' if kind in ('int', 'float') else kind}") from None
        if action.choices is not None and value not in action.choices:
            raise ValueError("one of " + ", ".join(map(str, action.choices)))
        return value

    if isinstance(action, argparse._AppendAction):
        return [one(part) for part in raw.split()]
    return one(raw)


def _environment_problems(args: argparse.Namespace, command: str) -> bool:
    """Say what was wrong with the environment's settings; True if anything was."""
    problems = [
        *getattr(args, "environment_problems", ()),
        *getattr(args, "redis_environment_problems", ()),
    ]
    for problem in problems:
        sys.stderr.write(f"piepmatz {command}: {problem}\n")
    return bool(problems)


def _lower(text: str) -> str:
    """A choice in either case (``--log-level INFO``, as other programs write levels)."""
    return text.lower()


def _database_url(parser: argparse.ArgumentParser, after: bool = False) -> None:
    """The ``--database-url`` option; ``after``: an admin command's own, which stands for the
    one given before the command (whose default it leaves alone when not given)."""
    parser.add_argument(
        "--database-url",
        type=_database_url_value,
        default=argparse.SUPPRESS if after else None,
        help="sqlite:///PATH (sqlite:////PATH: an absolute path) or "
        "postgresql://USER:PASSWORD@HOST/DATABASE (default: an SQLite file under "
        "$XDG_DATA_HOME/piepmatz)" + (f" [{ENV_PREFIX}DATABASE_URL]" if after else ""),
    )


def _database_url_value(text: str) -> str:
    """``--database-url``'s type: the URL as the host wrote it (messages repeat it so), once the
    server is found to reach it (:func:`.db.database_url` gives it the server's driver). A
    database in memory is refused: whatever a command stores there is gone when it ends."""
    try:
        from sqlalchemy.engine import make_url

        from .db import database_url
    except ModuleNotFoundError:  # no server extra: main() says so before anything runs
        return text

    try:
        parsed = make_url(database_url(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:"):
        raise argparse.ArgumentTypeError(
            "an SQLite database in memory is lost, every game with it, when the command ends: "
            "give a file (sqlite:///PATH)"
        )
    return text


def _port(text: str) -> int:
    """``--port``'s type: a TCP port, said wrong here rather than by a server that cannot bind."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number") from None
    if not 0 < port < 65536:
        raise argparse.ArgumentTypeError(f"a port is from 1 to 65535, not {port}")
    return port


class _Unusable(Exception):
    """Why a command cannot use its database, in the host's words (one line)."""


#: What a command does with a schema a newer Piepmatz migrated (:func:`_database`).
REFUSE, WARN, IGNORE = "refuse", "warn", "ignore"


def _database(
    args: argparse.Namespace,
    command: str,
    *,
    create: bool = False,
    ours: bool = True,
    newer: str = REFUSE,
) -> str | None:
    """The URL (with the server's driver) of the database ``command`` works on, once it is found
    usable; else ``None``, after saying why in one line. Said before the command starts, where
    its first query would have ended in a traceback. ``create``: an SQLite file may be new
    (without it a mistyped path is not made into an empty database); ``ours``: it must hold
    the server's tables already; ``newer``: a schema a newer Piepmatz migrated is refused,
    warned of, or ignored."""
    from . import db

    given = args.database_url
    url = db.default_database_url() if given is None else db.database_url(given)
    named = _database_named(args, url)
    try:
        revision = _schema_revision(url, create)
        if ours and revision is None:
            raise _Unusable(
                "the database holds no Piepmatz tables: give the server's own "
                "(piepmatz serve makes its tables on its first start)"
            )
        if revision is not None and not db.known_revision(revision) and newer != IGNORE:
            problem = str(db.NewerSchema(revision))
            if newer == REFUSE:
                raise _Unusable(problem)
            sys.stderr.write(
                f"piepmatz {command}: warning: {named}: {problem}; shown here as this version "
                "reads it\n"
            )
    except _Unusable as exc:
        sys.stderr.write(f"piepmatz {command}: {named}: {exc}\n")
        return None
    return url


def _database_named(args: argparse.Namespace, url: str) -> str:
    """The database as a message names it: as the host gave it (the environment's setting is
    --database-url's too), or the default file."""
    from . import db

    given = args.database_url
    if given:
        return f"--database-url {_shown(given)}"
    # A host whose server's setting is in a service's environment file (/etc/piepmatz/env)
    # meets this at a shell without it: say where the setting goes.
    return (
        f"the default database ({db.describe(url)}, as neither --database-url nor "
        "PIEPMATZ_DATABASE_URL is set)"
    )


def _schema_revision(url: str, create: bool) -> str | None:
    """The revision the schema of the database at ``url`` is at (``None``: no schema yet), or
    :class:`_Unusable` saying why it cannot be read."""
    from sqlalchemy.engine import make_url

    from . import db

    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_revision(Path(parsed.database or ""), create)

    async def reach() -> str | None:
        engine = db.make_engine(url)
        try:
            async with asyncio.timeout(DATABASE_PATIENCE), engine.connect() as connection:
                revision: str | None = await connection.run_sync(db.current_revision)
                return revision
        finally:
            await engine.dispose()

    try:
        return asyncio.run(reach())
    except TimeoutError:
        raise _Unusable(f"the database did not answer within {DATABASE_PATIENCE:g} s") from None
    except Exception as exc:  # the driver's own errors: refused, no such database, bad password
        raise _Unusable(f"cannot open the database ({getattr(exc, 'orig', None) or exc})") from None


def _sqlite_revision(path: Path, create: bool) -> str | None:
    """:func:`_schema_revision` of an SQLite file, read as the standard library reads it:
    aiosqlite's thread, given a file it cannot open, outlives the event loop it answers to.
    A file that is not there yet is not made here (``create``: the command makes it)."""
    try:
        return _read_sqlite_revision(path, create)
    except OSError as exc:  # a name too long for the file system, a folder not to be read
        raise _Unusable(f"cannot open the database ({exc.strerror or exc})") from None


def _read_sqlite_revision(path: Path, create: bool) -> str | None:
    import sqlite3

    # sqlite:///x.db is x.db in the current folder: a host who meant /x.db is told so.
    slashes = (
        ""
        if path.is_absolute()
        else f"; three slashes (sqlite:///{path}) name a path from the current folder "
        f"({Path.cwd()}), four (sqlite:////{path}) an absolute path"
    )
    if path.is_dir():
        raise _Unusable(f"{path} is a folder: give the server's SQLite file")
    if not path.exists():
        if not create:
            raise _Unusable(
                f"there is no file {path}: give the SQLite file the server keeps its games in"
                + slashes
            )
        if not path.parent.is_dir():
            raise _Unusable(
                f"cannot make the database there: there is no folder {path.parent}" + slashes
            )
        return None
    try:
        connection = sqlite3.connect(path, timeout=DATABASE_PATIENCE)
    except sqlite3.Error as exc:
        raise _Unusable(f"cannot open the database ({exc})") from None
    try:
        found = connection.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'"
        ).fetchone()
        if found is None:
            return None
        row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.DatabaseError as exc:
        if exc.sqlite_errorcode == sqlite3.SQLITE_NOTADB:
            raise _Unusable(
                f"{path} is not an SQLite database ({exc}): give the server's database file"
            ) from None
        raise _Unusable(f"cannot read the database ({exc})") from None
    finally:
        connection.close()
    return None if row is None else str(row[0])


def _shown(value: str) -> str:
    """``value`` as a message may repeat it: a URL's password starred out (the database's and
    Redis's URLs may carry one, and messages end up in logs)."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(value)
        password = parts.password
    except ValueError:
        return value
    if not password:
        return value
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


def run_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from .app import create_app
    from .limits import Limits
    from .messages import MAX_MESSAGE

    if _environment_problems(args, "serve"):
        return 2
    if args.bot_workers < 0:
        sys.stderr.write("piepmatz serve: --bot-workers must be 0 or more\n")
        return 2
    if args.drain_timeout < 0:
        sys.stderr.write("piepmatz serve: --drain-timeout must be 0 or more seconds\n")
        return 2
    if args.bot_timeout <= 0:
        sys.stderr.write("piepmatz serve: --bot-timeout must be more than 0 seconds\n")
        return 2
    from piepmatz.bots import plugin_bot_names
    from piepmatz.bots.plugins import PluginError, load_plugins

    from .roster import BotRoster

    try:
        plugins = load_plugins(args.plugin)
    except PluginError as exc:
        sys.stderr.write(f"piepmatz serve: {exc}\n")
        return 2
    try:
        # The operator's bots: the levels, --bot entries and what the plugins registered.
        roster = BotRoster.build(args.bot, plugin_bot_names())
    except ValueError as exc:
        sys.stderr.write(f"piepmatz serve: {exc}\n")
        return 2
    if slow := roster.longest_think(args.bot_timeout):
        sys.stderr.write(
            f"piepmatz serve: these bots think longer than --bot-timeout "
            f"{args.bot_timeout:g} s and would always be cut off: {', '.join(slow)}\n"
        )
        return 2
    for option, value in (
        ("--hint-iterations", args.hint_iterations),
        ("--review-iterations", args.review_iterations),
    ):
        if value < 1:
            sys.stderr.write(f"piepmatz serve: {option} must be 1 or more, not {value}\n")
            return 2
    from piepmatz.bots import make_bot

    try:
        make_bot(args.hint_bot)  # after the plugins: the hint bot may be one of theirs
    except ValueError as exc:
        sys.stderr.write(f"piepmatz serve: --hint-bot: {exc}\n")
        return 2
    # Each limit said wrong by its option (Limits names its own fields, for code).
    limited = {name: getattr(args, name) for name in LIMIT_OPTIONS}
    for name, value in limited.items():
        option = "--" + name.replace("_", "-")
        if not value >= 0:  # NaN too
            sys.stderr.write(
                f"piepmatz serve: {option} must be 0 (no limit) or more, not {value:g}\n"
            )
            return 2
    if args.message_burst < 1 and args.message_rate > 0:  # its bucket would never hold one
        sys.stderr.write(
            "piepmatz serve: --message-burst must be 1 or more while --message-rate limits "
            "messages (0 would refuse every one)\n"
        )
        return 2
    limits = Limits(**limited)
    from .pace import PaceRoster

    try:
        paces = PaceRoster.build(args.pace)
    except ValueError as exc:
        sys.stderr.write(f"piepmatz serve: {exc}\n")
        return 2
    from .pairing import PairingRules
    from .ratings import BOT_RATINGS
    from .roster import UnknownBot

    try:
        seek_bot = roster.choose(args.seek_bot)
    except UnknownBot as exc:
        sys.stderr.write(f"piepmatz serve: --seek-bot: {exc}\n")
        return 2
    if seek_bot not in BOT_RATINGS:
        # The tables it fills are rated, and a rated table's bots have fixed ratings.
        sys.stderr.write(
            f"piepmatz serve: --seek-bot: {seek_bot} has no fixed rating: choose one of "
            + ", ".join(BOT_RATINGS)
            + "\n"
        )
        return 2
    if not args.seek_bots_after >= 0:  # NaN too
        sys.stderr.write(
            f"piepmatz serve: --seek-bots-after must be 0 or more seconds, "
            f"not {args.seek_bots_after:g}\n"
        )
        return 2
    pairing = PairingRules(bots_after=args.seek_bots_after, bot=seek_bot)
    from . import logs, metrics

    try:
        metrics_allow = metrics.allow_list(args.metrics_allow)
    except ValueError as exc:
        sys.stderr.write(f"piepmatz serve: --metrics-allow: {exc}\n")
        return 2
    try:
        forwarded_allow = _forwarded_allow(args.forwarded_allow_ips)
    except ValueError as exc:
        sys.stderr.write(f"piepmatz serve: --forwarded-allow-ips: {exc}\n")
        return 2
    if args.redis is not None and (problem := _redis_problem(args.redis)) is not None:
        sys.stderr.write(f"piepmatz serve: --redis {_shown(args.redis)}: {problem}\n")
        return 2
    # Before the database is opened: a server that cannot listen changes nothing.
    if (problem := _listen_problem(args.host, args.port)) is not None:
        sys.stderr.write(f"piepmatz serve: {problem}\n")
        return 2
    url = _database(args, "serve", create=True, ours=False)
    if url is None:
        return 2
    from . import db

    try:
        lock = _lock_sqlite(url, shared=args.redis is not None)
    except db.ServerRunning as exc:
        sys.stderr.write(f"piepmatz serve: {_database_named(args, url)}: {exc}\n")
        return 2
    except OSError as exc:  # a folder the server may not write in: nor could SQLite's log
        sys.stderr.write(
            f"piepmatz serve: {_database_named(args, url)}: cannot make the lock file "
            f"{exc.filename} beside it ({exc.strerror})\n"
        )
        return 2
    try:
        if args.metrics == "off":
            metrics.turn_off()
        logs.configure(args.log_level, args.log_format)
        app = create_app(
            url,
            bot_workers=args.bot_workers,
            bot_timeout=args.bot_timeout,
            plugins=plugins,
            roster=roster,
            paces=paces,
            limits=limits,
            redis_url=args.redis,
            hint_bot=args.hint_bot,
            hint_iterations=args.hint_iterations,
            review_iterations=args.review_iterations,
            metrics_allow=metrics_allow if args.metrics == "on" else None,
            drain=args.drain_timeout,
            pairing=pairing,
            accounts=args.accounts,
            language=args.language,
            chat=args.chat == "on",
        )
        logging.getLogger("piepmatz.server").info(_where_to_open(args.host, args.port))
        # Frames far beyond the protocol's longest message are cut off by uvicorn itself.
        uvicorn.run(
            app,
            host=args.host,
            port=args.port,
            ws_max_size=16 * MAX_MESSAGE,
            # Compressing every view costs more CPU than the few kilobytes it saves (measured
            # with benchmarks/server.py: an eighth of the server's time went to deflate).
            ws_per_message_deflate=False,
            # The log is set up above (logs.configure): uvicorn's records go through it too.
            log_config=None,
            log_level=args.log_level,
            # Who the client is, from the trusted proxies' X-Forwarded-For (the per-address
            # limits count it) and X-Forwarded-Proto (the links handed out say https:// behind
            # TLS).
            proxy_headers=True,
            forwarded_allow_ips=forwarded_allow,
            # SIGTERM: uvicorn stops listening and closes every WebSocket with 1012 (Service
            # Restart), which the page and SeatClient answer by reconnecting at once; then
            # waits for what is in flight (the app's lifespan waits for the bots' moves being
            # stored).
            timeout_graceful_shutdown=args.drain_timeout,
        )
    finally:
        if lock is not None:
            lock.close()  # let go at once: the OS would at exit, but main() may be called again
    return 0


def _lock_sqlite(url: str, shared: bool) -> IO[str] | None:
    """The lock beside an SQLite database, held for the server's life (:func:`.db.lock_sqlite`):
    a second server on the same file without --redis would serve the same tables unaware of
    the first's moves. ``None`` for PostgreSQL (the app warns of a second server there)."""
    from sqlalchemy.engine import make_url

    from . import db

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    return db.lock_sqlite(Path(parsed.database or ""), shared)


def _forwarded_allow(text: str) -> str:
    """``--forwarded-allow-ips`` as uvicorn reads it, or ValueError naming what is no good:
    uvicorn takes anything else for a name it never matches, so a mistyped proxy would go
    unnoticed until the limits counted every player as the proxy."""
    from .metrics import allow_list

    if text.strip() == "*":
        return "*"
    if "*" in (part.strip() for part in text.split(",")):
        raise ValueError("* (any address) stands alone, not in a list")
    try:
        found = allow_list(text)
    except ValueError as exc:
        raise ValueError(f"{exc} (or * for any)") from None
    # A network written with its host's bits (10.0.0.5/24) is the network: uvicorn would take
    # it for a name.
    return ",".join(
        str(ipaddress.ip_network(part, strict=False)) if "/" in part else part for part in found
    )


def _where_to_open(host: str, port: int) -> str:
    """The address to give players: uvicorn names the one it listens on (``0.0.0.0`` is no
    page's), so a host learns here which one the others type, or that only this machine can."""
    loopback = _is_loopback(host)
    if host in ("0.0.0.0", "::", ""):
        found = _network_address()
        here = f"http://127.0.0.1:{port}/"
        if found is None:
            return f"players open http://THIS-MACHINE'S-ADDRESS:{port}/ ({here} on this machine)"
        shown = f"[{found}]" if ":" in found else found
        return f"players on this network open http://{shown}:{port}/ ({here} on this machine)"
    shown = f"[{host}]" if ":" in host else host
    if loopback:
        return (
            f"players open http://{shown}:{port}/ (this machine or a proxy on it: --host 0.0.0.0 "
            "for the network)"
        )
    return f"players open http://{shown}:{port}/"


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def _network_address() -> str | None:
    """This machine's address on its network: the one a datagram to a documentation address
    would leave from (connecting a UDP socket sends nothing); None without a route."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
        except OSError:
            return None
        address = str(probe.getsockname()[0])
    return None if ipaddress.ip_address(address).is_loopback else address


def _listen_problem(host: str, port: int) -> str | None:
    """Why the server could not listen on ``host``:``port``, or None: tried (a socket bound and
    let go at once, as asyncio binds the server's) before the database is touched, where uvicorn
    would have said it after migrating, with exit status 3."""
    import errno
    import socket

    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return f"--host {host}: no such address ({exc.strerror})"
    bound = 0
    for family, kind, protocol, _name, address in dict.fromkeys(found):
        with socket.socket(family, kind, protocol) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as exc:
                if exc.errno == errno.EADDRNOTAVAIL:  # a family this machine has not enabled
                    continue
                why = (exc.strerror or str(exc)).lower()
                if exc.errno == errno.EADDRINUSE:
                    return (
                        f"--port {port}: {host} port {port} is in use ({why}): stop what "
                        "listens there, or choose another --port"
                    )
                return f"cannot listen on {host} port {port} ({why})"
            bound += 1
    if not bound:
        return f"--host {host}: not an address of this machine"
    return None


def _redis_problem(url: str) -> str | None:
    """Why the server could not use Redis at ``url``, or None: said before it starts."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=5)
    except ValueError as exc:  # not a redis://, rediss:// or unix:// URL
        return str(exc)
    try:
        client.ping()
    except (redis.RedisError, OSError) as exc:
        return f"Redis does not answer ({exc})"
    finally:
        client.close()
    return None


def run_upgrade(args: argparse.Namespace) -> int:
    from . import db

    if _environment_problems(args, "db upgrade"):
        return 2
    url = _database(args, "db upgrade", create=True, ours=False)
    if url is None:
        return 2

    async def upgrade() -> tuple[str | None, str | None]:
        engine = db.make_engine(url)
        try:
            return await db.upgrade(engine)
        finally:
            await engine.dispose()

    before, after = asyncio.run(upgrade())
    said = _shown(args.database_url) if args.database_url else db.describe(url)
    if before == after:
        sys.stdout.write(f"the database schema is up to date already, at {after}: {said}\n")
    else:
        sys.stdout.write(
            f"migrated the database schema from {before or 'nothing'} to {after}: {said}\n"
        )
    return 0


#: The admin commands that look after the community (``admin.py``'s reports and bans).
MODERATING = ("reports", "report", "close-report", "ban", "unban")


async def _moderate(engine: Any, args: argparse.Namespace) -> str:
    """One of :data:`MODERATING`; what it prints."""
    from . import admin

    command = args.admin_command
    if command == "reports":
        rows = await admin.list_reports(engine, args.all)
        if not rows:  # a heading over nothing would leave the operator wondering
            return "no reports\n" if args.all else "no open reports (--all: the closed too)\n"
        head = f"{'N':>5}  {'table':12}  {'made (UTC)':16}  {'by':12}  {'about':24}  reason"
        return "\n".join([head, *(row.line() for row in rows)]) + "\n"
    if command == "report":
        return await admin.show_report(engine, args.number)
    if command == "close-report":
        await admin.close_report(engine, args.number)
        return f"closed report {args.number}\n"
    if command == "ban":
        reason = args.reason.strip()
        player, earlier = await admin.ban(engine, args.player, reason)
        if earlier is not None:
            return f"{player} was banned already ({earlier}); the reason is now: {reason}\n"
        return f"banned {player}: {reason}\n"
    return f"unbanned {await admin.unban(engine, args.player)}\n"


#: The admin commands that only read: on a schema a newer Piepmatz migrated they warn and go
#: on (what they show may miss what it added), where the others, which write, change nothing.
READING = ("tables", "reports", "report")


def run_admin(args: argparse.Namespace) -> int:
    from . import admin, db

    command = f"admin {args.admin_command}"
    if _environment_problems(args, command):
        return 2
    if args.admin_command == "backup":  # a copy of the file, whatever it holds
        url = _database(args, command, ours=False, newer=IGNORE)
    else:
        url = _database(args, command, newer=WARN if args.admin_command in READING else REFUSE)
    if url is None:
        return 2
    try:
        if args.admin_command == "backup":
            from sqlalchemy.engine import make_url

            parsed = make_url(url)
            if parsed.get_backend_name() != "sqlite" or not parsed.database:
                raise admin.AdminError(
                    "only an SQLite file is backed up here; PostgreSQL's way is pg_dump "
                    "(docs/deployment.md#backups)"
                )
            admin.backup_sqlite(Path(parsed.database), Path(args.file))
            sys.stdout.write(f"backed up {parsed.database} to {args.file}\n")
            return 0
        if args.admin_command == "ban" and not args.reason.strip():
            raise admin.AdminError("give the reason the player will be told (--reason)")
        if getattr(args, "redis", None) is not None:
            import redis

            try:  # a URL that is no Redis's, said before the table is closed
                redis.Redis.from_url(args.redis).close()
            except ValueError as exc:
                raise admin.AdminError(f"--redis {_shown(args.redis)}: {exc}") from None
        older = admin.age(args.older_than) if getattr(args, "older_than", None) else None
        younger = admin.age(args.younger_than) if getattr(args, "younger_than", None) else None
        before = admin.day(args.finished_before) if args.admin_command == "purge" else None
    except (admin.AdminError, ValueError) as exc:
        sys.stderr.write(f"piepmatz {command}: {exc}\n")
        return 2

    async def work() -> str:
        engine = db.make_engine(url)
        try:
            if args.admin_command == "tables":
                rows = await admin.list_tables(engine, args.status, older, younger)
                if not rows:
                    asked = args.status or older or younger
                    return "no tables match\n" if asked else "no tables yet\n"
                head = "table         status   opened (UTC)      last move         moves  seats"
                return "\n".join([head, *(row.line() for row in rows)]) + "\n"
            if args.admin_command == "close":
                ending = await admin.close_table(engine, args.table, args.redis)
                return f"closed {args.table}: aborted at move {ending['move']}\n"
            if args.admin_command in MODERATING:
                return await _moderate(engine, args)
            assert before is not None
            export = None if args.discard else Path(args.export)
            gone = await admin.purge(engine, before, export)
            kept = f", records in {export}" if export is not None else ", no records kept"
            return f"purged {len(gone)} finished tables{kept}\n"
        finally:
            await engine.dispose()

    try:
        sys.stdout.write(asyncio.run(work()))
    except admin.AdminError as exc:
        sys.stderr.write(f"piepmatz {command}: {exc}\n")
        return 2
    except admin.NotTold as exc:
        # Done, but not all of it: not 2, which says that nothing was changed.
        sys.stdout.write(f"closed {args.table}: aborted at move {exc.ending['move']}\n")
        sys.stderr.write(f"piepmatz {command}: --redis {_shown(args.redis)}: {exc}\n")
        return 1
    return 0
