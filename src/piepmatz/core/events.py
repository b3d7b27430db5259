"""The event log: what happened, step by step, in words a person can follow.

Each kind of event is a small named tuple with the game's own field names (``Play(player, bird,
perch)``); its ``kind`` (the last field, fixed per class) is the name it has in JSON. This module
writes events as JSON and reads them back, and describes them in English for logs and tools, by
seat id and card code (people's sentences are :mod:`piepmatz.text.words`').

>>> describe_event(Play(player=1, bird=0, perch=2))
'Seat 1 plays BL1m to perch 2.'
>>> describe_event(DrawDeck(player=0, bird=None))
'Seat 0 draws a bird from the deck.'
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from types import MethodType
from typing import Any, Final, Literal, NamedTuple, ParamSpec, TypeAlias, TypeVar, get_args

from .cards import BIRD_NAMES, FEEDER_NAMES, describe_feeder, parse_bird, parse_feeder


class EventKind(StrEnum):
    """What an event reports; the value is its ``kind`` in JSON."""

    TURN = "turn"
    PLAY = "play"
    CHASE = "chase"
    TAKE_SEED = "take_seed"
    TAKE_BLIND = "take_blind"
    TAKE_PEST = "take_pest"
    FEEDER_EMPTY = "feeder_empty"
    COLLECT_PERCH = "collect_perch"
    CROW = "crow"
    CROW_NOTHING = "crow_nothing"
    SQUIRREL = "squirrel"
    PROMOTE = "promote"
    COLLECT = "collect"
    PASS = "pass"
    DRAW_DECK = "draw_deck"
    DRAW_DISPLAY = "draw_display"
    REFILL_DISPLAY = "refill_display"
    REFILL_COLUMN = "refill_column"
    PEST_BESIDE = "pest_beside"
    PEST_OUT = "pest_out"
    END_TRIGGERED = "end_triggered"
    SKIP = "skip"
    KEEP = "keep"
    REVEAL = "reveal"
    GAME_OVER = "game_over"


class EndReason(StrEnum):
    """E1: why the end of the game was triggered."""

    FEEDER = "feeder"
    BIRDS = "birds"
    SKIP = "skip"


# Fields named ``bird``/``birds`` hold bird ids, ``seed``/``seeds``/``pest`` feeder ids; a
# secret field is ``None`` in the view of a player who did not see it (:func:`hide_secret`).


class Turn(NamedTuple):
    """A turn begins."""

    player: int
    turn: int
    kind: Literal[EventKind.TURN] = EventKind.TURN


class Play(NamedTuple):
    """T1.1: a bird is played to a perch (1-3)."""

    player: int
    bird: int
    perch: int
    kind: Literal[EventKind.PLAY] = EventKind.PLAY


class Chase(NamedTuple):
    """T2.1: the ground beats the perch by ``difference``."""

    player: int
    perch: int
    difference: int
    kind: Literal[EventKind.CHASE] = EventKind.CHASE


class TakeSeed(NamedTuple):
    """A seed taken from the column (public)."""

    player: int
    seed: int
    position: int
    kind: Literal[EventKind.TAKE_SEED] = EventKind.TAKE_SEED


class TakeBlind(NamedTuple):
    """A seed taken from the feeder deck (secret)."""

    player: int
    seed: int | None
    kind: Literal[EventKind.TAKE_BLIND] = EventKind.TAKE_BLIND


class TakePest(NamedTuple):
    """A pest taken; ``position`` 0: drawn from the feeder deck."""

    player: int
    pest: int
    position: int
    kind: Literal[EventKind.TAKE_PEST] = EventKind.TAKE_PEST


class FeederEmpty(NamedTuple):
    """E1: nothing to take."""

    player: int
    kind: Literal[EventKind.FEEDER_EMPTY] = EventKind.FEEDER_EMPTY


class CollectPerch(NamedTuple):
    """T2.1c: the chased bird is collected."""

    player: int
    bird: int
    kind: Literal[EventKind.COLLECT_PERCH] = EventKind.COLLECT_PERCH


class Crow(NamedTuple):
    """T2.1d: the crow scares away a bird."""

    player: int
    bird: int
    kind: Literal[EventKind.CROW] = EventKind.CROW


class CrowNothing(NamedTuple):
    """T2.1d: the crow finds no bird."""

    player: int
    kind: Literal[EventKind.CROW_NOTHING] = EventKind.CROW_NOTHING


class Squirrel(NamedTuple):
    """T2.1d: the seeds the squirrel takes, face up, in card order."""

    player: int
    seeds: tuple[int, ...]
    kind: Literal[EventKind.SQUIRREL] = EventKind.SQUIRREL


class Promote(NamedTuple):
    """T2.1e: a bird moves up to a perch."""

    perch: int
    bird: int
    kind: Literal[EventKind.PROMOTE] = EventKind.PROMOTE


class Collect(NamedTuple):
    """T2.2: a bird from hand added to the collection."""

    player: int
    bird: int
    kind: Literal[EventKind.COLLECT] = EventKind.COLLECT


class Pass(NamedTuple):
    """T2.2: no bird added."""

    player: int
    kind: Literal[EventKind.PASS] = EventKind.PASS


class DrawDeck(NamedTuple):
    """T3.1: a bird drawn from the deck (secret)."""

    player: int
    bird: int | None
    kind: Literal[EventKind.DRAW_DECK] = EventKind.DRAW_DECK


class DrawDisplay(NamedTuple):
    """T3.1: a bird taken from a display slot (1-3)."""

    player: int
    slot: int
    bird: int
    kind: Literal[EventKind.DRAW_DISPLAY] = EventKind.DRAW_DISPLAY


class RefillDisplay(NamedTuple):
    """A display slot refilled from the deck."""

    slot: int
    bird: int
    kind: Literal[EventKind.REFILL_DISPLAY] = EventKind.REFILL_DISPLAY


class RefillColumn(NamedTuple):
    """T3.2: a seed put into the column."""

    position: int
    seed: int
    kind: Literal[EventKind.REFILL_COLUMN] = EventKind.REFILL_COLUMN


class PestBeside(NamedTuple):
    """T3.2: a pest lands beside the seed at ``position``."""

    position: int
    pest: int
    kind: Literal[EventKind.PEST_BESIDE] = EventKind.PEST_BESIDE


class PestOut(NamedTuple):
    """A pest finds no free seed and leaves the game (house rule)."""

    pest: int
    kind: Literal[EventKind.PEST_OUT] = EventKind.PEST_OUT


class EndTriggered(NamedTuple):
    """E1: the end of the game is triggered."""

    player: int
    reason: EndReason
    kind: Literal[EventKind.END_TRIGGERED] = EventKind.END_TRIGGERED


class Skip(NamedTuple):
    """T1.3: no card and nothing to draw."""

    player: int
    kind: Literal[EventKind.SKIP] = EventKind.SKIP


class Keep(NamedTuple):
    """E3: the birds kept for the last hand (secret until the reveal)."""

    player: int
    birds: tuple[int | None, ...]
    kind: Literal[EventKind.KEEP] = EventKind.KEEP


class Reveal(NamedTuple):
    """E3: the kept birds added from the last hand."""

    player: int
    birds: tuple[int, ...]
    kind: Literal[EventKind.REVEAL] = EventKind.REVEAL


class GameOver(NamedTuple):
    """The game is over."""

    kind: Literal[EventKind.GAME_OVER] = EventKind.GAME_OVER


Event: TypeAlias = (
    Turn
    | Play
    | Chase
    | TakeSeed
    | TakeBlind
    | TakePest
    | FeederEmpty
    | CollectPerch
    | Crow
    | CrowNothing
    | Squirrel
    | Promote
    | Collect
    | Pass
    | DrawDeck
    | DrawDisplay
    | RefillDisplay
    | RefillColumn
    | PestBeside
    | PestOut
    | EndTriggered
    | Skip
    | Keep
    | Reveal
    | GameOver
)


_P = ParamSpec("_P")
_E = TypeVar("_E")


def _fast(cls: Callable[_P, _E]) -> Callable[_P, _E]:
    """``cls`` itself without the class call: its own ``__new__``, bound to it."""
    return MethodType(cls.__new__, cls)


# The engine builds its events with these (same arguments, same event): a class call runs the
# generated ``__new__`` (a Python function) from C, which adds half again to what an event costs.
new_turn = _fast(Turn)
new_play = _fast(Play)
new_chase = _fast(Chase)
new_take_seed = _fast(TakeSeed)
new_take_blind = _fast(TakeBlind)
new_take_pest = _fast(TakePest)
new_feeder_empty = _fast(FeederEmpty)
new_collect_perch = _fast(CollectPerch)
new_crow = _fast(Crow)
new_crow_nothing = _fast(CrowNothing)
new_squirrel = _fast(Squirrel)
new_promote = _fast(Promote)
new_collect = _fast(Collect)
new_pass = _fast(Pass)
new_draw_deck = _fast(DrawDeck)
new_draw_display = _fast(DrawDisplay)
new_refill_display = _fast(RefillDisplay)
new_refill_column = _fast(RefillColumn)
new_pest_beside = _fast(PestBeside)
new_pest_out = _fast(PestOut)
new_end_triggered = _fast(EndTriggered)
new_skip = _fast(Skip)
new_keep = _fast(Keep)
new_reveal = _fast(Reveal)
new_game_over = _fast(GameOver)

#: The class of each kind of event.
EVENT_TYPES: Final[dict[EventKind, type[Event]]] = {
    cls._field_defaults["kind"]: cls for cls in get_args(Event)
}
#: Field names per event kind, as in JSON (the ``kind`` itself aside).
EVENT_FIELDS: Final[dict[EventKind, tuple[str, ...]]] = {
    kind: cls._fields[:-1] for kind, cls in EVENT_TYPES.items()
}
#: Fields that hold several cards (a JSON list).
_TUPLE_FIELDS: Final = frozenset({"seeds", "birds"})
#: The range of each integer field of an event (others: 0-10,000).
_FIELD_RANGES: Final[dict[str, tuple[int, int]]] = {
    "player": (0, 3),
    "perch": (1, 3),
    "slot": (1, 3),
    "position": (0, 4),  # 0: a pest drawn blind from the feeder deck
    "turn": (1, 10_000),
    "difference": (1, 10_000),
}
BIRD_FIELDS: Final = frozenset({"bird", "birds"})
FEEDER_FIELDS: Final = frozenset({"seed", "seeds", "pest"})
END_REASONS: Final = {
    EndReason.FEEDER: "a card was needed from the empty feeder deck (E1)",
    EndReason.BIRDS: "the bird deck is empty at the end of a turn (E1, overview)",
    EndReason.SKIP: "a player had no card and nothing to draw (E1, T1.3)",
}


#: Event kinds whose fields after the player are known only to that player.
SECRET_EVENTS: Final = frozenset({EventKind.TAKE_BLIND, EventKind.DRAW_DECK, EventKind.KEEP})


def hide_secret(event: Event, player: int | None) -> Event:
    """The event as ``player`` saw it: another player's secret fields become ``None``."""
    # By kind, not class: a module imported twice (as pytest's doctest collection does) has
    # other classes, the same kinds.
    if event.kind == EventKind.TAKE_BLIND and event.player != player:
        return TakeBlind(event.player, None)
    if event.kind == EventKind.DRAW_DECK and event.player != player:
        return DrawDeck(event.player, None)
    if event.kind == EventKind.KEEP and event.player != player:
        return Keep(event.player, (None,) * len(event.birds))
    return event


