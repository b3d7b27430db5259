"""How people are told the game, in their language: seats by name or counted from 1, birds in
words, the events as sentences, an illegal move's reason. Every sentence a person reads comes
from here; the core's own (:func:`piepmatz.core.describe_event`) stay English for logs and tools.

The engine numbers seats from 0 (its formats and protocol keep that); people count from 1, or
read the seat's name. Each sentence is whole, so that each language can phrase it, and made of
parts (:func:`told`): its seats and birds are marked, for an interface to draw a bird as a tile
or a small card; as plain text a bird is its species, value and sex (``Blackbird 5♂``), and the
engine's codes (``BL5m``) are for tools.

>>> from piepmatz.core.events import Play, Squirrel, TakeSeed, Turn
>>> tell(Turn(player=0, turn=1))
'Turn 1: Player 1.'
>>> tell(TakeSeed(player=2, seed=7, position=3), names=["Anna", "Ben", "Cleo"])
'Cleo takes a 1-egg seed from position 3.'
>>> tell(Squirrel(player=0, seeds=(7, 12)))
'The squirrel takes from the seeds of Player 1: a 1-egg seed, a 2-egg seed.'
>>> for part in told(Play(player=1, bird=0, perch=2), ["Anna", "Ben"]):
...     part.to_json()
{'text': 'Ben', 'seat': 1}
{'text': ' plays '}
{'text': 'Blackbird 1♂', 'bird': 'BL1m'}
{'text': ' to perch 2.'}
>>> from piepmatz.i18n import use_language
>>> with use_language("de"):
...     tell(Play(player=1, bird=0, perch=2))
'Spieler 2 spielt Amsel 1♂ an Sitzstange 2.'
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from string import Formatter
from typing import Any

from piepmatz.core.actions import Action
from piepmatz.core.cards import (
    BIRD_FEMALE,
    BIRD_NAMES,
    BIRD_SPECIES,
    BIRD_VALUE,
    CROW,
    FEEDER_EGGS,
    FEEDER_KIND,
    SEED,
    SPECIES,
    FeederKind,
)
from piepmatz.core.errors import PiepmatzError
from piepmatz.core.events import EndReason, Event, EventKind
from piepmatz.i18n import N_, _, current_language, ngettext, pgettext, use_language


def seat_name(player: int) -> str:
    """A seat as people count: ``Player 1`` for seat 0."""
    return _("Player {number}").format(number=player + 1)


def short_label(label: str) -> str:
    """``Player 2`` of ``Player 2 (medium bot)``: a column heading that fits 80 columns. Only a
    last part in brackets goes: a name is never cut elsewhere."""
    return label.rsplit(" (", 1)[0] if label.endswith(")") else label


def bot_name(player: int) -> str:
    """A bot's seat as people read it: ``Bot 2`` for seat 1 (its level is told beside it)."""
    return _("Bot {number}").format(number=player + 1)


#: Each phase (the core's ``PHASE_NAMES``, in its order) in a word or two.
PHASE_WORDS: tuple[str, ...] = (
    N_("play"),
    N_("add a bird?"),
    N_("the crow"),
    N_("draw"),
    N_("last hand"),
    N_("game over"),
)

#: The bot levels in words (their names stay the engine's: ``medium`` in a spec).
LEVEL_WORDS: dict[str, str] = {
    "random": N_("random"),
    "easy": N_("easy"),
    "greedy": N_("greedy"),
    "medium": N_("medium"),
    "hard": N_("hard"),
}


#: The rules presets as people name them (the engine's ids stay for options and files).
RULES_WORDS: dict[str, str] = {
    "standard": N_("standard rules"),
    "overview": N_("overview rules"),
    "custom": N_("custom rules"),
}


def rules_words(name: str) -> str:
    """A game's rules as a line names them, ``Standardregeln`` for ``standard``; an unknown name
    (another server's preset) is shown as it is, marked as rules.

    >>> from piepmatz.i18n import use_language
    >>> with use_language("de"):
    ...     rules_words("standard"), rules_words("house")
    ('Standardregeln', 'Regeln: house')
    """
    return _(RULES_WORDS[name]) if name in RULES_WORDS else _("rules: {rules}").format(rules=name)


