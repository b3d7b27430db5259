"""The WebSocket of a seat or a spectator (``docs/protocol.md``, "WebSocket"): hello first, then
the seat's messages, each translated into what the table does, or refused with an ``error``
that changes nothing. Too many refusals, or no hello in time, and the connection is closed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import MutableMapping
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.websockets import WebSocketDisconnected

from piepmatz.i18n import _, current_language

from .. import metrics
from ..hub import NoTable
from ..limits import POLICY_CLOSE, ConnectionGuard
from ..messages import (
    MAX_MESSAGE,
    PLAYER_KEY,
    PROTOCOL_VERSION,
    Abort,
    Act,
    AnyClientMessage,
    Back,
    Chat,
    Error,
    Hello,
    HintRequest,
    Mute,
    Muted,
    PreviewRequest,
    Resign,
    SeatBot,
    Sync,
    Welcome,
    parse_client_message,
)
from ..moderation import banned_words, recheck_due
from ..outbox import ClientGone, WebSocketClient
from ..room import Room
from ..roster import UnknownBot
from ..seats import Connection, RoomError
from ..store import StorageUnavailable
from ..vocabulary import Absence, ErrorCode, TableStatus
from . import Site, site

router = APIRouter()


class CutOff(Exception):
    """The client used up its refusals: it is disconnected. (Defined once, here: a class made
    per connection would be a cycle left for the collector.)"""


class Banned(Exception):
    """The seat's player is banned: they were told why, and are disconnected."""


@router.websocket("/ws/{table_id}")
async def play(websocket: WebSocket, table_id: str) -> None:
    await websocket.accept()
    here = site(websocket)
    address = websocket.client.host if websocket.client else "?"
    if not here.addresses.enter(address):
        metrics.REFUSALS.labels(ErrorCode.TOO_MANY_CONNECTIONS).inc()
        most = here.limits.connections_per_address
        reason = f"too many connections from your address (at most {most})"
        await websocket.send_text(
            Error(code=ErrorCode.TOO_MANY_CONNECTIONS, message=reason).model_dump_json()
        )
        await websocket.close(code=POLICY_CLOSE, reason=reason)
        return
    metrics.CONNECTIONS.inc()
    try:
        await Conversation(websocket, here, table_id).run()
    finally:
        here.addresses.leave(address)
        metrics.CONNECTIONS.dec()


