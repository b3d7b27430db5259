"""Storage: the schema, the engine, and the migrations applied on start.

A table's game is stored as what rebuilds it exactly: its options (with the seed) and every
action taken, one row per move, in order. The state itself is never stored; on start the server
replays each unfinished game (PRODUCT.md principle 6). Tokens are stored only as SHA-256 hashes.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    create_engine,
    event,
    false,
    text,
)
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

log = logging.getLogger("piepmatz.server")

metadata = MetaData()


class Moment(TypeDecorator[datetime]):
    """A time, stored in UTC and read back with its zone. SQLite keeps no zone (PostgreSQL
    does): without it a time would reach a client as if local, and fail to compare with now."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        return value if value is None or value.tzinfo is not None else value.replace(tzinfo=UTC)

    def coerce_compared_value(self, op: Any, value: Any) -> Any:
        # As DateTime's: a time minus a timedelta binds the timedelta as an interval.
        return self.impl_instance.coerce_compared_value(op, value)


#: A table at the online feeder: its seats, its game options and where it stands.
tables = Table(
    "tables",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("options", JSON, nullable=False),  # GameOptions.to_json(): players, rules, seed
    Column("status", String(16), nullable=False),  # waiting, playing, over
    Column("public", Boolean, nullable=False),
    Column("spectator_hash", String(64), nullable=False),
    Column("created", Moment(), nullable=False),
    # How the deal's seed is made: {"secret": …} for a commitment (core/commitment.py), whose
    # seed is derived once every person's part is in; {"chosen": true} for a seed the only
    # person chose; null for a table stored before either.
    Column("deal", JSON, nullable=True),
    # The table's pace, stand-in bot and resign rule (Room.setup); null for a table stored
    # before paces: untimed, with the medium stand-in.
    Column("setup", JSON, nullable=True),
    # The clocks when a person came back: {"move", "left" (ms per seat), "from" (epoch ms)};
    # newer than the last move's clock while its move is the next to play.
    Column("clock", JSON, nullable=True),
    # How the game ended (Room.ending), once it has.
    Column("ending", JSON, nullable=True),
    # A rated table's rating: "due" from its opening until the verdict on its game is stored
    # (rated, or not and why, in the same transaction), then "done"; null for an unrated table.
    # A game over and still due was never judged (a process died first): the next start does.
    Column("rating", String(8), nullable=True, index=True),
    # Once the game is over and one of its people asked to play again: the new table with the
    # same seats, {"table": id, "by": seat}; the others sit down at it by their seat here.
    Column("rematch", JSON, nullable=True),
)

#: ``tables.c.rating``'s values.
RATING_DUE, RATING_DONE = "due", "done"