def phase_words(phase: int) -> str:
    return _(PHASE_WORDS[phase])


def bot_level(name: str) -> str:
    """A bot by its level in the current language (``mittel``); any other bot by its name."""
    return _(LEVEL_WORDS[name]) if name in LEVEL_WORDS else name


#: Each bot a menu offers, with what sets it apart (as the browser's lobby offers them).
BOT_CHOICE_WORDS: dict[str, str] = {
    "easy": N_("easy bot"),
    "medium": N_("medium bot"),
    "hard": N_("hard bot (thinks up to a second)"),
    "random": N_("random bot (plays any legal move)"),
    "greedy": N_("greedy bot (takes what scores most at once)"),
}


def bot_choice(name: str) -> str:
    """A bot as a menu offers it: ``hard bot (thinks up to a second)``; another by its name."""
    if name in BOT_CHOICE_WORDS:
        return _(BOT_CHOICE_WORDS[name])
    return _("{bot} bot").format(bot=bot_level(name))


def seed_card(card: int) -> str:
    """A seed named alone (the squirrel's loot): by its eggs, as the table shows it (``S3``)."""
    return f"S{FEEDER_EGGS[card]}"


def feeder(card: int) -> str:
    """A feeder card as the table shows it: seeds by their eggs (``S2``), pests by name."""
    kind = FEEDER_KIND[card]
    if kind == SEED:
        return f"S{FEEDER_EGGS[card]}"
    return _("crow") if kind == CROW else _("squirrel")


def _seed(card: int) -> str:
    """``a 3-egg seed``: the sentence's article and the egg count agree in every language."""
    eggs = FEEDER_EGGS[card]
    return ngettext("a {eggs}-egg seed", "a {eggs}-egg seed", eggs).format(eggs=eggs)


def _crow(card: int) -> bool:
    return bool(FEEDER_KIND[card] == FeederKind.CROW)


_END_REASONS: dict[str, str] = {
    EndReason.FEEDER: N_(
        "The end of the game is triggered: a card was needed from the empty feeder deck."
    ),
    EndReason.BIRDS: N_(
        "The end of the game is triggered: the bird deck is empty at the end of a turn."
    ),
    EndReason.SKIP: N_(
        "The end of the game is triggered: a player had no card and nothing to draw."
    ),
}


@dataclass(frozen=True)
class Part:
    """A piece of a sentence: plain text, or a seat's name or a bird in words, which each
    interface may draw its own way (a tile in the terminal, a small card in the browser)."""

    text: str
    seat: int | None = None
    bird: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.bird is not None:
            out["bird"] = BIRD_NAMES[self.bird]
        return out


class _Seat(int):
    """A value of a sentence that is a seat (0-based)."""


class _Bird(int):
    """A value of a sentence that is a bird card."""


class _Birds(tuple[int | None, ...]):
    """Birds named one after the other (a hidden one said as such)."""


SEX_SIGNS = ("♂", "♀")


@cache
def species_names(lang: str) -> dict[str, str]:
    """Each species' name in ``lang``, by its code (``{"BL": "kos", ...}`` in Czech)."""
    with use_language(lang):
        return {
            # TRANSLATORS: each species (this context) as the cards name it; it stands alone
            # in a sentence's place, never declined, so that a sentence reads with it as is.
            "BL": pgettext("species", "Blackbird"),
            "BU": pgettext("species", "Bullfinch"),
            "CH": pgettext("species", "Chaffinch"),
            "GR": pgettext("species", "Greenfinch"),
            "SP": pgettext("species", "House sparrow"),
            "YE": pgettext("species", "Yellowhammer"),
        }


def species_name(code: str) -> str:
    """A species' name in the current language (``Blackbird``, ``kos``, ``Amsel``)."""
    return species_names(current_language())[code]


def species_short(code: str) -> str:
    """A species in two letters, as a tile shows it (``Bl5♀•••``): its name's first two in the
    current language (``Ko`` for kos, ``Gi`` for Gimpel), so that a tile reads in the player's
    words; in English the code's (``Sp``: House sparrow, as the notation writes it)."""
    name = species_name(code)
    if name == species_names("en")[code]:
        return code.capitalize()
    return name[:2].capitalize()


