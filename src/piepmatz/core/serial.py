"""The state format: any state as JSON and back, validated (``docs/state-format.md``).

>>> from piepmatz.core.state import State
>>> state = State.new_game(players=2, seed=3)
>>> again = state_from_json(state_to_json(state))
>>> state_to_json(again) == state_to_json(state)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from .actions import DISPLAY_SIZE, PASS_ID
from .cards import (
    BIRD_NAMES,
    BIRD_SPECIES,
    FEEDER_NAMES,
    IS_PEST,
    NUM_BIRDS,
    NUM_FEEDER,
    SPECIES,
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
    GAME_OVER,
    HAND_SIZE,
    LAST_HAND,
    NO_CARD,
    PHASE_NAMES,
    PLAY,
    Phase,
    State,
    perches_for,
)
from .view import PlayerView

STATE_FORMAT: Final = "piepmatz-state"
STATE_VERSION: Final = 1


def _birds(cards: list[int]) -> list[str]:
    return [BIRD_NAMES[c] for c in cards]


def _feeder(cards: list[int]) -> list[str]:
    return [FEEDER_NAMES[c] for c in cards]


def _column(column: Sequence[int], pests: Sequence[int]) -> list[dict[str, str | None]]:
    # The pests list always has four slots; only those beside a seed are written.
    return [
        {"seed": FEEDER_NAMES[seed], "pest": FEEDER_NAMES[pest] if pest >= 0 else None}
        for seed, pest in zip(column, pests, strict=False)
    ]


def state_to_json(state: State) -> dict[str, Any]:
    """The whole state, hidden cards included. Decks are listed from the top card down."""
    return {
        "format": STATE_FORMAT,
        "version": STATE_VERSION,
        "players": state.num_players,
        "rules": state.rules.to_json(),
        "first_player": state.first_player,
        "turn": state.turn,
        "turn_player": state.turn_player,
        "current_player": state.current_player,
        "phase": PHASE_NAMES[state.phase],
        "end_triggered": state.end_triggered,
        "chase_perch": state.chase_perch + 1 if state.chase_perch >= 0 else None,
        "chased": state.chased,
        "played_value": state.played_value,
        "draws_left": state.draws_left,
        "rows": [_birds(r) for r in state.rows],
        "column": _column(state.column, state.column_pests),
        "feeder_deck": _feeder(state.feeder_deck[::-1]),
        "bird_deck": _birds(state.bird_deck[::-1]),
        "display": [BIRD_NAMES[c] if c >= 0 else None for c in state.display],
        "hands": [_birds(h) for h in state.hands],
        "shown": [_birds(x) for x in state.shown],
        "collections": [_birds(c) for c in state.collections],
        "seeds_seen": [_feeder(x) for x in state.seeds_seen],
        "seeds_blind": [_feeder(x) for x in state.seeds_blind],
        "pests": [_feeder(x) for x in state.pests],
        "gone_birds": _birds(state.gone_birds),
        "gone_feeder": _feeder(state.gone_feeder),
        "removed_birds": _birds(state.removed_birds),
        "removed_feeder": _feeder(state.removed_feeder),
        "kept": [None if k is None else _birds(k) for k in state.kept],
        "discards": [_birds(d) for d in state.discards],
        "rng": state.rng,
        "events": None if state.events is None else [event_to_json(e) for e in state.events],
    }


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
    n = r.int_("players", 2, 4)
    try:
        rules = Rules.from_json(r.get("rules"))
    except InvalidOptionsError as exc:
        raise r.fail("rules", str(exc)) from None
    s = State.__new__(State)
    s.rules = rules
    s.num_players = n
    s.num_perches = perches_for(n)
    s.first_player = r.int_("first_player", 0, n - 1)
    s.turn = r.int_("turn", 1, 10_000)
    s.turn_player = r.int_("turn_player", 0, n - 1)
    phase_name = r.get("phase")
    if phase_name not in PHASE_NAMES:
        raise r.fail("phase", f"must be one of {', '.join(PHASE_NAMES)}, not {phase_name!r}")
    s.phase = Phase(PHASE_NAMES.index(phase_name))
    s.current_player = r.int_("current_player", -1, n - 1)
    end = r.get("end_triggered", None)
    if end is not None and end not in set(EndReason):
        raise r.fail("end_triggered", f"must be null or one of {', '.join(EndReason)}")
    if end == "birds" and rules.end_trigger != "feeder_or_birds":
        raise r.fail("end_triggered", "an empty bird deck ends the game only under 'overview' (E1)")
    s.end_triggered = None if end is None else EndReason(end)
    chase = r.get("chase_perch", None)
    if chase is not None and (type(chase) is not int or not 1 <= chase <= s.num_perches):
        raise r.fail("chase_perch", f"must be null or a perch 1-{s.num_perches}")
    s.chase_perch = chase - 1 if chase is not None else -1
    s.chased = r.bool_("chased", False)
    s.played_value = r.int_("played_value", 0, 6, 0)
    s.draws_left = r.int_("draws_left", 0, HAND_SIZE, 0)
    s.rng = r.int_("rng", 0, MASK, 0)

    rows = r.get("rows")
    if not isinstance(rows, list) or len(rows) != s.num_perches:
        raise r.fail("rows", f"must be a list of {s.num_perches} rows for {n} players (C5)")
    s.rows = [r.cards(row, f"rows[{i}]", True) for i, row in enumerate(rows)]
    for i, row in enumerate(s.rows):
        if not row:
            raise r.fail(f"rows[{i}]", "is empty: every perch has a bird (T1.2)")
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
    s.feeder_deck = r.cards(r.get("feeder_deck", []), "feeder_deck", False)[::-1]
    s.bird_deck = r.cards(r.get("bird_deck", []), "bird_deck", True)[::-1]
    display = r.get("display", [None] * DISPLAY_SIZE)
    if not isinstance(display, list) or len(display) != DISPLAY_SIZE:
        raise r.fail("display", f"must be a list of {DISPLAY_SIZE} slots (a card or null)")
    s.display = [
        NO_CARD if c is None else r.card(c, f"display[{i}]", True) for i, c in enumerate(display)
    ]
    s.hands = [sorted(h) for h in r.per_player("hands", n, True)]
    for p, hand in enumerate(s.hands):
        if len(hand) > HAND_SIZE:
            raise r.fail(
                f"hands[{p}]", f"holds {len(hand)} cards; a hand holds at most {HAND_SIZE}"
            )
    s.collections = r.per_player("collections", n, True)
    s.seeds_seen = r.per_player("seeds_seen", n, False)
    s.seeds_blind = r.per_player("seeds_blind", n, False)
    s.pests = r.per_player("pests", n, False)
    for key, piles, want_pest in (
        ("seeds_seen", s.seeds_seen, False),
        ("seeds_blind", s.seeds_blind, False),
        ("pests", s.pests, True),
    ):
        for p, pile in enumerate(piles):
            for card in pile:
                if IS_PEST[card] != want_pest:
                    what = "a pest" if IS_PEST[card] else "a seed"
                    raise r.fail(
                        f"{key}[{p}]", f"{FEEDER_NAMES[card]} is {what} and cannot lie here"
                    )
    s.gone_birds = r.cards(r.get("gone_birds", []), "gone_birds", True)
    s.gone_feeder = r.cards(r.get("gone_feeder", []), "gone_feeder", False)
    s.removed_birds = r.cards(r.get("removed_birds", []), "removed_birds", True)
    s.removed_feeder = r.cards(r.get("removed_feeder", []), "removed_feeder", False)
    kept = r.get("kept", [None] * n)
    if not isinstance(kept, list) or len(kept) != n:
        raise r.fail("kept", f"must be a list of {n} entries (null or a list of birds)")
    s.kept = [None if k is None else r.cards(k, f"kept[{p}]", True) for p, k in enumerate(kept)]
    s.discards = r.per_player("discards", n, True)
    # Older files have no "shown": nobody is then known to hold a particular bird. After the
    # last-hand choice (E3) the birds shown are among that player's kept and discarded cards.
    s.shown = r.per_player("shown", n, True) if "shown" in data else [[] for _ in range(n)]
    # What the others learnt of each hand from T2.2 moves is not part of the document.
    s.hand_facts = [None] * n
    events = r.get("events", [])
    if events is None:
        s.events = None
    elif isinstance(events, list):
        s.events = []
        for i, e in enumerate(events):
            try:
                event = event_from_json(e)
            except ValueError as exc:
                raise r.fail(f"events[{i}]", str(exc)) from None
            player = getattr(event, "player", 0)
            if player >= n:
                raise r.fail(f"events[{i}]", f"names player {player} of a {n}-player game")
            s.events.append(event)
    else:
        raise r.fail("events", "must be null or a list of events")
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


def view_to_json(view: PlayerView) -> dict[str, Any]:
    """A player's view as JSON: the same field names as the state, hidden parts as counts."""
    from .scoring import score

    def birds(cards: tuple[int, ...]) -> list[str]:
        return [BIRD_NAMES[c] for c in cards]

    def feeder(cards: tuple[int, ...]) -> list[str]:
        return [FEEDER_NAMES[c] for c in cards]

    own_seeds = list(view.seeds_seen[view.player]) + list(view.own_blind)
    running = score(
        view.rules,
        [list(c) for c in view.collections],
        [list(x) for x in view.seeds_seen],
        final=False,
    )
    return {
        "format": "piepmatz-view",
        "version": STATE_VERSION,
        "player": view.player,
        "players": view.num_players,
        "rules": view.rules.to_json(),
        "first_player": view.first_player,
        "turn": view.turn,
        "turn_player": view.turn_player,
        "current_player": view.current_player,
        "phase": PHASE_NAMES[view.phase],
        "end_triggered": view.end_triggered,
        "chase_perch": view.chase_perch + 1 if view.chase_perch >= 0 else None,
        "played_value": view.played_value,
        "draws_left": view.draws_left,
        "hand": birds(view.hand),
        "hand_sizes": list(view.hand_sizes),
        "shown": [birds(x) for x in view.shown],
        "rows": [birds(row) for row in view.rows],
        "column": _column(view.column, view.column_pests),
        "display": [BIRD_NAMES[c] if c >= 0 else None for c in view.display],
        "bird_deck_size": view.bird_deck_size,
        "feeder_deck_size": view.feeder_deck_size,
        "collections": [birds(c) for c in view.collections],
        "pests": [feeder(x) for x in view.pests],
        "seeds_seen": [feeder(x) for x in view.seeds_seen],
        "blind_counts": list(view.blind_counts),
        "own_seeds": feeder(tuple(own_seeds)),
        "gone_birds": birds(view.gone_birds),
        "gone_feeder": feeder(view.gone_feeder),
        "removed_species": sorted({SPECIES[BIRD_SPECIES[b]] for b in view.removed_birds}),
        "chosen": list(view.chosen),
        "own_kept": birds(view.own_kept),
        "majority": running.majority,
        "events": None if view.events is None else [event_to_json(e) for e in view.events],
    }
