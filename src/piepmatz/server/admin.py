"""``piepmatz admin``: what the operator does to the database beside a running server, as a few
functions over the same store: list the tables, close one, purge finished ones (their records
written out first), back an SQLite database up while it is being written, and look after the
community: the reports players made (each with its table's record and chat as they were then),
and bans.

Closing a table ends it as aborted (nobody wins), as the players could have; the server that
holds it hears of it at once over Redis (``--redis``), else when its next move finds the table
over in the database. Nothing here prints a token or a table's hidden cards: a record of a
finished game shows every card, which is what a finished game's record is.
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from piepmatz.core import Game
from piepmatz.text.words import bot_name, seat_name, told

from . import archive
from .clocks import SystemClock
from .db import chat, moves, mutes, players, reports, seats, tables
from .news import EndNews
from .players import Players
from .pool import BotPool
from .ratings import Ratings
from .store import Store
from .vocabulary import Ending, TableStatus

_AGE = re.compile(r"(\d+(?:\.\d+)?)([smhd])")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def age(text: str) -> timedelta:
    """``30m``, ``12h``, ``7d``: a duration, or ValueError saying what was wrong."""
    match = _AGE.fullmatch(text)
    if match is None:
        raise ValueError(f"{text!r} is not a duration such as 45s, 30m, 12h or 7d")
    return timedelta(seconds=float(match[1]) * _UNITS[match[2]])


def day(text: str) -> datetime:
    """``2026-01-31`` (midnight, UTC) or a full ISO 8601 time, or ValueError."""
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a date such as 2026-01-31") from None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


@dataclass(frozen=True)
class TableRow:
    """A table as ``admin tables`` lists it."""

    id: str
    status: str
    created: datetime
    #: When its last move was stored (or when it was opened, if none was).
    last: datetime
    moves: int
    #: Each seat: a person's name (``-`` while free) or a bot's name.
    seats: list[str]
    public: bool
    #: How a finished table's game ended (its ``ending``), else None.
    ending: dict[str, Any] | None = None

    def line(self) -> str:
        when = self.created.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
        last = self.last.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
        shown = ", ".join(self.seats)
        public = " public" if self.public else ""
        result = f"  → {self.result()}" if self.ending is not None else ""
        return (
            f"{self.id}  {self.status:7}  {when}  {last}  {self.moves:4d}  {shown}{public}{result}"
        )

    def result(self) -> str:
        """A finished game's result, by the seats' names: ``Ann won``, ``aborted``."""
        ending = self.ending or {}

        def named(seats: Any) -> str:
            return ", ".join(self.seats[s] for s in seats if 0 <= s < len(self.seats))

        if ending.get("how") == "aborted":
            return "aborted"
        won = ending.get("winners") or []
        said = f"{named(won)} won" + (" (shared)" if len(won) > 1 else "")
        if ending.get("how") == "resigned":
            said = f"{named(ending.get('resigned') or [])} resigned; {said}"
        return said


async def list_tables(
    engine: AsyncEngine,
    status: str | None = None,
    older_than: timedelta | None = None,
    younger_than: timedelta | None = None,
    now: datetime | None = None,
) -> list[TableRow]:
    """The tables, oldest first: with ``status`` only, opened more than ``older_than`` or less
    than ``younger_than`` before ``now``."""
    now = now or datetime.now(UTC)
    counted = (
        select(moves.c.table_id, func.count().label("n"), func.max(moves.c.at).label("at"))
        .group_by(moves.c.table_id)
        .subquery()
    )
    query = (
        select(tables.c.id, tables.c.status, tables.c.created, tables.c.public, counted.c.n)
        .add_columns(counted.c.at, tables.c.ending)
        .outerjoin(counted, counted.c.table_id == tables.c.id)
        .order_by(tables.c.created)
    )
    if status is not None:
        query = query.where(tables.c.status == status)
    if older_than is not None:
        query = query.where(tables.c.created < now - older_than)
    if younger_than is not None:
        query = query.where(tables.c.created > now - younger_than)
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).all()
        who: dict[str, list[str]] = {row.id: [] for row in rows}
        found = select(seats.c.table_id, seats.c.kind, seats.c.name).order_by(seats.c.seat)
        for seat in await conn.execute(found.where(seats.c.table_id.in_(list(who)))):
            shown = (seat.name or "-") if seat.kind == "human" else seat.kind
            who[seat.table_id].append(shown)
    out = []
    for row in rows:
        created = row.created
        last = datetime.fromtimestamp(row.at / 1000, UTC) if row.at else created
        out.append(
            TableRow(
                row.id, row.status, created, last, row.n or 0, who[row.id], row.public, row.ending
            )
        )
    return out


class AdminError(Exception):
    """What the operator asked cannot be done; the message says why (nothing was changed)."""


class NotTold(Exception):
    """A table was closed, but the serving processes could not be told over Redis; the message
    says how they find out. ``ending`` is what was stored."""

    def __init__(self, table_id: str, ending: dict[str, Any], why: str) -> None:
        super().__init__(
            f"the serving processes could not be told ({why}): the table is closed in the "
            f"database, and a process holding it finds so when it next stores a move or a "
            f"seat at {table_id}"
        )
        self.ending = ending


async def close_table(
    engine: AsyncEngine, table_id: str, redis_url: str | None = None
) -> dict[str, Any]:
    """End an unfinished table as aborted (nobody wins); returns the ending stored. With
    ``redis_url`` the processes holding the table are told at once (:class:`NotTold` if Redis
    does not answer: the table is closed all the same)."""
    store = Store(engine)
    try:
        found = await store.load((), table_id=table_id)
        if not found:
            raise AdminError(f"no table {table_id!r}")
        stored = found[0]
        if stored.status == TableStatus.OVER:
            raise AdminError(f"table {table_id} is over already")
        room = archive.from_stored(stored, store, BotPool(0), SystemClock())
        ending = room.standins.ending(Ending.ABORTED)
        if not await store.end(table_id, ending, len(stored.actions)):
            raise AdminError(f"table {table_id} moved on meanwhile: try again")
        room.status, room.ending = TableStatus.OVER, ending
        await Ratings(store).rate(room)  # a rated table's verdict: not rated
    finally:
        await store.close()
    if redis_url is not None:
        await _tell(redis_url, table_id, ending)
    return ending


#: Seconds ``admin close`` waits for Redis to take the news before it says it could not.
TELL_PATIENCE = 5.0


async def _tell(redis_url: str, table_id: str, ending: dict[str, Any]) -> None:
    import redis.asyncio as redis

    from .bus import channel

    try:
        client = redis.Redis.from_url(
            redis_url, socket_connect_timeout=TELL_PATIENCE, socket_timeout=TELL_PATIENCE
        )
    except ValueError as exc:  # not a redis://, rediss:// or unix:// URL
        raise NotTold(table_id, ending, str(exc)) from None
    try:
        news = EndNews(ending=ending).model_copy(update={"origin": "admin"})
        await client.publish(channel(table_id), news.model_dump_json())
    except (redis.RedisError, OSError) as exc:
        raise NotTold(table_id, ending, f"Redis does not answer: {exc}") from None
    finally:
        await client.aclose()


async def purge(engine: AsyncEngine, finished_before: datetime, export: Path | None) -> list[str]:
    """Delete the finished tables whose last move was stored before ``finished_before``, each
    one's record written to ``export``/TABLE.json first (``None``: discarded); returns their
    ids."""
    gone = [
        row.id
        for row in await list_tables(engine, status=TableStatus.OVER)
        if row.last < finished_before
    ]
    if export is not None:
        store = Store(engine)
        try:
            if export.exists() and not export.is_dir():
                raise AdminError(
                    f"{export} is a file: --export names the folder the records are written "
                    "to (nothing was deleted)"
                )
            export.mkdir(parents=True, exist_ok=True)
            for table_id in gone:
                (stored,) = await store.load((), table_id=table_id)
                room = archive.from_stored(stored, store, BotPool(0), SystemClock())
                text = json.dumps(archive.record(room), ensure_ascii=False, indent=1)
                (export / f"{table_id}.json").write_text(text + "\n")
        except OSError as exc:  # no room, no permission: every table stays
            raise AdminError(
                f"cannot write the records to {export} ({exc.strerror or exc}): nothing was deleted"
            ) from None
        finally:
            await store.close()
    async with engine.begin() as conn:
        for start in range(0, len(gone), 500):
            batch = gone[start : start + 500]
            for rows in (chat, moves, seats, mutes):
                await conn.execute(delete(rows).where(rows.c.table_id.in_(batch)))
            await conn.execute(delete(tables).where(tables.c.id.in_(batch)))
    return gone


#: How many characters of a player's id the reports show (and the least ``ban`` takes).
SHOWN_ID = 12


@dataclass(frozen=True)
class ReportRow:
    """A report as ``admin reports`` lists it: players by account name, else by id."""

    id: int
    table: str
    made: datetime
    by: str
    seat: int | None
    about: str | None
    reason: str
    closed: bool

    def line(self) -> str:
        when = self.made.strftime("%Y-%m-%d %H:%M")
        about = "-" if self.seat is None else f"seat {self.seat + 1} ({self.about or '?'})"
        closed = "  closed" if self.closed else ""
        who = f"{self.by:12}  {about:24}"
        return f"{self.id:5d}  {self.table}  {when}  {who}  {self.reason}{closed}"


async def _names(conn: AsyncConnection, ids: set[str]) -> dict[str, str]:
    """Each player as the operator names them: the account's name, else the start of the id."""
    found = select(players.c.id, players.c.username).where(players.c.id.in_(list(ids)))
    named = {row.id: row.username for row in await conn.execute(found) if row.username}
    return {i: named.get(i) or i[:SHOWN_ID] for i in ids}