def bird_words(card: int) -> str:
    """A bird in running text, in the current language: species, value and sex
    (``Blackbird 5♂``); the engine's code (``BL5m``) is for tools."""
    species = species_name(SPECIES[BIRD_SPECIES[card]])
    return f"{species} {BIRD_VALUE[card]}{SEX_SIGNS[BIRD_FEMALE[card]]}"


#: How a bird is written in running text here: in words (the default: people's sentences) or
#: by its code (tools, and the terminal game, which draws the codes as tiles or, with its
#: codes toggle, as codes).
_BIRDS_AS: ContextVar[str] = ContextVar("birds_as", default="words")


@contextmanager
def birds_as(style: str) -> Iterator[None]:
    """Write birds in running text as ``words`` or ``code`` within the block."""
    if style not in ("words", "code"):
        raise ValueError(f"birds are written as words or code, not {style!r}")
    token = _BIRDS_AS.set(style)
    try:
        yield
    finally:
        _BIRDS_AS.reset(token)


def bird_text(card: int) -> str:
    """A bird in running text as this block writes birds (:func:`birds_as`)."""
    return BIRD_NAMES[card] if _BIRDS_AS.get() == "code" else bird_words(card)


def action_words(action: Action, short: bool = False, display: Sequence[int] | None = None) -> str:
    """An action in words (``Blackbird 5♂ → perch 2``); ``short`` for a narrow column. With
    the ``display`` it was chosen from, a draw from it names its bird (a review, long after)."""
    kind = action.kind
    cards = [bird_text(c) for c in action.cards]
    shown = display[action.index - 1] if display and kind == "draw display" else -1
    if shown >= 0:  # an empty slot is -1
        text = (
            _("{bird} (display slot {slot})")
            if short
            else _("take {bird} from display slot {slot}")
        )
        return text.format(bird=bird_text(shown), slot=action.index)
    if kind == "play":
        return _("{bird} → perch {perch}").format(bird=cards[0], perch=action.index)
    if kind == "collect":
        text = _("add {bird}") if short else _("add {bird} to your collection")
        return text.format(bird=cards[0])
    if kind == "pass":
        return _("add no bird")
    if kind == "draw display":
        text = _("display slot {slot}") if short else _("take display slot {slot}")
        return text.format(slot=action.index)
    if kind == "draw deck":
        return _("bird deck (top)") if short else _("take the top of the bird deck")
    if kind == "crow":
        text = _("lose {bird}") if short else _("lose {bird} to the crow")
        return text.format(bird=cards[0])
    text = _("keep {first} + {second}") if short else _("keep {first} and {second}")
    return text.format(first=cards[0], second=cards[1])


def tell(event: Event, names: Sequence[str] | None = None) -> str:
    """One sentence for ``event`` in the current language; hidden fields (``None``) are told as
    hidden. Seats by ``names`` (default "Player N", counted from 1), birds in words."""
    return "".join(part.text for part in told(event, names))


def told(event: Event, names: Sequence[str] | None = None) -> list[Part]:
    """:func:`tell`'s sentence as parts: its seats and birds marked, for interfaces that draw
    them their own way."""
    template, values = _sentence(event)
    parts: list[Part] = []

    def add(part: Part) -> None:
        if parts and part.seat is None and part.bird is None and _plain(parts[-1]):
            parts[-1] = Part(parts[-1].text + part.text)
        elif part.text:
            parts.append(part)

    for literal, field, spec, _conversion in Formatter().parse(template):
        add(Part(literal))
        if field is None:
            continue
        value = values[field]
        if isinstance(value, _Seat):
            add(Part(names[value] if names else seat_name(value), seat=int(value)))
        elif isinstance(value, _Bird):
            add(Part(bird_text(value), bird=int(value)))
        elif isinstance(value, _Birds):
            for i, card in enumerate(value):
                if i:
                    add(Part(", "))
                if card is None:
                    add(Part(pgettext("kept", "a hidden bird")))
                else:
                    add(Part(bird_text(card), bird=card))
        else:
            add(Part(format(value, spec or "")))
    if parts and parts[0].bird is not None:
        # A sentence that opens with a bird opens with a capital, in a language whose species
        # are written in lower case too ("Pěnkava 5♂ teď sedí…").
        first = parts[0]
        parts[0] = Part(first.text[:1].upper() + first.text[1:], bird=first.bird)
    return parts


