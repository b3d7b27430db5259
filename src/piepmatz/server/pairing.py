"""Find a game (issue 46): the waiting list, who is seated with whom, and the tables it opens.

A player seeks a game of some number of players at one of the server's paces. The list lives in
the database (``db.seeks``), so every server process sees the same one. People waiting for the
same game are seated together as soon as enough of them gather whose ratings lie close enough:
the longest waiting first, with those closest to their rating; the difference allowed widens
the longer they wait, so that where many wait ratings match, and where few do nobody waits for
ever. After a wait a player may fill the empty seats with bots and start at once.

A table is opened rated, not listed, with each person's seat reserved for its player: the seek's
row says where (``table_id``, ``seat``), and the player sits down there with their player key
and their part of the deal (``routes/tables.py``, join), which keeps the deal one nobody could
choose and stores no seat credential but its hash. The rows are claimed in the transaction that
stores the table, so that of two processes pairing the same people only one opens a table, and
a process that dies half-way leaves them waiting.
"""

from __future__ import annotations

import functools
import logging
import random
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from piepmatz.i18n import _

from .db import players, seeks, tables
from .hub import Hub, Opened, TableRefused
from .limits import BOTS_AFTER
from .moderation import banned_words, blocked_pairs
from .pace import STAND_IN
from .players import Players
from .roster import HUMAN
from .seats import new_token
from .vocabulary import SeekStatus, TableStatus

log = logging.getLogger("piepmatz.server")

#: Seconds without a question from the player's page after which a seek leaves the list (a
#: page in a background tab may be asked only once a minute by its browser).
STALE = 120.0
#: The rating difference (OpenSkill's mu; a newcomer's uncertainty is 8.3) seated together at
#: once, and how much wider it grows each second the longest waiting of them has waited.
SPREAD = 3.0
WIDEN = 0.5
#: The rating of a player who has none yet: OpenSkill's starting mu.
UNRATED = 25.0
#: The rules of a table "Find a game" opens.
RULES = "standard"
#: The longest waiting a pairing reads at once, and the tables it opens at most in one go.
READ = 200
TABLES_AT_ONCE = 8
#: Seconds between two pairings of the same game that a page's question starts, per process.
PAIR_EVERY = 1.0