def _report_row(row: Any, names: dict[str, str]) -> ReportRow:
    return ReportRow(
        row.id,
        row.table_id,
        row.made,
        names.get(row.by_id or "", "-"),
        row.seat,
        names.get(row.about_id) if row.about_id else None,
        row.reason,
        row.closed is not None,
    )


async def list_reports(engine: AsyncEngine, everything: bool = False) -> list[ReportRow]:
    """The open reports (``everything``: the closed ones too), oldest first."""
    query = select(
        reports.c.id,
        reports.c.table_id,
        reports.c.made,
        reports.c.by_id,
        reports.c.seat,
        reports.c.about_id,
        reports.c.reason,
        reports.c.closed,
    ).order_by(reports.c.id)
    if not everything:
        query = query.where(reports.c.closed.is_(None))
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).all()
        ids = {i for row in rows for i in (row.by_id, row.about_id) if i}
        names = await _names(conn, ids)
    return [_report_row(row, names) for row in rows]


async def show_report(engine: AsyncEngine, number: int) -> str:
    """One report in words: who made it, why, the table's chat and every move as the log tells
    it (the record may be of a game still played: only the operator reads it)."""
    async with engine.connect() as conn:
        row = (await conn.execute(select(reports).where(reports.c.id == number))).first()
        if row is None:
            raise AdminError(f"no report {number}")
        names = await _names(conn, {i for i in (row.by_id, row.about_id) if i})
    head = _report_row(row, names)
    record = row.record
    seated = record.get("names") or []
    people = [
        (name or seat_name(i)) if i < len(seated) else seat_name(i) for i, name in enumerate(seated)
    ]
    lines = [
        f"report {head.id} on table {head.table}, {head.made.strftime('%Y-%m-%d %H:%M')} UTC"
        + ("  (closed)" if head.closed else ""),
        f"by: {head.by}",
        "about: " + ("the table" if head.seat is None else _seat_about(head, people)),
        f"reason: {head.reason}",
    ]
    if row.note:
        lines.append(f"in their words: {row.note}")
    lines += ["", f"chat ({_count(len(row.chat), 'line')}):"]
    lines += [f"  {line['sent'][:16]}  {line['name']}: {line['text']}" for line in row.chat]
    lines += ["", f"moves ({len(record.get('actions', []))}):"]  # as many as the record has
    try:
        game = Game.from_record({k: v for k, v in record.items() if k != "names"})
    except ValueError as exc:
        lines.append(f"  the record does not replay: {exc}")
        return "\n".join(lines) + "\n"
    shown = [
        people[i] if i < len(people) and people[i] else bot_name(i)
        for i in range(game.options.players)
    ]
    replayed = Game(game.options, game.version)
    for number_, action in enumerate(game.actions, start=1):
        before = len(replayed.state.events or [])
        replayed.apply(action)
        for event in (replayed.state.events or [])[before:]:
            said = "".join(part.text for part in told(event, shown))
            lines.append(f"  {number_:4d}. {said}")
    return "\n".join(lines) + "\n"


