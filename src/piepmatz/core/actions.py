"""Actions: small values with a canonical text form and a stable integer id.

Every decision a player takes in RULES.md is one action:

========================  ==========================================  =============
text                      decision                                    ids
========================  ==========================================  =============
``play BL5m 2``           T1.1 play a hand bird to perch 2            0–215
``collect CH3f``          T2.2 add a hand bird after no chase         216–287
``pass``                  T2.2 decline                                288
``draw display 1``        T3.1 take display slot 1 (1–3)              289–291
``draw deck``             T3.1 take the top of the bird deck          292
``crow SP4f``             T2.1d the crow's victim                     293–364
``keep BL2m YE6f``        E3 the two birds that join the collection   365–2920
========================  ==========================================  =============

>>> a = Action.parse("play BL5m 2")
>>> a.id, str(Action.from_id(a.id))
(25, 'play BL5m 2')
>>> str(Action.parse("keep YE6f BL2m"))  # canonical order: by card id
'keep BL2m YE6f'

Parsing the text alone checks syntax only; whether an action is legal is a question for a state
(:meth:`piepmatz.core.state.State.parse_action`).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from .cards import BIRD_NAMES, NUM_BIRDS, parse_bird
from .errors import InvalidActionError


class ActionKind(StrEnum):
    """The kinds of decision (the verb of an action's text)."""

    PLAY = "play"
    COLLECT = "collect"
    PASS = "pass"
    DRAW_DISPLAY = "draw display"
    DRAW_DECK = "draw deck"
    CROW = "crow"
    KEEP = "keep"


PLAY, COLLECT, PASS, DRAW_DISPLAY, DRAW_DECK, CROW, KEEP = ActionKind
#: How many bird cards and whether a perch or slot number each kind takes.
_SHAPE: Final = {
    PLAY: (1, True),
    COLLECT: (1, False),
    PASS: (0, False),
    DRAW_DISPLAY: (0, True),
    DRAW_DECK: (0, False),
    CROW: (1, False),
    KEEP: (2, False),
}

MAX_PERCHES: Final = 3
#: S4: three display slots.
DISPLAY_SIZE: Final = 3

PLAY_BASE: Final = 0
COLLECT_BASE: Final = PLAY_BASE + NUM_BIRDS * MAX_PERCHES  # 216
PASS_ID: Final = COLLECT_BASE + NUM_BIRDS  # 288
DRAW_DISPLAY_BASE: Final = PASS_ID + 1  # 289
DRAW_DECK_ID: Final = DRAW_DISPLAY_BASE + DISPLAY_SIZE  # 292
CROW_BASE: Final = DRAW_DECK_ID + 1  # 293
KEEP_BASE: Final = CROW_BASE + NUM_BIRDS  # 365
NUM_PAIRS: Final = NUM_BIRDS * (NUM_BIRDS - 1) // 2  # 2556
NUM_ACTIONS: Final = KEEP_BASE + NUM_PAIRS  # 2921

# Unordered pairs of birds a < b, numbered in lexicographic order.
PAIRS: Final = tuple((a, b) for a in range(NUM_BIRDS) for b in range(a + 1, NUM_BIRDS))
PAIR_INDEX: Final = {pair: i for i, pair in enumerate(PAIRS)}


def as_id(value: object) -> int:
    """``value`` as an integer, for a caller that received an action id from outside (a bot, a
    learner): an ``int``, or an integer type that says it is one (NumPy's, a 0-d integer array),
    but not a bool. :class:`InvalidActionError` otherwise; the range is checked where it is used.
    """
    try:
        if isinstance(value, bool):
            raise TypeError
        return operator.index(value)  # type: ignore[arg-type]
    except Exception:  # TypeError, or whatever a strange object's __index__ raises
        raise InvalidActionError(f"{value!r} is not an action id (an int)") from None


def keep_id(a: int, b: int) -> int:
    """The id of ``keep`` for two different birds, in either order."""
    return KEEP_BASE + PAIR_INDEX[(a, b) if a < b else (b, a)]


@dataclass(frozen=True, slots=True)
class Action:
    """One decision. ``cards`` are bird ids; ``index`` is a perch (1–3) or display slot (1–3)."""

    kind: ActionKind
    cards: tuple[int, ...] = ()
    index: int = 0

    def __post_init__(self) -> None:
        # Values built in code are checked as text is: no action can hold a bogus kind or card.
        try:
            kind = ActionKind(self.kind)
        except ValueError:
            kinds = ", ".join(repr(k.value) for k in ActionKind)
            raise InvalidActionError(f"{self.kind!r} is no kind of action: {kinds}") from None
        object.__setattr__(self, "kind", kind)
        count, numbered = _SHAPE[kind]
        cards = self.cards
        if (
            not isinstance(cards, tuple)
            or len(cards) != count
            or any(type(c) is not int or not 0 <= c < NUM_BIRDS for c in cards)
            or (kind == KEEP and cards[0] >= cards[1])
        ):
            raise InvalidActionError(
                f"a {kind.value!r} action takes {count} bird id(s) 0-{NUM_BIRDS - 1}"
                f"{' in ascending order' if kind == KEEP else ''}, not {cards!r}"
            )
        top = MAX_PERCHES if kind == PLAY else DISPLAY_SIZE
        if numbered and (type(self.index) is not int or not 1 <= self.index <= top):
            raise InvalidActionError(f"a {kind.value!r} action takes a number 1-{top}")
        if not numbered and self.index != 0:
            raise InvalidActionError(f"a {kind.value!r} action takes no number")

    @property
    def id(self) -> int:
        """The stable integer id of this action in the fixed action space (``NUM_ACTIONS``)."""
        kind = self.kind
        if kind == PLAY:
            return PLAY_BASE + self.cards[0] * MAX_PERCHES + self.index - 1
        if kind == COLLECT:
            return COLLECT_BASE + self.cards[0]
        if kind == PASS:
            return PASS_ID
        if kind == DRAW_DISPLAY:
            return DRAW_DISPLAY_BASE + self.index - 1
        if kind == DRAW_DECK:
            return DRAW_DECK_ID
        if kind == CROW:
            return CROW_BASE + self.cards[0]
        return keep_id(self.cards[0], self.cards[1])

    @staticmethod
    def from_id(action_id: int) -> Action:
        """The action with a given id; ``InvalidActionError`` outside ``0..NUM_ACTIONS-1``."""
        if type(action_id) is not int or not 0 <= action_id < NUM_ACTIONS:
            raise InvalidActionError(
                f"{action_id!r} is not an action id: ids are integers 0-{NUM_ACTIONS - 1}"
            )
        return _BY_ID[action_id]

    @staticmethod
    def parse(text: str) -> Action:
        """Parse the canonical text form (extra spaces and case of the verb are tolerated)."""
        if not isinstance(text, str):
            raise InvalidActionError(f"an action must be text, not {type(text).__name__}")
        if len(text) > 100:  # the longest action is about 20 characters; echo no essays
            raise InvalidActionError(
                f"an action of {len(text)} characters is none: expected e.g. 'play BL5m 2'"
            )
        words = text.split()
        if not words:
            raise InvalidActionError(
                "empty action: expected e.g. 'play BL5m 2' or 'draw deck'", "unreadable", text=""
            )
        verb = words[0].lower()
        args = words[1:]
        try:
            if verb == "play" and len(args) == 2:
                perch = _number(args[1], "perch", MAX_PERCHES)
                return Action(PLAY, (_bird(args[0]),), perch)
            if verb == "collect" and len(args) == 1:
                return Action(COLLECT, (_bird(args[0]),))
            if verb == "pass" and not args:
                return Action(PASS)
            if verb == "draw" and args and args[0].lower() == "deck" and len(args) == 1:
                return Action(DRAW_DECK)
            if verb == "draw" and len(args) == 2 and args[0].lower() == "display":
                return Action(DRAW_DISPLAY, (), _number(args[1], "display slot", DISPLAY_SIZE))
            if verb == "crow" and len(args) == 1:
                return Action(CROW, (_bird(args[0]),))
            if verb == "keep" and len(args) == 2:
                a, b = _bird(args[0]), _bird(args[1])
                if a == b:
                    raise _Unreadable(
                        f"keep names {args[0]} twice: name two different birds",
                        "keep_twice",
                        word=args[0],
                    )
                return Action(KEEP, (min(a, b), max(a, b)))
        except _Unreadable as exc:
            # What was wrong as data too, so that an interface says it in the player's language.
            raise InvalidActionError(
                f"cannot read action {text!r}: {exc}", exc.reason, text=text, **exc.params
            ) from None
        raise InvalidActionError(
            f"cannot read action {text!r}: expected one of 'play <bird> <perch>', "
            "'collect <bird>', 'pass', 'draw display <1-3>', 'draw deck', 'crow <bird>', "
            "'keep <bird> <bird>'",
            "unreadable",
            text=text,
        )

    def __str__(self) -> str:
        kind = self.kind
        if kind == PLAY:
            return f"play {BIRD_NAMES[self.cards[0]]} {self.index}"
        if kind in (COLLECT, CROW):
            return f"{kind.value} {BIRD_NAMES[self.cards[0]]}"
        if kind == DRAW_DISPLAY:
            return f"draw display {self.index}"
        if kind == KEEP:
            return f"keep {BIRD_NAMES[self.cards[0]]} {BIRD_NAMES[self.cards[1]]}"
        return kind.value

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"

    def to_json(self) -> dict[str, object]:
        """The action as fields, for a program that should not read the text: ``kind``, the
        birds it names (``cards``, in the card notation) and its perch or display slot
        (``number``, 1-3, else ``None``).

        >>> Action.parse("play BL5m 2").to_json()
        {'action': 'play BL5m 2', 'kind': 'play', 'cards': ['BL5m'], 'number': 2}
        """
        return {
            "action": str(self),
            "kind": self.kind.value,
            "cards": [BIRD_NAMES[c] for c in self.cards],
            "number": self.index or None,
        }


class _Unreadable(ValueError):
    """One word of an action's text that is not what its place asks for."""

    def __init__(self, message: str, reason: str, **params: object) -> None:
        super().__init__(message)
        self.reason = reason
        self.params = params


def _bird(word: str) -> int:
    try:
        return parse_bird(word)
    except ValueError as exc:
        raise _Unreadable(str(exc), "not_a_bird", word=word) from None


def _number(text: str, what: str, top: int) -> int:
    # ASCII digits only ("²" is a digit to str.isdigit but not to int), and few of them.
    if not (text.isascii() and text.isdigit() and len(text) <= 3) or not 1 <= int(text) <= top:
        reason = "perch_not_number" if what == "perch" else "slot_not_number"
        raise _Unreadable(
            f"{what} must be a number 1-{top}, not {text!r}", reason, word=text, top=top
        )
    return int(text)


def _all_actions() -> tuple[Action, ...]:
    actions: list[Action] = []
    for bird in range(NUM_BIRDS):
        actions.extend(Action(PLAY, (bird,), perch) for perch in range(1, MAX_PERCHES + 1))
    actions.extend(Action(COLLECT, (bird,)) for bird in range(NUM_BIRDS))
    actions.append(Action(PASS))
    actions.extend(Action(DRAW_DISPLAY, (), slot) for slot in range(1, DISPLAY_SIZE + 1))
    actions.append(Action(DRAW_DECK))
    actions.extend(Action(CROW, (bird,)) for bird in range(NUM_BIRDS))
    actions.extend(Action(KEEP, pair) for pair in PAIRS)
    return tuple(actions)


_BY_ID: Final = _all_actions()
ACTION_NAMES: Final = tuple(str(a) for a in _BY_ID)
