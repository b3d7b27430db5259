"""The bots' seats at a table: a bot thinks when it is its turn (in the bot pool, from its seat's
view), and its move is played like a person's. With several server processes one of them thinks
for the table at a time, the holder of its lease (``bus.Bus.bot_lease``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from piepmatz.bots.base import derive_seed
from piepmatz.core import view_of

from .messages import BotReplaced
from .pool import FALLBACK_BOT
from .seats import RoomError
from .store import StorageUnavailable
from .vocabulary import Absence, ErrorCode, TableStatus

if TYPE_CHECKING:
    from .room import Room

log = logging.getLogger("piepmatz.server")

#: Why a stored table's bot was replaced for good.
NOT_OFFERED = "this server does not offer it"


class BotSeats:
    """One table's bots: the task that plays their moves, and the seats whose stored bot this
    server does not offer."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.task: asyncio.Task[None] | None = None
        #: Seats whose stored bot this server does not offer, with what was stored: each
        #: connection is told that another bot plays there.
        self.replaced: dict[int, str] = {}
        #: A bot's move is being stored (a drain lets it finish; thinking it may cut short).
        self.storing = False

    def thinking(self) -> bool:
        return self.task is not None and not self.task.done()

    def to_act(self) -> int | None:
        """The seat whose bot is to move, if a bot is: the seat's own, or the table's stand-in
        for a person who is away or resigned."""
        room = self.room
        state = room.game.state
        if room.status != TableStatus.PLAYING or state.is_over():
            return None
        p = state.current_player
        seat = room.seats[p]
        if seat.is_human and seat.absent is not None and self.nobody_plays_on():
            return None  # the stand-in waits for a person to come back
        return p if not seat.is_human or seat.absent is not None else None

    def nobody_plays_on(self) -> bool:
        """Every person at the table is played by the stand-in, and one of them may come back:
        the stand-ins keep a table going for the people who play on, so with none they wait
        rather than play the game out among bots (two friends a day late each would come back
        to a finished game)."""
        people = [s for s in self.room.seats if s.is_human]
        return all(s.absent is not None for s in people) and any(
            s.absent != Absence.RESIGNED for s in people
        )

    def wake(self) -> None:
        """Start the table's bot loop if a bot is to act and none is thinking."""
        if self.room.bots.closing:
            return  # draining: the process that takes over the table plays on
        if self.to_act() is not None and not self.thinking():
            self.task = asyncio.create_task(self._play(), name=f"bots {self.room.id}")

    def not_offered(self, seat: int) -> str:
        """The notice that ``seat``'s stored bot is not offered and which bot plays there."""
        room = self.room
        return BotReplaced(
            seat=seat,
            bot=self.replaced[seat],
            fallback=room.seats[seat].kind,
            move=room.move,
            reason=NOT_OFFERED,
        ).model_dump_json()

    async def _play(self) -> None:
        bus = self.room.replica.bus
        while not self.room.bots.closing and (p := self.to_act()) is not None:
            lease = None
            if bus is not None:
                # One process thinks for the table at a time: the lease holder. The others wait
                # and try again, so that one of them takes over when the holder dies.
                from .bus import LEASE_RETRY

                lease = await bus.bot_lease(self.room.id)
                if lease is None:
                    await asyncio.sleep(LEASE_RETRY)
                    continue
            # From here on the lease is given back whatever happens, a drain's cancel too:
            # otherwise the process taking the table over would wait for it to expire.
            try:
                if bus is not None and lease is not None:
                    # The holder before may have played a move this process has not heard yet.
                    try:
                        await self.room.replica.catch_up()
                    except StorageUnavailable:
                        # The database is away: try again in a while (nothing else wakes the
                        # bot).
                        await bus.release(lease)
                        lease = None
                        await asyncio.sleep(LEASE_RETRY)
                        continue
                    if self.to_act() != p:
                        continue
                if not await self._move(p):
                    return
            finally:
                if lease is not None and bus is not None:
                    await bus.release(lease)

    async def _move(self, p: int) -> bool:
        """Seat ``p``'s bot plays one move (its fallback's, if it fails); False when the move
        could not be played and the table was told."""
        room = self.room
        move = room.move
        view = view_of(room.game.state, p)
        legal = room.game.state.legal_action_ids()
        # The project's one bot-seed scheme, keyed by the move too: a generator that need
        # not survive between moves, so a restarted server asks the same question.
        seed = derive_seed(room.game.options.seed, "bot", "move", move, p)
        person = room.seats[p].is_human
        kind = room.setup.stand_in if person else room.seats[p].kind
        spec = room.bots.roster.spec(kind)
        choice = await room.bots.choose_or_fallback(spec, view, legal, seed, owner=room.id)
        if choice.replaced is not None:
            log.error("table %s: bot %s in seat %d: %s", room.id, kind, p, choice.replaced)
            await room.audience.tell(
                BotReplaced(
                    seat=p, bot=kind, fallback=FALLBACK_BOT, move=move, reason=choice.replaced
                ).model_dump_json()
            )
        self.storing = True
        try:
            await self._play_for_bot(p, move, choice.action, kind if person else None)
        except RoomError as exc:
            if exc.code == ErrorCode.STALE and (person or room.replica.bus is not None):
                # The person came back while the stand-in thought; or it thought past the
                # lease's expiry, and another process's bot played the move first: the
                # database let one in, and the table goes on.
                return True
            # Not played (the store refused it for another reason): the table is told.
            log.error("table %s: bot move %d not played: %s", room.id, move, exc)
            await room.audience.tell(exc.message())
            return False
        finally:
            self.storing = False
        return True

    async def _play_for_bot(self, seat: int, move: int, action: int, by: str | None) -> None:
        """Play a bot's move (``by``: the stand-in, for a person); while the database is away,
        try again now and then (nobody else can move the game on), having told the table
        once."""
        delay = 0.25
        while True:
            try:
                await self.room.act(seat, move, action, by=by)
                return
            except RoomError as exc:
                if exc.code != ErrorCode.UNAVAILABLE:
                    raise
                if delay == 0.25:
                    await self.room.audience.tell(exc.message())
            await asyncio.sleep(delay)
            delay = min(2 * delay, 5.0)
