"""The state format: any state as JSON and back, validated (``docs/state-format.md``).

>>> from piepmatz.core.state import State
>>> state = State.new_game(players=2, seed=3)
>>> again = state_from_json(state_to_json(state))
>>> state_to_json(again) == state_to_json(state)
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple

from .actions import DISPLAY_SIZE, PASS_ID
from .cards import (
    BIRD_NAMES,
    BIRD_SPECIES,
    FEEDER_NAMES,
    IS_PEST,
    NUM_BIRDS,
    NUM_FEEDER,
    THREE_PLUS,
    parse_bird,
    parse_feeder,
)
from .errors import InvalidOptionsError, InvalidStateError
from .events import EndReason, event_from_json, event_to_json
from .rng import MASK
from .rules import Rules
from .state import (
    COLLECT,
    COLUMN_SIZE,
    CROW_VICTIM,
    DRAW,
    FIELDS,
    GAME_OVER,
    HAND_SIZE,
    LAST_HAND,
    NO_CARD,
    PHASE_NAMES,
    PLAY,
    Field,
    Phase,
    State,
    perches_for,
)

STATE_FORMAT: Final = "piepmatz-state"
STATE_VERSION: Final = 1


def _birds(cards: Sequence[int]) -> list[str]:
    return [BIRD_NAMES[c] for c in cards]


def _feeder(cards: Sequence[int]) -> list[str]:
    return [FEEDER_NAMES[c] for c in cards]


def _column(column: Sequence[int], pests: Sequence[int]) -> list[dict[str, str | None]]:
    # The pests list always has four slots; only those beside a seed are written.
    return [
        {"seed": FEEDER_NAMES[seed], "pest": FEEDER_NAMES[pest] if pest >= 0 else None}
        for seed, pest in zip(column, pests, strict=False)
    ]


def state_to_json(state: State) -> dict[str, Any]:
    """The whole state, hidden cards included. Decks are listed from the top card down.

    Raises :class:`InvalidStateError` for a state paused for chance: the draw it waits for is
    half done, which no document describes."""
    if state.asked is not None:
        raise InvalidStateError(
            f"a state waiting for chance ({state.asked.draw.name.lower()}) has no document"
        )
    doc: dict[str, Any] = {"format": STATE_FORMAT, "version": STATE_VERSION}
    for field in FIELDS:
        codec = _CODECS[field.name]
        if codec.key is not None:
            doc[codec.key] = codec.write(state)
    return doc


class _Reader:
    """Reads one document, naming the JSON path of the first problem it finds."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def fail(self, path: str, message: str) -> InvalidStateError:
        return InvalidStateError(f"state {path}: {message}")

    def get(self, key: str, default: Any = ...) -> Any:
        if key not in self.data:
            if default is ...:
                raise self.fail(key, "missing: every state document has this field")
            return default
        return self.data[key]

    def int_(self, key: str, low: int, high: int, default: Any = ...) -> int:
        value = self.get(key, default)
        if type(value) is not int or not low <= value <= high:
            raise self.fail(key, f"must be an integer {low}-{high}, not {value!r}")
        return value

    def bool_(self, key: str, default: Any = ...) -> bool:
        value = self.get(key, default)
        if type(value) is not bool:
            raise self.fail(key, f"must be true or false, not {value!r}")
        return value

    def card(self, text: Any, path: str, bird: bool) -> int:
        try:
            if not isinstance(text, str):
                raise ValueError(f"{text!r} is not a card name")
            return parse_bird(text) if bird else parse_feeder(text)
        except ValueError as exc:
            raise self.fail(path, str(exc)) from None

    def cards(self, value: Any, path: str, bird: bool) -> list[int]:
        if not isinstance(value, list):
            raise self.fail(path, f"must be a list of cards, not {value!r}")
        return [self.card(text, f"{path}[{i}]", bird) for i, text in enumerate(value)]

    def per_player(self, key: str, n: int, bird: bool) -> list[list[int]]:
        value = self.get(key, [[] for _ in range(n)])
        if not isinstance(value, list) or len(value) != n:
            raise self.fail(key, f"must be a list of {n} lists, one per player")
        return [self.cards(v, f"{key}[{p}]", bird) for p, v in enumerate(value)]


# ---------------------------------------------------------------- one codec per field of State


