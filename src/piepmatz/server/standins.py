"""Nobody holds a table hostage: a person whose time is up is played by the table's stand-in bot
until they come back, a person may resign, and a game in its first round may be aborted. Each
change is stored (``seats.absent``, ``seats.abort``, ``tables.ending``) before anyone hears of
it, and told to the other processes; the bot's moves are :mod:`.botplay`'s, marked with the
stand-in's name (``moves.by``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from piepmatz.core.scoring import score_state
from piepmatz.core.state import State

from .clocks import ms
from .messages import Returned, StandIn
from .news import AbortNews, AbsenceNews, EndNews
from .pace import RESIGN_END
from .seats import RoomError
from .store import StorageUnavailable
from .vocabulary import Absence, Ending, ErrorCode, TableStatus

if TYPE_CHECKING:
    from .room import Room

log = logging.getLogger("piepmatz.server")


class StandIns:
    """One table's stand-ins, resignations and abort."""

    def __init__(self, room: Room) -> None:
        self.room = room
        #: Each move's seat and the stand-in that made it (``None``: the seat itself).
        self.movers: list[tuple[int, str | None]] = []

    # ------------------------------------------------------------------ what is known

    def stood_in(self, movers: list[tuple[int, str | None]] | None = None) -> list[int]:
        """Per seat, the moves a stand-in made for its person."""
        counts = [0] * len(self.room.seats)
        for seat, by in self.movers if movers is None else movers:
            if by is not None:
                counts[seat] += 1
        return counts

    def made_for(self, seat: int, before: int) -> int:
        """The moves the stand-in made for ``seat`` before move ``before`` since its person
        last moved themselves: those of the absence that ends there (a process catching up
        may know later moves already)."""
        count = 0
        for mover, by in reversed(self.movers[:before]):
            if mover == seat:
                if by is None:
                    break
                count += 1
        return count

    def showed_up(self, seat: int) -> bool:
        """The person at ``seat`` made a move of their own."""
        return any(s == seat and by is None for s, by in self.movers)

    def ending(
        self,
        how: Ending,
        *,
        seat: int | None = None,
        winners: list[int] | tuple[int, ...] = (),
        movers: list[tuple[int, str | None]] | None = None,
    ) -> dict[str, Any]:
        """How the game ended, as ``ending`` in messages, the record and the database."""
        room = self.room
        resigned = [i for i, s in enumerate(room.seats) if s.absent == Absence.RESIGNED]
        if seat is not None and seat not in resigned:
            resigned.append(seat)
        movers = self.movers if movers is None else movers
        return {
            "how": how.value,
            "move": len(movers),
            "seat": seat,
            "winners": list(winners),
            "resigned": sorted(resigned),
            "stood_in": self.stood_in(movers),
        }

    def played_out(self, after: State, last: tuple[int, str | None]) -> dict[str, Any]:
        """The ending of a game whose last move, ``last``, leads to ``after``."""
        winners = score_state(after).winners
        return self.ending(Ending.PLAYED_OUT, winners=winners, movers=[*self.movers, last])

    def abortable(self) -> bool:
        """A table waiting for people, or a game in its first round (until every seat has had
        a turn), may be aborted."""
        room = self.room
        if room.status == TableStatus.WAITING:
            return True
        state = room.game.state
        return (
            room.status == TableStatus.PLAYING
            and not state.is_over()
            and state.turn <= state.num_players
        )

    async def check_act(self, seat: int, by: str | None, now: float) -> None:
        """Refuse (``RoomError``) a person's action while a stand-in plays for them, or once
        their time is up (the stand-in takes over then); and a stand-in's once they are back."""
        room = self.room
        person = room.seats[seat]
        if by is not None:
            if person.is_human and person.absent is None:
                raise RoomError(ErrorCode.STALE, "the person is back: the stand-in does not play")
            return
        if person.absent == Absence.RESIGNED:
            raise RoomError(ErrorCode.RESIGNED, "you resigned: the stand-in plays your seat")
        if person.stood_in:
            raise RoomError(
                ErrorCode.STOOD_IN,
                "the stand-in plays your seat while you are away: take your seat back first",
            )
        if room.clocks.out_of_time(seat, now):
            await self.replace_locked(seat, Absence.TIME)
            room.botseats.wake()
            raise RoomError(
                ErrorCode.STOOD_IN,
                "your time ran out: the stand-in plays your seat until you take it back",
            )

    # ------------------------------------------------------------------ changes

    async def replace_locked(self, seat: int, why: Absence) -> bool:
        """From now on the stand-in plays ``seat`` (under the table's lock); False if nothing
        changed (it did already, or a move came first at another process)."""
        room = self.room
        person = room.seats[seat]
        if person.absent in (why, Absence.RESIGNED):
            return False
        clocks = room.clocks
        left = clocks.stop_for(seat, clocks.clock.now())
        try:
            changed = await room.store.set_absent(
                room.id, seat, why, was=person.absent, moves_played=room.move
            )
        except StorageUnavailable:
            room.clocks.retry_later()
            return False
        if not changed:
            await room.replica.catch_up_locked()
            return False
        clocks.left = left
        await self.absence_changed(seat, why)
        stored = clocks.stored()
        await room.replica.tell(
            AbsenceNews(seat=seat, absent=why, move=room.move, left=stored, since=ms(clocks.since))
        )
        log.info("table %s: the stand-in plays seat %d (%s)", room.id, seat, why)
        return True

    async def back_locked(self, seat: int, again: bool = True) -> None:
        """``seat``'s person came back: they play their seat again (under the lock). Refused by
        the database because another process moved meanwhile (this copy was behind), it is
        tried once more once caught up, rather than lost without a word."""
        room = self.room
        person = room.seats[seat]
        if not person.stood_in:
            return
        clocks = room.clocks
        kept = (list(clocks.left), clocks.since)
        clocks.returned(seat, clocks.clock.now())
        left, since = clocks.stored(), ms(clocks.since)
        try:
            changed = await room.store.set_absent(
                room.id,
                seat,
                None,
                was=person.absent,
                moves_played=room.move,
                clock={"move": room.move, "left": left, "from": since},
            )
        except StorageUnavailable:
            changed = False
        if not changed:
            clocks.left, clocks.since = kept
            await room.replica.catch_up_locked()
            if again:
                await self.back_locked(seat, again=False)
            return
        await self.absence_changed(seat, None)
        await room.replica.tell(
            AbsenceNews(seat=seat, absent=None, move=room.move, left=left, since=since)
        )

    async def absence_changed(self, seat: int, why: str | None, since: int | None = None) -> None:
        """Everyone at the table is told that the stand-in plays ``seat`` now (``why``), or
        that its person is back (here, or heard from another process), from move ``since``
        (the game's move unless it was caught up from the database since)."""
        room = self.room
        room.seats[seat].absent = why
        move = room.move if since is None else since
        if why is None:
            back = Returned(seat=seat, move=move, moves=self.made_for(seat, move))
            await room.audience.tell(back.model_dump_json())
        else:
            told = StandIn(seat=seat, bot=room.setup.stand_in, reason=Absence(why), move=move)
            await room.audience.tell(told.model_dump_json())
        await room.audience.announce_table()
        await room.audience.broadcast_state()  # whose clock runs has changed
        room.clocks.arm()

    async def back(self, seat: int) -> None:
        """The person at ``seat`` asks for their seat back on an open connection."""
        room = self.room
        async with room.lock:
            person = room.seats[seat]
            if person.absent == Absence.RESIGNED:
                raise RoomError(ErrorCode.RESIGNED, "you resigned: the seat cannot be taken back")
            await self.back_locked(seat)
        room.botseats.wake()

    async def resign(self, seat: int) -> None:
        """The person at ``seat`` resigns: a two-player game whose rule is ``end`` ends, and
        the other wins; else the stand-in plays the seat to the end."""
        room = self.room
        async with room.lock:
            if room.status != TableStatus.PLAYING:
                raise RoomError(ErrorCode.NOT_PLAYING, "there is no game going on to resign")
            if room.seats[seat].absent == Absence.RESIGNED:
                raise RoomError(ErrorCode.RESIGNED, "you resigned already")
            ended = room.setup.resign == RESIGN_END
            if ended:
                others = [i for i in range(len(room.seats)) if i != seat]
                await self.end_locked(self.ending(Ending.RESIGNED, seat=seat, winners=others))
            else:
                await self.replace_locked(seat, Absence.RESIGNED)
        room.botseats.wake()
        if ended:
            await room.game_over()

    async def abort(self, seat: int) -> None:
        """The person at ``seat`` asks to abort: a table waiting for people is aborted at once;
        a game in its first round once every person still playing asked, or at once when
        someone never showed up (a stand-in played for them before they made a move)."""
        room = self.room
        async with room.lock:
            if not self.abortable():
                raise RoomError(
                    ErrorCode.NOT_ABORTABLE,
                    "the game is over"
                    if room.status == TableStatus.OVER
                    else "the game is past its first round: it can be resigned, not aborted",
                )
            person = room.seats[seat]
            if person.absent == Absence.RESIGNED:
                raise RoomError(ErrorCode.RESIGNED, "you resigned: the others decide")
            if room.status == TableStatus.PLAYING and not person.abort:
                await room.store.ask_abort(room.id, seat)
                await room.replica.tell(AbortNews(seat=seat))
                await self.abort_asked(seat)
            ended = room.status == TableStatus.WAITING or self._abort_agreed(seat)
            if ended:
                await self.end_locked(self.ending(Ending.ABORTED))
        if ended:
            await room.game_over()  # a rated table's verdict: not rated

    async def abort_asked(self, seat: int) -> None:
        self.room.seats[seat].abort = True
        await self.room.audience.announce_table()

    def _abort_agreed(self, asker: int) -> bool:
        people = [
            (i, s)
            for i, s in enumerate(self.room.seats)
            if s.is_human and s.absent != Absence.RESIGNED
        ]
        if all(s.abort for _, s in people):
            return True
        return any(i != asker and s.stood_in and not self.showed_up(i) for i, s in people)

    async def end_locked(self, ending: dict[str, Any]) -> None:
        """End the game as it stands (a resignation, an abort; under the lock)."""
        room = self.room
        if not await room.store.end(room.id, ending, room.move):
            await room.replica.catch_up_locked()
            raise RoomError(
                ErrorCode.STALE, "a move came first: look at the game again, then try again"
            )
        await room.replica.tell(EndNews(ending=ending))
        await self.ended(ending)

    async def ended(self, ending: dict[str, Any]) -> None:
        """The game ended early (here, or heard from another process)."""
        room = self.room
        dealt = room.status != TableStatus.WAITING  # a waiting table's game is a stand-in
        room.status = TableStatus.OVER
        room.ending = ending
        room.clocks.stop()
        await room.audience.announce_table()
        if dealt:
            await room.audience.broadcast_state()


__all__ = ["StandIns"]