@dataclass(frozen=True)
class PairingRules:
    """The operator's settings of "Find a game" (``serve --seek-bots-after``, ``--seek-bot``)."""

    bots_after: float = BOTS_AFTER
    stale: float = STALE
    spread: float = SPREAD
    widen: float = WIDEN
    #: The bot that fills the empty seats (a name the server offers).
    bot: str = STAND_IN

    def __post_init__(self) -> None:
        for name in ("bots_after", "stale", "spread", "widen"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be 0 or more, not {getattr(self, name)}")


class Refusal(StrEnum):
    """Why a seek was refused (the HTTP routes answer each with its status)."""

    BANNED = "banned"
    SEEKING = "seeking"
    NOT_SEEKING = "not_seeking"
    TOO_SOON = "too_soon"
    BAD = "bad"


class SeekRefused(Exception):
    """A seek that cannot be done as asked; the message says why, in the request's language."""

    def __init__(self, why: Refusal, message: str) -> None:
        super().__init__(message)
        self.why = why


class _Contended(Exception):
    """Another process claimed one of the rows first: read the list again."""


@dataclass(frozen=True)
class Waiting:
    """One row of the waiting list."""

    id: str
    player: str
    rating: float
    since: datetime


def choose(
    waiting: list[Waiting],
    apart: set[frozenset[str]],
    size: int,
    window: float,
    now: datetime,
    widen: float = 0.0,
) -> list[Waiting] | None:
    """The first group of ``size`` to seat together, or ``None``: the longest waiting player
    with those closest to their rating, nobody with someone either of them blocked
    (``apart``), and ratings apart by at most ``window`` plus ``widen`` for each second the
    first has waited."""
    for first in sorted(waiting, key=lambda w: w.since):
        allowed = window + widen * (now - first.since).total_seconds()
        group = gather(first, waiting, apart, size, allowed)
        if len(group) == size:
            return group
    return None


def gather(
    first: Waiting,
    waiting: Iterable[Waiting],
    apart: set[frozenset[str]],
    size: int,
    allowed: float | None = None,
) -> list[Waiting]:
    """``first`` and then the others nearest to their rating, up to ``size`` of them: none kept
    apart (``apart``) from one already in, nor spreading the ratings past ``allowed``."""
    group = [first]
    others = sorted(
        (w for w in waiting if w.id != first.id),
        key=lambda w: (abs(w.rating - first.rating), w.since),
    )
    for other in others:
        if len(group) == size:
            break
        ratings = [w.rating for w in group] + [other.rating]
        if allowed is not None and max(ratings) - min(ratings) > allowed:
            continue
        if any(frozenset((other.player, w.player)) in apart for w in group):
            continue
        group.append(other)
    return group


def _now() -> datetime:
    return datetime.now(UTC)


class Pairing:
    """The waiting list and the tables it opens, for one server process."""

    def __init__(
        self,
        hub: Hub,
        players: Players,
        rules: PairingRules | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.hub = hub
        self.store = hub.store
        self.players = players
        self.rules = rules or PairingRules()
        #: Who sits where at a table it opens.
        self.rng = rng or random.SystemRandom()
        #: When (monotonic seconds) this process last paired each game, on a page's question.
        self._paired: dict[tuple[int, str], float] = {}

    # ------------------------------------------------------------------ the player's seek

    async def seek(self, player: str, name: str, size: int, pace: str) -> dict[str, Any]:
        """``player`` seeks a game of ``size`` players at ``pace`` under ``name``; where they
        stand then (they may be seated at once)."""
        chosen = self.hub.paces.paces.get(pace)
        if chosen is None:
            offered = ", ".join(self.hub.paces.names())
            raise SeekRefused(
                Refusal.BAD,
                _("pace: not a pace this server offers: choose one of {paces}").format(
                    paces=offered
                ),
            )
        if not chosen.timed:
            # Nobody could take over from a person who leaves: the others would wait for ever.
            raise SeekRefused(
                Refusal.BAD,
                _("pace: {pace} has no clock, which is only for a game alone with bots").format(
                    pace=pace
                ),
            )
        await self._not_banned(player)
        await self.players.ensure(player)
        now = _now()
        try:
            async with self.store.writing() as conn:
                await self._sweep(conn, now)
                rating = await conn.scalar(select(players.c.mu).where(players.c.id == player))
                await conn.execute(
                    insert(seeks).values(
                        id=new_token()[:32],
                        player_id=player,
                        name=name,
                        players=size,
                        pace=pace,
                        rating=UNRATED if rating is None else rating,
                        since=now,
                        seen=now,
                    )
                )
        except IntegrityError:
            already = self._seeking_already(await self._row(player))
            raise SeekRefused(Refusal.SEEKING, already) from None
        await self.pair(size, pace)
        return await self.status(player, pair=False)

    async def _not_banned(self, player: str) -> None:
        reason = await self.players.ban(player)
        if reason is not None:
            raise SeekRefused(Refusal.BANNED, banned_words(reason))

    def _seeking_already(self, row: Any) -> str:
        if row is not None and row.table_id is not None:
            return _("a seat waits for you at table {table}: sit down there, or give it up").format(
                table=row.table_id
            )
        return _("you are already looking for a game: cancel it first")

    async def status(self, player: str, pair: bool = True) -> dict[str, Any]:
        """Where ``player``'s seek stands: waiting (how long, with how many others) or seated
        (where). Asking keeps the seek on the list, and pairs its game (``pair``)."""
        row = await self._row(player)
        now = _now()
        if row is not None and row.table_id is None:
            seen = row.seen
            if (now - seen).total_seconds() > self.rules.stale:
                await self._drop(row.id)
                row = None
            else:
                if (now - seen).total_seconds() > self.rules.stale / 4:
                    async with self.store.writing() as conn:
                        mine = seeks.c.id == row.id
                        await conn.execute(update(seeks).where(mine).values(seen=now))
                due = pair and self._due(row.players, row.pace)
                if due and await self.pair(row.players, row.pace):
                    row = await self._row(player)
        if row is None:
            raise SeekRefused(
                Refusal.NOT_SEEKING,
                _("you are not looking for a game (cancelled, seated, or left unasked too long)"),
            )
        answer: dict[str, Any] = {"players": row.players, "pace": row.pace, "name": row.name}
        if row.table_id is not None:
            return answer | {"status": SeekStatus.SEATED, "table": row.table_id, "seat": row.seat}
        async with self.store.reading() as conn:
            others = await conn.scalar(
                select(func.count())
                .select_from(seeks)
                .where(*self._waiting_for(row.players, row.pace, now), seeks.c.id != row.id)
            )
        return answer | {
            "status": SeekStatus.WAITING,
            "waited": round((now - row.since).total_seconds(), 1),
            "others": int(others or 0),
            "bots_after": self.rules.bots_after,
        }

    async def cancel(self, player: str) -> None:
        """``player`` gives up their seek (or the seat it reserved them)."""
        async with self.store.writing() as conn:
            gone = await conn.execute(delete(seeks).where(seeks.c.player_id == player))
        if gone.rowcount != 1:
            raise SeekRefused(Refusal.NOT_SEEKING, _("you are not looking for a game"))

    async def with_bots(self, player: str, key: str, part: str | None) -> Opened:
        """After the wait, ``player`` (whose player key is ``key``) sits down at once with the
        others waiting for the same game, nearest in rating first, and bots in the seats left;
        ``part`` is their part of the deal."""
        row = await self._row(player)
        if row is None or row.table_id is not None:
            raise SeekRefused(
                Refusal.NOT_SEEKING,
                _("you are not waiting for a game") if row is None else self._seeking_already(row),
            )
        await self._not_banned(player)
        waited = (_now() - row.since).total_seconds()
        if waited < self.rules.bots_after:
            raise SeekRefused(
                Refusal.TOO_SOON,
                _("bots fill the seats after {seconds} s of waiting: {left} s to go").format(
                    seconds=f"{self.rules.bots_after:g}",
                    left=f"{self.rules.bots_after - waited:.0f}",
                ),
            )
        for _attempt in range(5):
            waiting, apart = await self._waiting(row.players, row.pace)
            me = next((w for w in waiting if w.id == row.id), None)
            if me is None:
                break  # seated meanwhile, or left unasked too long
            group = gather(me, waiting, apart, row.players)
            seats = list(range(row.players))
            self.rng.shuffle(seats)
            kinds = [self.rules.bot] * row.players
            for seat in seats[: len(group)]:
                kinds[seat] = HUMAN
            try:
                return await self.hub.open(
                    kinds,
                    RULES,
                    name=row.name,
                    creator=seats[0],
                    part=part,
                    pace=row.pace,
                    player=key,
                    rated=True,
                    claim=functools.partial(self._claim, group=group, seats=seats, sitting=row.id),
                )
            except _Contended:
                continue
            except TableRefused as exc:
                raise SeekRefused(Refusal.BAD, str(exc)) from None
        raise SeekRefused(Refusal.NOT_SEEKING, self._seeking_already(await self._row(player)))

    # ------------------------------------------------------------------ sitting down

    async def reserved(self, table_id: str, player: str) -> int | None:
        """The seat at ``table_id`` a pairing reserved for ``player``, if one."""
        async with self.store.reading() as conn:
            seat = await conn.scalar(
                select(seeks.c.seat).where(
                    seeks.c.player_id == player, seeks.c.table_id == table_id
                )
            )
        return None if seat is None else int(seat)

    async def sat(self, table_id: str, player: str) -> None:
        """``player`` sat down at the seat reserved for them: their seek is done."""
        async with self.store.writing() as conn:
            await conn.execute(
                delete(seeks).where(seeks.c.player_id == player, seeks.c.table_id == table_id)
            )

    # ------------------------------------------------------------------ pairing

    async def pair(self, size: int, pace: str) -> int:
        """Seat together whoever waits for a game of ``size`` players at ``pace`` and may be
        seated together now; the number of tables opened."""
        self._paired[(size, pace)] = time.monotonic()
        opened = 0
        contended = 0
        while opened < TABLES_AT_ONCE and contended < 5:
            waiting, apart = await self._waiting(size, pace)
            rules = self.rules
            group = choose(waiting, apart, size, rules.spread, _now(), rules.widen)
            if group is None:
                break
            seats = list(range(size))
            self.rng.shuffle(seats)
            try:
                await self.hub.open(
                    [HUMAN] * size,
                    RULES,
                    name=None,
                    pace=pace,
                    rated=True,
                    claim=functools.partial(self._claim, group=group, seats=seats),
                )
            except _Contended:
                contended += 1
                continue
            except TableRefused:
                # The seek was checked when it was made: a refusal here is the server's fault.
                log.exception("pairing %d players at %s: the table was refused", size, pace)
                break
            opened += 1
        return opened

    def _due(self, size: int, pace: str) -> bool:
        """Whether a page's question may pair its game now (once a second per process)."""
        return time.monotonic() - self._paired.get((size, pace), 0.0) >= PAIR_EVERY

    def _waiting_for(self, size: int, pace: str, now: datetime) -> tuple[Any, ...]:
        """The conditions of a row waiting for this game, asked about lately, of a player not
        banned since they sought."""
        banned = select(players.c.id).where(players.c.banned.is_not(None))
        return (
            seeks.c.players == size,
            seeks.c.pace == pace,
            seeks.c.table_id.is_(None),
            seeks.c.seen >= now - timedelta(seconds=self.rules.stale),
            seeks.c.player_id.not_in(banned),
        )

    async def _waiting(self, size: int, pace: str) -> tuple[list[Waiting], set[frozenset[str]]]:
        """The longest waiting for this game, and the pairs of them kept apart by a block."""
        query = (
            select(seeks.c.id, seeks.c.player_id, seeks.c.rating, seeks.c.since)
            .where(*self._waiting_for(size, pace, _now()))
            .order_by(seeks.c.since)
            .limit(READ)
        )
        async with self.store.reading() as conn:
            waiting = [
                Waiting(r.id, r.player_id, r.rating, r.since) for r in await conn.execute(query)
            ]
            apart = await blocked_pairs(conn, [w.player for w in waiting])
        return waiting, apart

    async def _claim(
        self,
        conn: AsyncConnection,
        table_id: str,
        group: Iterable[Waiting],
        seats: list[int],
        sitting: str | None = None,
    ) -> None:
        """Claim ``group``'s rows for ``table_id`` (in the transaction that stores it): each
        row's seat, and the row of the player ``sitting`` down at once is done. Raises
        :class:`_Contended` if any is claimed, given up or locked by another process already
        (PostgreSQL: ``FOR UPDATE SKIP LOCKED``; SQLite has one writer)."""
        ids = [w.id for w in group]
        free = set(
            await conn.scalars(
                select(seeks.c.id)
                .where(seeks.c.id.in_(ids), seeks.c.table_id.is_(None))
                .with_for_update(skip_locked=True)
            )
        )
        if free != set(ids):
            raise _Contended
        for row_id, seat in zip(ids, seats, strict=False):
            if row_id == sitting:
                await conn.execute(delete(seeks).where(seeks.c.id == row_id))
            else:
                await conn.execute(
                    update(seeks).where(seeks.c.id == row_id).values(table_id=table_id, seat=seat)
                )

    # ------------------------------------------------------------------ the list's upkeep

    async def _row(self, player: str) -> Any:
        async with self.store.reading() as conn:
            return (await conn.execute(select(seeks).where(seeks.c.player_id == player))).first()

    async def _drop(self, row_id: str) -> None:
        async with self.store.writing() as conn:
            await conn.execute(delete(seeks).where(seeks.c.id == row_id))

    async def _sweep(self, conn: AsyncConnection, now: datetime) -> None:
        """Take off the list the seeks nobody asked about lately, and the seats reserved at
        tables whose game is over (their player never sat down)."""
        await conn.execute(
            delete(seeks).where(
                seeks.c.table_id.is_(None),
                seeks.c.seen < now - timedelta(seconds=self.rules.stale),
            )
        )
        over = select(tables.c.id).where(tables.c.status == TableStatus.OVER)
        await conn.execute(delete(seeks).where(seeks.c.table_id.in_(over)))


__all__ = [
    "BOTS_AFTER",
    "STALE",
    "Pairing",
    "PairingRules",
    "Refusal",
    "SeekRefused",
    "Waiting",
    "choose",
    "gather",
]