seats = Table(
    "seats",
    metadata,
    Column("table_id", String(32), ForeignKey("tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("kind", String(64), nullable=False),  # "human" or a bot spec
    Column("name", String(64), nullable=True),  # a person's display name once taken
    Column("token_hash", String(64), nullable=True),  # a person's seat credential
    # The person at this seat allows hints (a table has them only when every person does).
    Column("hints", Boolean, nullable=False, server_default=false()),
    # The person's part of the deal's seed (their own randomness), once they sit down.
    Column("part", String(128), nullable=True),
    # The SHA-256 of the player key of the browser that sat here ("My games").
    Column("player_hash", String(64), nullable=True, index=True),
    # Why a stand-in bot plays this person's seat (vocabulary.Absence), or null.
    Column("absent", String(16), nullable=True),
    # The person asked to abort the game (in its first round).
    Column("abort", Boolean, nullable=False, server_default=false()),
)

#: One row per accepted action; the primary key refuses a second action for the same move.
moves = Table(
    "moves",
    metadata,
    Column("table_id", String(32), ForeignKey("tables.id"), primary_key=True),
    Column("number", Integer, primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("action", String(64), nullable=False),
    # When the move was stored (epoch ms), everyone's time left then (live tables: ms per
    # seat), and the stand-in bot that made it for a person (null: the seat itself).
    Column("at", BigInteger, nullable=True),
    Column("clock", JSON, nullable=True),
    Column("by", String(64), nullable=True),
)

chat = Table(
    "chat",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", String(32), ForeignKey("tables.id"), nullable=False, index=True),
    Column("seat", Integer, nullable=False),
    Column("name", String(64), nullable=False),
    Column("text", Text, nullable=False),
    Column("sent", Moment(), nullable=False),
)

#: A player among strangers (issue 46): the id is the SHA-256 of the first player key their
#: browser made, as ``seats.player_hash``, so the games played before an account was made are
#: its games. A row is made when a player first signs up, is rated, seeks a game or is
#: reported; a browser's player nobody ever needed stays without one.
players = Table(
    "players",
    metadata,
    Column("id", String(64), primary_key=True),
    # An account's name as chosen, and its case-folded form, which is unique; null: no account.
    Column("username", String(32), nullable=True),
    Column("login", String(32), nullable=True, unique=True),
    # The password's argon2id hash (PHC string, with its salt and cost); null: no password.
    Column("password", String(256), nullable=True),
    Column("created", Moment(), nullable=False),
    # The id of the player's page (``/players/PAGE``): random, public, and no hash of a key.
    Column("page", String(16), nullable=True, unique=True),
    # The rating (OpenSkill's Plackett-Luce mu and sigma) after the last rated game; null: none.
    Column("mu", Float, nullable=True),
    Column("sigma", Float, nullable=True),
    Column("rated_games", Integer, nullable=False, server_default="0"),
    # Banned by the operator: when, and the reason given (shown to the player).
    Column("banned", Moment(), nullable=True),
    Column("ban_reason", Text, nullable=True),
)

#: The keys that sign in as a player besides the first (a password's sign-in on another
#: browser mints one), stored only as SHA-256 hashes; a key with no row here is its own player.
keys = Table(
    "keys",
    metadata,
    Column("key_hash", String(64), primary_key=True),
    Column("player_id", String(64), ForeignKey("players.id", ondelete="CASCADE"), index=True),
    Column("created", Moment(), nullable=False),
)

#: Each rated game's rating afterwards, for a player's page.
rating_history = Table(
    "rating_history",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("player_id", String(64), ForeignKey("players.id", ondelete="CASCADE"), nullable=False),
    Column("table_id", String(32), nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("at", Moment(), nullable=False),
    # The player's place in that game (1: first; tied players share one) and of how many.
    Column("place", Integer, nullable=True),
    Column("players", Integer, nullable=True),
    Index("ix_rating_history_player", "player_id", "at"),
)

#: The waiting list of "Find a game", shared by every server process: one row per player
#: seeking, until they are seated (``table_id``, ``seat``) or give up.
seeks = Table(
    "seeks",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("player_id", String(64), nullable=False, unique=True),
    Column("name", String(64), nullable=False),
    Column("players", Integer, nullable=False),
    Column("pace", String(32), nullable=False),
    Column("rating", Float, nullable=False),  # what pairing sorts by
    Column("since", Moment(), nullable=False),
    # When the player's page last asked: a seek nobody asks about leaves the list.
    Column("seen", Moment(), nullable=False),
    # Where the player is seated, once paired: the seat is reserved for them until they sit.
    Column("table_id", String(32), nullable=True),
    Column("seat", Integer, nullable=True),
    Index("ix_seeks_waiting", "players", "pace", "since"),
)

#: Players a player will not be paired with (nor hear at a table).
blocks = Table(
    "blocks",
    metadata,
    Column("player_id", String(64), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True),
    Column("blocked_id", String(64), primary_key=True),
    Column("since", Moment(), nullable=False),
    # Who was blocked, as the blocker saw them (the seat's name then), for their list.
    Column("name", String(64), nullable=True),
)

#: The seats whose chat a player does not hear at one table (a mute; a block mutes a player at
#: every table without a row here).
mutes = Table(
    "mutes",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("player_id", String(64), primary_key=True),
    Column("seat", Integer, primary_key=True),
)

#: Tables reported to the operator, kept with the record and chat as they were then.
reports = Table(
    "reports",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", String(32), nullable=False, index=True),
    Column("by_id", String(64), nullable=True),  # the reporter's player id
    Column("seat", Integer, nullable=True),  # the seat reported, if one
    Column("about_id", String(64), nullable=True),  # that seat's player id, if known
    Column("reason", Text, nullable=False),  # moderation.ReportReason
    Column("note", Text, nullable=True),  # the reporter's own words, if any
    Column("made", Moment(), nullable=False),
    Column("record", JSON, nullable=False),
    Column("chat", JSON, nullable=False),
    Column("closed", Moment(), nullable=True),
)


def default_database_url() -> str:
    """An SQLite file in the user's data directory (XDG), created on first use."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    folder = Path(base) / "piepmatz"
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite+aiosqlite:///{folder / 'server.db'}"


#: The databases the server stores games in, each with the driver it talks to it through (the
#: ``serve`` extra installs both).
DRIVERS = {"sqlite": "aiosqlite", "postgresql": "asyncpg"}
#: What a database URL looks like, for the messages that refuse one.
URL_FORMS = "sqlite:///PATH or postgresql://USER:PASSWORD@HOST/DATABASE"


def database_url(url: str) -> str:
    """``url`` with the server's driver: ``postgresql://`` (and ``postgres://``, as hosting
    platforms write it) and ``sqlite:///`` take theirs, and libpq's ``sslmode`` is asyncpg's
    ``ssl``, so that a URL written for other programs reaches the same database. ValueError says
    why any other URL is no good."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ValueError(f"not a database URL: write {URL_FORMS}") from None
    backend, _, driver = parsed.drivername.partition("+")
    backend = {"postgres": "postgresql"}.get(backend, backend)
    if backend not in DRIVERS:
        raise ValueError(f"games are stored in SQLite or PostgreSQL, not {backend}: {URL_FORMS}")
    if driver not in ("", DRIVERS[backend]):
        raise ValueError(
            f"the server reaches {backend} through {DRIVERS[backend]}, not {driver}: "
            f"{backend}+{DRIVERS[backend]}://..."
        )
    parsed = parsed.set(drivername=f"{backend}+{DRIVERS[backend]}")
    if backend == "postgresql" and "sslmode" in parsed.query:
        # The same modes under asyncpg's name (disable, prefer, require, verify-full...).
        ssl = parsed.query["sslmode"]
        parsed = parsed.difference_update_query(["sslmode"]).update_query_dict({"ssl": ssl})
    return parsed.render_as_string(hide_password=False)


def make_engine(url: str) -> AsyncEngine:
    """An async engine; SQLite gets the write-ahead log, which survives a killed process."""
    kwargs: dict[str, Any] = {}
    if url.startswith("sqlite"):
        kwargs["connect_args"] = {"timeout": 30}
    else:
        # A database server that restarted has cut the pooled connections: test each one as it
        # is taken, so that the first request after it is back does not fail.
        kwargs["pool_pre_ping"] = True
    engine = create_async_engine(url, **kwargs)
    if engine.dialect.name == "sqlite":
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    return engine


def sqlite_thread_engine(engine: AsyncEngine) -> Engine:
    """A plain (blocking) engine on the same SQLite file as ``engine``, for a thread of its own:
    there a whole transaction costs one hop from the event loop, where aiosqlite hops to its
    thread for every call."""
    url = engine.url.set(drivername="sqlite+pysqlite")
    sync = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})
    event.listen(sync, "connect", _sqlite_pragmas)
    return sync


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL with synchronous=NORMAL: a commit is in the log file before it returns, so a killed
    # server loses nothing acknowledged (a power cut may lose the last commits).
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _alembic_config(connection: Connection | None = None) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    config.attributes["connection"] = connection
    return config


@functools.cache
def head_revision() -> str | None:
    """The newest migration this version of the server ships: read once, at the process's
    first look. A newer version installed over a running one does not make it claim the
    newer schema as its own (its readiness says it is not ready for it)."""
    from alembic.script import ScriptDirectory

    head: str | None = ScriptDirectory.from_config(_alembic_config()).get_current_head()
    return head


def current_revision(connection: Connection) -> str | None:
    """The migration the database's schema is at (``None``: an empty database)."""
    from alembic.runtime.migration import MigrationContext

    # Configuring a context says at info which dialect it uses: on every readiness probe that
    # would be two lines of nothing. A migration's own lines (upgrade) still show.
    said = logging.getLogger("alembic.runtime.migration")
    level = said.level
    said.setLevel(max(level, logging.WARNING))
    try:
        current: str | None = MigrationContext.configure(connection).get_current_revision()
    finally:
        said.setLevel(level)
    return current


class NewerSchema(Exception):
    """The database's schema is at a revision this version does not ship: a newer Piepmatz
    migrated it (or another program's Alembic did). Nothing is changed in it; the message
    says so in the host's terms."""

    def __init__(self, revision: str) -> None:
        self.revision = revision
        head = head_revision()
        if revision.isdigit() and head is not None and revision > head:  # ours: 0001, 0002...
            said = (
                f"the database was migrated by a newer Piepmatz (schema revision {revision}); "
                f"this version knows the revisions up to {head}: run the newer Piepmatz, or "
                "restore a backup taken before it migrated"
            )
        else:
            said = (
                f"the database's schema is at revision {revision!r}, which no Piepmatz made "
                f"(this version's are 0001 to {head}): give the server's own database"
            )
        super().__init__(said)


def known_revision(revision: str) -> bool:
    """Whether this version ships the migration ``revision`` (a newer one's is unknown here)."""
    from alembic.script import ScriptDirectory
    from alembic.util.exc import CommandError

    try:
        found = ScriptDirectory.from_config(_alembic_config()).get_revision(revision)
    except CommandError:  # alembic's "Can't locate revision identified by ..."
        return False
    return found is not None


def _alembic_upgrade(connection: Connection) -> tuple[str | None, str | None]:
    from alembic import command

    before = current_revision(connection)
    if before is not None and not known_revision(before):
        raise NewerSchema(before)
    command.upgrade(_alembic_config(connection), "head")
    return before, current_revision(connection)


#: The PostgreSQL advisory lock held while migrating: the first 8 bytes of the SHA-256 of
#: ``piepmatz migrations``, big-endian and signed (a test checks it). Fixed, so that every
#: version of the server takes the same one.
MIGRATION_LOCK = 6790487461269485834


async def upgrade(engine: AsyncEngine) -> tuple[str | None, str | None]:
    """Bring the schema up to the newest migration (idempotent); returns the revisions before
    and after (``None``: no schema). :class:`NewerSchema` if a newer Piepmatz migrated it.

    One process at a time: servers started together on a fresh database would otherwise all
    create the same tables, and all but one die (PostgreSQL: ``duplicate key ...
    pg_type_typname_nsp_index``; SQLite: ``table ... already exists``). The lock is taken in the
    migration's own transaction, so it is let go at its commit or rollback, even when the
    process dies; the next one then finds the schema current and does nothing.
    """
    async with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            await connection.execute(
                text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK}
            )
        elif connection.dialect.name == "sqlite":
            # Python's sqlite3 opens no transaction before DDL: each CREATE TABLE would stand
            # alone. BEGIN IMMEDIATE takes the write lock before alembic looks at the schema (a
            # second process waits for it up to the connection's timeout).
            await connection.exec_driver_sql("BEGIN IMMEDIATE")
        revisions: tuple[str | None, str | None] = await connection.run_sync(_alembic_upgrade)
        return revisions


