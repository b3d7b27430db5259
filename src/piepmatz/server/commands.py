"""``piepmatz serve`` and ``piepmatz db upgrade``; the web stack is imported only when they run.

Every option may come from the environment instead, as container platforms pass settings:
``PIEPMATZ_`` and the option's name in capitals (``--database-url``: ``PIEPMATZ_DATABASE_URL``;
a repeatable option takes its values separated by spaces); the command line wins.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Mapping
from typing import Any

from piepmatz.args import add_plugin

#: What every option's environment variable starts with.
ENV_PREFIX = "PIEPMATZ_"
#: Seconds a command waits for its database to answer before it says that it does not.
DATABASE_PATIENCE = 10.0


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
        "holds them all)",
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
        choices=("critical", "error", "warning", "info", "debug"),
        help="the least severe log lines written (info: starting, migrations, resumed tables "
        "and every request)",
    )
    serve.add_argument(
        "--log-format",
        default="text",
        choices=("text", "json"),
        help="log lines as text (time, level, logger, message) or one JSON object a line, for "
        "log collectors (text)",
    )
    serve.add_argument(
        "--forwarded-allow-ips",
        default="127.0.0.1",
        metavar="ADDRESSES",
        help="the proxies trusted to say who the client is (X-Forwarded-For, X-Forwarded-Proto): "
        "addresses or networks separated by commas, or * for any (127.0.0.1)",
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
        _database_url(parser)
        parser.set_defaults(func=run_admin, extra="server")
        # The settings the admin shares with the server: which database, which Redis.
        from_environment(parser, os.environ, only=("database_url", "redis"))


def environment_name(action: argparse.Action) -> str:
    """The environment variable of an option: ``--bot-workers`` is ``PIEPMATZ_BOT_WORKERS``."""
    return ENV_PREFIX + action.dest.upper()


def from_environment(
    parser: argparse.ArgumentParser,
    environ: Mapping[str, str],
    only: tuple[str, ...] | None = None,
) -> None:
    """Take each option's default from its environment variable where one is set, and name the
    variable in the option's help (``only``: of these options alone, by ``dest``). A value that
    is no good is said when the command runs (not while the parser is built, which every other
    command does too), and nothing starts."""
    problems: list[str] = []
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
            problems.append(f"{name}={_shown(raw)!r} (for {action.option_strings[0]}): {exc}")
            continue
        parser.set_defaults(**{action.dest: value})
    parser.set_defaults(environment_problems=problems)


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
    for problem in getattr(args, "environment_problems", ()):
        sys.stderr.write(f"piepmatz {command}: {problem}\n")
    return bool(getattr(args, "environment_problems", ()))


def _database_url(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--database-url",
        type=_database_url_value,
        default=None,
        help="sqlite:///PATH or postgresql://USER:PASSWORD@HOST/DATABASE (default: an SQLite "
        "file under $XDG_DATA_HOME/piepmatz)",
    )


def _database_url_value(text: str) -> str:
    """``--database-url``'s type: the URL with the server's driver (:func:`.db.database_url`)."""
    try:
        from .db import database_url
    except ModuleNotFoundError:  # no server extra: main() says so before anything runs
        return text

    try:
        return database_url(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _port(text: str) -> int:
    """``--port``'s type: a TCP port, said wrong here rather than by a server that cannot bind."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number") from None
    if not 0 < port < 65536:
        raise argparse.ArgumentTypeError(f"a port is from 1 to 65535, not {port}")
    return port


def _database_problem(url: str, create: bool) -> str | None:
    """Why the command could not use the database at ``url``, or None: said before it starts,
    in one line, where the first query would have ended in a traceback. Without ``create`` an
    SQLite file must be there already (a mistyped path is not made into an empty database)."""
    import sqlite3
    from pathlib import Path

    from sqlalchemy.engine import make_url

    from . import db

    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        # Opened as the standard library opens it: aiosqlite's thread, given a file it cannot
        # open, outlives the event loop it answers to.
        if not parsed.database or parsed.database == ":memory:":
            return None
        if not create and not Path(parsed.database).is_file():
            return "no SQLite file there: give the server's own"
        try:
            sqlite3.connect(parsed.database, timeout=DATABASE_PATIENCE).close()
        except sqlite3.Error as exc:
            return f"cannot open the database ({exc})"
        return None

    async def reach() -> None:
        engine = db.make_engine(url)
        try:
            async with asyncio.timeout(DATABASE_PATIENCE), engine.connect():
                pass
        finally:
            await engine.dispose()

    try:
        asyncio.run(reach())
    except TimeoutError:
        return f"the database did not answer within {DATABASE_PATIENCE:g} s"
    except Exception as exc:  # the driver's own errors: refused, no such database, bad password
        return f"cannot open the database ({getattr(exc, 'orig', None) or exc})"
    return None