def _bird(card: int | None) -> str:
    return "a hidden bird" if card is None else BIRD_NAMES[card]


def _seed(card: int) -> str:
    return f"{FEEDER_NAMES[card]} ({describe_feeder(card)})"


def describe_event(event: Event) -> str:
    """One English sentence for an event, for logs and tools (hidden fields, ``None``, are
    described as hidden). Seats are the engine's ids, counted from 0; the sentences people read
    are :mod:`piepmatz.text.words`', with seats counted from 1 or by name."""
    e = event
    match e.kind:  # by kind, not class: see hide_secret
        case EventKind.TURN:
            return f"Turn {e.turn}: seat {e.player}."
        case EventKind.PLAY:
            return f"Seat {e.player} plays {BIRD_NAMES[e.bird]} to perch {e.perch}."
        case EventKind.CHASE:
            return f"Perch {e.perch}: the ground beats the perch by {e.difference} — a chase."
        case EventKind.TAKE_SEED:
            return f"Seat {e.player} takes {_seed(e.seed)} from position {e.position}."
        case EventKind.TAKE_BLIND:
            seed = "a seed" if e.seed is None else _seed(e.seed)
            return f"Seat {e.player} takes {seed} blind from the feeder deck."
        case EventKind.TAKE_PEST:
            where = "the feeder deck" if e.position == 0 else f"beside position {e.position}"
            return f"Seat {e.player} takes a {describe_feeder(e.pest)} from {where}."
        case EventKind.FEEDER_EMPTY:
            return f"The feeder deck is empty: seat {e.player} takes no seed."
        case EventKind.COLLECT_PERCH:
            return f"Seat {e.player} collects the chased {BIRD_NAMES[e.bird]}."
        case EventKind.CROW:
            return f"The crow scares away seat {e.player}'s {BIRD_NAMES[e.bird]}."
        case EventKind.CROW_NOTHING:
            return f"The crow finds no bird of seat {e.player}'s."
        case EventKind.SQUIRREL:
            lost = ", ".join(FEEDER_NAMES[s] for s in e.seeds) or "nothing"
            return f"The squirrel takes from seat {e.player}'s seeds: {lost}."
        case EventKind.PROMOTE:
            return f"{BIRD_NAMES[e.bird]} now sits at perch {e.perch}."
        case EventKind.COLLECT:
            return f"Seat {e.player} adds {BIRD_NAMES[e.bird]} from hand to the collection."
        case EventKind.PASS:
            return f"Seat {e.player} adds no bird."
        case EventKind.DRAW_DECK:
            if e.bird is None:
                return f"Seat {e.player} draws a bird from the deck."
            return f"Seat {e.player} draws {BIRD_NAMES[e.bird]} from the deck."
        case EventKind.DRAW_DISPLAY:
            return f"Seat {e.player} takes {BIRD_NAMES[e.bird]} from display slot {e.slot}."
        case EventKind.REFILL_DISPLAY:
            return f"Display slot {e.slot} is refilled with {BIRD_NAMES[e.bird]}."
        case EventKind.REFILL_COLUMN:
            return f"Seed column position {e.position}: {_seed(e.seed)}."
        case EventKind.PEST_BESIDE:
            return f"A {describe_feeder(e.pest)} lands beside the seed at position {e.position}."
        case EventKind.PEST_OUT:
            return f"A {describe_feeder(e.pest)} finds no free seed and leaves the game."
        case EventKind.END_TRIGGERED:
            return f"The end of the game is triggered: {END_REASONS.get(e.reason, e.reason)}."
        case EventKind.SKIP:
            return f"Seat {e.player} has no card and skips the turn."
        case EventKind.KEEP:
            if e.birds and e.birds[0] is None:
                return f"Seat {e.player} chooses the last hand."
            return f"Seat {e.player} keeps {', '.join(_bird(b) for b in e.birds) or 'nothing'}."
        case EventKind.REVEAL:
            added = ", ".join(_bird(b) for b in e.birds) or "nothing"
            return f"Seat {e.player} adds {added} from the last hand."
        case EventKind.GAME_OVER:
            return "The game is over."
    raise TypeError(f"not an event: {event!r}")


