"""Every message of the game server, as Pydantic models (``docs/protocol.md``).

Client messages are a union discriminated on ``type``; anything else is refused with an
``error`` message that says what was wrong. Server messages are built from these models too, so
the documentation, the server and the tests name the same fields.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Any, Literal, get_args

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from piepmatz.core.commitment import PART

from .plaintext import ChatText, DisplayName
from .vocabulary import Absence, ErrorCode, TableStatus

#: Longest client message, in characters; longer ones are refused before they are decoded.
MAX_MESSAGE = 4096
#: Chat lines sent to a client on joining.
CHAT_HISTORY = 50


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


# ------------------------------------------------------------------ client to server


class Hello(_Strict):
    """First message on a connection: the seat's (or the spectator link's) token."""

    type: Literal["hello"]
    token: str = Field(min_length=1, max_length=128)


class Act(_Strict):
    """An action in the engine's notation, answering the move number ``move``."""

    type: Literal["action"]
    move: int = Field(ge=0)
    action: str = Field(min_length=1, max_length=64)


class Chat(_Strict):
    type: Literal["chat"]
    text: ChatText


class Sync(_Strict):
    """Ask for the whole current view again (a client that lost track)."""

    type: Literal["sync"]


class PreviewRequest(_Strict):
    """Ask what each legal action at move ``move`` would do (the browser shows it before a
    click); answered by a ``preview`` message computed from the seat's view only."""

    type: Literal["preview"]
    move: int = Field(ge=0)


class HintRequest(_Strict):
    """Ask for the hint bot's suggestion for the seat's decision at move ``move`` (only at a
    table where every person allowed hints); answered by a ``hint`` message."""

    type: Literal["hint"]
    move: int = Field(ge=0)


class Resign(_Strict):
    """Resign the seat: the game ends (a two-player table whose rule is ``end``) or the
    table's stand-in plays it to the end."""

    type: Literal["resign"]


class Abort(_Strict):
    """Ask to abort the game (in its first round); it is aborted once everyone asked, or at
    once when someone never showed up."""

    type: Literal["abort"]


class SeatBot(_Strict):
    """Let a bot the server offers (``bot``, as ``GET /api/bots`` names it) take ``seat``, a
    person's seat nobody has taken, at a table still waiting; any seated person may."""

    type: Literal["seat_bot"]
    seat: int = Field(ge=0)
    bot: str = Field(min_length=1, max_length=64)


class Back(_Strict):
    """Take the seat back from its stand-in (a new connection's ``hello`` does it too)."""

    type: Literal["back"]


class Mute(_Strict):
    """Mute another seat's chat at this table (``muted``: false hears it again); kept for the
    seat's player, on every device (``docs/protocol.md``, "Moderation"); answered by
    ``muted``."""

    type: Literal["mute"]
    seat: int = Field(ge=0)
    muted: bool


AnyClientMessage = (
    Hello
    | Act
    | Chat
    | Sync
    | PreviewRequest
    | HintRequest
    | Resign
    | Abort
    | SeatBot
    | Back
    | Mute
)
ClientMessage = Annotated[AnyClientMessage, Field(discriminator="type")]
client_message: TypeAdapter[AnyClientMessage] = TypeAdapter(ClientMessage)


def parse_client_message(text: str) -> AnyClientMessage:
    """Decode and validate one client message; ``ValueError`` says what was wrong."""
    if len(text) > MAX_MESSAGE:
        raise ValueError(f"message too long: {len(text)} characters, at most {MAX_MESSAGE}")
    try:
        return client_message.validate_json(text)
    except ValidationError as exc:
        raise ValueError("malformed message: " + explain(exc.errors(include_url=False))) from None


#: The ``type`` of each client message.
CLIENT_TYPES: tuple[str, ...] = tuple(
    get_args(model.model_fields["type"].annotation)[0] for model in get_args(AnyClientMessage)
)

#: A field name the client chose (a field no message has) is named back only when it is a plain
#: name, as every field of the protocol is: it then cannot carry markup, a control character or
#: a token (43 characters), and the person learns which field was wrong.
_PLAIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,31}")