def _database_unusable(url: str, command: str, create: bool = False) -> bool:
    """Say why ``command`` cannot use the database at ``url``; True if it cannot (``create``:
    an SQLite file may be new)."""
    problem = _database_problem(url, create)
    if problem is not None:
        sys.stderr.write(f"piepmatz {command}: --database-url {_shown(url)}: {problem}\n")
    return problem is not None


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
    try:
        limits = Limits(
            message_rate=args.message_rate,
            message_burst=args.message_burst,
            connections_per_address=args.connections_per_address,
            tables_per_minute=args.tables_per_minute,
            reviews_per_minute=args.reviews_per_minute,
            reviews_at_once=args.reviews_at_once,
        )
    except ValueError as exc:
        sys.stderr.write(f"piepmatz serve: {exc}\n")
        return 2
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
    try:
        pairing = PairingRules(bots_after=args.seek_bots_after, bot=seek_bot)
    except ValueError as exc:
        sys.stderr.write(f"piepmatz serve: --seek-bots-after: {exc}\n")
        return 2
    if args.redis is not None and (problem := _redis_problem(args.redis)) is not None:
        sys.stderr.write(f"piepmatz serve: --redis {_shown(args.redis)}: {problem}\n")
        return 2
    from .db import default_database_url

    if _database_unusable(args.database_url or default_database_url(), "serve", create=True):
        return 2
    from . import logs, metrics

    try:
        metrics_allow = metrics.allow_list(args.metrics_allow)
    except ValueError as exc:
        sys.stderr.write(f"piepmatz serve: --metrics-allow: {exc}\n")
        return 2
    if args.metrics == "off":
        metrics.turn_off()
    logs.configure(args.log_level, args.log_format)
    app = create_app(
        args.database_url,
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
    )
    # Frames far beyond the protocol's longest message are cut off by uvicorn itself.
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        ws_max_size=16 * MAX_MESSAGE,
        # Compressing every view costs more CPU than the few kilobytes it saves (measured with
        # benchmarks/server.py: an eighth of the server's time went to deflate).
        ws_per_message_deflate=False,
        # The log is set up above (logs.configure): uvicorn's records go through it too.
        log_config=None,
        log_level=args.log_level,
        # Who the client is, from the trusted proxies' X-Forwarded-For (the per-address limits
        # count it) and X-Forwarded-Proto (the links handed out say https:// behind TLS).
        proxy_headers=True,
        forwarded_allow_ips=args.forwarded_allow_ips,
        # SIGTERM: uvicorn stops listening and closes every WebSocket with 1012 (Service
        # Restart), which the page and SeatClient answer by reconnecting at once; then waits
        # for what is in flight (the app's lifespan waits for the bots' moves being stored).
        timeout_graceful_shutdown=args.drain_timeout,
    )
    return 0


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
    url = args.database_url or db.default_database_url()
    if _database_unusable(url, "db upgrade", create=True):
        return 2

    async def upgrade() -> None:
        engine = db.make_engine(url)
        try:
            await db.upgrade(engine)
        finally:
            await engine.dispose()

    asyncio.run(upgrade())
    sys.stdout.write(f"database schema is up to date: {_shown(url)}\n")
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
        player = await admin.ban(engine, args.player, args.reason.strip())
        return f"banned {args.player} ({player[: admin.SHOWN_ID]}): {args.reason.strip()}\n"
    player = await admin.unban(engine, args.player)
    return f"unbanned {args.player} ({player[: admin.SHOWN_ID]})\n"


def run_admin(args: argparse.Namespace) -> int:
    from pathlib import Path

    from . import admin, db

    command = f"admin {args.admin_command}"
    if _environment_problems(args, command):
        return 2
    url = args.database_url or db.default_database_url()
    if _database_unusable(url, command):
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
        older = admin.age(args.older_than) if getattr(args, "older_than", None) else None
        younger = admin.age(args.younger_than) if getattr(args, "younger_than", None) else None
        before = admin.day(args.finished_before) if args.admin_command == "purge" else None
    except (admin.AdminError, ValueError) as exc:
        sys.stderr.write(f"piepmatz {command}: {exc}\n")
        return 2

    async def work() -> str:
        engine = db.make_engine(url)
        try:
            async with engine.connect() as connection:
                if await connection.run_sync(db.current_revision) is None:
                    raise admin.AdminError(
                        "the database holds no Piepmatz tables: give the server's own "
                        "(--database-url; piepmatz serve makes its tables on its first start)"
                    )
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
    return 0
