"""What the server keeps in its database, as a few awaitable operations (SQLAlchemy Core)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from piepmatz.core.commitment import seed_from

from . import metrics
from .db import RATING_DUE, chat, moves, seats, sqlite_thread_engine, tables
from .vocabulary import TableStatus

log = logging.getLogger("piepmatz.server")


#: The moves' insert, built once per dialect (it runs hundreds of times a second): a taken
#: move number is skipped, not an error, so that the other tables' moves in the commit stand.
_INSERT_MOVES = {
    d.dialect.name: d.insert(moves)
    .on_conflict_do_nothing()
    .returning(moves.c.table_id, moves.c.number)
    for d in (postgresql, sqlite)
}


def _insert_moves(conn: Connection, batch: list[_PendingMove]) -> _Refused:
    """Insert a batch of moves (and the tables' new status); returns the moves not stored: those
    whose number was taken already, and those whose game ended (a resignation, an abort) at
    another process."""
    ids = {m.row["table_id"] for m in batch}
    over = set(
        conn.scalars(
            select(tables.c.id).where(tables.c.id.in_(ids), tables.c.status == TableStatus.OVER)
        )
    )
    refused = [m for m in batch if m.row["table_id"] in over]
    batch = [m for m in batch if m.row["table_id"] not in over]
    if not batch:
        return _Refused([], refused)
    stored = conn.execute(_INSERT_MOVES[conn.dialect.name], [m.row for m in batch])
    added = {(r.table_id, r.number) for r in stored}
    taken = [m for m in batch if (m.row["table_id"], m.row["number"]) not in added]
    for m in batch:
        if m.status is not None and m not in taken:
            conn.execute(
                update(tables)
                .where(tables.c.id == m.row["table_id"])
                .values(status=m.status, ending=m.ending)
            )
    return _Refused(taken, refused)


#: The most tables "My games" reads for one player, newest first.
GAMES_READ = 500


class StorageUnavailable(Exception):
    """The database did not answer, or could not write (gone, restarting, disk full): nothing
    was stored. The next operation tries again with a fresh connection."""

    def __init__(self) -> None:
        super().__init__("the game database is unavailable just now")


def _unavailable(exc: BaseException) -> bool:
    """A database that is away or cannot write, as opposed to a write it refuses (a second move
    for the same number: ``IntegrityError``)."""
    if isinstance(exc, IntegrityError):
        return False
    return isinstance(exc, DBAPIError | OSError | TimeoutError)


@asynccontextmanager
async def _answering() -> AsyncIterator[None]:
    """Turn the database's own failures into :class:`StorageUnavailable` (details to the log)."""
    try:
        yield
    except Exception as exc:
        if not _unavailable(exc):
            raise
        metrics.DATABASE_ERRORS.inc()
        log.error("database unavailable: %s", str(exc).splitlines()[0] if str(exc) else repr(exc))
        raise StorageUnavailable from exc


@dataclass
class StoredSeat:
    kind: str
    name: str | None = None
    token_hash: str | None = None
    hints: bool = False
    #: The person's part of the deal's seed (``core.commitment``), once they sit down.
    part: str | None = None
    #: The SHA-256 of the player key of the browser that sat here.
    player_hash: str | None = None
    #: Why a stand-in plays the person's seat (``vocabulary.Absence``), if one does.
    absent: str | None = None
    #: The person asked to abort the game.
    abort: bool = False


@dataclass
class StoredTable:
    id: str
    options: dict[str, Any]
    status: str
    public: bool
    spectator_hash: str
    seats: list[StoredSeat]
    actions: list[str] = field(default_factory=list)
    #: How the deal's seed is made (``db.tables.c.deal``).
    deal: dict[str, Any] | None = None
    #: The table's pace, stand-in and resign rule (``db.tables.c.setup``).
    setup: dict[str, Any] | None = None
    #: The clocks stored when a person came back (``db.tables.c.clock``).
    clock: dict[str, Any] | None = None
    #: How the game ended, once it has.
    ending: dict[str, Any] | None = None
    #: For each action, its seat and the stand-in bot that made it for the seat's person
    #: (``None``: the seat's own).
    movers: list[tuple[int, str | None]] = field(default_factory=list)
    #: When the last move was stored (epoch ms) and everyone's time then (live tables).
    last_at: int | None = None
    last_clock: list[int | None] | None = None
    #: The table its people play again at (``db.tables.c.rematch``), once one asked.
    rematch: dict[str, Any] | None = None


@dataclass
class StoredGame:
    """A table a player key sits at, as "My games" lists it."""

    table_id: str
    seat: int
    status: str
    created: datetime
    ending: dict[str, Any] | None
    setup: dict[str, Any] | None
    #: Each seat's person's name (while free: ``human``) or bot.
    players: list[str]
    #: Each seat as the ``table`` message gives it: ``seat``, ``kind``, ``name``.
    seats: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class StoredChat:
    seat: int
    name: str
    text: str
    sent: datetime
    #: The line's place in the table's chat (the database's id; 0 before it is stored).
    id: int = 0


class MoveTaken(Exception):
    """Another action was stored for this move first (by another connection or process)."""


class SeatTaken(Exception):
    """Someone else took this seat first."""


class TableOver(Exception):
    """The game ended (a resignation, an abort) before this move could be stored."""


class RematchTaken(Exception):
    """Another person's new table for playing again was stored first: ``args[0]`` is it."""


class _Refused(NamedTuple):
    """A batch's moves not stored: their number was taken; their game was over."""

    taken: list[_PendingMove]
    over: list[_PendingMove]


@dataclass(eq=False)
class _PendingMove:
    row: dict[str, Any]
    status: str | None
    ending: dict[str, Any] | None
    done: asyncio.Future[None]


async def _at_move(conn: AsyncConnection, table_id: str, moves_played: int) -> bool:
    """Lock the table's row and say whether its game is at ``moves_played`` moves (a move stored
    at another process since changes what a stand-in, a resignation or an abort means)."""
    await conn.execute(select(tables.c.id).where(tables.c.id == table_id).with_for_update())
    played = await conn.scalar(
        select(func.count()).select_from(moves).where(moves.c.table_id == table_id)
    )
    return bool(played == moves_played)


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
        #: SQLite: the moves, the writes that come by the hundred a second, are written by a
        #: plain connection in a thread of their own (:func:`db.sqlite_thread_engine`).
        self._thread_engine: Engine | None = None
        self._thread: ThreadPoolExecutor | None = None
        if engine.dialect.name == "sqlite":
            self._thread_engine = sqlite_thread_engine(engine)
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="piepmatz-moves")
        self._thread_connection: Connection | None = None

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[AsyncConnection]:
        """A connection to read with; the database's failures as :class:`StorageUnavailable`."""
        async with _answering(), self.engine.connect() as conn:
            yield conn

    @asynccontextmanager
    async def writing(self) -> AsyncIterator[AsyncConnection]:
        """The writing connection in a transaction, one writer at a time."""
        async with _answering(), self.write_lock:
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
        """Close the writing connections (before the engine is disposed)."""
        async with self.write_lock:
            if self._connection is not None:
                await self._connection.close()
                self._connection = None
            if self._thread is not None:
                loop = asyncio.get_running_loop()
                await loop.run_in_executor(self._thread, self._close_thread_engine)
                self._thread.shutdown()

    def _close_thread_engine(self) -> None:
        assert self._thread_engine is not None
        if self._thread_connection is not None:
            self._thread_connection.close()
            self._thread_connection = None
        self._thread_engine.dispose()

    async def create(
        self,
        table: StoredTable,
        also: Callable[[AsyncConnection], Awaitable[None]] | None = None,
    ) -> None:
        """Store a new table and its seats; ``also`` runs in the same transaction (what it
        raises is raised here, and nothing is stored)."""
        async with self.writing() as conn:
            await conn.execute(
                insert(tables).values(
                    id=table.id,
                    options=table.options,
                    status=table.status,
                    public=table.public,
                    spectator_hash=table.spectator_hash,
                    created=datetime.now(UTC),
                    deal=table.deal,
                    setup=table.setup,
                    clock=table.clock,
                    rating=RATING_DUE if (table.setup or {}).get("rated") else None,
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
                        "part": s.part,
                        "player_hash": s.player_hash,
                    }
                    for i, s in enumerate(table.seats)
                ],
            )
            if also is not None:
                await also(conn)

    async def take_seat(
        self,
        table_id: str,
        seat: int,
        name: str,
        token_hash: str,
        hints: bool = False,
        part: str | None = None,
        player_hash: str | None = None,
        clock: dict[str, Any] | None = None,
    ) -> tuple[str, int | None]:
        """Seat a person with their part of the deal; returns the table's status now
        (``playing`` once every person's seat is taken) and, when that seat was the last and
        the deal comes from a commitment, the deal's seed, derived from the secret and every
        part and stored in the table's options; the game's ``clock`` starts then. Raises
        :class:`SeatTaken` (and stores nothing) if the seat has a name, :class:`TableOver` if
        the table was closed meanwhile (``admin close``)."""
        async with self.writing() as conn:
            await self._lock_open_table(conn, table_id)
            taken = await conn.execute(
                update(seats)
                .where(seats.c.table_id == table_id, seats.c.seat == seat, seats.c.name.is_(None))
                .values(
                    name=name,
                    token_hash=token_hash,
                    hints=hints,
                    part=part,
                    player_hash=player_hash,
                )
            )
            if taken.rowcount != 1:
                raise SeatTaken(f"seat {seat} is already taken")
            return await self._seats_filled(conn, table_id, clock)

    async def seat_bot(
        self, table_id: str, seat: int, bot: str, clock: dict[str, Any] | None = None
    ) -> tuple[str, int | None]:
        """A bot takes a person's seat nobody has taken yet (``bot``, a spec the server
        offers): the rest as :meth:`take_seat`, whose status and seed it returns. Raises
        :class:`SeatTaken` if the seat is taken (or a bot's already), :class:`TableOver` if the
        table was closed."""
        async with self.writing() as conn:
            await self._lock_open_table(conn, table_id)
            taken = await conn.execute(
                update(seats)
                .where(
                    seats.c.table_id == table_id,
                    seats.c.seat == seat,
                    seats.c.kind == "human",
                    seats.c.name.is_(None),
                )
                .values(kind=bot, token_hash=None)
            )
            if taken.rowcount != 1:
                raise SeatTaken(f"seat {seat} is already taken")
            return await self._seats_filled(conn, table_id, clock)

    @staticmethod
    async def _lock_open_table(conn: AsyncConnection, table_id: str) -> None:
        """Lock the table's row first, so that two processes seating the last two seats one at
        a time both count the other's (SQLite has one writer anyway); :class:`TableOver` if it
        was closed."""
        status_now = await conn.scalar(
            select(tables.c.status).where(tables.c.id == table_id).with_for_update()
        )
        if status_now == TableStatus.OVER:
            raise TableOver(f"table {table_id} is over")

    @staticmethod
    async def _seats_filled(
        conn: AsyncConnection, table_id: str, clock: dict[str, Any] | None
    ) -> tuple[str, int | None]:
        """The table's status once a seat was taken: still waiting while a person's seat is
        free; else playing, its clock started and (a committed deal) its seed made from the
        secret and every part."""
        free = await conn.scalar(
            select(func.count())
            .select_from(seats)
            .where(
                seats.c.table_id == table_id,
                seats.c.kind == "human",  # room.HUMAN: a person's seat
                seats.c.name.is_(None),
            )
        )
        status = TableStatus.WAITING if free else TableStatus.PLAYING
        values: dict[str, Any] = {"status": status}
        seed = None
        if not free:
            values["clock"] = clock
            row = (
                await conn.execute(
                    select(tables.c.options, tables.c.deal).where(tables.c.id == table_id)
                )
            ).one()
            if row.deal is not None and "secret" in row.deal:
                parts = (
                    await conn.scalars(
                        select(seats.c.part)
                        .where(seats.c.table_id == table_id)
                        .order_by(seats.c.seat)
                    )
                ).all()
                seed = seed_from(row.deal["secret"], parts)
                values["options"] = row.options | {"seed": seed}
        await conn.execute(update(tables).where(tables.c.id == table_id).values(**values))
        return status, seed

    async def add_move(
        self,
        table_id: str,
        number: int,
        seat: int,
        action: str,
        status: str | None,
        *,
        at: int | None = None,
        clock: list[int | None] | None = None,
        by: str | None = None,
        ending: dict[str, Any] | None = None,
    ) -> None:
        """Store one accepted action (and the table's new status and ending), when it was
        stored (epoch ms), everyone's time then and the stand-in that made it for a person;
        returns once committed.

        Raises :class:`MoveTaken` if the table already has an action for move ``number``: the
        key (table, move number) lets exactly one of two concurrent submissions in; and
        :class:`TableOver` if the game ended first."""
        done = asyncio.get_running_loop().create_future()
        row = {
            "table_id": table_id,
            "number": number,
            "seat": seat,
            "action": action,
            "at": at,
            "clock": clock,
            "by": by,
        }
        self._pending.append(_PendingMove(row, status, ending, done))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_moves())
        await done

    async def _write_moves(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            start = time.perf_counter()
            try:
                try:
                    taken = await self._store_moves(batch)
                except StorageUnavailable as exc:
                    if not isinstance(exc.__cause__, InterfaceError):
                        raise
                    # The held connection was found closed before anything was sent (the
                    # database restarted since the last write): once more, on a new one.
                    taken = await self._store_moves(batch)
            except Exception as exc:
                for m in batch:
                    m.done.set_exception(exc)
            else:
                metrics.COMMIT_SECONDS.observe(time.perf_counter() - start)
                for m in batch:
                    if m in taken.over:
                        m.done.set_exception(TableOver(f"table {m.row['table_id']} is over"))
                    elif m in taken.taken:
                        m.done.set_exception(MoveTaken(f"move {m.row['number']} is taken"))
                    else:
                        m.done.set_result(None)

    async def _store_moves(self, batch: list[_PendingMove]) -> _Refused:
        """Store a batch of moves in one transaction; returns those whose number was taken
        already."""
        if self._thread is None:
            async with self.writing() as conn:
                return await conn.run_sync(_insert_moves, batch)
        async with _answering(), self.write_lock:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._thread, self._store_moves_in_thread, batch)

    def _store_moves_in_thread(self, batch: list[_PendingMove]) -> _Refused:
        assert self._thread_engine is not None
        # One connection held, as for the other writes: no checkout and reset per commit.
        if self._thread_connection is None:
            self._thread_connection = self._thread_engine.connect()
        try:
            with self._thread_connection.begin():
                return _insert_moves(self._thread_connection, batch)
        except BaseException:
            connection, self._thread_connection = self._thread_connection, None
            with contextlib.suppress(Exception):
                connection.close()
            raise

    async def add_chat(self, table_id: str, line: StoredChat) -> int:
        """Store a chat line; its id, which orders the table's chat."""
        async with self.writing() as conn:
            result = await conn.execute(
                insert(chat)
                .values(
                    table_id=table_id,
                    seat=line.seat,
                    name=line.name,
                    text=line.text,
                    sent=line.sent,
                )
                .returning(chat.c.id)
            )
            return int(result.scalar_one())

    async def recent_chat(self, table_id: str, limit: int) -> list[StoredChat]:
        query = (
            select(chat.c.seat, chat.c.name, chat.c.text, chat.c.sent, chat.c.id)
            .where(chat.c.table_id == table_id)
            .order_by(chat.c.id.desc())
            .limit(limit)
        )
        async with self.reading() as conn:
            rows = (await conn.execute(query)).all()
        return [StoredChat(r.seat, r.name, r.text, r.sent, r.id) for r in reversed(rows)]

    async def rating_due(self) -> list[str]:
        """The tables whose game is over and whose rating is still due (``tables.rating``)."""
        async with self.reading() as conn:
            return list(
                await conn.scalars(
                    select(tables.c.id).where(
                        tables.c.rating == RATING_DUE, tables.c.status == TableStatus.OVER
                    )
                )
            )

    async def load(self, status: tuple[str, ...], table_id: str | None = None) -> list[StoredTable]:
        """Tables in one of ``status`` (or the one ``table_id``), with seats and actions."""
        query = select(tables).where(tables.c.status.in_(status))
        if table_id is not None:
            query = select(tables).where(tables.c.id == table_id)
        async with self.reading() as conn:
            found = {
                row.id: StoredTable(
                    row.id,
                    row.options,
                    row.status,
                    row.public,
                    row.spectator_hash,
                    [],
                    deal=row.deal,
                    setup=row.setup,
                    clock=row.clock,
                    ending=row.ending,
                    rematch=row.rematch,
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
                    StoredSeat(
                        row.kind,
                        row.name,
                        row.token_hash,
                        row.hints,
                        row.part,
                        row.player_hash,
                        row.absent,
                        row.abort,
                    )
                )
            for row in await conn.execute(
                select(
                    moves.c.table_id,
                    moves.c.seat,
                    moves.c.action,
                    moves.c.at,
                    moves.c.clock,
                    moves.c.by,
                )
                .where(moves.c.table_id.in_(ids))
                .order_by(moves.c.number)
            ):
                table = found[row.table_id]
                table.actions.append(row.action)
                table.movers.append((row.seat, row.by))
                table.last_at, table.last_clock = row.at, row.clock
        return list(found.values())

    async def claim_rematch(
        self, conn: AsyncConnection, table_id: str, rematch: dict[str, Any]
    ) -> None:
        """In the transaction that stores the new table: ``table_id``'s people play again at
        ``rematch``; :class:`RematchTaken` with the one stored if another was first (the
        new table is then not stored)."""
        stored = await conn.scalar(
            select(tables.c.rematch).where(tables.c.id == table_id).with_for_update()
        )
        if stored is not None:
            raise RematchTaken(stored)
        await conn.execute(update(tables).where(tables.c.id == table_id).values(rematch=rematch))

    async def set_absent(
        self,
        table_id: str,
        seat: int,
        absent: str | None,
        *,
        was: str | None,
        moves_played: int,
        clock: dict[str, Any] | None = None,
    ) -> bool:
        """Mark why a stand-in plays ``seat`` (``None``: the person is back), if it was ``was``
        and the game is at ``moves_played`` (a move stored meanwhile, at another process, may
        have changed whose time is up); with the ``clock`` at that moment. False, storing
        nothing, when either differs."""
        async with self.writing() as conn:
            if not await _at_move(conn, table_id, moves_played):
                return False
            was_now = seats.c.absent.is_(None) if was is None else seats.c.absent == was
            changed = await conn.execute(
                update(seats)
                .where(seats.c.table_id == table_id, seats.c.seat == seat, was_now)
                .values(absent=absent)
            )
            if changed.rowcount != 1:
                return False
            if clock is not None:
                await conn.execute(
                    update(tables).where(tables.c.id == table_id).values(clock=clock)
                )
            return True

    async def keep_clocks(self, clocks: Sequence[tuple[str, int, dict[str, Any]]]) -> None:
        """Store each ``(table, moves_played, clock)`` as the table's ``clock``, where the
        game is still at ``moves_played`` (a move stored since has its own clocks)."""
        async with self.writing() as conn:
            for table_id, moves_played, clock in clocks:
                if await _at_move(conn, table_id, moves_played):
                    await conn.execute(
                        update(tables).where(tables.c.id == table_id).values(clock=clock)
                    )

    async def end(self, table_id: str, ending: dict[str, Any], moves_played: int) -> bool:
        """End the game before its end (a resignation, an abort) as it stands at
        ``moves_played``; False, storing nothing, if a move came first or it is over."""
        async with self.writing() as conn:
            if not await _at_move(conn, table_id, moves_played):
                return False
            ended = await conn.execute(
                update(tables)
                .where(tables.c.id == table_id, tables.c.status != TableStatus.OVER)
                .values(status=TableStatus.OVER, ending=ending)
            )
            return bool(ended.rowcount == 1)

    async def ask_abort(self, table_id: str, seat: int) -> None:
        """The person at ``seat`` asks to abort the game."""
        async with self.writing() as conn:
            await conn.execute(
                update(seats)
                .where(seats.c.table_id == table_id, seats.c.seat == seat)
                .values(abort=True)
            )

    async def games_of(self, player_hash: str, finished: int) -> list[StoredGame]:
        """The tables a player key sits at: every unfinished one and the ``finished`` latest
        finished ones, newest first."""
        query = (
            select(
                tables.c.id,
                tables.c.status,
                tables.c.created,
                tables.c.ending,
                tables.c.setup,
                seats.c.seat,
            )
            .join(seats, seats.c.table_id == tables.c.id)
            .where(seats.c.player_hash == player_hash)
            .order_by(tables.c.created.desc())
            .limit(GAMES_READ)
        )
        out: list[StoredGame] = []
        done = 0
        async with self.reading() as conn:
            for row in await conn.execute(query):
                if row.status == TableStatus.OVER:
                    done += 1
                    if done > finished:
                        continue
                out.append(
                    StoredGame(row.id, row.seat, row.status, row.created, row.ending, row.setup, [])
                )
            ids = [game.table_id for game in out]
            players: dict[str, list[str]] = {table_id: [] for table_id in ids}
            seated: dict[str, list[dict[str, Any]]] = {table_id: [] for table_id in ids}
            for seat in await conn.execute(
                select(seats.c.table_id, seats.c.kind, seats.c.name)
                .where(seats.c.table_id.in_(ids))
                .order_by(seats.c.seat)
            ):
                players[seat.table_id].append(seat.name or seat.kind)
                seated[seat.table_id].append(
                    {"seat": len(seated[seat.table_id]), "kind": seat.kind, "name": seat.name}
                )
        for game in out:
            game.players.extend(players[game.table_id])
            game.seats.extend(seated[game.table_id])
        return out
