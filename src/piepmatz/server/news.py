"""What one server process tells the others about a table (``bus.Bus``), as Pydantic models like
the client messages: a move stored, a seat taken, a chat line, who is connected where. The
database is the truth; news only says where to look.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from .vocabulary import TableStatus


class _News(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    #: The process that told it (set by the bus as it publishes).
    origin: str = ""


class MoveNews(_News):
    """Move ``move`` is stored: ``seat`` played ``action``."""

    kind: Literal["move"] = "move"
    move: int
    seat: int
    action: str
    #: When it was stored (epoch ms), everyone's time then, and the stand-in that made it.
    at: int | None = None
    clock: list[int | None] | None = None
    by: str | None = None


class SeatNews(_News):
    """A person sat down at ``seat``; ``seed`` is the deal's once that was the last part."""

    kind: Literal["seat"] = "seat"
    seat: int
    name: str
    token_hash: str
    hints: bool = False
    part: str | None = None
    status: TableStatus
    seed: int | None = None
    player_hash: str | None = None


class BotSeatNews(_News):
    """A bot took ``seat``, a person's nobody had taken (``bot``: its spec); ``seed`` as in
    :class:`SeatNews`."""

    kind: Literal["bot_seat"] = "bot_seat"
    seat: int
    bot: str
    status: TableStatus
    seed: int | None = None


class ChatLineNews(BaseModel):
    seat: int
    name: str
    text: str


class ChatNews(_News):
    """A chat line, stored; every process (the sender's too) sends it on hearing it."""

    kind: Literal["chat"] = "chat"
    line: ChatLineNews
    sent: str
    #: The stored line's id (``Store.add_chat``): a connection that had it in its history
    #: is not sent it again.
    id: int = 0


class PresenceNews(_News):
    """Who is connected to the teller: connections per seat, spectators; how far the table is
    there (status, seats taken, moves); ``ask``: tell yours in turn."""

    kind: Literal["presence"] = "presence"
    ask: bool = False
    seats: list[int]
    spectators: int
    progress: list[int] | None = None


class AbsenceNews(_News):
    """A stand-in plays ``seat`` from move ``move`` on (``absent`` says why), or the person
    came back (``absent`` null, with the clocks then: ``left`` in ms as of ``since``)."""

    kind: Literal["absence"] = "absence"
    seat: int
    absent: str | None
    move: int
    left: list[int | None] | None = None
    since: int | None = None


class AbortNews(_News):
    """The person at ``seat`` asked to abort the game."""

    kind: Literal["abort"] = "abort"
    seat: int


class EndNews(_News):
    """The game ended before its end: a resignation or an abort."""

    kind: Literal["end"] = "end"
    ending: dict[str, Any]


class RematchNews(_News):
    """The table's people play again at a new table (``Room.rematch``)."""

    kind: Literal["rematch"] = "rematch"
    rematch: dict[str, Any]


AnyNews = (
    MoveNews
    | SeatNews
    | BotSeatNews
    | ChatNews
    | PresenceNews
    | AbsenceNews
    | AbortNews
    | EndNews
    | RematchNews
)
News = Annotated[AnyNews, Field(discriminator="kind")]
news_reader: TypeAdapter[AnyNews] = TypeAdapter(News)

__all__ = [
    "AbortNews",
    "AbsenceNews",
    "AnyNews",
    "BotSeatNews",
    "ChatLineNews",
    "ChatNews",
    "EndNews",
    "MoveNews",
    "PresenceNews",
    "RematchNews",
    "SeatNews",
    "news_reader",
]
