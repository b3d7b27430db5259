"""Moderation among strangers (issue 46): mutes, blocks, reports and bans.

A person at a table may **mute** another seat's chat there (stored per table and player, so the
mute holds on every device and after a reload; the lines are never sent to them), **block** a
player (never paired with them again, and their chat muted at every table), and **report** the
table to the operator, who keeps its record and chat as they were then. The operator bans a
player from the command line (:mod:`.admin`); the ban is a row in the database, read at every
request it concerns, so every server process sees it at once.

Nothing here tells a person another player's id, key or hash: a seat is named by its number,
and a block by an opaque reference made from both players' ids.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, func, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from piepmatz.i18n import _

from . import archive
from .db import blocks, keys, mutes, players, reports
from .limits import AddressBuckets
from .seats import RoomError
from .store import Store
from .vocabulary import ErrorCode, ReportReason

if TYPE_CHECKING:
    from .players import Players
    from .room import Room

#: Reports one player may make in :data:`REPORT_WINDOW` (counted in the database, so across
#: every server process), and one address may make a minute, and at once (in memory).
REPORTS_PER_PLAYER = 3
REPORT_WINDOW = timedelta(hours=1)
REPORTS_PER_MINUTE = 10 / 60
REPORTS_BURST = 10
#: The chat lines a report keeps (the latest).
REPORTED_CHAT = 1000
#: Seconds an open connection's ban is trusted before it is read again (at its next move).
BAN_RECHECK = 30.0


class Refused(RoomError):
    """A moderation request that cannot be done; ``code`` says why, and nothing changed."""


@dataclass(frozen=True)
class Block:
    """A player the player blocked, as their list shows it: never the other's id."""

    ref: str
    name: str | None
    since: datetime

    def to_json(self) -> dict[str, Any]:
        return {"ref": self.ref, "name": self.name, "since": self.since.isoformat()}


def block_ref(player_id: str, blocked_id: str) -> str:
    """The reference of a block in its player's list: derived from both ids, it names the block
    to remove without telling the blocked player's id."""
    return hashlib.sha256(f"block:{player_id}:{blocked_id}".encode()).hexdigest()[:20]


async def player_ids(conn: AsyncConnection, hashes: list[str | None]) -> list[str | None]:
    """The player each key hash (``seats.player_hash``) belongs to: a key a sign-in minted
    names its account's player, any other key its own hash (:meth:`Players.identify`)."""
    known = [h for h in hashes if h is not None]
    minted: dict[str, str] = {}
    if known:
        found = select(keys.c.key_hash, keys.c.player_id).where(keys.c.key_hash.in_(known))
        minted = {row.key_hash: row.player_id for row in await conn.execute(found)}
    return [None if h is None else minted.get(h, h) for h in hashes]


async def blocked_pairs(conn: AsyncConnection, ids: list[str]) -> set[frozenset[str]]:
    """The pairs among ``ids`` that must not share a table: either blocked the other (for
    pairing, "Find a game")."""
    found = select(blocks.c.player_id, blocks.c.blocked_id).where(
        blocks.c.player_id.in_(ids), blocks.c.blocked_id.in_(ids)
    )
    return {frozenset((row.player_id, row.blocked_id)) for row in await conn.execute(found)}


@dataclass(frozen=True)
class Seated:
    """Who a request is at a table: their player id and seat, and each seat's player."""

    player: str
    seat: int
    players: list[str | None]