def describe(url: str) -> str:
    """The database as a host reads it in the log: an SQLite file by its absolute path, else
    the URL without its driver and with its password starred out."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return f"SQLite file {Path(parsed.database or '').resolve()}"
    return parsed.set(drivername=backend).render_as_string(hide_password=True)


# ---------------------------------------------------------------------- one server a database

#: What a server without ``--redis`` holds for its life, so that a second one on the same
#: database is found out: beside an SQLite file, this suffix's file (an OS lock, let go when
#: the process ends however it ends); on PostgreSQL, a session advisory lock on this key (the
#: first 8 bytes of the SHA-256 of ``piepmatz server``, as :data:`MIGRATION_LOCK`).
LOCK_SUFFIX = ".lock"
SERVER_LOCK = -1828151179004902547
#: Seconds a stopping server tries to let go of :data:`SERVER_LOCK` (closing its connection
#: lets go of it too).
LET_GO_WITHIN = 2.0


class ServerRunning(Exception):
    """Another ``piepmatz serve`` holds the database in a way this one may not share."""


def lock_sqlite(database: Path, shared: bool) -> IO[str] | None:
    """Hold the lock file beside the SQLite file ``database`` until the returned file is
    closed (or the process ends): alone, or ``shared`` with other servers that share tables
    over Redis. :class:`ServerRunning` names the holder if it cannot be had. ``None`` where the
    system has no ``flock`` (Windows): nothing is held."""
    try:
        import fcntl
    except ImportError:
        return None
    path = database.with_name(database.name + LOCK_SUFFIX)
    handle = path.open("a+")
    try:
        fcntl.flock(handle, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip()
        handle.close()
        process = f" (process {holder})" if holder.isdigit() else ""
        if shared:  # the holder serves without --redis
            raise ServerRunning(
                f"another piepmatz serve{process} serves this database without --redis: stop it "
                "first"
            ) from None
        if holder.isdigit():
            raise ServerRunning(
                f"another piepmatz serve{process} serves this database already: stop it first "
                "(several processes share tables through PostgreSQL and --redis: "
                "docs/scaling.md)"
            ) from None
        raise ServerRunning(
            "piepmatz serve processes with --redis serve this database already: start this "
            "one with --redis too, or stop them first"
        ) from None
    # The process that holds it alone says who it is; a shared holder clears a name left
    # over from an earlier one.
    handle.seek(0)
    handle.truncate()
    if not shared:
        handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


async def hold_server_lock(engine: AsyncEngine, shared: bool) -> AsyncConnection | None:
    """On PostgreSQL, take :data:`SERVER_LOCK` on a connection of its own, held until it is
    closed: alone, or ``shared`` by the servers that share tables over Redis. A warning is
    logged when another server holds it in a way this one may not share (it still starts: the
    lock is a hint, lost if the database restarts). ``None`` on SQLite (:func:`lock_sqlite`)."""
    if engine.dialect.name != "postgresql":
        return None
    connection = await engine.connect()
    how = "pg_try_advisory_lock_shared" if shared else "pg_try_advisory_lock"
    taken = await connection.scalar(text(f"SELECT {how}(:key)"), {"key": SERVER_LOCK})
    # A session lock outlives the transaction; an open transaction would hold back VACUUM.
    await connection.commit()
    if not taken:
        log.warning(
            "another Piepmatz server %s this database: moves made at one are not shown at the "
            "other, and both run the bots; stop it, or start every process with --redis "
            "(docs/scaling.md)",
            "without --redis serves" if shared else "serves",
        )
    return connection


async def let_go_server_lock(connection: AsyncConnection | None) -> None:
    """Let go of :func:`hold_server_lock`'s lock (a database that went away has let go of it)."""
    if connection is None:
        return
    try:
        # Bounded: a database out of reach must not hold up the server's stop.
        async with asyncio.timeout(LET_GO_WITHIN):
            await connection.execute(text("SELECT pg_advisory_unlock_all()"))
            await connection.close()
    except (SQLAlchemyError, OSError, TimeoutError):
        await connection.invalidate()