#: Pydantic's words for the error kinds whose message ends in the input or a parser's words
#: about it, without that end (none of these arises from today's models: kept for new fields).
_WITHOUT_INPUT = {
    "no_such_attribute": "Object has no such attribute",
    "get_attribute_error": "Error extracting attribute",
    "iteration_error": "Error iterating over object",
    "mapping_type": "Input should be a valid mapping",
    "bytes_invalid_encoding": "Data should be valid text",
    "date_parsing": "Input should be a valid date in the format YYYY-MM-DD",
    "date_from_datetime_parsing": "Input should be a valid date or datetime",
    "time_parsing": "Input should be in a valid time format",
    "datetime_parsing": "Input should be a valid datetime",
    "datetime_object_invalid": "Invalid datetime object",
    "datetime_from_date_parsing": "Input should be a valid datetime or date",
    "timezone_offset": "Timezone offset is not the one required",
    "time_delta_parsing": "Input should be a valid timedelta",
    "url_parsing": "Input should be a valid URL",
    "url_syntax_violation": "Input violated strict URL syntax rules",
    "uuid_parsing": "Input should be a valid UUID",
}


def explain(errors: Sequence[Any]) -> str:
    """Validation errors in words: where and what, never the value sent (it may be a token, or
    something that cannot even be written back as JSON), nor a field name the client chose
    unless it is a plain name. Pydantic's own words are used where they hold nothing of the
    input; a discriminator's tag, a parser's quote of the input and the like are left out.
    Validators of these models word their refusals the same way (a character by its code
    point)."""
    problems: list[str] = []
    for error in errors[:3]:
        kind = error.get("type")
        ctx = error.get("ctx") or {}
        loc = list(error["loc"])
        what = str(error["msg"])
        if kind in ("union_tag_invalid", "union_tag_not_found"):
            loc.append(str(ctx.get("discriminator", "type")).strip("'"))
            if kind == "union_tag_invalid":
                tags = str(ctx.get("expected_tags", "")).replace("'", "")
                what = f"unknown message type; expected one of {tags}"
            else:
                what = "missing; expected one of " + ", ".join(CLIENT_TYPES)
        elif kind == "json_invalid":
            # Pydantic says "Invalid JSON: <the parser's words>" and has them again in ctx;
            # FastAPI says "JSON decode error", the parser's words in ctx, the offset in loc.
            said = ctx.get("error")
            what = "not JSON" + (f": {said}" if isinstance(said, str) else "")
            if loc and isinstance(loc[-1], int):
                what += f" at character {loc.pop()}"
        elif kind == "extra_forbidden":
            if loc and isinstance(loc[-1], str) and _PLAIN_NAME.fullmatch(loc[-1]):
                what = "unknown field"
            else:
                loc = loc[:-1]
                what = "an unknown field (its name is not repeated)"
        elif kind in _WITHOUT_INPUT:
            what = _WITHOUT_INPUT[kind]
        where = ".".join(
            str(part) if isinstance(part, int) or _PLAIN_NAME.fullmatch(part) else "?"
            for part in loc
        )
        problem = f"{where}: {what}" if where else what
        if problem not in problems:
            problems.append(problem)
    return "; ".join(problems)


# ------------------------------------------------------------------ server to client


class SeatInfo(BaseModel):
    seat: int
    kind: str  # "human" or the bot's spec
    name: str | None
    connected: bool
    #: Whether the person at this seat allows hints (None for a bot's seat).
    hints: bool | None = None
    #: Why the table's stand-in plays this person's seat (``time``, ``away``, ``resigned``).
    absent: Absence | None = None


class TableInfo(BaseModel):
    """Who sits where and who is connected: sent whenever that changes."""

    type: Literal["table"] = "table"
    table: str
    status: TableStatus
    players: int
    rules: str
    seats: list[SeatInfo]
    spectators: int
    #: Hints are on: every person's seat (taken or still free) allows them.
    hints: bool = False
    #: The commitment to the server's part of the deal's seed (``core.commitment``), shown
    #: from the start; null where the only person chose the seed.
    commitment: str | None = None
    #: The table's pace (``Pace.to_json``), stand-in bot and resign rule (``end``, ``play_on``).
    pace: dict[str, Any] | None = None
    stand_in: str | None = None
    resign: str | None = None
    #: The seats whose person asked to abort, and whether the game may still be aborted.
    abort: list[int] = []
    abortable: bool = False
    #: How the game ended (see ``Room.ending``), once it has.
    ending: dict[str, Any] | None = None
    #: The game counts for the people's ratings (``GET /api/tables/{id}/ratings``).
    rated: bool = False
    #: Once the game is over and one of its people asked to play again: the new table with
    #: the same seats and who asked, ``{"table": id, "by": seat}``
    #: (``POST /api/tables/{id}/rematch`` seats each of the others there).
    rematch: dict[str, Any] | None = None


class Welcome(BaseModel):
    type: Literal["welcome"] = "welcome"
    table: str
    seat: int | None  # None: a spectator
    protocol: int
    #: The server takes chat lines (``serve --chat off``: it takes none and sends none).
    chat: bool = True