def event_to_json(event: Event) -> dict[str, Any]:
    """An event as a dict with named fields and cards in notation."""
    out: dict[str, Any] = {"kind": event.kind}
    values: tuple[Any, ...] = event
    for name, value in zip(event._fields[:-1], values, strict=False):
        if name in _TUPLE_FIELDS:
            out[name] = [_card_text(name, v) for v in value]
        else:
            out[name] = _card_text(name, value)
    return out


def event_from_json(data: Any) -> Event:
    """The inverse of :func:`event_to_json`; raises ``ValueError`` on a malformed event."""
    kind = data.get("kind") if isinstance(data, dict) else None
    if not isinstance(kind, str) or kind not in EVENT_FIELDS:
        raise ValueError(f"not an event: {str(data)[:80]}")
    event_kind = EventKind(kind)
    fields: list[Any] = []
    for key in EVENT_FIELDS[event_kind]:
        if key not in data:
            raise ValueError(f"event {kind!r} lacks the field {key!r}")
        value = data[key]
        if key in _TUPLE_FIELDS:
            if not isinstance(value, list):
                raise ValueError(f"event {kind!r}: {key!r} must be a list")
            fields.append(tuple(_read_field(kind, key, v) for v in value))
        else:
            fields.append(_read_field(kind, key, value))
    return EVENT_TYPES[event_kind](*fields)


def _read_field(kind: str, key: str, v: Any) -> Any:
    if v is None:
        return None
    if key in BIRD_FIELDS or key in FEEDER_FIELDS:
        if not isinstance(v, str):
            raise ValueError(f"event {kind!r}: {key!r} must name a card, not {v!r}")
        return parse_bird(v) if key in BIRD_FIELDS else parse_feeder(v)
    if key == "reason":
        if not isinstance(v, str) or v not in END_REASONS:
            raise ValueError(f"event {kind!r}: unknown reason {v!r}")
        return EndReason(v)
    if type(v) is int:
        low, high = _FIELD_RANGES.get(key, (0, 10_000))
        if not low <= v <= high:
            raise ValueError(f"event {kind!r}: {key!r} must be {low}-{high}, not {v}")
        return v
    raise ValueError(f"event {kind!r}: {key!r} must be an integer, not {v!r}")


def _card_text(name: str, value: Any) -> Any:
    if value is None:
        return None
    if name in BIRD_FIELDS:
        return BIRD_NAMES[value]
    if name in FEEDER_FIELDS:
        return FEEDER_NAMES[value]
    return value