class _Codec(NamedTuple):
    """How one field of :class:`State` stands in the document."""

    #: Its key, or ``None``: not in the document (derived, or written with another field).
    key: str | None
    #: Its JSON value, from a state (or a view: its public fields have the same names).
    write: Callable[[Any], Any]
    #: Reads and checks it into the state being built (after the fields before it).
    read: Callable[[_Reader, State], None]


def _int(name: str, low: int, high: Callable[[State], int], default: Any = ...) -> _Codec:
    def read(r: _Reader, s: State) -> None:
        setattr(s, name, r.int_(name, low, high(s), default))

    return _Codec(name, lambda x: getattr(x, name), read)


def _cards(name: str, bird: bool, top_first: bool = False) -> _Codec:
    """A list of cards (a deck ``top_first``: stored with its top card last)."""
    table = BIRD_NAMES if bird else FEEDER_NAMES
    step = -1 if top_first else 1

    def read(r: _Reader, s: State) -> None:
        setattr(s, name, r.cards(r.get(name, []), name, bird)[::step])

    return _Codec(name, lambda x: [table[c] for c in getattr(x, name)[::step]], read)


def _piles(name: str, bird: bool, pests: bool | None = None) -> _Codec:
    """One list of cards per player; ``pests``: whether the feeder cards must be pests."""
    table = BIRD_NAMES if bird else FEEDER_NAMES

    def read(r: _Reader, s: State) -> None:
        piles = r.per_player(name, s.num_players, bird)
        for p, pile in enumerate(piles):
            for card in pile:
                if pests is not None and IS_PEST[card] != pests:
                    what = "a pest" if IS_PEST[card] else "a seed"
                    raise r.fail(
                        f"{name}[{p}]", f"{FEEDER_NAMES[card]} is {what} and cannot lie here"
                    )
        setattr(s, name, piles)

    return _Codec(name, lambda x: [[table[c] for c in pile] for pile in getattr(x, name)], read)


def _not_written(read: Callable[[State], None] = lambda s: None) -> _Codec:
    return _Codec(None, lambda x: None, lambda r, s: read(s))


def _read_rules(r: _Reader, s: State) -> None:
    try:
        s.rules = Rules.from_json(r.get("rules"))
    except InvalidOptionsError as exc:
        raise r.fail("rules", str(exc)) from None


def _read_phase(r: _Reader, s: State) -> None:
    name = r.get("phase")
    if name not in PHASE_NAMES:
        raise r.fail("phase", f"must be one of {', '.join(PHASE_NAMES)}, not {name!r}")
    s.phase = Phase(PHASE_NAMES.index(name))


def _read_end(r: _Reader, s: State) -> None:
    end = r.get("end_triggered", None)
    if end is not None and end not in set(EndReason):
        raise r.fail("end_triggered", f"must be null or one of {', '.join(EndReason)}")
    if end == "birds" and s.rules.end_trigger != "feeder_or_birds":
        raise r.fail("end_triggered", "an empty bird deck ends the game only under 'overview' (E1)")
    s.end_triggered = None if end is None else EndReason(end)


def _read_chase_perch(r: _Reader, s: State) -> None:
    chase = r.get("chase_perch", None)
    if chase is not None and (type(chase) is not int or not 1 <= chase <= s.num_perches):
        raise r.fail("chase_perch", f"must be null or a perch 1-{s.num_perches}")
    s.chase_perch = chase - 1 if chase is not None else -1


def _read_chased(r: _Reader, s: State) -> None:
    s.chased = r.bool_("chased", False)


def _read_rows(r: _Reader, s: State) -> None:
    rows = r.get("rows")
    if not isinstance(rows, list) or len(rows) != s.num_perches:
        raise r.fail(
            "rows", f"must be a list of {s.num_perches} rows for {s.num_players} players (C5)"
        )
    s.rows = [r.cards(row, f"rows[{i}]", True) for i, row in enumerate(rows)]
    for i, row in enumerate(s.rows):
        if not row:
            raise r.fail(f"rows[{i}]", "is empty: every perch has a bird (T1.2)")


