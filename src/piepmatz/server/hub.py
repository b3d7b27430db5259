"""Every table a server process holds, by id: opened, resumed after a restart, read again on
request, and forgotten once finished and idle. With a bus, the other processes hold them too.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from sqlalchemy.ext.asyncio import AsyncConnection

from piepmatz.args import new_game
from piepmatz.core.commitment import new_secret, seed_from

from . import archive
from .clocks import Clock, SystemClock
from .news import AnyNews
from .pace import (
    ALONE,
    RESIGN_END,
    RESIGN_PLAY_ON,
    STAND_IN,
    WITH_PEOPLE,
    PaceRoster,
    TableSetup,
    UnknownPace,
    default_resign,
)
from .players import Players
from .pool import BotPool
from .ratings import BOT_RATINGS, Ratings
from .reviews import Reviews
from .room import Room
from .roster import HUMAN, UnknownBot
from .seats import Seat, new_token, token_hash
from .store import StorageUnavailable, Store
from .vocabulary import TableStatus

if TYPE_CHECKING:
    from .bus import Bus

log = logging.getLogger("piepmatz.server")


class TableRefused(ValueError):
    """A table that cannot be opened as asked; the message says what was wrong."""


class Opened(NamedTuple):
    """A table just opened: the creator's seat and every person's seat's credential (the
    creator's and the invites'), and the spectators' credential."""

    room: Room
    seat: int
    tokens: dict[int, str]
    spectator: str


#: What runs in the transaction that stores a new table, given the connection and the table's
#: id (:meth:`Hub.open`'s ``claim``).
Claim = Callable[[AsyncConnection, str], Awaitable[None]]


class NoTable(LookupError):
    """No table has this id (the HTTP routes answer 404, the WebSocket ``no_table``)."""

    def __init__(self, table_id: str) -> None:
        super().__init__(table_id)
        self.table_id = table_id


#: Seconds a finished table nobody is connected to stays held before it is forgotten (its
#: record stays in the database, and the next request reads it again); and seconds between
#: the looks for such tables.
FORGET_AFTER = 600.0
FORGET_EVERY = 60.0
#: Seconds a public table stays listed once every person seated there has gone: whoever
#: joined it later would wait for nobody.
LISTED_AWAY = 600.0


def new_table_id() -> str:
    """A new table's id: 12 URL-safe characters, never a leading "-", which a command line
    would read as an option (``piepmatz admin close ID``, ``piepmatz play --join ID``)."""
    while True:
        table_id = secrets.token_urlsafe(9)
        if not table_id.startswith("-"):
            return table_id


