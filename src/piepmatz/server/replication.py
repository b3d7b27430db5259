"""One table's news to and from the other server processes that hold it (``bus.Bus``): moves,
seats taken, chat, and who is connected where. The database is the truth: news only says where
to look, and a process that missed some reads the table again (:meth:`Replica.catch_up`).
Without a bus (one process) it tells nobody and hears nothing.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from . import metrics
from .messages import ChatLine
from .news import (
    AbortNews,
    AbsenceNews,
    AnyNews,
    BotSeatNews,
    ChatNews,
    EndNews,
    MoveNews,
    PresenceNews,
    RematchNews,
    SeatNews,
)
from .store import StoredTable
from .vocabulary import TableStatus

if TYPE_CHECKING:
    from .bus import Bus
    from .room import Room

log = logging.getLogger("piepmatz.server")


class Replica:
    """The table's link to its copies at other processes."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.bus: Bus | None = None
        #: Who is connected at each other process: connections per seat, spectators, and when
        #: that process last said so; by process.
        self.elsewhere: dict[str, tuple[list[int], int, float]] = {}

    async def tell(self, news: AnyNews) -> bool:
        """Tell the other processes (``False``: there is no bus, or it did not take the news)."""
        if self.bus is None:
            return False
        return await self.bus.publish(self.room.id, news)

    def seat_connected(self, seat: int) -> bool:
        return any(seats[seat] for seats, _, _ in self.elsewhere.values())

    def anyone_seated(self) -> bool:
        return any(any(seats) for seats, _, _ in self.elsewhere.values())

    def spectators(self) -> int:
        return sum(n for _, n, _ in self.elsewhere.values())

    async def hear(self, news: AnyNews) -> None:
        """News of this table from another server process."""
        assert self.bus is not None
        room = self.room
        if isinstance(news, ChatNews):
            # Every process, the sender's too, hears chat here: one order everywhere.
            line = ChatLine(**news.line.model_dump(), sent=news.sent)
            async with room.lock:
                await room.audience.tell_chat(line.model_dump_json(), news.id, line.seat)
            return
        if news.origin == self.bus.origin:
            return
        async with room.lock:
            if isinstance(news, MoveNews):
                if news.move > room.move:
                    metrics.BUS_GAPS.inc()
                    await self.catch_up_locked()  # a message went missing: the database has it
                elif news.move == room.move:
                    await self._heard_move(news)
            elif isinstance(news, SeatNews) and room.seats[news.seat].name is None:
                await room.seated(
                    news.seat,
                    news.name,
                    news.token_hash,
                    news.hints,
                    room.status.latest(news.status),
                    news.part,
                    news.seed,
                    news.player_hash,
                )
            elif isinstance(news, BotSeatNews) and room.seats[news.seat].is_human:
                await room.bot_seated(
                    news.seat, news.bot, room.status.latest(news.status), news.seed
                )
            elif isinstance(news, PresenceNews):
                await self._heard_presence(news)
            elif isinstance(news, AbsenceNews):
                if news.move != room.move:
                    await self.catch_up_locked()
                elif room.seats[news.seat].absent != news.absent:
                    room.clocks.restore(news.left, news.since)
                    await room.standins.absence_changed(news.seat, news.absent)
            elif isinstance(news, AbortNews):
                await room.standins.abort_asked(news.seat)
            elif isinstance(news, EndNews) and room.status != TableStatus.OVER:
                await room.standins.ended(news.ending)
            elif isinstance(news, RematchNews) and room.rematch is None:
                room.rematch = news.rematch
                await room.audience.announce_table()
        room.botseats.wake()

    async def _heard_move(self, news: MoveNews) -> None:
        room = self.room
        after = room.game.state.copy(events=False)
        after.apply_id(after.parse_action(news.action, player=news.seat).id)
        if after.is_over():
            room.ending = room.standins.played_out(after, (news.seat, news.by))
        room.game.apply(news.action, player=news.seat)
        room.standins.movers.append((news.seat, news.by))
        if news.at is not None:
            room.clocks.moved(news.at / 1000, news.clock)
        await self._announce_moves(1)

    async def _heard_presence(self, news: PresenceNews) -> None:
        room = self.room
        known = self.elsewhere.get(news.origin)
        self.elsewhere[news.origin] = (news.seats, news.spectators, time.monotonic())
        room.note_presence()
        # A process from before the progress was sent counts as up to date.
        ours = room.progress()
        theirs = news.progress if news.progress is not None else ours
        if any(t > o for t, o in zip(theirs, ours, strict=True)):
            metrics.BUS_GAPS.inc()
            await self.catch_up_locked()
        # Behind: the game may have ended here, and a finished table sends no reminders.
        if news.ask or any(t < o for t, o in zip(theirs, ours, strict=True)):
            await self.tell(room.presence_here())
        # A reminder that changes nothing is not told (every table has one every 15 s).
        if known is None or known[:2] != (news.seats, news.spectators):
            await room.audience.announce_table()

    async def catch_up(self, stored: StoredTable | None = None) -> None:
        """Take what other processes stored for this table (read now unless ``stored`` is
        given): on start, after missed news, before a bot thinks."""
        async with self.room.lock:
            await self.catch_up_locked(stored)
        self.room.botseats.wake()

    async def catch_up_locked(self, stored: StoredTable | None = None) -> None:
        """:meth:`catch_up`, for a caller that holds the table's lock."""
        room = self.room
        if stored is None:
            found = await room.store.load((), table_id=room.id)
            if not found:
                return
            stored = found[0]
        for seat, saved in zip(room.seats, stored.seats, strict=True):
            if seat.is_human and saved.kind != seat.kind:  # a bot seated elsewhere
                seat.kind = saved.kind
            seat.name, seat.token_hash, seat.hints = saved.name, saved.token_hash, saved.hints
            seat.part, seat.player_hash, seat.abort = saved.part, saved.player_hash, saved.abort
        if room.status == TableStatus.WAITING and stored.status != TableStatus.WAITING:
            room.deal_from(int(stored.options["seed"]))  # the last part came in elsewhere
        room.status = room.status.latest(stored.status)
        room.ending = stored.ending
        room.rematch = room.rematch or stored.rematch
        seen = room.move
        new = stored.actions[seen:]
        room.standins.movers.extend(stored.movers[seen:])
        for action in new:
            room.game.apply(action)
        room.clocks.load(stored)
        if room.status == TableStatus.OVER:
            room.clocks.stop()
        if new:
            await self._announce_moves(len(new))
        elif stored.status != TableStatus.WAITING:
            await room.audience.announce_table()
            if room.status == TableStatus.OVER:
                await room.audience.broadcast_state()
        # A stand-in that came or went elsewhere (its news lost, or this process's own try
        # refused for it) is told here as it would have been.
        for i, (seat, saved) in enumerate(zip(room.seats, stored.seats, strict=True)):
            if seat.absent != saved.absent:
                since = changed_at(stored.movers, seen, i, saved.absent, room.move)
                await room.standins.absence_changed(i, saved.absent, since)
        room.clocks.arm()

    async def _announce_moves(self, count: int) -> None:
        room = self.room
        if room.game.state.is_over():
            room.status = room.status.latest(TableStatus.OVER)
            await room.audience.announce_table()
        elif room.status == TableStatus.WAITING:
            room.status = room.status.latest(TableStatus.PLAYING)
        await room.audience.broadcast_state()
        log.debug("table %s: %d moves from other processes", room.id, count)

    async def refresh_presence(self, older: float) -> None:
        """Tell the other processes who is here again and how far the game is, and forget what
        a process that has not told for ``older`` seconds said (it died, or lost Redis)."""
        assert self.bus is not None
        room = self.room
        async with room.lock:
            now = time.monotonic()
            gone = [o for o, (_, _, heard) in self.elsewhere.items() if now - heard > older]
            for origin in gone:
                del self.elsewhere[origin]
            room.note_presence()
            await self.tell(room.presence_here())
            if gone:
                await room.audience.announce_table()

    async def ask_presence(self) -> None:
        """Tell the other processes who is here, and ask them to tell in turn."""
        async with self.room.lock:
            await self.room.presence_changed(ask=True)


def changed_at(
    movers: list[tuple[int, str | None]], seen: int, seat: int, absent: str | None, now: int
) -> int:
    """The move from which the stand-in played ``seat`` (``absent`` set) or its person again
    (``None``), told by who made the moves this process had not ``seen``: the change came
    between two of them, or it came after them all (the game is at move ``now``)."""
    by_stand_in = [n for n, (s, by) in enumerate(movers[seen:], seen) if s == seat and by]
    if absent is not None:
        return by_stand_in[0] if by_stand_in else now
    return by_stand_in[-1] + 1 if by_stand_in else seen