def _plain(part: Part) -> bool:
    return part.seat is None and part.bird is None


def _sentence(event: Event) -> tuple[str, dict[str, Any]]:
    """The translated template of ``event``'s sentence and its values."""
    e: Any = event
    v: dict[str, Any] = {"player": _Seat(getattr(e, "player", 0))}
    if getattr(e, "bird", None) is not None:
        v["bird"] = _Bird(e.bird)
    match e.kind:  # by kind, as the core's describe_event
        case EventKind.TURN:
            return _("Turn {turn}: {player}."), v | {"turn": e.turn}
        case EventKind.PLAY:
            return _("{player} plays {bird} to perch {perch}."), v | {"perch": e.perch}
        case EventKind.CHASE:
            return _("Perch {perch}: the ground beats the perch by {difference} — a chase."), v | {
                "perch": e.perch,
                "difference": e.difference,
            }
        case EventKind.TAKE_SEED:
            return _("{player} takes {seed} from position {position}."), v | {
                "seed": _seed(e.seed),
                "position": e.position,
            }
        case EventKind.TAKE_BLIND:
            if e.seed is None:
                return _("{player} takes a seed blind from the feeder deck."), v
            return _("{player} takes {seed} blind from the feeder deck."), v | {
                "seed": _seed(e.seed)
            }
        case EventKind.TAKE_PEST:
            v["position"] = e.position
            if e.position == 0:
                if _crow(e.pest):
                    return _("{player} takes a crow from the feeder deck."), v
                return _("{player} takes a squirrel from the feeder deck."), v
            if _crow(e.pest):
                return _("{player} takes a crow from beside position {position}."), v
            return _("{player} takes a squirrel from beside position {position}."), v
        case EventKind.FEEDER_EMPTY:
            return _("The feeder deck is empty: {player} takes no seed."), v
        case EventKind.COLLECT_PERCH:
            return _("{player} collects the chased {bird}."), v
        case EventKind.CROW:
            return _("The crow scares away {bird} of {player}."), v
        case EventKind.CROW_NOTHING:
            return _("The crow finds no bird of {player}."), v
        case EventKind.SQUIRREL:
            if not e.seeds:
                return _("The squirrel takes nothing from the seeds of {player}."), v
            seeds = ", ".join(_seed(s) for s in e.seeds)
            return _("The squirrel takes from the seeds of {player}: {seeds}."), v | {
                "seeds": seeds
            }
        case EventKind.PROMOTE:
            return _("{bird} now sits at perch {perch}."), v | {"perch": e.perch}
        case EventKind.COLLECT:
            return _("{player} adds {bird} from hand to the collection."), v
        case EventKind.PASS:
            return _("{player} adds no bird."), v
        case EventKind.DRAW_DECK:
            if e.bird is None:
                return _("{player} draws a bird from the deck."), v
            return _("{player} draws {bird} from the deck."), v
        case EventKind.DRAW_DISPLAY:
            return _("{player} takes {bird} from display slot {slot}."), v | {"slot": e.slot}
        case EventKind.REFILL_DISPLAY:
            return _("Display slot {slot} is refilled with {bird}."), v | {"slot": e.slot}
        case EventKind.REFILL_COLUMN:
            return _("Seed column position {position}: {seed}."), v | {
                "position": e.position,
                "seed": _seed(e.seed),
            }
        case EventKind.PEST_BESIDE:
            v["position"] = e.position
            if _crow(e.pest):
                return _("A crow lands beside the seed at position {position}."), v
            return _("A squirrel lands beside the seed at position {position}."), v
        case EventKind.PEST_OUT:
            if _crow(e.pest):
                return _("A crow finds no free seed and leaves the game."), v
            return _("A squirrel finds no free seed and leaves the game."), v
        case EventKind.END_TRIGGERED:
            template = _END_REASONS.get(e.reason)
            if template is None:
                return _("The end of the game is triggered: {reason}."), v | {"reason": e.reason}
            return _(template), v
        case EventKind.SKIP:
            return _("{player} has no card and skips the turn."), v
        case EventKind.KEEP:
            if e.birds and e.birds[0] is None:
                return _("{player} chooses the last hand."), v
            if not e.birds:
                return _("{player} keeps nothing."), v
            return _("{player} keeps {birds}."), v | {"birds": _Birds(e.birds)}
        case EventKind.REVEAL:
            if not e.birds:
                return _("{player} adds nothing from the last hand."), v
            return _("{player} adds {birds} from the last hand."), v | {"birds": _Birds(e.birds)}
        case EventKind.GAME_OVER:
            return _("The game is over."), v
    raise TypeError(f"not an event: {event!r}")


