"""``piepmatz admin``: what the operator does to the database beside a running server, as a few
functions over the same store: list the tables, close one, purge finished ones (their records
written out first), and back an SQLite database up while it is being written.

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

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from . import archive
from .clocks import SystemClock
from .db import chat, moves, seats, tables
from .news import EndNews
from .pool import BotPool
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

    def line(self) -> str:
        when = self.created.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
        last = self.last.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
        shown = ", ".join(self.seats)
        public = " public" if self.public else ""
        return f"{self.id}  {self.status:7}  {when}  {last}  {self.moves:4d}  {shown}{public}"


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
        .add_columns(counted.c.at)
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
        created = _aware(row.created)
        last = datetime.fromtimestamp(row.at / 1000, UTC) if row.at else created
        out.append(TableRow(row.id, row.status, created, last, row.n or 0, who[row.id], row.public))
    return out


def _aware(when: datetime) -> datetime:
    """SQLite gives back times without their zone: they were stored in UTC."""
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


class AdminError(Exception):
    """What the operator asked cannot be done; the message says why (nothing was changed)."""


async def close_table(
    engine: AsyncEngine, table_id: str, redis_url: str | None = None
) -> dict[str, Any]:
    """End an unfinished table as aborted (nobody wins); returns the ending stored. With
    ``redis_url`` the processes holding the table are told at once."""
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
    finally:
        await store.close()
    if redis_url is not None:
        await _tell(redis_url, table_id, ending)
    return ending


async def _tell(redis_url: str, table_id: str, ending: dict[str, Any]) -> None:
    import redis.asyncio as redis

    from .bus import channel

    client = redis.Redis.from_url(redis_url)
    try:
        news = EndNews(ending=ending).model_copy(update={"origin": "admin"})
        await client.publish(channel(table_id), news.model_dump_json())
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
        export.mkdir(parents=True, exist_ok=True)
        store = Store(engine)
        try:
            for table_id in gone:
                (stored,) = await store.load((), table_id=table_id)
                room = archive.from_stored(stored, store, BotPool(0), SystemClock())
                text = json.dumps(archive.record(room), ensure_ascii=False, indent=1)
                (export / f"{table_id}.json").write_text(text + "\n")
        finally:
            await store.close()
    async with engine.begin() as conn:
        for start in range(0, len(gone), 500):
            batch = gone[start : start + 500]
            for rows in (chat, moves, seats):
                await conn.execute(delete(rows).where(rows.c.table_id.in_(batch)))
            await conn.execute(delete(tables).where(tables.c.id.in_(batch)))
    return gone


def backup_sqlite(database: Path, target: Path) -> None:
    """Copy an SQLite database through its online backup API: a consistent copy while the
    server writes it (a plain copy may catch a write half done)."""
    if target.exists():
        raise AdminError(f"{target} exists: choose a new file (nothing was overwritten)")
    if not database.exists():
        raise AdminError(f"no database at {database}")
    source = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30)
    copy = sqlite3.connect(target)
    try:
        source.backup(copy)
    finally:
        copy.close()
        source.close()


__all__ = [
    "AdminError",
    "TableRow",
    "age",
    "backup_sqlite",
    "close_table",
    "day",
    "list_tables",
    "purge",
]
