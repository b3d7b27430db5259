"""Who sits at a table: seats, their credentials, and the connections through which each hears."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from typing import Protocol

from .messages import Error
from .roster import HUMAN
from .vocabulary import Absence, ErrorCode


def new_token() -> str:
    """A seat credential: 256 bits from ``secrets``, URL-safe."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: str, stored: str | None) -> bool:
    """Compare in constant time, so that timing tells nothing about a stored hash."""
    return stored is not None and hmac.compare_digest(token_hash(token), stored)


#: Seconds a message may take to leave, and a close to finish; a client that stops reading is
#: cut off after that (by its outbox, :mod:`.outbox`).
SEND_TIMEOUT = 10.0


class Outlet(Protocol):
    """Where a connection's messages go (a WebSocket's outbox in the app, a checking double in
    tests).

    ``send`` queues and returns at once, never waiting on the network: a table announces each
    move under its lock, so one client that stopped reading would hold up the whole table. It
    raises once the client is gone or cut off.
    """

    async def send(self, text: str) -> None: ...

    async def close(self) -> None: ...


@dataclass(eq=False)
class Connection:
    client: Outlet
    seat: int | None  # None: a spectator
    #: The language this connection's sentences are told in (the page's, when it connected).
    lang: str = "en"
    #: How many log entries this connection has received.
    events_sent: int = 0
    #: The id of the last chat line of the history this connection was sent on arrival.
    chat_upto: int = 0
    #: A send failed or timed out: nothing more is sent, and the connection is being closed.
    broken: bool = False
    #: The seats whose chat this connection is not sent (muted, or their player blocked).
    muted: set[int] = field(default_factory=set)
    #: This connection is sent chat lines (not where the server's chat is off).
    hears_chat: bool = True
    #: The seat's player (``None``: a spectator, or a person without a player key), and when
    #: (monotonic seconds) whether they are banned was last read.
    player: str | None = None
    ban_checked: float = 0.0

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
    #: The SHA-256 of the player key of the browser that sat here ("My games"): a credential
    #: for the seat like its token.
    player_hash: str | None = None
    #: Why the table's stand-in bot plays this person's seat (``vocabulary.Absence``), if it
    #: does.
    absent: str | None = None
    #: The person asked to abort the game.
    abort: bool = False

    @property
    def is_human(self) -> bool:
        return self.kind == HUMAN

    @property
    def stood_in(self) -> bool:
        """A stand-in plays this person's seat for now (they may come back)."""
        return self.absent is not None and self.absent != Absence.RESIGNED


class RoomError(ValueError):
    """Something a client asked that cannot be done now; ``code`` names the kind."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code

    def message(self) -> str:
        return Error(code=self.code, message=str(self)).model_dump_json()