class Moderation:
    """Mutes, blocks, reports and bans, over the store; one per server process."""

    def __init__(self, store: Store, people: Players) -> None:
        self.store = store
        self.people = people
        self.reported = AddressBuckets(REPORTS_PER_MINUTE, REPORTS_BURST)

    # ------------------------------------------------------------------ who is asking

    async def seated(self, room: Room, key: str) -> Seated:
        """The person whose player key ``key`` is, at ``room``: refused unless they sit there
        (a spectator, or a player of another table, has no say here)."""
        me = await self.people.identify(key)
        async with self.store.reading() as conn:
            ids = await player_ids(conn, [s.player_hash for s in room.seats])
        for seat, found in enumerate(ids):
            if found == me and room.seats[seat].name is not None:
                return Seated(me, seat, ids)
        raise Refused(ErrorCode.NOT_AT_TABLE, _("you do not sit at this table"))

    @staticmethod
    def other(room: Room, who: Seated, seat: int) -> str | None:
        """Check that ``seat`` is another person's at ``room``; their player id (``None`` when
        they sat down without a player key)."""
        seats = room.seats
        if not 0 <= seat < len(seats):
            raise Refused(
                ErrorCode.NO_SEAT,
                _("no seat {seat} at this table (seats are 1-{last})").format(
                    seat=seat + 1, last=len(seats)
                ),
            )
        if seat == who.seat:
            raise Refused(ErrorCode.OWN_SEAT, _("that is your own seat"))
        if not seats[seat].is_human or seats[seat].name is None:
            raise Refused(ErrorCode.NO_SEAT, _("nobody sits at seat {seat}").format(seat=seat + 1))
        return who.players[seat]

    async def ban(self, player_id: str | None) -> str | None:
        """Why ``player_id`` is banned, or ``None`` (also for nobody: no player key)."""
        return None if player_id is None else await self.people.ban(player_id)

    async def refuse_banned(self, key: str | None) -> None:
        """Refuse a banned player (by their player key) with the operator's reason."""
        if key is None:
            return
        reason = await self.ban(await self.people.identify(key))
        if reason is not None:
            raise Refused(ErrorCode.BANNED, banned_words(reason))

    # ------------------------------------------------------------------ mutes

    async def muted(self, room: Room, seat: int) -> tuple[str | None, set[int]]:
        """The player at ``seat`` and the seats whose chat they do not hear: those they muted
        at this table and those of players they blocked."""
        async with self.store.reading() as conn:
            ids = await player_ids(conn, [s.player_hash for s in room.seats])
            me = mute_owner(room, seat, ids[seat])
            quiet = set(
                await conn.scalars(
                    select(mutes.c.seat).where(mutes.c.table_id == room.id, mutes.c.player_id == me)
                )
            )
            if ids[seat] is not None:
                others = [i for i in ids if i is not None and i != ids[seat]]
                blocked = set(
                    await conn.scalars(
                        select(blocks.c.blocked_id).where(
                            blocks.c.player_id == ids[seat], blocks.c.blocked_id.in_(others)
                        )
                    )
                )
                quiet |= {i for i, found in enumerate(ids) if found in blocked}
        return ids[seat], quiet

    async def mute(self, room: Room, seat: int, other: int, muted: bool) -> None:
        """``seat``'s person mutes (or hears again) ``other``'s chat at ``room``."""
        async with self.store.reading() as conn:
            ids = await player_ids(conn, [s.player_hash for s in room.seats])
        self.other(room, Seated(ids[seat] or "", seat, ids), other)
        me = mute_owner(room, seat, ids[seat])
        async with self.store.writing() as conn:
            await conn.execute(
                delete(mutes).where(
                    mutes.c.table_id == room.id, mutes.c.player_id == me, mutes.c.seat == other
                )
            )
            if muted:
                await conn.execute(insert(mutes).values(table_id=room.id, player_id=me, seat=other))

    # ------------------------------------------------------------------ blocks

    async def block(self, room: Room, key: str, seat: int) -> Block:
        """The person of ``key`` at ``room`` blocks the player at ``seat``."""
        who = await self.seated(room, key)
        blocked = self.other(room, who, seat)
        if blocked is None or blocked == who.player:
            # Sat down without a player key (a program): there is nobody to block. The same
            # player at two seats (two tabs) is still oneself.
            raise Refused(
                ErrorCode.NO_PLAYER,
                _("the person at seat {seat} cannot be blocked").format(seat=seat + 1),
            )
        return await self._block(who.player, blocked, room.seats[seat].name)

    async def block_player(self, key: str, page: str) -> Block:
        """The person of ``key`` blocks the player whose page is ``page`` (``players.page``:
        from the player's page)."""
        me = await self.people.identify(key)
        async with self.store.reading() as conn:
            row = (
                await conn.execute(
                    select(players.c.id, players.c.username).where(players.c.page == page)
                )
            ).first()
        if row is None:
            raise Refused(ErrorCode.NO_PLAYER, _("there is no such player"))
        if row.id == me:
            raise Refused(ErrorCode.OWN_SEAT, _("you cannot block yourself"))
        return await self._block(me, str(row.id), row.username)

    async def _block(self, me: str, blocked: str, name: str | None) -> Block:
        await self.people.ensure(me)  # blocks.player_id references players.id
        since = datetime.now(UTC)
        try:
            async with self.store.writing() as conn:
                await conn.execute(
                    insert(blocks).values(player_id=me, blocked_id=blocked, since=since, name=name)
                )
        except IntegrityError:
            async with self.store.reading() as conn:
                row = (
                    await conn.execute(
                        select(blocks.c.name, blocks.c.since).where(
                            blocks.c.player_id == me, blocks.c.blocked_id == blocked
                        )
                    )
                ).one()
            name, since = row.name, row.since  # blocked already: the block stands as it was
        return Block(block_ref(me, blocked), name, since)

    async def blocks_of(self, key: str) -> list[Block]:
        """The players the person of ``key`` blocked, the latest first."""
        me = await self.people.identify(key)
        async with self.store.reading() as conn:
            rows = await conn.execute(
                select(blocks.c.blocked_id, blocks.c.name, blocks.c.since)
                .where(blocks.c.player_id == me)
                .order_by(blocks.c.since.desc())
            )
            return [Block(block_ref(me, r.blocked_id), r.name, r.since) for r in rows]

    async def unblock(self, key: str, ref: str) -> None:
        """Remove the block ``ref`` of the person of ``key``."""
        me = await self.people.identify(key)
        async with self.store.reading() as conn:
            ids = await conn.scalars(select(blocks.c.blocked_id).where(blocks.c.player_id == me))
            blocked = next((i for i in ids if block_ref(me, i) == ref), None)
        if blocked is None:
            raise Refused(ErrorCode.NO_PLAYER, _("you have no such block"))
        async with self.store.writing() as conn:
            await conn.execute(
                delete(blocks).where(blocks.c.player_id == me, blocks.c.blocked_id == blocked)
            )

    # ------------------------------------------------------------------ reports

    async def report(
        self,
        room: Room,
        key: str,
        address: str,
        reason: ReportReason,
        note: str | None,
        seat: int | None,
    ) -> int:
        """The person of ``key`` reports ``room`` (and the person at ``seat``, if one) to the
        operator; the table's record and chat as they are now are kept with it. Returns the
        report's number. Changes nothing at the table."""
        who = await self.seated(room, key)
        about = None if seat is None else self.other(room, who, seat)
        since = datetime.now(UTC) - REPORT_WINDOW
        async with self.store.reading() as conn:
            made = await conn.scalar(
                select(func.count())
                .select_from(reports)
                .where(reports.c.by_id == who.player, reports.c.made > since)
            )
        if made is not None and made >= REPORTS_PER_PLAYER:
            raise Refused(
                ErrorCode.RATE_LIMITED,
                _("you have sent {count} reports in the last hour: wait a while").format(
                    count=made
                ),
            )
        if not self.reported.take(address):
            raise Refused(
                ErrorCode.RATE_LIMITED,
                _("too many reports from your address: wait a few minutes"),
            )
        async with room.lock:  # the record and the chat of one moment
            record = archive.record(room)
            lines = await self.store.recent_chat(room.id, REPORTED_CHAT)
        chat = [
            {"seat": line.seat, "name": line.name, "text": line.text, "sent": line.sent.isoformat()}
            for line in lines
        ]
        record["names"] = [s.name if s.is_human else s.kind for s in room.seats]
        async with self.store.writing() as conn:
            result = await conn.execute(
                insert(reports)
                .values(
                    table_id=room.id,
                    by_id=who.player,
                    seat=seat,
                    about_id=about,
                    reason=reason.value,
                    note=note or None,
                    made=datetime.now(UTC),
                    record=record,
                    chat=chat,
                )
                .returning(reports.c.id)
            )
            return int(result.scalar_one())


def mute_owner(room: Room, seat: int, player: str | None) -> str:
    """Whose mutes a seat's person keeps: their player's, or, for a person who sat down without
    a player key, their seat credential's (they are that seat at that table only)."""
    return player or room.seats[seat].token_hash or ""


def banned_words(reason: str) -> str:
    """What a banned player is told (in their language), with the operator's reason."""
    if not reason:
        return _("you are banned from this server")
    return _("you are banned from this server: {reason}").format(reason=reason)


def recheck_due(checked: float) -> bool:
    """An open connection's ban was read more than :data:`BAN_RECHECK` seconds ago."""
    return time.monotonic() - checked > BAN_RECHECK


__all__ = [
    "BAN_RECHECK",
    "REPORTS_PER_PLAYER",
    "Block",
    "Moderation",
    "Refused",
    "banned_words",
    "block_ref",
    "blocked_pairs",
    "player_ids",
]