def _seat_about(head: ReportRow, people: list[str]) -> str:
    """The seat a report is about: its number, the name shown at the table and the player
    behind it (``seat 2, Ben (ben)``)."""
    assert head.seat is not None
    name = people[head.seat] if head.seat < len(people) else seat_name(head.seat)
    return f"seat {head.seat + 1}, {name} ({head.about or '?'})"


def _count(n: int, what: str) -> str:
    """``1 line``, ``3 lines``: the operator's words are English, as the rest of ``admin``."""
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


async def close_report(engine: AsyncEngine, number: int) -> None:
    """Mark a report dealt with (it leaves ``admin reports``; ``--all`` still lists it)."""
    async with engine.begin() as conn:
        done = await conn.execute(
            update(reports)
            .where(reports.c.id == number, reports.c.closed.is_(None))
            .values(closed=datetime.now(UTC))
        )
        if done.rowcount != 1:
            known = await conn.scalar(select(reports.c.id).where(reports.c.id == number))
            raise AdminError(
                f"report {number} is closed already" if known else f"no report {number}"
            )


#: The fewest characters of a player's id that ``ban`` and ``unban`` take for it.
LEAST_ID = 8


@dataclass(frozen=True)
class Named:
    """A player the operator named: their id, and their account's name if they have one."""

    id: str
    username: str | None

    def __str__(self) -> str:
        """As the operator is told: the account's own name (as its owner wrote it), and the
        id as the reports show it."""
        shown = self.id[:SHOWN_ID]
        return f"{self.username} ({shown})" if self.username else f"player {shown}"