def _read_column(r: _Reader, s: State) -> None:
    column = r.get("column", [])
    if not isinstance(column, list) or len(column) > COLUMN_SIZE:
        raise r.fail("column", f"must be a list of at most {COLUMN_SIZE} seed positions")
    s.column, s.column_pests = [], [NO_CARD] * COLUMN_SIZE
    for i, pos in enumerate(column):
        if not isinstance(pos, dict) or "seed" not in pos:
            raise r.fail(f"column[{i}]", 'must be an object {"seed": ..., "pest": ...}')
        seed = r.card(pos["seed"], f"column[{i}].seed", False)
        if IS_PEST[seed]:
            raise r.fail(f"column[{i}].seed", f"{FEEDER_NAMES[seed]} is a pest, not a seed (S3)")
        s.column.append(seed)
        pest = pos.get("pest")
        if pest is not None:
            card = r.card(pest, f"column[{i}].pest", False)
            if not IS_PEST[card]:
                raise r.fail(
                    f"column[{i}].pest", f"{FEEDER_NAMES[card]} is a seed, not a pest (T3.2)"
                )
            s.column_pests[i] = card


def _read_display(r: _Reader, s: State) -> None:
    display = r.get("display", [None] * DISPLAY_SIZE)
    if not isinstance(display, list) or len(display) != DISPLAY_SIZE:
        raise r.fail("display", f"must be a list of {DISPLAY_SIZE} slots (a card or null)")
    s.display = [
        NO_CARD if c is None else r.card(c, f"display[{i}]", True) for i, c in enumerate(display)
    ]


def _read_hands(r: _Reader, s: State) -> None:
    s.hands = [sorted(h) for h in r.per_player("hands", s.num_players, True)]
    for p, hand in enumerate(s.hands):
        if len(hand) > HAND_SIZE:
            raise r.fail(
                f"hands[{p}]", f"holds {len(hand)} cards; a hand holds at most {HAND_SIZE}"
            )


def _read_shown(r: _Reader, s: State) -> None:
    # Older files have no "shown": nobody is then known to hold a particular bird. After the
    # last-hand choice (E3) the birds shown are among that player's kept and discarded cards.
    n = s.num_players
    s.shown = r.per_player("shown", n, True) if "shown" in r.data else [[] for _ in range(n)]


def _read_kept(r: _Reader, s: State) -> None:
    n = s.num_players
    kept = r.get("kept", [None] * n)
    if not isinstance(kept, list) or len(kept) != n:
        raise r.fail("kept", f"must be a list of {n} entries (null or a list of birds)")
    s.kept = [None if k is None else r.cards(k, f"kept[{p}]", True) for p, k in enumerate(kept)]


def _read_events(r: _Reader, s: State) -> None:
    events = r.get("events", [])
    if events is None:
        s.events = None
        return
    if not isinstance(events, list):
        raise r.fail("events", "must be null or a list of events")
    s.events = []
    for i, e in enumerate(events):
        try:
            event = event_from_json(e)
        except ValueError as exc:
            raise r.fail(f"events[{i}]", str(exc)) from None
        player = getattr(event, "player", 0)
        if player >= s.num_players:
            raise r.fail(f"events[{i}]", f"names player {player} of a {s.num_players}-player game")
        s.events.append(event)


def _read_players(r: _Reader, s: State) -> None:
    s.num_players = r.int_("players", 2, 4)


def _set_hand_facts(s: State) -> None:
    # What the others learnt of each hand from T2.2 moves is not part of the document.
    s.hand_facts = [None] * s.num_players


def _last_seat(s: State) -> int:
    return s.num_players - 1