class StateMessage(BaseModel):
    """The receiver's view after move ``move`` and the log entries it has not had yet."""

    type: Literal["state"] = "state"
    move: int
    view: dict[str, Any]
    #: Index of the first of ``events`` in the receiver's log (0 after hello or sync).
    events_from: int
    events: list[dict[str, Any]]
    #: The receiver's legal actions when it is their decision, else empty.
    legal: list[str]
    #: The same actions as fields (``Action.to_json``: kind, cards, number), so that a client
    #: reads no notation.
    choices: list[dict[str, Any]] = []
    #: Each perch's row as the rules weigh it (T2): the perch bird's value, the ground's total
    #: and whether the ground chases it (``core.state.chases``), so that a client decides
    #: nothing itself.
    strengths: list[dict[str, Any]] = []
    #: Each player's birds that form mated pairs (E4), by the core: the page shows them as
    #: pairs without knowing the rule (empty lists where pairs are counted by species).
    mated: list[list[str]] = []
    #: One sentence per entry of ``events``, in the connection's language, seats by name
    #: (``piepmatz.text.words.tell``).
    log: list[str] = []
    #: The same sentences as parts (``piepmatz.text.words.told``): each has ``text``, and a
    #: seat's name also ``seat``, a bird in words also ``bird`` (its code), for the page to
    #: draw them its way.
    log_parts: list[list[dict[str, Any]]] = []
    #: The score sheet once the game is over.
    result: dict[str, Any] | None = None
    #: Once the game is over, each player's score told number by number, by the cards that
    #: make it, in the connection's language (``piepmatz.text.scoresheet.explain``).
    explained: list[list[str]] | None = None
    #: The clocks (``Clocks.snapshot``): time left, whose runs, until when; null when untimed.
    clock: dict[str, Any] | None = None
    #: How the game ended, once it has (as in ``table``).
    ending: dict[str, Any] | None = None


#: The state message's fields, in the model's order (the model defines them once).
_STATE_FIELDS = tuple(StateMessage.model_fields)


def state_message(**fields: Any) -> str:
    """A :class:`StateMessage` as JSON text, written by orjson straight from its fields (every
    one of the model's but ``type`` must be given): every connection gets one after every move,
    and building and dumping the model took several times as long. The server makes every value
    itself, so there is nothing to validate (a test checks that the model reads it back the
    same)."""
    message = {name: fields[name] for name in _STATE_FIELDS if name != "type"}
    return orjson.dumps({"type": "state", **message}).decode()


class ActionPreview(BaseModel):
    action: str
    #: One line in the connection's language, e.g. ``ground 7 > perch 4: takes a 2-egg seed``.
    headline: str
    #: The public steps, one sentence each.
    steps: list[str]


class Previews(BaseModel):
    """What each of the receiver's legal actions at ``move`` would do, from their view only."""

    type: Literal["preview"] = "preview"
    move: int
    previews: list[ActionPreview]


class HintAnswer(BaseModel):
    """The hint bot's suggestion for the receiver's decision at ``move``, from their view only,
    with the search's estimate of it: mean and spread over ``worlds`` sampled worlds."""

    type: Literal["hint"] = "hint"
    move: int
    action: str
    bot: str
    #: The expected final lead over the best other player, in points.
    lead: float
    lead_spread: float
    #: The expected win chance (0-1).
    win: float
    win_spread: float
    worlds: int


class Ack(BaseModel):
    """The sender's action is stored and played (sent before the new state)."""

    type: Literal["ack"] = "ack"
    move: int
    action: str


class ChatLine(BaseModel):
    type: Literal["chat"] = "chat"
    seat: int
    name: str
    text: str
    sent: str


class Muted(BaseModel):
    """The seats whose chat this seat does not hear: after ``hello`` when there are any, and
    after each ``mute``."""

    type: Literal["muted"] = "muted"
    seats: list[int]


class Error(BaseModel):
    type: Literal["error"] = "error"
    code: ErrorCode
    message: str


class BotReplaced(BaseModel):
    """The bot in ``seat`` failed or ran out of time at ``move``; ``fallback`` played for it."""

    type: Literal["bot_replaced"] = "bot_replaced"
    seat: int
    bot: str
    fallback: str
    move: int
    reason: str


class StandIn(BaseModel):
    """From ``move`` on, the table's stand-in ``bot`` plays ``seat``'s person: their time ran
    out, they were away too long, or they resigned."""

    type: Literal["stand_in"] = "stand_in"
    seat: int
    bot: str
    reason: Absence
    move: int