class Hub:
    """Every table the server holds, by id; with a bus, the other processes hold them too."""

    def __init__(
        self,
        store: Store,
        bots: BotPool,
        paces: PaceRoster | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.store = store
        self.bots = bots
        self.paces = paces or PaceRoster.build()
        self.clock: Clock = clock or SystemClock()
        self.rooms: dict[str, Room] = {}
        self.reviews = Reviews(bots)
        self.players = Players(store)
        self.ratings = Ratings(store, self.players)
        self.bus: Bus | None = None
        self._loading = asyncio.Lock()
        #: Since when (monotonic seconds) each held table has been idle, by id.
        self._idle_since: dict[str, float] = {}

    async def hear(self, table_id: str, message: AnyNews) -> None:
        """News from another process (the bus calls this)."""
        room = self.rooms.get(table_id)
        if room is not None:
            try:
                await room.replica.hear(message)
            except Exception:
                log.exception("table %s: news %s not taken; catching up", table_id, message)
                await room.replica.catch_up()

    async def heard_nothing(self) -> None:
        """The bus lost news for a while: read every held table again."""
        for room in list(self.rooms.values()):
            await room.replica.catch_up()

    async def tell_presence(self) -> None:
        """Every so often, each process says again who is connected to it, table by table, so
        that the connections of a process that died are forgotten by the others."""
        from .bus import PRESENCE_EVERY

        while True:
            await asyncio.sleep(PRESENCE_EVERY)
            for room in list(self.rooms.values()):
                if room.status != TableStatus.OVER:
                    await room.replica.refresh_presence(3 * PRESENCE_EVERY)

    async def open_tables(self, now: float, away: float = LISTED_AWAY) -> list[Room]:
        """The public tables waiting for people, but not those whose seated people have all
        been gone for ``away`` seconds as of ``now``."""
        if self.bus is None:
            rooms = list(self.rooms.values())
        else:
            # Other processes open tables too: the database knows them all. Held here from now
            # on, so that this process hears who is at them.
            rooms = [
                await self.room(stored.id)
                for stored in await self.store.load((TableStatus.WAITING,))
                if stored.public
            ]
        return [
            room
            for room in rooms
            if room.public
            and room.status == TableStatus.WAITING
            and (room.away_since is None or now - room.away_since < away)
        ]

    async def forget_finished(self, now: float, after: float = FORGET_AFTER) -> list[str]:
        """Forget the finished tables that have been idle (see :meth:`Room.idle`) for ``after``
        seconds as of ``now``, so that a server running for months does not keep every game
        ever played; returns their ids."""
        forgotten = []
        for table_id, room in list(self.rooms.items()):
            if not room.idle():
                self._idle_since.pop(table_id, None)
            elif now - self._idle_since.setdefault(table_id, now) >= after:
                del self.rooms[table_id], self._idle_since[table_id]
                if self.bus is not None:
                    await self.bus.let_go(table_id)
                forgotten.append(table_id)
        return forgotten

    async def keep_forgetting(self) -> None:
        while True:
            await asyncio.sleep(FORGET_EVERY)
            if forgotten := await self.forget_finished(time.monotonic()):
                log.info("forgot %d finished tables nobody looks at", len(forgotten))

    async def drain(self, within: float) -> None:
        """Before the process stops: no bot starts another move and the clocks stop; a bot's
        move being stored is waited for (at most ``within`` seconds), a bot that is thinking is
        stopped (the process that takes the table over asks its bot again). Every bot has given
        its table's lease back when this returns, before the bus closes."""
        self.bots.closing = True
        if self.bus is None:
            await self._pause_clocks()
        storing, stopped = [], []
        for room in self.rooms.values():
            room.clocks.stop()
            task = room.botseats.task
            if task is None or task.done():
                continue
            if room.botseats.storing:
                storing.append(task)
            else:
                task.cancel()
                stopped.append(task)
        if storing:
            await asyncio.wait(storing, timeout=within)
        for task in storing:
            task.cancel()
        if stopped or storing:
            # A cancelled bot gives its lease back as it stops: a moment's Redis call each.
            await asyncio.wait([*stopped, *storing], timeout=within)
        # What the host reads at a restart: how many games this process held, and that none
        # is lost (the people's clients reconnect on their own, code 1012).
        playing = sum(room.status == TableStatus.PLAYING for room in self.rooms.values())
        log.info(
            "stopping: games in play here %d (they go on %s), bots stopped thinking %d, bot "
            "moves stored first %d",
            playing,
            "at another process, or the next start"
            if self.bus is not None
            else "at the next start",
            len(stopped),
            len(storing),
        )

    async def _pause_clocks(self) -> None:
        """The one process stops: the running clocks are stored stopped, and the next start
        gives back the time it was away. (Behind a bus the other processes play on, and a
        clock must not stop.)"""
        now = self.clock.now()
        paused = []
        for room in self.rooms.values():
            if room.status == TableStatus.PLAYING and (clock := room.clocks.paused(now)):
                paused.append((room.id, room.move, clock))
        if not paused:
            return
        try:
            await self.store.keep_clocks(paused)
        except StorageUnavailable:
            log.warning("the clocks of %d tables could not be stopped: they ran on", len(paused))

    async def hold(self, room: Room) -> None:
        """Hold ``room`` here (it is new, or was just read from the database)."""
        if self.bus is not None:
            room.replica.bus = self.bus
            await self.bus.hold(room.id)
        room.on_over = self.ratings.rate
        self.rooms[room.id] = room

    async def resume(self) -> int:
        """Rebuild every unfinished table from its stored record; bots carry on."""
        unfinished = (TableStatus.WAITING, TableStatus.PLAYING)
        for stored in await self.store.load(unfinished):
            await self.hold(archive.from_stored(stored, self.store, self.bots, self.clock))
        if self.bus is not None:
            # Moves stored by other processes while the first read ran were not heard.
            for stored in await self.store.load(unfinished):
                if (room := self.rooms.get(stored.id)) is not None:
                    await room.replica.catch_up(stored)
            for room in self.rooms.values():
                await room.replica.ask_presence()
        # Clocks a planned restart stopped run again from now: stored so, or a second start
        # would give the same time back again.
        given_back = [r for r in self.rooms.values() if r.clocks.given_back]
        if given_back:
            await self.store.keep_clocks([(r.id, r.move, r.clocks.record()) for r in given_back])
        for room in given_back:
            room.clocks.given_back = False
        for room in self.rooms.values():
            room.note_presence()  # nobody is connected yet: the clocks count from now
            room.clocks.arm()
            room.botseats.wake()
        await self.judge_unrated()
        return len(self.rooms)

    async def judge_unrated(self) -> int:
        """Rate the rated games that ended without a verdict (the process that stored the end
        died, or the database failed, before it rated them), each as of its last move, in the
        order they ended; how many were judged here."""
        stored = []
        for table_id in await self.store.rating_due():
            stored.extend(await self.store.load((), table_id=table_id))
        judged = 0
        for table in sorted(stored, key=lambda t: t.last_at or 0):
            room = archive.from_stored(table, self.store, self.bots, self.clock)
            ended = (
                None if table.last_at is None else datetime.fromtimestamp(table.last_at / 1000, UTC)
            )
            if await self.ratings.rate(room, ended) is not None:
                judged += 1
        if judged:
            log.info("rated %d games that had ended without a verdict", judged)
        return judged

    async def open(
        self,
        kinds: list[str],
        rules: str,
        *,
        name: str | None,
        creator: int | None = None,
        seed: int | None = None,
        public: bool = False,
        hints: bool = False,
        part: str | None = None,
        pace: str | None = None,
        stand_in: str = STAND_IN,
        resign: str | None = None,
        player: str | None = None,
        rated: bool = False,
        claim: Claim | None = None,
    ) -> Opened:
        """Open a table of ``kinds`` (``human`` or a bot the server offers, by name) under the
        ``rules`` spec, the creator ``name`` seated at ``creator`` (else the first person's
        seat), at ``pace`` (a name the server offers), with the ``stand_in`` bot for a person
        who is away and the ``resign`` rule; ``player`` is the creator's browser's key. A
        ``rated`` game counts for the people's ratings.

        With ``name`` ``None`` nobody sits down yet and no seat has a credential: each person's
        seat waits for the player "Find a game" reserved it for (:mod:`.pairing`). ``claim``
        runs in the transaction that stores the table, given its id: what it raises is raised
        here, and the table is then neither stored nor held.
        Raises :class:`TableRefused` saying what was wrong."""
        checked = []
        for i, kind in enumerate(kinds):
            try:
                checked.append(kind if kind == HUMAN else self.bots.roster.choose(kind))
            except UnknownBot as exc:
                raise TableRefused(f"seat {i + 1}: {exc}") from None  # counted as people do
        kinds = checked
        humans = [i for i, k in enumerate(kinds) if k == HUMAN]
        if not humans:
            raise TableRefused("a table needs at least one person's seat ('human')")
        seat = humans[0] if creator is None else creator
        if seat not in humans:
            raise TableRefused(f"seat {seat + 1} is not a person's seat")
        if name is None and len(humans) == 1:
            # Its game would start at once, without the person's part of the deal.
            raise TableRefused("a table with one person opens with that person seated")
        setup = self._setup(len(kinds), len(humans), pace, stand_in, resign, rated)
        if rated:
            self._check_rated(kinds, seed, hints, player if name is not None else "")
        if seed is not None and len(humans) > 1:
            # Whoever chose the seed could deal the game at home and know every hand.
            raise TableRefused(
                "seed: a chosen seed is only for a table with one person; with others at the "
                "table the deal is the server's secret"
            )
        # The deal: a seed the only person chose, or the server's secret and the people's parts
        # (core/commitment.py), dealt once the last part is in.
        parts: list[str | None] = [part if i == seat else None for i in range(len(kinds))]
        deal: dict[str, Any] = {"chosen": True} if seed is not None else {"secret": new_secret()}
        if seed is None and len(humans) == 1:
            seed = seed_from(deal["secret"], parts)
        try:
            # Waiting for people: a stand-in nobody is shown, dealt again when they are in.
            game = new_game(len(kinds), rules, 0 if seed is None else seed)
        except ValueError as exc:
            raise TableRefused(f"rules {rules!r}: {exc}") from None
        # Every key of a player names the same player (a sign-in's key too).
        creator_id = None if player is None else await self.players.identify(player)
        tokens = {i: new_token() for i in humans} if name is not None else {}
        spectator = new_token()
        seats = [
            Seat(
                k,
                name if i == seat else None,
                token_hash(tokens[i]) if i in tokens else None,
                hints and i == seat,
                part=parts[i],
                player_hash=creator_id if i == seat else None,
            )
            for i, k in enumerate(kinds)
        ]
        room = Room(
            new_table_id(),
            game,
            seats,
            rules_spec=rules,
            public=public,
            spectator_hash=token_hash(spectator),
            status=TableStatus.PLAYING if len(humans) == 1 else TableStatus.WAITING,
            store=self.store,
            bots=self.bots,
            setup=setup,
            clock=self.clock,
            deal=deal,
        )
        if room.status == TableStatus.PLAYING:
            room.clocks.start(self.clock.now())
        table_id = room.id
        also = None if claim is None else (lambda conn: claim(conn, table_id))
        await self.store.create(archive.to_stored(room), also)
        await self.hold(room)
        room.note_presence()
        room.botseats.wake()
        return Opened(room, seat, tokens, spectator)

    @staticmethod
    def _check_rated(kinds: list[str], seed: int | None, hints: bool, player: str | None) -> None:
        """Refuse a rated table that could not be rated (:mod:`.ratings`)."""
        if seed is not None:
            raise TableRefused("rated: a rated table's deal is the server's secret (no seed)")
        if hints:
            raise TableRefused("rated: a rated table has no hints")
        if player is None:
            raise TableRefused("rated: a rated game needs your player key (player)")
        for i, kind in enumerate(kinds):
            if kind != HUMAN and kind not in BOT_RATINGS:
                raise TableRefused(
                    f"seat {i + 1}: {kind} has no fixed rating; a rated table's bots are "
                    + ", ".join(BOT_RATINGS)
                )

    def _setup(
        self,
        players: int,
        people: int,
        pace: str | None,
        stand_in: str,
        resign: str | None,
        rated: bool = False,
    ) -> TableSetup:
        """The table's pace, stand-in and resign rule as asked (the defaults where not), or
        :class:`TableRefused` saying what was wrong."""
        try:
            chosen = self.paces.choose(pace or (ALONE if people == 1 else WITH_PEOPLE))
        except UnknownPace as exc:
            raise TableRefused(f"pace: {exc}") from None
        if not chosen.timed and people > 1:
            # Nobody could take over from a person who leaves: the others would wait for ever.
            raise TableRefused(
                f"pace: {chosen.name} has no clock, which is only for a table with one person"
            )
        try:
            stand_in = self.bots.roster.choose(stand_in)
        except UnknownBot as exc:
            raise TableRefused(f"stand_in: {exc}") from None
        resign = resign or default_resign(players)
        if resign == RESIGN_END and players != 2:
            raise TableRefused(
                "resign: a resignation ends the game only at a table of two; with more "
                "players the stand-in plays on (play_on)"
            )
        if resign not in (RESIGN_END, RESIGN_PLAY_ON):
            raise TableRefused("resign: end or play_on")
        return TableSetup(chosen, stand_in, resign, rated)

    async def room(self, table_id: str) -> Room:
        """The table ``table_id``, held here from now on; :class:`NoTable` if there is none."""
        room = self.rooms.get(table_id)
        if room is None:
            async with self._loading:
                if (room := self.rooms.get(table_id)) is not None:
                    return room
                if self.bus is not None:
                    await self.bus.hold(table_id)  # before reading: no news falls between
                # A finished table is not held after a restart; its record is still stored.
                found = await self.store.load((), table_id=table_id)
                if not found:
                    raise NoTable(table_id)
                room = archive.from_stored(found[0], self.store, self.bots, self.clock)
                await self.hold(room)
            if self.bus is not None:
                await room.replica.catch_up()  # news heard while reading found no room to go to
                await room.replica.ask_presence()
        return room


__all__ = ["FORGET_AFTER", "LISTED_AWAY", "Claim", "Hub", "NoTable", "Opened", "TableRefused"]