#: The codec of every field of :data:`~piepmatz.core.state.FIELDS`; the document lists the
#: fields in the table's order.
_CODECS: Final[dict[str, _Codec]] = {
    "num_players": _Codec("players", lambda x: x.num_players, _read_players),
    "num_perches": _not_written(lambda s: setattr(s, "num_perches", perches_for(s.num_players))),
    "rules": _Codec("rules", lambda x: x.rules.to_json(), _read_rules),
    "first_player": _int("first_player", 0, _last_seat),
    "turn": _int("turn", 1, lambda s: 10_000),
    "turn_player": _int("turn_player", 0, _last_seat),
    "current_player": _int("current_player", -1, _last_seat),
    "phase": _Codec("phase", lambda x: PHASE_NAMES[x.phase], _read_phase),
    "end_triggered": _Codec("end_triggered", lambda x: x.end_triggered, _read_end),
    "chase_perch": _Codec(
        "chase_perch",
        lambda x: x.chase_perch + 1 if x.chase_perch >= 0 else None,
        _read_chase_perch,
    ),
    "chased": _Codec("chased", lambda x: x.chased, _read_chased),
    "played_value": _int("played_value", 0, lambda s: 6, 0),
    "draws_left": _int("draws_left", 0, lambda s: HAND_SIZE, 0),
    # A document is of a state between decisions: state_to_json refuses one paused for chance.
    "asked": _not_written(lambda s: setattr(s, "asked", None)),
    "rows": _Codec("rows", lambda x: [_birds(row) for row in x.rows], _read_rows),
    "column": _Codec("column", lambda x: _column(x.column, x.column_pests), _read_column),
    "column_pests": _not_written(),  # written and read with the column
    "feeder_deck": _cards("feeder_deck", False, top_first=True),
    "bird_deck": _cards("bird_deck", True, top_first=True),
    "display": _Codec(
        "display", lambda x: [BIRD_NAMES[c] if c >= 0 else None for c in x.display], _read_display
    ),
    "hands": _Codec("hands", lambda x: [_birds(h) for h in x.hands], _read_hands),
    "shown": _Codec("shown", lambda x: [_birds(h) for h in x.shown], _read_shown),
    "collections": _piles("collections", True),
    "seeds_seen": _piles("seeds_seen", False, pests=False),
    "seeds_blind": _piles("seeds_blind", False, pests=False),
    "pests": _piles("pests", False, pests=True),
    "gone_birds": _cards("gone_birds", True),
    "gone_feeder": _cards("gone_feeder", False),
    "removed_birds": _cards("removed_birds", True),
    "removed_feeder": _cards("removed_feeder", False),
    "kept": _Codec(
        "kept", lambda x: [None if k is None else _birds(k) for k in x.kept], _read_kept
    ),
    "discards": _piles("discards", True),
    "hand_facts": _not_written(_set_hand_facts),
    "rng": _int("rng", 0, lambda s: MASK, 0),
    "events": _Codec(
        "events",
        lambda x: None if x.events is None else [event_to_json(e) for e in x.events],
        _read_events,
    ),
}


def _check_codecs(fields: Sequence[Field]) -> None:
    """Every field of the table has a codec: a field added to ``FIELDS`` without one fails
    here, at import, instead of leaving the documents silently."""
    for field in fields:
        if field.name not in _CODECS:
            raise TypeError(
                f"State field {field.name!r} has no JSON codec in piepmatz.core.serial "
                "(add one to _CODECS, and a view entry to piepmatz.core.viewjson._VIEW)"
            )


_check_codecs(FIELDS)


def state_from_json(data: Any) -> State:
    """Read and validate a state document; raise :class:`InvalidStateError` naming the problem.

    Checks the format and version, every card name, that every card of the game lies in exactly
    one place, the sizes of hands, rows, column and display, that seeds and pests lie where only
    they can, and that the phase is one that can occur with this position.
    """
    if not isinstance(data, dict):
        raise InvalidStateError(f"a state must be a JSON object, not {type(data).__name__}")
    r = _Reader(data)
    if r.get("format") != STATE_FORMAT:
        raise r.fail("format", f"must be {STATE_FORMAT!r}, not {data.get('format')!r}")
    if type(r.get("version")) is not int or data["version"] != STATE_VERSION:
        raise r.fail(
            "version", f"version {data.get('version')!r} is not supported (this is {STATE_VERSION})"
        )
    s = State.__new__(State)
    for field in FIELDS:
        _CODECS[field.name].read(r, s)
    _check_cards(s, r)
    _check_phase(s, r)
    return s


def _check_cards(s: State, r: _Reader) -> None:
    try:
        birds, feeder = s.card_places()
    except ValueError as exc:
        raise r.fail("cards", f"a card lies in two places: {exc}") from None
    missing_b = [BIRD_NAMES[b] for b in range(NUM_BIRDS) if b not in birds]
    missing_f = [FEEDER_NAMES[f] for f in range(NUM_FEEDER) if f not in feeder]
    if missing_b or missing_f:
        raise r.fail(
            "cards",
            "every card must lie in exactly one place; missing: "
            + ", ".join(missing_b + missing_f),
        )
    if s.num_players == 2:
        species = {BIRD_SPECIES[b] for b in s.removed_birds}
        if len(s.removed_birds) != 12 or len(species) != 1:
            raise r.fail(
                "removed_birds", "two players play without all twelve birds of one species (S2)"
            )
        if set(s.removed_feeder) != THREE_PLUS:
            raise r.fail("removed_feeder", "two players play without the five 3+ cards (S2, C4)")
    elif s.removed_birds or s.removed_feeder:
        key = "removed_birds" if s.removed_birds else "removed_feeder"
        raise r.fail(key, f"nothing is removed with {s.num_players} players (S2)")
    for i, pest in enumerate(s.column_pests):
        if pest >= 0 and i >= len(s.column):
            raise r.fail(f"column[{i}]", "a pest lies beside a seed that is not there (T3.2)")