class Returned(BaseModel):
    """``seat``'s person took the seat back from the stand-in at ``move``; the stand-in made
    ``moves`` moves for them while they were away (what they come back to)."""

    type: Literal["returned"] = "returned"
    seat: int
    move: int
    moves: int = 0


PROTOCOL_VERSION = 1

# ------------------------------------------------------------------ HTTP bodies

#: A person's own randomness, added to the deal's seed when they sit down (``core.commitment``:
#: 16-128 URL-safe characters; the browser sends 32 random bytes).
DealPart = Annotated[str, Field(pattern=f"^{PART.pattern}$")]
#: A browser's player key ("My games"): 32 random bytes, URL-safe base64 without padding.
#: (Its form, for the header that carries it too: ``players.player_key``.)
PLAYER_KEY = re.compile(r"[A-Za-z0-9_-]{43}")
PlayerKey = Annotated[str, Field(pattern=f"^{PLAYER_KEY.pattern}$")]
#: A name from one of the operator's lists (a pace, a bot).
OfferedName = Annotated[str, Field(min_length=1, max_length=64)]


class NewTable(_Strict):
    """``POST /api/tables``: seats are ``human`` or a bot spec; the creator takes ``seat``."""

    seats: list[str] = Field(min_length=2, max_length=4)
    rules: str = Field(default="standard", max_length=200)
    name: DisplayName
    seat: int | None = None
    public: bool = False
    seed: int | None = Field(default=None, ge=0, lt=2**63)
    #: The creator allows hints; they are on only if every person who joins allows them too.
    hints: bool = False
    deal_part: DealPart | None = None
    #: A pace the server offers (``GET /api/paces``); default ``turn-based``, or ``untimed``
    #: with one person.
    pace: OfferedName | None = None
    #: The bot that plays for a person who is away (a name from ``GET /api/bots``).
    stand_in: OfferedName = "medium"
    #: What a resignation does: ``end`` the game (two players; their default) or ``play_on``.
    resign: Literal["end", "play_on"] | None = None
    player: PlayerKey | None = None
    #: The game counts for the people's ratings (``docs/online.md``, "Ratings"): no seed, no
    #: hints, every person with their player key, bots with a fixed rating.
    rated: bool = False


class QuickGame(_Strict):
    """``POST /api/quick``: one person against bots, started at once."""

    name: DisplayName = "You"
    players: int = Field(default=3, ge=2, le=4)
    bot: str = Field(default="medium", max_length=64)
    rules: str = Field(default="standard", max_length=200)
    seed: int | None = Field(default=None, ge=0, lt=2**63)
    #: Hints for the one person at the table (on unless turned off).
    hints: bool = True
    deal_part: DealPart | None = None
    pace: OfferedName = "untimed"
    player: PlayerKey | None = None
    #: The game counts for the person's rating (then ``hints`` must be false).
    rated: bool = False


#: What an account's request may carry: far above the rules' bounds (``accounts.py`` says
#: what a username and a password may be), so that nothing long reaches the hasher.
AccountText = Annotated[str, Field(max_length=1024)]


class SignUp(_Strict):
    """``POST /api/account``: a username and password for the player of the request's key."""

    username: AccountText
    password: AccountText


class SignIn(_Strict):
    """``POST /api/account/sign-in``: answered with a new player key for the account."""

    username: AccountText
    password: AccountText


class NewPassword(_Strict):
    """``POST /api/account/password``."""

    old: AccountText
    new: AccountText


class DeleteAccount(_Strict):
    """``DELETE /api/account``: the account's password (none for a player without one)."""

    password: AccountText | None = None


class Join(_Strict):
    """``POST /api/tables/{id}/join``: an invite token, or none for a public table."""

    name: DisplayName
    token: str | None = Field(default=None, max_length=128)
    #: The person joining allows hints at this table.
    hints: bool = False
    deal_part: DealPart | None = None
    player: PlayerKey | None = None


class Rematch(_Strict):
    """``POST /api/tables/{id}/rematch``: the person at the seat of ``token`` plays again with
    the same people: at a new table with the same seats (opened by the first to ask), at the
    same seat."""

    token: str = Field(max_length=128)
    hints: bool = False
    deal_part: DealPart | None = None
    player: PlayerKey | None = None


class Seek(_Strict):
    """``POST /api/seek``: find a game of ``players`` at ``pace`` (a name from
    ``GET /api/paces``), seated under ``name``."""

    players: int = Field(ge=2, le=4)
    pace: OfferedName
    name: DisplayName


class SeekBots(_Strict):
    """``POST /api/seek/bots``: after the wait, sit down at once, bots in the empty seats."""

    deal_part: DealPart | None = None
