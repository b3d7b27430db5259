"""The event log: what happened, step by step, in words a person can follow.

The state appends events as small tuples ``(kind, field, ...)``; this module names their fields
(for JSON) and describes them in English (for logs and the terminal game). Fields ending in
``*`` take the rest of the tuple.

>>> describe_event(("play", 1, 0, 2))
'Player 1 plays BL1m to perch 2.'
>>> describe_event(("draw_deck", 0, None))
'Player 0 draws a bird from the deck.'
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final

from .cards import BIRD_NAMES, FEEDER_NAMES, describe_feeder


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


#: Event kinds whose fields after the player are known only to that player.
SECRET_EVENTS: Final = frozenset({EventKind.TAKE_BLIND, EventKind.DRAW_DECK, EventKind.KEEP})

#: Field names per event kind; ``bird``/``birds`` hold bird ids, ``seed``/``seeds``/``pest``
#: feeder ids.
EVENT_FIELDS: Final[dict[EventKind, tuple[str, ...]]] = {
    EventKind.TURN: ("player", "turn"),
    EventKind.PLAY: ("player", "bird", "perch"),
    EventKind.CHASE: ("player", "perch", "difference"),
    EventKind.TAKE_SEED: ("player", "seed", "position"),
    EventKind.TAKE_BLIND: ("player", "seed"),
    EventKind.TAKE_PEST: ("player", "pest", "position"),
    EventKind.FEEDER_EMPTY: ("player",),
    EventKind.COLLECT_PERCH: ("player", "bird"),
    EventKind.CROW: ("player", "bird"),
    EventKind.CROW_NOTHING: ("player",),
    EventKind.SQUIRREL: ("player", "seeds*"),
    EventKind.PROMOTE: ("perch", "bird"),
    EventKind.COLLECT: ("player", "bird"),
    EventKind.PASS: ("player",),
    EventKind.DRAW_DECK: ("player", "bird"),
    EventKind.DRAW_DISPLAY: ("player", "slot", "bird"),
    EventKind.REFILL_DISPLAY: ("slot", "bird"),
    EventKind.REFILL_COLUMN: ("position", "seed"),
    EventKind.PEST_BESIDE: ("position", "pest"),
    EventKind.PEST_OUT: ("pest",),
    EventKind.END_TRIGGERED: ("player", "reason"),
    EventKind.SKIP: ("player",),
    EventKind.KEEP: ("player", "birds*"),
    EventKind.REVEAL: ("player", "birds*"),
    EventKind.GAME_OVER: (),
}
#: The range of each integer field of an event (others: 0-10,000).
_FIELD_RANGES: Final[dict[str, tuple[int, int]]] = {
    "player": (0, 3),
    "perch": (1, 3),
    "slot": (1, 3),
    "position": (0, 4),  # 0: a pest drawn blind from the feeder deck
    "turn": (1, 10_000),
    "difference": (1, 10_000),
}
BIRD_FIELDS: Final = frozenset({"bird", "birds*"})
FEEDER_FIELDS: Final = frozenset({"seed", "seeds*", "pest"})
END_REASONS: Final = {
    EndReason.FEEDER: "a card was needed from the empty feeder deck (E1)",
    EndReason.BIRDS: "the bird deck is empty at the end of a turn (E1, overview)",
    EndReason.SKIP: "a player had no card and nothing to draw (E1, T1.3)",
}


def _bird(card: int | None) -> str:
    return "a hidden bird" if card is None else BIRD_NAMES[card]


def describe_event(event: tuple[Any, ...]) -> str:
    """One sentence for an event (hidden fields, ``None``, are described as hidden)."""
    kind = event[0]
    a = event[1:]
    if kind == "turn":
        return f"Turn {a[1]}: player {a[0]}."
    if kind == "play":
        return f"Player {a[0]} plays {BIRD_NAMES[a[1]]} to perch {a[2]}."
    if kind == "chase":
        return f"Perch {a[1]}: the ground beats the perch by {a[2]} — a chase."
    if kind == "take_seed":
        seed = f"{FEEDER_NAMES[a[1]]} ({describe_feeder(a[1])})"
        return f"Player {a[0]} takes {seed} from position {a[2]}."
    if kind == "take_blind":
        seed = "a seed" if a[1] is None else f"{FEEDER_NAMES[a[1]]} ({describe_feeder(a[1])})"
        return f"Player {a[0]} takes {seed} blind from the feeder deck."
    if kind == "take_pest":
        where = "the feeder deck" if a[2] == 0 else f"beside position {a[2]}"
        return f"Player {a[0]} takes a {describe_feeder(a[1])} from {where}."
    if kind == "feeder_empty":
        return f"The feeder deck is empty: player {a[0]} takes no seed."
    if kind == "collect_perch":
        return f"Player {a[0]} collects the chased {BIRD_NAMES[a[1]]}."
    if kind == "crow":
        return f"The crow scares away player {a[0]}'s {BIRD_NAMES[a[1]]}."
    if kind == "crow_nothing":
        return f"The crow finds no bird of player {a[0]}'s."
    if kind == "squirrel":
        lost = ", ".join(FEEDER_NAMES[s] for s in a[1:]) or "nothing"
        return f"The squirrel takes from player {a[0]}'s seeds: {lost}."
    if kind == "promote":
        return f"{BIRD_NAMES[a[1]]} now sits at perch {a[0]}."
    if kind == "collect":
        return f"Player {a[0]} adds {BIRD_NAMES[a[1]]} from hand to the collection."
    if kind == "pass":
        return f"Player {a[0]} adds no bird."
    if kind == "draw_deck":
        return (
            f"Player {a[0]} draws a bird from the deck."
            if a[1] is None
            else f"Player {a[0]} draws {BIRD_NAMES[a[1]]} from the deck."
        )
    if kind == "draw_display":
        return f"Player {a[0]} takes {BIRD_NAMES[a[2]]} from display slot {a[1]}."
    if kind == "refill_display":
        return f"Display slot {a[0]} is refilled with {BIRD_NAMES[a[1]]}."
    if kind == "refill_column":
        return f"Seed column position {a[0]}: {FEEDER_NAMES[a[1]]} ({describe_feeder(a[1])})."
    if kind == "pest_beside":
        return f"A {describe_feeder(a[1])} lands beside the seed at position {a[0]}."
    if kind == "pest_out":
        return f"A {describe_feeder(a[0])} finds no free seed and leaves the game."
    if kind == "end_triggered":
        return f"The end of the game is triggered: {END_REASONS.get(a[1], a[1])}."
    if kind == "skip":
        return f"Player {a[0]} has no card and skips the turn."
    if kind == "keep":
        if a[1:] and a[1] is None:
            return f"Player {a[0]} chooses the last hand."
        return f"Player {a[0]} keeps {', '.join(_bird(b) for b in a[1:]) or 'nothing'}."
    if kind == "reveal":
        birds = ", ".join(_bird(b) for b in a[1:]) or "nothing"
        return f"Player {a[0]} adds {birds} from the last hand."
    if kind == "game_over":
        return "The game is over."
    return f"{kind} {a}"


def event_to_json(event: tuple[Any, ...]) -> dict[str, Any]:
    """An event as a dict with named fields and cards in notation."""
    kind = event[0]
    out: dict[str, Any] = {"kind": kind}
    names = EVENT_FIELDS[kind]
    for i, name in enumerate(names):
        if name.endswith("*"):
            values = event[1 + i :]
            out[name[:-1]] = [_card_text(name, v) for v in values]
        else:
            out[name] = _card_text(name, event[1 + i])
    return out


def event_from_json(data: Any) -> tuple[Any, ...]:
    """The inverse of :func:`event_to_json`; raises ``ValueError`` on a malformed event."""
    from .cards import parse_bird, parse_feeder

    kind = data.get("kind") if isinstance(data, dict) else None
    if not isinstance(kind, str) or kind not in EVENT_FIELDS:
        raise ValueError(f"not an event: {str(data)[:80]}")
    event_kind = EventKind(kind)
    fields: list[Any] = [event_kind]
    for name in EVENT_FIELDS[event_kind]:
        key = name.rstrip("*")
        if key not in data:
            raise ValueError(f"event {kind!r} lacks the field {key!r}")
        value = data[key]
        values = value if name.endswith("*") else [value]
        if name.endswith("*") and not isinstance(value, list):
            raise ValueError(f"event {kind!r}: {key!r} must be a list")
        for v in values:
            if v is None:
                fields.append(None)
            elif name in BIRD_FIELDS or name in FEEDER_FIELDS:
                if not isinstance(v, str):
                    raise ValueError(f"event {kind!r}: {key!r} must name a card, not {v!r}")
                fields.append(parse_bird(v) if name in BIRD_FIELDS else parse_feeder(v))
            elif name == "reason":
                if not isinstance(v, str) or v not in END_REASONS:
                    raise ValueError(f"event {kind!r}: unknown reason {v!r}")
                fields.append(EndReason(v))
            elif type(v) is int:
                low, high = _FIELD_RANGES.get(key, (0, 10_000))
                if not low <= v <= high:
                    raise ValueError(f"event {kind!r}: {key!r} must be {low}-{high}, not {v}")
                fields.append(v)
            else:
                raise ValueError(f"event {kind!r}: {key!r} must be an integer, not {v!r}")
    return tuple(fields)


def _card_text(name: str, value: Any) -> Any:
    if value is None:
        return None
    if name in BIRD_FIELDS:
        return BIRD_NAMES[value]
    if name in FEEDER_FIELDS:
        return FEEDER_NAMES[value]
    return value
