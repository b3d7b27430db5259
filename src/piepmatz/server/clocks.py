"""A table's clocks (its :class:`~.pace.Pace`): how long each person has, whose clock runs, when
it runs out, and who has been disconnected too long; the table is told when someone's time is
up (:meth:`Room.stand_in <piepmatz.server.room.Room.stand_in>`).

Time is the server's wall clock, injected (:class:`Clock`), so that tests run clocks as fast as
they like. The clock's state is stored with every move (``moves.at`` and ``moves.clock``) and
when a person comes back (``tables.clock``), so that it goes on across restarts and processes:
a clock runs for the person to move from the moment the move before was stored.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from .pace import Pace, PaceKind
from .vocabulary import Absence, TableStatus

if TYPE_CHECKING:
    from .room import Room
    from .store import StoredTable


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    """The server's time: wall seconds (``time.time()``'s), and callbacks at a time."""

    def now(self) -> float: ...

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer: ...


class SystemClock:
    """The real clock, on the running event loop."""

    def now(self) -> float:
        return time.time()

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(max(0.0, when - time.time()), callback)


#: Seconds a person gets back when they return after their time ran out (or the pace's
#: increment, if longer): enough to see where the game is and move.
REPRIEVE = 60.0


def ms(seconds: float) -> int:
    return round(seconds * 1000)


class Clocks:
    """One table's clocks. ``left`` is each person's time (live tables; ``None`` for a bot and
    at other paces) as of ``since``, when the running clock started."""

    def __init__(self, room: Room, pace: Pace, clock: Clock) -> None:
        self.room = room
        self.pace = pace
        self.clock = clock
        players = len(room.seats)
        self.left: list[float | None] = [None] * players
        self.since = clock.now()
        #: Since when (wall seconds) each person has been disconnected everywhere.
        self.gone_since: dict[int, float] = {}
        self._timer: Timer | None = None
        #: The time a planned restart stopped the clock was given back at load, not stored yet.
        self.given_back = False
        #: No look before this (wall seconds): the database was away at the last.
        self._not_before = 0.0
        self._checking: asyncio.Task[None] | None = None

    @property
    def live(self) -> bool:
        return self.pace.kind == PaceKind.LIVE

    # ------------------------------------------------------------------ state

    def start(self, now: float) -> None:
        """The game is dealt: every person's clock is full, and the first turn starts now."""
        assert self.pace.base is None or self.live
        self.left = [
            self.pace.base if self.live and seat.is_human else None for seat in self.room.seats
        ]
        self.since = now

    def at_start(self, now: float) -> dict[str, Any] | None:
        """The clocks as stored when the game starts at ``now`` (``tables.clock``)."""
        if not self.pace.timed:
            return None
        left = [
            ms(self.pace.base) if self.live and s.is_human and self.pace.base else None
            for s in self.room.seats
        ]
        return {"move": 0, "left": left if self.live else None, "from": ms(now)}

    def restore(self, left: list[int | None] | None, since_ms: int | None) -> None:
        """Take the stored state (``left`` in ms as of ``since``)."""
        if left is not None:
            self.left = [None if x is None else x / 1000 for x in left]
        if since_ms is not None:
            self.since = since_ms / 1000

    def load(self, stored: StoredTable) -> None:
        """Take the clocks as stored: when a person last came back or the server stopped
        (``tables.clock``), if no move was made since, else with the last move. A clock
        stopped by a planned restart (:meth:`paused`) starts again now: the time the server
        was away is given back, and :attr:`given_back` says so until it is stored."""
        played = len(stored.actions)
        if stored.clock is not None and stored.clock.get("move", -1) >= played:
            self.restore(stored.clock.get("left"), stored.clock.get("from"))
            stopped = stored.clock.get("paused")
            if type(stopped) is int:
                self.since += max(0.0, self.clock.now() - stopped / 1000)
                self.given_back = True
        elif stored.last_at is not None:
            self.restore(stored.last_clock, stored.last_at)

    def paused(self, now: float) -> dict[str, Any] | None:
        """The clocks to store when the server stops at ``now`` with this table's clock running
        (``None`` if none runs): the next start gives back the time it was away (:meth:`load`).
        ``tables.clock``, as stored when a person comes back, with ``paused``."""
        if self.running() is None:
            return None
        return {
            "move": self.room.move,
            "left": self.stored(),
            "from": ms(self.since),
            "paused": ms(now),
        }

    def record(self) -> dict[str, Any]:
        """The clocks as they stand (``tables.clock``), to store once a pause was given back."""
        return {"move": self.room.move, "left": self.stored(), "from": ms(self.since)}

    def stored(self) -> list[int | None] | None:
        """``left`` as stored (ms), or ``None`` where no one has a clock of their own."""
        if not self.live:
            return None
        return [None if x is None else ms(x) for x in self.left]

    def running(self) -> int | None:
        """The seat whose clock runs: the person to move, unless a stand-in plays for them."""
        room = self.room
        if not self.pace.timed or room.status != TableStatus.PLAYING:
            return None
        state = room.game.state
        if state.is_over():
            return None
        p = state.current_player
        seat = room.seats[p]
        return p if seat.is_human and seat.absent is None else None

    def deadline(self) -> float | None:
        """When the running person's time runs out (wall seconds)."""
        p = self.running()
        if p is None:
            return None
        if self.live:
            left = self.left[p]
            return None if left is None else self.since + left
        assert self.pace.per_move is not None
        return self.since + self.pace.per_move

    def out_of_time(self, seat: int, now: float) -> bool:
        deadline = self.deadline()
        return self.running() == seat and deadline is not None and now >= deadline

    def after_move(self, seat: int, now: float, stood_in: bool) -> list[int | None] | None:
        """Everyone's time (ms, as stored with the move) once ``seat`` moves at ``now``: the
        mover's clock stops, less the time it ran, plus the increment. Changes nothing: the
        move is not stored yet (:meth:`moved`)."""
        if not self.live:
            return None
        left = list(self.left)
        if not stood_in and left[seat] is not None and self.running() == seat:
            spent = max(0.0, now - self.since)
            left[seat] = max(0.0, left[seat] - spent) + (self.pace.increment or 0.0)  # type: ignore[operator]
        return [None if x is None else ms(x) for x in left]

    def moved(self, at: float, left: list[int | None] | None) -> None:
        """A move was stored at ``at`` with ``left`` (here or at another process)."""
        self.restore(left, None)
        self.since = at

    def stop_for(self, seat: int, now: float) -> list[float | None]:
        """Everyone's time once ``seat``'s clock stops at ``now`` for a stand-in: less the time
        it ran if it was running. Changes nothing."""
        left = list(self.left)
        if self.live and self.running() == seat and left[seat] is not None:
            left[seat] = max(0.0, left[seat] - (now - self.since))  # type: ignore[operator]
        return left

    def returned(self, seat: int, now: float) -> None:
        """``seat``'s person is back: their clock, if it ran out, gets the reprieve; if it is
        their move, it starts again now (it stood while the stand-in thought)."""
        if self.live and self.left[seat] is not None and self.left[seat] <= 0:  # type: ignore[operator]
            self.left[seat] = max(REPRIEVE, self.pace.increment or 0.0)
        state = self.room.game.state
        if not state.is_over() and state.current_player == seat:
            self.since = now

    def snapshot(self, now: float) -> dict[str, Any] | None:
        """The ``clock`` of a ``state`` message: time left as of ``now``, whose runs, until when."""
        if not self.pace.timed:
            return None
        running = self.running()
        deadline = self.deadline()
        left: list[int | None] = [None] * len(self.left)
        if self.live:
            for i, x in enumerate(self.left):
                if x is not None:
                    spent = now - self.since if i == running else 0.0
                    left[i] = max(0, ms(x - spent))
        return {
            "pace": self.pace.name,
            "left": left,
            "running": running,
            "deadline": None if deadline is None else ms(deadline),
            "now": ms(now),
        }

    # ------------------------------------------------------------------ presence

    def presence(self, connected: list[bool], now: float) -> None:
        """Who is connected (anywhere) now: a person disconnected too long is away (live)."""
        if self.live:
            for i, (seat, here) in enumerate(zip(self.room.seats, connected, strict=True)):
                if here or not seat.is_human or seat.name is None:
                    self.gone_since.pop(i, None)
                else:
                    self.gone_since.setdefault(i, now)
        self.arm()

    # ------------------------------------------------------------------ the timer

    def due(self) -> list[tuple[int, Absence]]:
        """The people whose time is up now: out of time, or disconnected too long."""
        room = self.room
        if room.status != TableStatus.PLAYING:
            return []
        now = self.clock.now()
        found: list[tuple[int, Absence]] = []
        p = self.running()
        if p is not None and self.out_of_time(p, now):
            found.append((p, Absence.TIME))
        if self.live and self.pace.away is not None:
            for i, since in sorted(self.gone_since.items()):
                late = now - since >= self.pace.away
                if late and room.seats[i].absent is None and all(i != q for q, _ in found):
                    found.append((i, Absence.AWAY))
        return found

    def next_check(self) -> float | None:
        """When someone's time will be up, if nothing happens before."""
        if self.room.status != TableStatus.PLAYING:
            return None
        times = [t for t in [self.deadline()] if t is not None]
        if self.live and self.pace.away is not None:
            times += [
                since + self.pace.away
                for i, since in self.gone_since.items()
                if self.room.seats[i].absent is None
            ]
        return min(times, default=None)

    def arm(self) -> None:
        """Set the timer for the next time someone's time is up (after anything changed)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        when = self.next_check()
        if when is not None:
            self._timer = self.clock.call_at(max(when, self._not_before), self._ring)

    def retry_later(self, delay: float = 5.0) -> None:
        """Look again in ``delay`` seconds (the database was away)."""
        self._not_before = self.clock.now() + delay
        self.arm()

    def _ring(self) -> None:
        self._timer = None
        if self._checking is None or self._checking.done():
            self._checking = asyncio.create_task(self.check(), name=f"clock {self.room.id}")

    async def check(self) -> None:
        """Stand in for whoever's time is up (under the table's lock: a move may come first)."""
        await self.room.time_is_up()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._checking is not None:
            self._checking.cancel()


__all__ = ["REPRIEVE", "Clock", "Clocks", "SystemClock", "Timer"]