async def find_player(engine: AsyncEngine, name: str) -> Named:
    """The player the operator names: by account name (in any case), else by their id or its
    first characters as the reports show them (at least :data:`LEAST_ID`, and only one
    player's)."""
    async with engine.connect() as conn:
        found = (
            await conn.execute(
                select(players.c.id, players.c.username).where(players.c.login == name.casefold())
            )
        ).first()
        if found is not None:
            return Named(found.id, found.username)
        hexadecimal = bool(name) and all(c in "0123456789abcdef" for c in name)
        if not hexadecimal:
            raise AdminError(
                f"no account named {name!r} (a player without one is named by their id, as the "
                "reports show it)"
            )
        if len(name) < LEAST_ID:
            raise AdminError(
                f"no account named {name!r}, and a player's id is given by at least "
                f"{LEAST_ID} of its first characters (the reports show {SHOWN_ID})"
            )
        prefix = name + "%"
        ids: set[str] = set(
            await conn.scalars(select(players.c.id).where(players.c.id.like(prefix)))
        )
        for column in (reports.c.by_id, reports.c.about_id):
            ids |= {i for i in await conn.scalars(select(column).where(column.like(prefix))) if i}
        if not ids:
            raise AdminError(f"no account named {name!r}, and no player's id starts with it")
        if len(ids) > 1:
            raise AdminError(f"{name!r} is the start of {len(ids)} players' ids: give more of it")
        player = ids.pop()
        username = await conn.scalar(select(players.c.username).where(players.c.id == player))
    return Named(player, username)


async def ban(engine: AsyncEngine, name: str, reason: str) -> tuple[Named, str | None]:
    """Ban a player (their reason is shown to them); returns who, and the reason of a ban
    already in force (it is replaced; the ban keeps its date). Every server process reads the
    ban from the database at the player's next request: at once."""
    player = await find_player(engine, name)
    store = Store(engine)
    try:
        await Players(store).ensure(player.id)
        async with store.writing() as conn:
            earlier = (
                await conn.execute(
                    select(players.c.banned, players.c.ban_reason).where(players.c.id == player.id)
                )
            ).one()
            await conn.execute(
                update(players)
                .where(players.c.id == player.id)
                .values(banned=earlier.banned or datetime.now(UTC), ban_reason=reason)
            )
    finally:
        await store.close()
    return player, (earlier.ban_reason or "") if earlier.banned is not None else None


async def unban(engine: AsyncEngine, name: str) -> Named:
    """Lift a player's ban; returns who."""
    player = await find_player(engine, name)
    async with engine.begin() as conn:
        lifted = await conn.execute(
            update(players)
            .where(players.c.id == player.id, players.c.banned.is_not(None))
            .values(banned=None, ban_reason=None)
        )
    if lifted.rowcount != 1:
        raise AdminError(f"{player} is not banned")
    return player


def backup_sqlite(database: Path, target: Path) -> None:
    """Copy an SQLite database through its online backup API: a consistent copy while the
    server writes it (a plain copy may catch a write half done). A copy that cannot be made
    leaves no file behind."""
    try:
        there, folder = target.exists(), target.parent.is_dir()
    except OSError as exc:  # a name too long for the file system, a folder not to be read
        raise AdminError(f"cannot write the copy to {target} ({exc.strerror})") from None
    if there:
        raise AdminError(f"{target} exists: choose a new file (nothing was overwritten)")
    if not folder:
        raise AdminError(f"there is no folder {target.parent}: the copy goes into one that is")
    if not database.exists():
        raise AdminError(f"no database at {database}")
    try:
        source = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error as exc:
        raise AdminError(f"cannot read {database} ({exc})") from None
    try:
        source.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as exc:  # not a database: said before a copy is begun
        source.close()
        raise AdminError(f"cannot read {database} ({exc})") from None
    try:
        copy = sqlite3.connect(target)
        try:
            source.backup(copy)
        finally:
            copy.close()
    except (sqlite3.Error, OSError) as exc:
        target.unlink(missing_ok=True)
        raise AdminError(f"cannot write the copy to {target} ({exc})") from None
    finally:
        source.close()


__all__ = [
    "AdminError",
    "Named",
    "NotTold",
    "ReportRow",
    "TableRow",
    "age",
    "backup_sqlite",
    "ban",
    "close_report",
    "close_table",
    "day",
    "find_player",
    "list_reports",
    "list_tables",
    "purge",
    "show_report",
    "unban",
]