#: The review's grades in words (its data keeps the English ids).
GRADE_WORDS = {
    "best": N_("best"),
    "good": N_("good"),
    "inaccuracy": N_("inaccuracy"),
    "mistake": N_("mistake"),
    "blunder": N_("blunder"),
}

#: An illegal or unreadable action's reason (:attr:`PiepmatzError.reason`), told to the player
#: whose move it was.
REASONS: dict[str, str] = {
    "wrong_decision": N_("you cannot {kind} now: {expected}"),
    "not_in_hand": N_("{bird} is not in your hand ({rule})"),
    "not_in_collection": N_("{bird} is not in your collection ({rule})"),
    "no_perch": N_("there is no perch {perch} with {players} players ({rule})"),
    "collect_too_high": N_(
        "{bird} has value {value}, higher than the bird you just played ({played}) ({rule})"
    ),
    "display_empty": N_("display slot {slot} is empty ({rule})"),
    "bird_deck_empty": N_("the bird deck is empty ({rule})"),
    "crow_not_most": N_("{bird} is not of a species of which you hold the most birds ({rule})"),
    "keep_not_in_hand": N_("not in your hand: {birds} ({rule})"),
    "not_your_turn": N_("it is not your turn"),
    "game_over": N_("the game is over; no more moves ({rule})"),
    "not_a_bird": N_(
        "cannot read action {text!r}: {word!r} is not a bird card: write its species' code, "
        "value 1-6 and m or f, as in 'BL5m'"
    ),
    "perch_not_number": N_(
        "cannot read action {text!r}: the perch must be a number 1-{top}, not {word!r}"
    ),
    "slot_not_number": N_(
        "cannot read action {text!r}: the display slot must be a number 1-{top}, not {word!r}"
    ),
    "keep_twice": N_(
        "cannot read action {text!r}: {word} is named twice: name two different birds"
    ),
    "unreadable": N_(
        "cannot read action {text!r}: type e.g. 'play BL5m 2', 'collect BL3f', 'pass', "
        "'draw display 1', 'draw deck', 'crow BL5m' or 'keep BL5m YE2f'"
    ),
}


#: An action's kind in words, for "you cannot … now" (the core names it in notation).
ACTION_KIND_WORDS: dict[str, str] = {
    "play": N_("play a bird"),
    "collect": N_("add a bird to your collection"),
    "pass": N_("pass"),
    "draw display": N_("draw a bird"),
    "draw deck": N_("draw a bird"),
    "crow": N_("give the crow a bird"),
    "keep": N_("keep birds"),
}

#: What the decision at hand asks, by the kind of action the core expects for it.
DECISION_WORDS: dict[str, str] = {
    "play": N_("play a bird from your hand to a perch"),
    "collect": N_("the row did not chase: add a bird to your collection, or pass"),
    "crow": N_("choose the bird the crow takes"),
    "draw display": N_("draw a bird from the display or the deck"),
    "keep": N_("choose the two birds of your hand that you keep"),
}


def reason(error: PiepmatzError) -> str:
    """What was wrong with a player's move, in the current language (the core's English message
    when the error names no reason)."""
    template = REASONS.get(error.reason or "")
    if template is None:
        return str(error)
    params = dict(error.params)
    if error.reason == "wrong_decision":
        kind, expected = str(params["kind"]), str(params["expected"])
        params["kind"] = _(ACTION_KIND_WORDS[kind]) if kind in ACTION_KIND_WORDS else kind
        params["expected"] = _(DECISION_WORDS.get(expected, expected))
    return _(template).format(**params)
