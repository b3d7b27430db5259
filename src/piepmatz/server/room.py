"""The tables the server holds: one authoritative :class:`~piepmatz.core.Game` each.

A :class:`Room` translates between the game and the connections at its table. It holds no rule:
legality, turns and what a seat may see are the core's (``Game.apply``, ``view_of``,
``filter_event``). Every accepted action is stored before anyone hears of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import hmac
import logging
import secrets
import time
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from piepmatz.bots.base import BotMoveError, derive_seed
from piepmatz.core import Game, PiepmatzError, state_to_json, view_of, views_to_json
from piepmatz.core.commitment import DealProof, commit
from piepmatz.core.events import Event, event_to_json
from piepmatz.core.game import RECORD_FORMAT, RECORD_VERSION
from piepmatz.core.scoring import majorities
from piepmatz.core.view import filter_event
from piepmatz.i18n import _, use_language
from piepmatz.text.words import reason, tell

from .bots import FALLBACK_BOT, BotPool
from .messages import (
    CHAT_HISTORY,
    Ack,
    ActionPreview,
    BotReplaced,
    ChatLine,
    Error,
    HintAnswer,
    Previews,
    SeatInfo,
    TableInfo,
    state_message,
)
from .roster import HUMAN
from .store import (
    MoveTaken,
    SeatTaken,
    StorageUnavailable,
    Store,
    StoredChat,
    StoredSeat,
    StoredTable,
)

if TYPE_CHECKING:
    from .bus import Bus

#: A table's status, in the order it goes through them.
STATUSES = ("waiting", "playing", "over")
log = logging.getLogger("piepmatz.server")


def new_token() -> str:
    """A seat credential: 256 bits from ``secrets``, URL-safe."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: str, stored: str | None) -> bool:
    """Compare in constant time, so that timing tells nothing about a stored hash."""
    return stored is not None and hmac.compare_digest(token_hash(token), stored)


#: Why a stored table's bot was replaced for good.
NOT_OFFERED = "this server does not offer it"

#: Seconds a message may take to leave, and a close to finish; a client that stops reading is
#: cut off after that (by its outbox, :mod:`.outbox`).
SEND_TIMEOUT = 10.0


class Client(Protocol):
    """A connection at a table (a WebSocket's outbox in the app, a checking double in tests).

    ``send`` queues and returns at once, never waiting on the network: a table announces each
    move under its lock, so one client that stopped reading would hold up the whole table. It
    raises once the client is gone or cut off.
    """

    async def send(self, text: str) -> None: ...

    async def close(self) -> None: ...


@dataclass(eq=False)
class Connection:
    client: Client
    seat: int | None  # None: a spectator
    #: The language this connection's sentences are told in (the page's, when it connected).
    lang: str = "en"
    #: How many log entries this connection has received.
    events_sent: int = 0
    #: A send failed or timed out: nothing more is sent, and the connection is being closed.
    broken: bool = False

    async def send(self, text: str) -> bool:
        if self.broken:
            return False
        try:
            await self.client.send(text)
        except Exception:  # gone, or not reading: the room forgets it when it closes
            self.broken = True
            _closing.add(task := asyncio.create_task(self._close()))
            task.add_done_callback(_closing.discard)
            return False
        return True

    async def _close(self) -> None:
        with contextlib.suppress(Exception):
            async with asyncio.timeout(SEND_TIMEOUT):
                await self.client.close()


#: Closing connections, held so that their tasks are not collected half-way.
_closing: set[asyncio.Task[None]] = set()


@dataclass
class Seat:
    kind: str
    name: str | None = None
    token_hash: str | None = None
    #: The person at this seat allows hints.
    hints: bool = False
    connections: set[Connection] = field(default_factory=set)
    #: The person's part of the deal's seed (``core.commitment``), once they sit down.
    part: str | None = None

    @property
    def is_human(self) -> bool:
        return self.kind == HUMAN


