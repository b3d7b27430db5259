"""The tables the server holds: one authoritative :class:`~piepmatz.core.Game` each.

A :class:`Room` holds a table's game and seats, and plays what they ask: seats taken, moves
stored before anyone hears of them, chat. It holds no rule: legality, turns and what a seat may
see are the core's (``Game.apply``, ``view_of``, ``filter_event``). Its parts do the rest: what
each connection is sent (:mod:`.fanout`), previews and hints (:mod:`.advice`), the bots' seats
(:mod:`.botplay`), the news to and from other server processes (:mod:`.replication`), and
what is kept of it, stored and recorded (:mod:`.archive`), its clocks (:mod:`.clocks`) and
who stands in for a person who is away, and how a game ends early (:mod:`.standins`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import hmac
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from piepmatz.core import Game, PiepmatzError
from piepmatz.core.commitment import commit
from piepmatz.i18n import _
from piepmatz.text.words import bot_name, reason, seat_name

from . import metrics
from .advice import Advice
from .botplay import BotSeats
from .clocks import Clock, Clocks, SystemClock, ms
from .fanout import Audience
from .messages import CHAT_HISTORY, Ack, ChatLine, SeatInfo, TableInfo
from .news import BotSeatNews, ChatLineNews, ChatNews, MoveNews, PresenceNews, SeatNews
from .pace import TableSetup
from .players import Players
from .pool import BotPool
from .replication import Replica
from .seats import Connection, RoomError, Seat, new_token, token_hash, token_matches
from .standins import StandIns
from .store import (
    MoveTaken,
    SeatTaken,
    StorageUnavailable,
    Store,
    StoredChat,
    TableOver,
)
from .vocabulary import Absence, ErrorCode, TableStatus

log = logging.getLogger("piepmatz.server")


class Room:
    """One table: its game, its seats and what is said there."""

    def __init__(
        self,
        table_id: str,
        game: Game,
        seats: list[Seat],
        *,
        rules_spec: str,
        public: bool,
        spectator_hash: str,
        status: str,
        store: Store,
        bots: BotPool,
        setup: TableSetup | None = None,
        clock: Clock | None = None,
        deal: dict[str, Any] | None = None,
        ending: dict[str, Any] | None = None,
        rematch: dict[str, Any] | None = None,
    ) -> None:
        self.id = table_id
        #: How the deal's seed is made (``db.tables.c.deal``): while the table waits for
        #: people under a commitment, ``game`` is a stand-in that nobody is shown, dealt
        #: again once the last part is in.
        self.deal = deal
        self.game = game
        self.seats = seats
        self.rules_spec = rules_spec
        self.public = public
        self.spectator_hash = spectator_hash
        self.status = TableStatus(status)
        self.store = store
        self.bots = bots
        #: The table's pace, stand-in and resign rule (untimed, ``medium``: a table opened by
        #: hand, as tests do).
        self.setup = setup or TableSetup.from_json(None, len(seats))
        #: How the game ended (``StandIns.ending``), once it has.
        self.ending = ending
        #: Where its people play again, once one of them asked: ``{"table", "by"}``.
        self.rematch = rematch
        #: Connections saying hello, not yet among the table's (they wait for the chat).
        self.joining = 0
        self.lock = asyncio.Lock()
        #: Since when (monotonic seconds) no seated person has been connected, here or at
        #: another process; ``None`` while someone is. A table is new, or was just read, so the
        #: clock starts now.
        self.away_since: float | None = time.monotonic()
        self.audience = Audience(self)
        self.advice = Advice(self)
        self.replica = Replica(self)
        self.botseats = BotSeats(self)
        self.clocks = Clocks(self, self.setup.pace, clock or SystemClock())
        self.standins = StandIns(self)
        #: What follows a game that ended here (the hub rates a rated table's game).
        self.on_over: Callable[[Room], Awaitable[object]] | None = None

    # ------------------------------------------------------------------ building

    # ------------------------------------------------------------------ seats

    @property
    def move(self) -> int:
        """The number of actions taken: the move an action must answer."""
        return len(self.game.actions)

    def seat_names(self) -> list[str]:
        """Each seat as people read it in sentences (the current language): a person by the
        name they chose, a bot as "Bot N", a free seat as "Player N" (N counted from 1)."""
        return [
            (s.name or seat_name(i)) if s.is_human else bot_name(i)
            for i, s in enumerate(self.seats)
        ]

    def free_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.is_human and s.name is None]

    def seat_for(self, token: str, player: str | None = None) -> int | None:
        """The seat whose credential ``token`` is (or whose person is the player ``player``,
        the id :meth:`Players.identify` found for a player key); checks every seat, so timing
        is even."""
        found = None
        for i, seat in enumerate(self.seats):
            if token_matches(token, seat.token_hash):
                found = i
            if (
                player is not None
                and seat.player_hash is not None
                and hmac.compare_digest(player, seat.player_hash)
                and seat.name is not None
            ):
                found = i
        return found

    def is_spectator_token(self, token: str) -> bool:
        return token_matches(token, self.spectator_hash)

    @property
    def hints(self) -> bool:
        """Hints are on when every person's seat allows them (a free seat does not, yet)."""
        return all(s.hints for s in self.seats if s.is_human)

    async def take_seat(
        self,
        seat: int | None,
        name: str,
        token: str | None,
        hints: bool = False,
        part: str | None = None,
        player: str | None = None,
    ) -> tuple[int, str]:
        """A person sits down at ``seat`` (an invite's) or the first free one (a public table,
        with a new credential), allowing hints or not, adding ``part`` to the deal and, with
        ``player``, their browser's player key; the game is dealt and starts (the clocks
        too) once every person's seat is taken."""
        # Every key of a player names the same player (a sign-in's key too).
        player_hash = None if player is None else await Players(self.store).identify(player)
        async with self.lock:
            if (
                self.setup.rated
                and player_hash is not None
                and any(s.player_hash == player_hash for s in self.seats)
            ):
                # One player at two seats would play against themselves for a rating.
                raise RoomError(ErrorCode.SEAT_TAKEN, _("you sit at this rated table already"))
            public = seat is None
            while True:
                free = self.free_seats()
                if public:
                    if not free:
                        raise RoomError(ErrorCode.FULL, _("every seat at this table is taken"))
                    seat, token = free[0], new_token()
                elif seat is not None and seat not in free:  # an invite's seat: the one asked
                    raise RoomError(
                        ErrorCode.SEAT_TAKEN,
                        _("seat {seat} is already taken").format(seat=seat + 1),
                    )
                assert seat is not None and token is not None
                now = self.clocks.clock.now()
                try:
                    status, seed = await self.store.take_seat(
                        self.id,
                        seat,
                        name,
                        token_hash(token),
                        hints,
                        part,
                        player_hash,
                        self.clocks.at_start(now),
                    )
                    break
                except SeatTaken:
                    # Taken through another server process: this copy was behind. A public
                    # table's newcomer tries the next free seat.
                    await self.replica.catch_up_locked()
                except TableOver:
                    # Closed by the operator while it waited: this copy learns it (and leaves
                    # the lobby's list); nobody sits down at a closed table.
                    await self.replica.catch_up_locked()
                    raise RoomError(
                        ErrorCode.NOT_PLAYING, _("this table has been closed")
                    ) from None
            await self.replica.tell(
                SeatNews(
                    seat=seat,
                    name=name,
                    token_hash=token_hash(token),
                    hints=hints,
                    part=part,
                    status=TableStatus(status),
                    seed=seed,
                    player_hash=player_hash,
                )
            )
            await self.seated(seat, name, token_hash(token), hints, status, part, seed, player_hash)
        self.botseats.wake()
        return seat, token

    async def seated(
        self,
        seat: int,
        name: str,
        hashed: str,
        hints: bool,
        status: str,
        part: str | None = None,
        seed: int | None = None,
        player_hash: str | None = None,
    ) -> None:
        """Seat ``seat``'s person (here, or heard from another process); the game is dealt from
        ``seed`` when that was the last part, and the clocks start."""
        self.seats[seat].name = name
        self.seats[seat].token_hash = hashed
        self.seats[seat].hints = hints
        self.seats[seat].part = part
        self.seats[seat].player_hash = player_hash
        await self._seats_changed(status, seed)

    async def seat_bot(self, seat: int, bot: str) -> None:
        """A bot (``bot``, a spec the server offers) takes a person's seat nobody has taken,
        at a table still waiting: someone who does not come no longer holds it up, and the
        game starts once every other person's seat is taken. A rated table's seats are
        people's."""
        async with self.lock:
            if self.status != TableStatus.WAITING:
                raise RoomError(ErrorCode.NOT_WAITING, _("the game at this table has begun"))
            if self.setup.rated:
                raise RoomError(
                    ErrorCode.PEOPLE_ONLY, _("a rated table's seats are for people only")
                )
            if seat not in self.free_seats():
                raise RoomError(
                    ErrorCode.SEAT_TAKEN,
                    _("seat {seat} is not a free person's seat").format(seat=seat + 1),
                )
            now = self.clocks.clock.now()
            try:
                status, seed = await self.store.seat_bot(
                    self.id, seat, bot, self.clocks.at_start(now)
                )
            except SeatTaken:
                await self.replica.catch_up_locked()  # taken meanwhile through another process
                raise RoomError(
                    ErrorCode.SEAT_TAKEN, _("seat {seat} was taken meanwhile").format(seat=seat + 1)
                ) from None
            except TableOver:
                await self.replica.catch_up_locked()
                raise RoomError(ErrorCode.NOT_PLAYING, _("this table has been closed")) from None
            await self.replica.tell(
                BotSeatNews(seat=seat, bot=bot, status=TableStatus(status), seed=seed)
            )
            await self.bot_seated(seat, bot, status, seed)
        self.botseats.wake()

    async def bot_seated(self, seat: int, bot: str, status: str, seed: int | None) -> None:
        """Seat ``seat``'s bot (here, or heard from another process)."""
        self.seats[seat].kind = bot
        self.seats[seat].token_hash = None
        await self._seats_changed(status, seed)

    async def _seats_changed(self, status: str, seed: int | None) -> None:
        """A seat was taken: the game is dealt from ``seed`` when that was the last part, and
        the clocks start; everyone here is told."""
        if seed is not None and self.status == TableStatus.WAITING:
            self.deal_from(seed)
        started = self.status == TableStatus.WAITING and status == TableStatus.PLAYING
        self.status = TableStatus(status)
        if started:
            self.clocks.start(self.clocks.clock.now())
            self.note_presence()  # whoever is not connected now counts as gone from now
        await self.audience.announce_table()
        if status == TableStatus.PLAYING:
            await self.audience.broadcast_state()

    # ------------------------------------------------------------------ connections

    async def connect(self, conn: Connection) -> None:
        self.joining += 1  # before the first wait: the table is not idle from here on
        try:
            # Under the lock: the full state must reach the client before any later move's,
            # and a chat line is either in the history read here or told to it afterwards.
            async with self.lock:
                try:
                    chat = await self.store.recent_chat(self.id, CHAT_HISTORY)
                except StorageUnavailable:
                    chat = []  # the game goes on without the chat's history while it is away
                conn.chat_upto = max((line.id for line in chat), default=0)
                if conn.seat is None:
                    self.audience.spectators.add(conn)
                else:
                    self.seats[conn.seat].connections.add(conn)
                if self.status != TableStatus.WAITING:
                    await conn.send(self.audience.state_message(conn, full=True))
                for seat in self.botseats.replaced:
                    await conn.send(self.botseats.not_offered(seat))
                for line in chat if conn.hears_chat else []:
                    if line.seat not in conn.muted:
                        await conn.send(_chat_message(line))
                await self.presence_changed()
                if conn.seat is not None and self.seats[conn.seat].stood_in:
                    await self.standins.back_locked(conn.seat)
        finally:
            self.joining -= 1
        self.botseats.wake()

    async def disconnect(self, conn: Connection) -> None:
        async with self.lock:
            if conn.seat is None:
                self.audience.spectators.discard(conn)
            else:
                self.seats[conn.seat].connections.discard(conn)
            await self.presence_changed()

    async def presence_changed(self, ask: bool = False) -> None:
        """Someone came or went: the table (here and at the other processes) is told."""
        self.note_presence()
        await self.replica.tell(self.presence_here(ask))
        await self.audience.announce_table()

    def presence_here(self, ask: bool = False) -> PresenceNews:
        """Who is connected to this process: connections per seat, spectators; and how far."""
        seats = [sum(not c.broken for c in s.connections) for s in self.seats]
        return PresenceNews(
            ask=ask,
            seats=seats,
            spectators=len(self.audience.spectators),
            progress=self.progress(),
        )

    def note_presence(self) -> None:
        """Keep :attr:`away_since` and the clocks' count of who is disconnected up to date after
        someone came or went, here or elsewhere."""
        here = any(not c.broken for s in self.seats for c in s.connections)
        if here or self.replica.anyone_seated():
            self.away_since = None
        elif self.away_since is None:
            self.away_since = time.monotonic()
        if self.status == TableStatus.PLAYING:
            self.clocks.presence(
                [self.connected(i) for i in range(len(self.seats))], self.clocks.clock.now()
            )

    def connected(self, seat: int) -> bool:
        """Someone is connected at ``seat``, here or at another process."""
        return any(not c.broken for c in self.seats[seat].connections) or (
            self.replica.seat_connected(seat)
        )

    def progress(self) -> list[int]:
        """How far the table is: its status, the seats taken, the moves; each only grows. Sent
        with every reminder of who is connected, so that a process whose news of a seat or a
        move was lost, and to which no later move comes (the next to act waits there), sees
        the gap."""
        seated = sum(s.name is not None for s in self.seats if s.is_human)
        return [list(TableStatus).index(self.status), seated, self.move]

    def idle(self) -> bool:
        """The game is over and nothing here uses the table: no connection (or one saying
        hello), no bot, no hint being worked out, nobody holding its lock."""
        return (
            self.status == TableStatus.OVER
            and not self.audience.connections()
            and not self.joining
            and not self.advice.hinting
            and not self.botseats.thinking()
            and not self.lock.locked()
        )

    def info(self) -> TableInfo:
        return TableInfo(
            table=self.id,
            status=self.status,
            players=len(self.seats),
            rules=self.rules_spec,
            seats=[
                SeatInfo(
                    seat=i,
                    kind=s.kind,
                    name=s.name if s.is_human else s.kind,
                    connected=self.connected(i) if s.is_human else True,
                    hints=s.hints if s.is_human else None,
                    absent=Absence(s.absent) if s.absent is not None else None,
                )
                for i, s in enumerate(self.seats)
            ],
            spectators=len(self.audience.spectators) + self.replica.spectators(),
            hints=self.hints,
            commitment=self.commitment,
            pace=self.setup.pace.to_json(),
            stand_in=self.setup.stand_in,
            resign=self.setup.resign,
            abort=[i for i, s in enumerate(self.seats) if s.abort],
            abortable=self.standins.abortable(),
            ending=self.ending,
            rated=self.setup.rated,
            rematch=self.rematch,
        )

    # ------------------------------------------------------------------ playing

    async def act(
        self,
        seat: int,
        move: int,
        text: str | int,
        sender: Connection | None = None,
        by: str | None = None,
    ) -> str:
        """Play ``text`` for ``seat`` answering ``move``; stored before it is announced. The
        ``ack`` goes to the ``sender`` (or, for a bot, to the seat's connections): another
        connection of the seat racing it hears its own answer, not this one's. ``by`` names
        the stand-in that plays it for the seat's person.

        Raises :class:`RoomError` (and changes nothing) when it cannot be played.
        """
        async with self.lock:
            if self.status != TableStatus.PLAYING:
                raise RoomError(
                    ErrorCode.NOT_PLAYING,
                    "the game is over"
                    if self.status == TableStatus.OVER
                    else "the game has not started",
                )
            if move < self.move:
                raise RoomError(
                    ErrorCode.STALE,
                    f"action for move {move}, but the game is at move {self.move}: "
                    "it answers an earlier position (sent twice?) and is not played",
                )
            if move > self.move:
                raise RoomError(
                    ErrorCode.NOT_YET,
                    f"action for move {move}, but the game is at move {self.move}: "
                    "that move has not come yet",
                )
            now = self.clocks.clock.now()
            await self.standins.check_act(seat, by, now)
            state = self.game.state
            try:
                action = state.parse_action(text, player=seat)
            except PiepmatzError as exc:
                raise RoomError(ErrorCode.ILLEGAL, reason(exc)) from None
            # The game moves on only once the move is stored: until then (and for good, if the
            # store fails) every reader sees the position before it.
            after = state.copy(events=False)
            after.apply_id(action.id)
            over = after.is_over()
            left = self.clocks.after_move(seat, now, stood_in=by is not None)
            ending = self.standins.played_out(after, (seat, by)) if over else None
            try:
                await self.store.add_move(
                    self.id,
                    move,
                    seat,
                    str(action),
                    TableStatus.OVER if over else None,
                    at=ms(now),
                    clock=left,
                    by=by,
                    ending=ending,
                )
            except TableOver:
                # Resigned or aborted at another process first.
                await self.replica.catch_up_locked()
                raise RoomError(ErrorCode.NOT_PLAYING, "the game is over") from None
            except StorageUnavailable as exc:
                raise RoomError(ErrorCode.UNAVAILABLE, f"{exc}: the move was not played") from None
            except MoveTaken:
                # Another connection (at another server process) was first: its move stands,
                # this copy of the table catches up with it, and this action is not played.
                log.info("table %s: move %d was taken first at another process", self.id, move)
                await self.replica.catch_up_locked()
                raise RoomError(
                    ErrorCode.STALE,
                    f"action for move {move}, but another action for that move was played "
                    "first (a second connection of this seat?): this one is not played",
                ) from None
            except Exception:
                log.exception("table %s: could not store move %d", self.id, move)
                raise RoomError(
                    ErrorCode.STORAGE, "the move could not be stored; try again"
                ) from None
            self.game.apply(action, player=seat)
            if sender is not None:
                metrics.MOVES_PERSON.inc()
            elif by is not None:
                metrics.MOVES_STAND_IN.inc()
            else:
                metrics.MOVES_BOT.inc()
            self.clocks.moved(now, left)
            self.standins.movers.append((seat, by))
            if over:
                self.status = TableStatus.OVER
                self.ending = ending
            await self.replica.tell(
                MoveNews(move=move, seat=seat, action=str(action), at=ms(now), clock=left, by=by)
            )
            # Announced under the lock, so that every client hears the moves in order.
            # A stand-in's move is nobody's to acknowledge: the person did not send it.
            acked = () if by is not None else (sender,) if sender else self.seats[seat].connections
            for conn in acked:
                await conn.send(Ack(move=move, action=str(action)).model_dump_json())
            if over:
                await self.audience.announce_table()
            await self.audience.broadcast_state()
            self.clocks.arm()
        self.botseats.wake()
        if over:
            await self.game_over()
        return str(action)

    async def game_over(self) -> None:
        """The game ended here (its end was stored by this process): what follows a game,
        such as the ratings of a rated table (``on_over``, set by the hub). A failure there is
        logged; the game's end stands."""
        if self.on_over is None:
            return
        try:
            await self.on_over(self)
        except Exception:
            log.exception("table %s: what follows the game's end failed", self.id)

    async def time_is_up(self) -> None:
        """The clocks' timer rang: a stand-in plays for whoever's time is up."""
        async with self.lock:
            for seat, why in self.clocks.due():
                await self.standins.replace_locked(seat, why)
            self.clocks.arm()
        self.botseats.wake()

    async def chat(self, seat: int, text: str) -> None:
        line = StoredChat(seat, self.seats[seat].name or f"seat {seat}", text, datetime.now(UTC))
        line = dataclasses.replace(line, id=await self.store.add_chat(self.id, line))
        said = ChatLineNews(seat=line.seat, name=line.name, text=line.text)
        news = ChatNews(line=said, sent=line.sent.isoformat(), id=line.id)
        if await self.replica.tell(news):
            return  # every process sends it on hearing it, this one too
        async with self.lock:
            await self.audience.tell_chat(_chat_message(line), line.id, line.seat)

    # ------------------------------------------------------------------ the deal and records

    @property
    def commitment(self) -> str | None:
        """The commitment to the server's part of the deal, shown from the start (``None``
        where the seed was chosen, or the table is older than commitments)."""
        if self.deal is None or "secret" not in self.deal:
            return None
        return commit(self.deal["secret"])

    def deal_from(self, seed: int) -> None:
        """Deal the game from the seed every part gave (the stand-in had no moves)."""
        options = dataclasses.replace(self.game.options, seed=seed)
        self.game = Game(options, self.game.version)


def _chat_message(line: StoredChat) -> str:
    return ChatLine(
        seat=line.seat, name=line.name, text=line.text, sent=line.sent.isoformat()
    ).model_dump_json()