class Conversation:
    """One WebSocket's conversation with a table."""

    def __init__(self, websocket: WebSocket, site: Site, table_id: str) -> None:
        self.websocket = websocket
        self.site = site
        self.table_id = table_id
        self.client = WebSocketClient(websocket)
        self.guard = ConnectionGuard(site.limits)
        self.room: Room | None = None
        self.conn: Connection | None = None
        # Hints are worked out beside the conversation, so that the seat can play meanwhile.
        self.hinting: set[asyncio.Task[None]] = set()
        limits = site.limits
        self.hello_by = asyncio.get_running_loop().time() + limits.hello_within

    async def run(self) -> None:
        try:
            while (message := await self._next()) is not None:
                if self.conn is None:
                    await self._hello(message)
                else:
                    await self._handle(message)
        except CutOff:
            await self.client.flush()
            await self.client.close(POLICY_CLOSE, "too many refused messages: talk the protocol")
        except Banned:
            await self.client.flush()
            await self.client.close(POLICY_CLOSE, "banned")
        except (WebSocketDisconnect, WebSocketDisconnected, ClientGone):
            pass  # gone, or closed by the room for not reading its messages
        finally:
            for task in self.hinting:
                task.cancel()
            self.client.stop()
            if self.conn is not None and self.room is not None:
                await self.room.disconnect(self.conn)

    async def refuse(self, code: ErrorCode, message: str) -> None:
        metrics.REFUSALS.labels(code).inc()
        await self.client.send(Error(code=code, message=message).model_dump_json())
        if self.guard.refused(code):
            raise CutOff

    async def _next(self) -> AnyClientMessage | None:
        """The next message the client sent that can be read (``None``: the connection is
        closed for not saying hello in time); refuses the rest."""
        limits = self.site.limits
        while True:
            received = await self._receive()
            if received is None:
                await self.client.close(POLICY_CLOSE, f"no hello within {limits.hello_within:g} s")
                return None
            if received["type"] == "websocket.disconnect":
                raise WebSocketDisconnect(received.get("code", 1000))
            if not self.guard.admit():
                await self.refuse(
                    ErrorCode.RATE_LIMITED,
                    f"more than {limits.message_rate:g} messages a second: this one was not read",
                )
                continue
            text = received.get("text")
            if text is None:
                await self.refuse(
                    ErrorCode.MALFORMED, "a binary frame: messages are JSON text frames"
                )
                continue
            try:
                return parse_client_message(text)
            except ValueError as exc:
                too_long = len(text) > MAX_MESSAGE
                await self.refuse(ErrorCode.TOO_LONG if too_long else ErrorCode.MALFORMED, str(exc))

    async def _receive(self) -> MutableMapping[str, Any] | None:
        if self.conn is not None or not self.site.limits.hello_within:
            return await self.websocket.receive()
        # A connection that never says hello holds a socket and a slot of its address for
        # nothing: it has until ``hello_by``, whatever else it sends.
        try:
            async with asyncio.timeout_at(self.hello_by):
                return await self.websocket.receive()
        except TimeoutError:
            return None

    async def _hello(self, message: AnyClientMessage) -> None:
        if not isinstance(message, Hello):
            await self.refuse(ErrorCode.HELLO_FIRST, "say hello with your seat's token first")
            return
        # Looked up at the hello, not before: a finished table may have been forgotten since
        # the socket opened (it is read again).
        try:
            room = await self.site.hub.room(self.table_id)
        except NoTable:
            await self.refuse(ErrorCode.NO_TABLE, f"no table {self.table_id!r}")
            return
        except StorageUnavailable as exc:
            await self.refuse(ErrorCode.UNAVAILABLE, f"{exc}: say hello again in a moment")
            return
        seat = room.seat_for(message.token)
        spectator = seat is None and room.is_spectator_token(message.token)
        if seat is None and not spectator and PLAYER_KEY.fullmatch(message.token):
            # A player key: the seat of the player it names (any of their keys).
            try:
                player = await self.site.players.identify(message.token)
            except StorageUnavailable as exc:
                await self.refuse(ErrorCode.UNAVAILABLE, f"{exc}: say hello again in a moment")
                return
            seat = room.seat_for(message.token, player)
        if seat is None and not spectator:
            # Said in the connection's language: a person's link (the terminal shows it).
            await self.refuse(
                ErrorCode.BAD_TOKEN, _("this link is no seat's or spectator's at this table")
            )
            return
        if seat is not None and room.seats[seat].name is None:
            await self.refuse(ErrorCode.NOT_JOINED, "join the table (choose a name) first")
            return
        conn = Connection(self.client, seat, lang=current_language())
        if seat is not None:
            try:
                conn.player, conn.muted = await self.site.moderation.muted(room, seat)
                await self._check_ban(room, conn)
            except StorageUnavailable as exc:
                await self.refuse(ErrorCode.UNAVAILABLE, f"{exc}: say hello again in a moment")
                return
        self.room, self.conn = room, conn
        conn.hears_chat = self.site.chat
        welcome = Welcome(table=room.id, seat=seat, protocol=PROTOCOL_VERSION, chat=self.site.chat)
        await self.client.send(welcome.model_dump_json())
        if conn.muted:
            await self.client.send(Muted(seats=sorted(conn.muted)).model_dump_json())
        await room.connect(conn)

    async def _check_ban(self, room: Room, conn: Connection) -> None:
        """Read again whether the seat's player is banned; if they are, they are told why, the
        table's stand-in plays their seat from now on, and the connection is closed."""
        conn.ban_checked = time.monotonic()
        reason = await self.site.moderation.ban(conn.player)
        if reason is None or conn.seat is None:
            return
        metrics.REFUSALS.labels(ErrorCode.BANNED).inc()
        await self.client.send(
            Error(code=ErrorCode.BANNED, message=banned_words(reason)).model_dump_json()
        )
        if room.status == TableStatus.PLAYING and room.seats[conn.seat].absent is None:
            async with room.lock:
                await room.standins.replace_locked(conn.seat, Absence.AWAY)
            room.botseats.wake()
        raise Banned

    async def _handle(self, message: AnyClientMessage) -> None:
        room, conn = self.room, self.conn
        assert room is not None and conn is not None
        if isinstance(message, Hello):
            await self.refuse(ErrorCode.HELLO_AGAIN, "this connection has already said hello")
        elif isinstance(message, Sync):
            # Nothing is dealt while a table waits for people: its news is who is there.
            if room.status == TableStatus.WAITING:
                await conn.send(room.info().model_dump_json())
            else:
                await conn.send(room.audience.state_message(conn, full=True))
        elif isinstance(message, PreviewRequest):
            if conn.seat is None:
                await self.refuse(ErrorCode.SPECTATOR, "a spectator has no moves to preview")
                return
            try:
                await conn.send(room.advice.previews(conn.seat, message.move))
            except RoomError as exc:
                await self.refuse(exc.code, str(exc))
        elif isinstance(message, HintRequest):
            if conn.seat is None:
                await self.refuse(ErrorCode.SPECTATOR, "a spectator has no decision to hint")
                return
            task = asyncio.create_task(self._hint(room, conn, conn.seat, message.move))
            self.hinting.add(task)
            task.add_done_callback(self.hinting.discard)
        elif conn.seat is None:
            await self.refuse(ErrorCode.SPECTATOR, "a spectator cannot act, chat or mute")
        elif isinstance(message, Act):
            if recheck_due(conn.ban_checked):
                await self._check_ban(room, conn)
            start = time.perf_counter()
            try:
                await room.act(conn.seat, message.move, message.action, conn)
            except RoomError as exc:
                await self.refuse(exc.code, str(exc))
            else:
                metrics.ACK_SECONDS.observe(time.perf_counter() - start)
        elif isinstance(message, Chat) and not self.site.chat:
            await self.refuse(ErrorCode.CHAT_OFF, _("chat is turned off on this server"))
        elif isinstance(message, Chat):
            try:
                await self._check_ban(room, conn)
                await room.chat(conn.seat, message.text)
            except StorageUnavailable as exc:
                await self.refuse(ErrorCode.UNAVAILABLE, f"{exc}: the line was not sent")
        elif isinstance(message, Mute):
            await self._mute(room, conn, message)
        else:
            await self._decide(room, conn.seat, message)

    async def _decide(
        self, room: Room, seat: int, message: Resign | Abort | Back | SeatBot
    ) -> None:
        """Resign, ask to abort, take the seat back from the stand-in, or give a free person's
        seat to a bot the server offers (the table still waiting)."""
        standins = room.standins
        try:
            if isinstance(message, Resign):
                await standins.resign(seat)
            elif isinstance(message, Abort):
                await standins.abort(seat)
            elif isinstance(message, SeatBot):
                await room.seat_bot(message.seat, self.site.roster.choose(message.bot))
            else:
                await standins.back(seat)
        except UnknownBot as exc:
            await self.refuse(ErrorCode.MALFORMED, f"bot: {exc}")
        except RoomError as exc:
            await self.refuse(exc.code, str(exc))
        except StorageUnavailable as exc:
            await self.refuse(ErrorCode.UNAVAILABLE, f"{exc}: nothing was changed")

    async def _mute(self, room: Room, conn: Connection, message: Mute) -> None:
        """Mute a seat's chat for this seat's player at this table (or hear it again); every
        connection of theirs here follows at once, elsewhere at its next hello."""
        assert conn.seat is not None
        try:
            await self.site.moderation.mute(room, conn.seat, message.seat, message.muted)
        except RoomError as exc:
            await self.refuse(exc.code, str(exc))
            return
        except StorageUnavailable as exc:
            await self.refuse(ErrorCode.UNAVAILABLE, f"{exc}: nothing was changed")
            return
        for same in room.seats[conn.seat].connections | {conn}:
            if message.muted:
                same.muted.add(message.seat)
            else:
                same.muted.discard(message.seat)
            await same.send(Muted(seats=sorted(same.muted)).model_dump_json())

    @staticmethod
    async def _hint(room: Room, conn: Connection, seat: int, move: int) -> None:
        try:
            await conn.send(await room.advice.hint(seat, move))
        except RoomError as exc:
            await conn.send(exc.message())