class RoomError(ValueError):
    """Something a client asked that cannot be done now; ``code`` names the kind."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

    def message(self) -> str:
        return Error(code=self.code, message=str(self)).model_dump_json()


class Room:
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
        deal: dict[str, Any] | None = None,
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
        self.status = status
        self.store = store
        self.bots = bots
        self.spectators: set[Connection] = set()
        #: Connections saying hello, not yet among the table's (they wait for the chat).
        self.joining = 0
        self.lock = asyncio.Lock()
        self.bot_task: asyncio.Task[None] | None = None
        #: Seats whose hint is being worked out (one at a time per seat).
        self.hinting: set[int] = set()
        #: The last hint per seat, with the move it answers: asked again, it is sent again.
        self.hints_given: dict[int, tuple[int, str]] = {}
        #: The other server processes holding this table (none in single-process mode), and
        #: who is connected there: connections per seat, spectators; by process.
        self.bus: Bus | None = None
        self.elsewhere: dict[str, tuple[list[int], int, float]] = {}
        #: Since when (monotonic seconds) no seated person has been connected, here or at
        #: another process; ``None`` while someone is. A table is new, or was just read, so the
        #: clock starts now.
        self.away_since: float | None = time.monotonic()
        #: Seats whose stored bot this server does not offer, with what was stored: each
        #: connection is told that another bot plays there.
        self.replaced: dict[int, str] = {}

    # ------------------------------------------------------------------ building

    @classmethod
    def from_stored(cls, stored: StoredTable, store: Store, bots: BotPool) -> Room:
        """Rebuild a table by replaying its stored record (options, seed, actions)."""
        game = Game.from_record(
            {
                "format": RECORD_FORMAT,
                "version": RECORD_VERSION,
                "options": stored.options,
                "actions": stored.actions,
                "result": None,
            }
        )
        seats = []
        replaced: dict[int, str] = {}
        for i, s in enumerate(stored.seats):
            kind = s.kind if s.kind == HUMAN else bots.roster.resumed(s.kind)
            if kind != s.kind:
                # Stored by an older server that took bot specs from requests: never built.
                log.warning("table %s: seat %d's bot is not offered; %s plays", stored.id, i, kind)
                replaced[i] = s.kind
            seats.append(Seat(kind, s.name, s.token_hash, s.hints, part=s.part))
        room = cls(
            stored.id,
            game,
            seats,
            rules_spec=str(stored.options.get("spec", stored.options.get("preset"))),
            public=stored.public,
            spectator_hash=stored.spectator_hash,
            status=stored.status,
            store=store,
            bots=bots,
            deal=stored.deal,
        )
        room.replaced = replaced
        return room

    def to_stored(self) -> StoredTable:
        options = self.game.options.to_json() | {"spec": self.rules_spec}
        return StoredTable(
            self.id,
            options,
            self.status,
            self.public,
            self.spectator_hash,
            [StoredSeat(s.kind, s.name, s.token_hash, s.hints, s.part) for s in self.seats],
            [str(a) for a in self.game.actions],
            self.deal,
        )

    # ------------------------------------------------------------------ seats

    @property
    def move(self) -> int:
        """The number of actions taken: the move an action must answer."""
        return len(self.game.actions)

    def free_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.is_human and s.name is None]

    def seat_for(self, token: str) -> int | None:
        """The seat whose credential ``token`` is; checks every seat, so timing is even."""
        found = None
        for i, seat in enumerate(self.seats):
            if token_matches(token, seat.token_hash):
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
    ) -> tuple[int, str]:
        """A person sits down at ``seat`` (an invite's) or the first free one (a public table,
        with a new credential), allowing hints or not and adding ``part`` to the deal; the game
        is dealt and starts once every person's seat is taken."""
        async with self.lock:
            public = seat is None
            while True:
                free = self.free_seats()
                if public:
                    if not free:
                        raise RoomError("full", _("every seat at this table is taken"))
                    seat, token = free[0], new_token()
                elif seat not in free:
                    raise RoomError(
                        "seat_taken", _("seat {seat} is already taken").format(seat=seat)
                    )
                assert seat is not None and token is not None
                try:
                    status, seed = await self.store.take_seat(
                        self.id, seat, name, token_hash(token), hints, part
                    )
                    break
                except SeatTaken:
                    # Taken through another server process: this copy was behind. A public
                    # table's newcomer tries the next free seat.
                    await self._catch_up()
            if self.bus is not None:
                await self.bus.publish(
                    self.id,
                    "seat",
                    seat=seat,
                    name=name,
                    token_hash=token_hash(token),
                    hints=hints,
                    part=part,
                    status=status,
                    seed=seed,
                )
            await self._seated(seat, name, token_hash(token), hints, status, part, seed)
        self.wake_bots()
        return seat, token

    async def _seated(
        self,
        seat: int,
        name: str,
        hashed: str,
        hints: bool,
        status: str,
        part: str | None = None,
        seed: int | None = None,
    ) -> None:
        self.seats[seat].name = name
        self.seats[seat].token_hash = hashed
        self.seats[seat].hints = hints
        self.seats[seat].part = part
        if seed is not None and self.status == "waiting":
            self._deal(seed)
        self.status = status
        await self.announce_table()
        if status == "playing":
            await self.broadcast_state()

    # ------------------------------------------------------------------ connections

    async def connect(self, conn: Connection) -> None:
        self.joining += 1  # before the first wait: the table is not idle from here on
        try:
            try:
                chat = await self.store.recent_chat(self.id, CHAT_HISTORY)
            except StorageUnavailable:
                chat = []  # the game goes on without the chat's history while the database is away
            # Under the lock: the full state must reach the client before any later move's.
            async with self.lock:
                if conn.seat is None:
                    self.spectators.add(conn)
                else:
                    self.seats[conn.seat].connections.add(conn)
                if self.status != "waiting":
                    await conn.send(self.state_message(conn, full=True))
                for seat in self.replaced:
                    await conn.send(self._not_offered(seat))
                for line in chat:
                    await conn.send(_chat_message(line))
                await self._presence_changed()
        finally:
            self.joining -= 1

    def _not_offered(self, seat: int) -> str:
        return BotReplaced(
            seat=seat,
            bot=self.replaced[seat],
            fallback=self.seats[seat].kind,
            move=self.move,
            reason=NOT_OFFERED,
        ).model_dump_json()

    async def disconnect(self, conn: Connection) -> None:
        async with self.lock:
            if conn.seat is None:
                self.spectators.discard(conn)
            else:
                self.seats[conn.seat].connections.discard(conn)
            await self._presence_changed()

    async def _presence_changed(self, ask: bool = False) -> None:
        self._note_presence()
        if self.bus is not None:
            await self.bus.publish(self.id, "presence", ask=ask, **self._presence_here())
        await self.announce_table()

    def _presence_here(self) -> dict[str, Any]:
        seats = [sum(not c.broken for c in s.connections) for s in self.seats]
        return {"seats": seats, "spectators": len(self.spectators), "progress": self.progress()}

    def _note_presence(self) -> None:
        """Keep :attr:`away_since` up to date after someone came or went, here or elsewhere."""
        here = any(not c.broken for s in self.seats for c in s.connections)
        if here or any(any(seats) for seats, _, _ in self.elsewhere.values()):
            self.away_since = None
        elif self.away_since is None:
            self.away_since = time.monotonic()

    def progress(self) -> list[int]:
        """How far the table is: its status, the seats taken, the moves; each only grows. Sent
        with every reminder of who is connected, so that a process whose news of a seat or a
        move was lost, and to which no later move comes (the next to act waits there), sees
        the gap."""
        seated = sum(s.name is not None for s in self.seats if s.is_human)
        return [STATUSES.index(self.status), seated, self.move]

    def idle(self) -> bool:
        """The game is over and nothing here uses the table: no connection (or one saying
        hello), no bot, no hint being worked out, nobody holding its lock."""
        return (
            self.status == "over"
            and not self.connections()
            and not self.joining
            and not self.hinting
            and (self.bot_task is None or self.bot_task.done())
            and not self.lock.locked()
        )

    def connections(self) -> list[Connection]:
        out = list(self.spectators)
        for seat in self.seats:
            out.extend(seat.connections)
        return out

    def info(self) -> TableInfo:
        return TableInfo(
            table=self.id,
            status=self.status,  # type: ignore[arg-type]
            players=len(self.seats),
            rules=self.rules_spec,
            seats=[
                SeatInfo(
                    seat=i,
                    kind=s.kind,
                    name=s.name if s.is_human else s.kind,
                    connected=(
                        any(not c.broken for c in s.connections)
                        or any(seats[i] for seats, _, _ in self.elsewhere.values())
                        if s.is_human
                        else True
                    ),
                    hints=s.hints if s.is_human else None,
                )
                for i, s in enumerate(self.seats)
            ],
            spectators=len(self.spectators) + sum(n for _, n, _ in self.elsewhere.values()),
            hints=self.hints,
            commitment=self.commitment,
        )

    async def announce_table(self) -> None:
        text = self.info().model_dump_json()
        for conn in self.connections():
            await conn.send(text)

    # ------------------------------------------------------------------ what a seat sees

    def state_message(self, conn: Connection, full: bool = False) -> str:
        """``conn``'s view now, with the log entries it has not had (all of them if ``full``)."""
        return self.state_messages([conn], full)[0]

    def state_messages(self, conns: list[Connection], full: bool = False) -> list[str]:
        """Each connection's ``state`` message now (see :meth:`state_message`). What seats see
        alike (the public part of the views, the score, the log's sentences in one language)
        is worked out once per position, not once per connection: a move is told to everyone."""
        state = self.game.state
        docs = views_to_json(state, {conn.seat for conn in conns})
        over = state.is_over()
        to_act = state.current_player if self.status == "playing" and not over else None
        legal = [str(a) for a in state.legal_actions()] if to_act is not None else []
        result = self.game.score().to_json() if over else None
        log_ = state.events or []
        # The log's new entries as JSON and told in a language, by the entries as a seat saw
        # them: seats that saw the same (no secret among them) share the work.
        told: dict[tuple[tuple[Event, ...], str], tuple[list[dict[str, Any]], list[str]]] = {}
        out = []
        for conn in conns:
            start = 0 if full else conn.events_sent
            seen = tuple(filter_event(e, conn.seat) for e in log_[start:])
            if (seen, conn.lang) not in told:
                # Sent from whichever task moved (a bot, another seat): in the receiver's words.
                with use_language(conn.lang):
                    told[seen, conn.lang] = (
                        [event_to_json(e) for e in seen],
                        [tell(e) for e in seen],
                    )
            events, log = told[seen, conn.lang]
            conn.events_sent = len(log_)
            message = state_message(
                move=self.move,
                view=docs[conn.seat],
                events_from=start,
                events=events,
                legal=legal if conn.seat == to_act else [],
                log=log,
                result=result,
            )
            out.append(message)
        return out

    def previews(self, seat: int, move: int) -> str:
        """What each of ``seat``'s legal actions at ``move`` would do, computed from the seat's
        view alone by the terminal game's preview (a sampled world, so nothing hidden leaks)."""
        from piepmatz.text.preview import preview

        if move != self.move:
            raise RoomError(
                "stale", f"preview for move {move}, but the game is at move {self.move}"
            )
        state = self.game.state
        if self.status != "playing" or state.is_over() or state.current_player != seat:
            raise RoomError("not_your_turn", "it is not your decision: nothing to preview")
        view = view_of(state, seat)
        out = []
        for action in state.legal_actions():
            shown = preview(view, action.id, seed=move)
            out.append(
                ActionPreview(action=str(action), headline=shown.headline, steps=list(shown.steps))
            )
        return Previews(move=move, previews=out).model_dump_json()

    async def hint(self, seat: int, move: int) -> str:
        """The ``hint`` message for ``seat``'s decision at ``move``: the hint bot's choice and
        its estimate, searched in the bot pool from the seat's view only.

        Raises :class:`RoomError` when hints are off, the move is not the current one, the
        decision is not the seat's, or the seat's previous hint is still being worked out.
        """
        if not self.hints:
            raise RoomError(
                "hints_off", "hints are off at this table: not every person allowed them"
            )
        if move != self.move:
            raise RoomError("stale", f"hint for move {move}, but the game is at move {self.move}")
        state = self.game.state
        if self.status != "playing" or state.is_over() or state.current_player != seat:
            raise RoomError("not_your_turn", "it is not your decision: nothing to hint")
        given = self.hints_given.get(seat)
        if given is not None and given[0] == move:
            return given[1]
        if seat in self.hinting:
            raise RoomError("hint_busy", "your hint is being worked out: wait for it")
        self.hinting.add(seat)
        try:
            seed = derive_seed(self.game.options.seed, "hint", move, seat)
            found = await self.bots.hint(view_of(state, seat), seed, owner=self.id)
        except (BotMoveError, BrokenProcessPool, ValueError, TimeoutError) as exc:
            log.error("table %s: hint for seat %d failed: %r", self.id, seat, exc)
            raise RoomError("hint_failed", "no hint: the search failed; ask again") from None
        finally:
            self.hinting.discard(seat)
        if move != self.move:
            raise RoomError("stale", f"the hint for move {move} came after the move was taken")
        e = found.estimate
        text = HintAnswer(
            move=move,
            action=e.text,
            bot=found.bot,
            lead=round(e.lead, 3),
            lead_spread=round(e.lead_spread, 3),
            win=round(e.win, 4),
            win_spread=round(e.win_spread, 4),
            worlds=e.worlds,
        ).model_dump_json()
        self.hints_given[seat] = (move, text)
        return text

    async def broadcast_state(self) -> None:
        conns = self.connections()
        for conn, text in zip(conns, self.state_messages(conns), strict=True):
            await conn.send(text)

    # ------------------------------------------------------------------ playing

    async def act(
        self, seat: int, move: int, text: str | int, sender: Connection | None = None
    ) -> str:
        """Play ``text`` for ``seat`` answering ``move``; stored before it is announced. The
        ``ack`` goes to the ``sender`` (or, for a bot, to the seat's connections): another
        connection of the seat racing it hears its own answer, not this one's.

        Raises :class:`RoomError` (and changes nothing) when it cannot be played.
        """
        async with self.lock:
            if self.status != "playing":
                raise RoomError(
                    "not_playing",
                    "the game is over" if self.status == "over" else "the game has not started",
                )
            if move < self.move:
                raise RoomError(
                    "stale",
                    f"action for move {move}, but the game is at move {self.move}: "
                    "it answers an earlier position (sent twice?) and is not played",
                )
            if move > self.move:
                raise RoomError(
                    "not_yet",
                    f"action for move {move}, but the game is at move {self.move}: "
                    "that move has not come yet",
                )
            state = self.game.state
            try:
                action = state.parse_action(text, player=seat)
            except PiepmatzError as exc:
                raise RoomError("illegal", reason(exc)) from None
            # The game moves on only once the move is stored: until then (and for good, if the
            # store fails) every reader sees the position before it.
            after = state.copy(events=False)
            after.apply_id(action.id)
            over = after.is_over()
            try:
                await self.store.add_move(
                    self.id, move, seat, str(action), "over" if over else None
                )
            except StorageUnavailable as exc:
                raise RoomError("unavailable", f"{exc}: the move was not played") from None
            except MoveTaken:
                # Another connection (at another server process) was first: its move stands,
                # this copy of the table catches up with it, and this action is not played.
                log.info("table %s: move %d was taken first at another process", self.id, move)
                await self._catch_up()
                raise RoomError(
                    "stale",
                    f"action for move {move}, but another action for that move was played "
                    "first (a second connection of this seat?): this one is not played",
                ) from None
            except Exception:
                log.exception("table %s: could not store move %d", self.id, move)
                raise RoomError("storage", "the move could not be stored; try again") from None
            self.game.apply(action, player=seat)
            if over:
                self.status = "over"
            if self.bus is not None:
                await self.bus.publish(self.id, "move", move=move, seat=seat, action=str(action))
            # Announced under the lock, so that every client hears the moves in order.
            for conn in self.seats[seat].connections if sender is None else (sender,):
                await conn.send(Ack(move=move, action=str(action)).model_dump_json())
            if over:
                await self.announce_table()
            await self.broadcast_state()
        self.wake_bots()
        return str(action)

    # ------------------------------------------------------------------ other processes

    async def hear(self, message: dict[str, Any]) -> None:
        """News of this table from another server process (``bus.Bus``)."""
        assert self.bus is not None
        kind = message["kind"]
        if kind == "chat":
            # Every process, the sender's too, hears chat here: one order everywhere.
            line = ChatLine(**message["line"], sent=message["sent"]).model_dump_json()
            for conn in self.connections():
                await conn.send(line)
            return
        if message["origin"] == self.bus.origin:
            return
        async with self.lock:
            if kind == "move":
                if message["move"] > self.move:
                    await self._catch_up()  # a message went missing: the database has it
                elif message["move"] == self.move:
                    self.game.apply(message["action"], player=message["seat"])
                    await self._announce_moves(1)
            elif kind == "seat" and self.seats[message["seat"]].name is None:
                status = max(self.status, message["status"], key=STATUSES.index)
                await self._seated(
                    message["seat"],
                    message["name"],
                    message["token_hash"],
                    bool(message.get("hints", False)),
                    status,
                    message.get("part"),
                    message.get("seed"),
                )
            elif kind == "presence":
                known = self.elsewhere.get(message["origin"])
                self.elsewhere[message["origin"]] = (
                    message["seats"],
                    message["spectators"],
                    time.monotonic(),
                )
                self._note_presence()
                # A process from before the progress was sent counts as up to date.
                ours = self.progress()
                theirs = message.get("progress", ours)
                if any(t > o for t, o in zip(theirs, ours, strict=True)):
                    await self._catch_up()
                # Behind: the game may have ended here, and a finished table sends no reminders.
                if message["ask"] or any(t < o for t, o in zip(theirs, ours, strict=True)):
                    await self.bus.publish(self.id, "presence", ask=False, **self._presence_here())
                # A reminder that changes nothing is not told (every table has one every 15 s).
                if known is None or known[:2] != (message["seats"], message["spectators"]):
                    await self.announce_table()
        self.wake_bots()

    async def catch_up(self, stored: StoredTable | None = None) -> None:
        """Take what other processes stored for this table (read now unless ``stored`` is
        given): on start, after missed news, before a bot thinks."""
        async with self.lock:
            await self._catch_up(stored)
        self.wake_bots()

    async def _catch_up(self, stored: StoredTable | None = None) -> None:
        if stored is None:
            found = await self.store.load((), table_id=self.id)
            if not found:
                return
            stored = found[0]
        for seat, saved in zip(self.seats, stored.seats, strict=True):
            seat.name, seat.token_hash, seat.hints = saved.name, saved.token_hash, saved.hints
            seat.part = saved.part
        if self.status == "waiting" and stored.status != "waiting":
            self._deal(int(stored.options["seed"]))  # the last part came in elsewhere
        self.status = max(self.status, stored.status, key=STATUSES.index)
        new = stored.actions[self.move :]
        for action in new:
            self.game.apply(action)
        if new:
            await self._announce_moves(len(new))
        elif stored.status == "playing":
            await self.announce_table()

    async def _announce_moves(self, count: int) -> None:
        if self.game.state.is_over():
            self.status = "over"
            await self.announce_table()
        elif self.status == "waiting":
            self.status = "playing"
        await self.broadcast_state()
        log.debug("table %s: %d moves from other processes", self.id, count)

    async def refresh_presence(self, older: float) -> None:
        """Tell the other processes who is here again and how far the game is, and forget what
        a process that has not told for ``older`` seconds said (it died, or lost Redis)."""
        assert self.bus is not None
        async with self.lock:
            now = time.monotonic()
            gone = [o for o, (_, _, heard) in self.elsewhere.items() if now - heard > older]
            for origin in gone:
                del self.elsewhere[origin]
            self._note_presence()
            await self.bus.publish(self.id, "presence", ask=False, **self._presence_here())
            if gone:
                await self.announce_table()

    async def ask_presence(self) -> None:
        """Tell the other processes who is here, and ask them to tell in turn."""
        async with self.lock:
            await self._presence_changed(ask=True)

    def bot_to_act(self) -> int | None:
        state = self.game.state
        if self.status != "playing" or state.is_over():
            return None
        p = state.current_player
        return None if self.seats[p].is_human else p

    def wake_bots(self) -> None:
        """Start the table's bot loop if a bot is to act and none is thinking."""
        if self.bot_to_act() is not None and (self.bot_task is None or self.bot_task.done()):
            self.bot_task = asyncio.create_task(self._bots_play(), name=f"bots {self.id}")

    async def _bots_play(self) -> None:
        while (p := self.bot_to_act()) is not None:
            lease = None
            if self.bus is not None:
                # One process thinks for the table at a time: the lease holder. The others wait
                # and try again, so that one of them takes over when the holder dies.
                from .bus import LEASE_RETRY

                lease = await self.bus.bot_lease(self.id)
                if lease is None:
                    await asyncio.sleep(LEASE_RETRY)
                    continue
                # The holder before may have played a move this process has not heard yet.
                try:
                    await self.catch_up()
                except StorageUnavailable:
                    # The database is away: try again in a while (nothing else wakes the bot).
                    await self.bus.release(lease)
                    await asyncio.sleep(LEASE_RETRY)
                    continue
                if self.bot_to_act() != p:
                    await self.bus.release(lease)
                    continue
            try:
                if not await self._bot_moves(p):
                    return
            finally:
                if lease is not None and self.bus is not None:
                    await self.bus.release(lease)

    async def _bot_moves(self, p: int) -> bool:
        """Seat ``p``'s bot plays one move (its fallback's, if it fails); False when the move
        could not be played and the table was told."""
        move = self.move
        view = view_of(self.game.state, p)
        legal = self.game.state.legal_action_ids()
        # The project's one bot-seed scheme, keyed by the move too: a generator that need
        # not survive between moves, so a restarted server asks the same question.
        seed = derive_seed(self.game.options.seed, "bot", "move", move, p)
        kind = self.seats[p].kind
        spec = self.bots.roster.spec(kind)
        choice = await self.bots.choose_or_fallback(spec, view, legal, seed, owner=self.id)
        if choice.replaced is not None:
            log.error("table %s: bot %s in seat %d: %s", self.id, kind, p, choice.replaced)
            notice = BotReplaced(
                seat=p, bot=kind, fallback=FALLBACK_BOT, move=move, reason=choice.replaced
            ).model_dump_json()
            for conn in self.connections():
                await conn.send(notice)
        try:
            await self._play_for_bot(p, move, choice.action)
        except RoomError as exc:
            if exc.code == "stale" and self.bus is not None:
                # Thought past the lease's expiry, and another process's bot played the move
                # first: the database let one in, and the table goes on.
                return True
            # Not played (the store refused it for another reason): the table is told.
            log.error("table %s: bot move %d not played: %s", self.id, move, exc)
            for conn in self.connections():
                await conn.send(exc.message())
            return False
        return True

    async def _play_for_bot(self, seat: int, move: int, action: int) -> None:
        """Play a bot's move; while the database is away, try again now and then (nobody else
        can move the game on), having told the table once."""
        delay = 0.25
        while True:
            try:
                await self.act(seat, move, action)
                return
            except RoomError as exc:
                if exc.code != "unavailable":
                    raise
                if delay == 0.25:
                    for conn in self.connections():
                        await conn.send(exc.message())
            await asyncio.sleep(delay)
            delay = min(2 * delay, 5.0)

    # ------------------------------------------------------------------ chat

    async def chat(self, seat: int, text: str) -> None:
        line = StoredChat(seat, self.seats[seat].name or f"seat {seat}", text, datetime.now(UTC))
        await self.store.add_chat(self.id, line)
        if self.bus is not None:
            fields = {"seat": line.seat, "name": line.name, "text": line.text}
            if await self.bus.publish(self.id, "chat", line=fields, sent=line.sent.isoformat()):
                return  # every process sends it on hearing it, this one too
        message = _chat_message(line)
        for conn in self.connections():
            await conn.send(message)

    # ------------------------------------------------------------------ records

    @property
    def commitment(self) -> str | None:
        """The commitment to the server's part of the deal, shown from the start (``None``
        where the seed was chosen, or the table is older than commitments)."""
        if self.deal is None or "secret" not in self.deal:
            return None
        return commit(self.deal["secret"])

    def _deal(self, seed: int) -> None:
        """Deal the game from the seed every part gave (the stand-in had no moves)."""
        options = dataclasses.replace(self.game.options, seed=seed)
        self.game = Game(options, self.game.version)

    def record(self) -> dict[str, Any]:
        """The game's record; with the deal's proof (``core.commitment``) once it is over."""
        record = self.game.record()
        if self.deal is not None and "secret" in self.deal:
            proof = DealProof(self.deal["secret"], tuple(s.part for s in self.seats))
            people = [i for i, s in enumerate(self.seats) if s.is_human]
            record["deal"] = proof.to_json(people)
        elif self.deal is not None:
            record["deal"] = dict(self.deal)  # {"chosen": true}
        return record

    def replay(self) -> dict[str, Any]:
        """The record and, for each position, the whole state (every hand), the majority holders
        and what the action that led there did, in sentences."""
        game = Game(self.game.options, self.game.version)
        frames = [self._frame(game, None, 0)]
        for action in self.game.actions:
            before = len(game.state.events or [])
            game.apply(str(action))
            frames.append(self._frame(game, str(action), before))
        return {"record": self.record(), "rules": self.rules_spec, "frames": frames}

    @staticmethod
    def _frame(game: Game, action: str | None, since: int) -> dict[str, Any]:
        state = game.state
        return {
            "action": action,
            "state": state_to_json(state) | {"events": []},
            "majority": majorities(state.collections),
            "log": [tell(e) for e in (state.events or [])[since:]],
        }


def _chat_message(line: StoredChat) -> str:
    return ChatLine(
        seat=line.seat, name=line.name, text=line.text, sent=line.sent.isoformat()
    ).model_dump_json()