def _check_phase(s: State, r: _Reader) -> None:
    phase = s.phase
    name = PHASE_NAMES[phase]
    n = s.num_players
    if phase in (LAST_HAND, GAME_OVER) and s.end_triggered is None:
        what = "the last hand comes" if phase == LAST_HAND else "the game ends"
        raise r.fail("end_triggered", f"{what} only after the end was triggered (E1)")
    if phase == GAME_OVER:
        if s.current_player != -1:
            raise r.fail("current_player", "must be -1 once the game is over")
        return
    if phase != LAST_HAND and s.current_player != s.turn_player:
        raise r.fail("current_player", f"in the {name} phase the player whose turn it is decides")
    if phase != LAST_HAND and any(k is not None for k in s.kept):
        raise r.fail("kept", "last-hand choices exist only in the last-hand phase (E3)")
    for p, x in enumerate(s.shown):
        chosen = s.kept[p] is not None
        where = f"kept[{p}] or discards[{p}]" if chosen else f"hands[{p}]"
        held = (s.kept[p] or []) + s.discards[p] if chosen else s.hands[p]
        for b in x:
            if b not in held or x.count(b) > 1:
                raise r.fail(f"shown[{p}]", f"{BIRD_NAMES[b]} must be a bird of {where}, once")
    if phase != CROW_VICTIM and s.chase_perch >= 0:
        raise r.fail("chase_perch", "is set only while a crow's victim is chosen (T2.1d)")
    if phase != DRAW and s.draws_left:
        raise r.fail("draws_left", "is set only in the draw phase (T3.1)")
    if phase == PLAY and not s.hands[s.current_player]:
        raise r.fail("hands", f"player {s.current_player} must play but holds no card (T1.3)")
    if phase == COLLECT:
        if not s.rules.no_chase_collect:
            raise r.fail("phase", "these rules have no collect after no chase (T2.2)")
        if len(s.legal_action_ids()) < 2 or s.legal_action_ids()[-1] != PASS_ID:
            raise r.fail(
                "phase",
                f"player {s.current_player} holds no bird worth at most {s.played_value} "
                "to collect (T2.2)",
            )
    if phase == CROW_VICTIM:
        if s.chase_perch < 0:
            raise r.fail("chase_perch", "the crow phase needs the perch whose chase is paused")
        if len(s.crow_candidates(s.current_player)) < 2:
            raise r.fail(
                "phase", "the crow's victim is chosen only between two or more birds (T2.1d)"
            )
    if phase == DRAW:
        if s.draws_left < 1 or len(s.draw_options()) < 2:
            raise r.fail(
                "draws_left",
                "the draw phase needs a draw left and a choice of at least two places (T3.1)",
            )
        # Each draw adds a card and takes one off draws_left, so the two always agree.
        in_hand = len(s.hands[s.current_player])
        if s.draws_left != s.draws_due(in_hand):
            rule = f"refilling to {HAND_SIZE}" if s.rules.draw == "refill" else "one card a turn"
            raise r.fail(
                "draws_left",
                f"{s.draws_left} draws left for a hand of {in_hand}: the draw is {rule} (T3.1)",
            )
    for q in range(n):
        if s.kept[q] is None and s.discards[q]:
            raise r.fail(f"discards[{q}]", "only the last-hand choice discards birds (E3)")
        kept = s.kept[q]
        if kept is not None and (len(kept) > 2 or (len(kept) < 2 and s.discards[q])):
            raise r.fail(
                f"kept[{q}]",
                f"{len(kept)} of a last hand of {len(kept) + len(s.discards[q])} birds kept: "
                "a player keeps two, or all of two or fewer (E3)",
            )
    if phase == LAST_HAND:
        if not s.rules.last_hand:
            raise r.fail("phase", "these rules have no last hand (E3)")
        p = s.current_player
        if p < 0 or s.kept[p] is not None or len(s.hands[p]) <= 2:
            raise r.fail(
                "current_player",
                "must be a player who has not chosen and holds more than two cards (E3)",
            )
        for q in range(n):
            if s.kept[q] is not None and s.hands[q]:
                raise r.fail(f"hands[{q}]", "a player who has chosen holds no more cards (E3)")
