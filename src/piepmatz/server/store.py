"""What the server keeps in its database, as a few awaitable operations (SQLAlchemy Core)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from .db import chat, moves, seats, tables


@dataclass
class StoredSeat:
    kind: str
    name: str | None = None
    token_hash: str | None = None
    hints: bool = False


@dataclass
class StoredTable:
    id: str
    options: dict[str, Any]
    status: str
    public: bool
    spectator_hash: str
    seats: list[StoredSeat]
    actions: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class StoredChat:
    seat: int
    name: str
    text: str
    sent: datetime


@dataclass
class _PendingMove:
    row: dict[str, Any]
    status: str | None
    done: asyncio.Future[None]


class Store:
    """Writes go one transaction at a time (SQLite has one writer; waiting on its lock costs
    tens of milliseconds), and the moves that arrive while one commits share the next one: a
    group commit, so that many tables' moves cost one commit under load."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.write_lock = asyncio.Lock()
        self._pending: list[_PendingMove] = []
        self._writer: asyncio.Task[None] | None = None
        # The one writing connection stays open: a checkout and a reset per commit would each
        # be another hop to the driver's thread.
        self._connection: AsyncConnection | None = None

    @asynccontextmanager
    async def _writing(self) -> AsyncIterator[AsyncConnection]:
        async with self.write_lock:
            if self._connection is None:
                self._connection = await self.engine.connect()
            try:
                async with self._connection.begin():
                    yield self._connection
            except BaseException:
                # A failed connection is not reused: the next write opens a fresh one.
                connection, self._connection = self._connection, None
                with contextlib.suppress(Exception):
                    await connection.close()
                raise

    async def close(self) -> None:
        """Close the writing connection (before the engine is disposed)."""
        async with self.write_lock:
            if self._connection is not None:
                await self._connection.close()
                self._connection = None

    async def create(self, table: StoredTable) -> None:
        async with self._writing() as conn:
            await conn.execute(
                insert(tables).values(
                    id=table.id,
                    options=table.options,
                    status=table.status,
                    public=table.public,
                    spectator_hash=table.spectator_hash,
                    created=datetime.now(UTC),
                )
            )
            await conn.execute(
                insert(seats),
                [
                    {
                        "table_id": table.id,
                        "seat": i,
                        "kind": s.kind,
                        "name": s.name,
                        "token_hash": s.token_hash,
                        "hints": s.hints,
                    }
                    for i, s in enumerate(table.seats)
                ],
            )

    async def take_seat(
        self,
        table_id: str,
        seat: int,
        name: str,
        token_hash: str,
        status: str,
        hints: bool = False,
    ) -> None:
        async with self._writing() as conn:
            await conn.execute(
                update(seats)
                .where(seats.c.table_id == table_id, seats.c.seat == seat)
                .values(name=name, token_hash=token_hash, hints=hints)
            )
            await conn.execute(update(tables).where(tables.c.id == table_id).values(status=status))

    async def add_move(
        self, table_id: str, number: int, seat: int, action: str, status: str | None
    ) -> None:
        """Store one accepted action (and the table's new status); returns once committed."""
        done = asyncio.get_running_loop().create_future()
        row = {"table_id": table_id, "number": number, "seat": seat, "action": action}
        self._pending.append(_PendingMove(row, status, done))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_moves())
        await done

    async def _write_moves(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                async with self._writing() as conn:
                    await conn.execute(insert(moves), [m.row for m in batch])
                    for m in batch:
                        if m.status is not None:
                            await conn.execute(
                                update(tables)
                                .where(tables.c.id == m.row["table_id"])
                                .values(status=m.status)
                            )
            except Exception as exc:
                for m in batch:
                    m.done.set_exception(exc)
            else:
                for m in batch:
                    m.done.set_result(None)

    async def add_chat(self, table_id: str, line: StoredChat) -> None:
        async with self._writing() as conn:
            await conn.execute(
                insert(chat).values(
                    table_id=table_id,
                    seat=line.seat,
                    name=line.name,
                    text=line.text,
                    sent=line.sent,
                )
            )

    async def recent_chat(self, table_id: str, limit: int) -> list[StoredChat]:
        query = (
            select(chat.c.seat, chat.c.name, chat.c.text, chat.c.sent)
            .where(chat.c.table_id == table_id)
            .order_by(chat.c.id.desc())
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [StoredChat(r.seat, r.name, r.text, r.sent) for r in reversed(rows)]

    async def load(self, status: tuple[str, ...], table_id: str | None = None) -> list[StoredTable]:
        """Tables in one of ``status`` (or the one ``table_id``), with seats and actions."""
        query = select(tables).where(tables.c.status.in_(status))
        if table_id is not None:
            query = select(tables).where(tables.c.id == table_id)
        async with self.engine.connect() as conn:
            found = {
                row.id: StoredTable(
                    row.id, row.options, row.status, row.public, row.spectator_hash, []
                )
                for row in (await conn.execute(query)).all()
            }
            if not found:
                return []
            ids = list(found)
            for row in await conn.execute(
                select(seats).where(seats.c.table_id.in_(ids)).order_by(seats.c.seat)
            ):
                found[row.table_id].seats.append(
                    StoredSeat(row.kind, row.name, row.token_hash, row.hints)
                )
            for row in await conn.execute(
                select(moves.c.table_id, moves.c.action)
                .where(moves.c.table_id.in_(ids))
                .order_by(moves.c.number)
            ):
                found[row.table_id].actions.append(row.action)
        return list(found.values())
