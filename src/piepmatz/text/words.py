"""How people are told the game, in their language: seats counted from 1, the events as
sentences, an illegal move's reason.

The engine numbers seats from 0 (its formats and protocol keep that); people count from 1. The
core's own sentences (:func:`piepmatz.core.describe_event`) stay English for logs and tools;
these are the player's, one whole sentence per case so that each language can phrase it (Czech
declines nouns: the sentence, not the noun, is translated). Birds keep their codes (``BL5m``),
which read the same in every language.

>>> from piepmatz.core.events import Play, Squirrel, TakeSeed, Turn
>>> tell(Turn(player=0, turn=1))
'Turn 1: Player 1.'
>>> tell(TakeSeed(player=2, seed=7, position=3))
'Player 3 takes a 1-egg seed from position 3.'
>>> tell(Squirrel(player=0, seeds=(7, 12)))
"The squirrel takes from Player 1's seeds: S1, S2."
>>> from piepmatz.i18n import use_language
>>> with use_language("de"):
...     tell(Play(player=1, bird=0, perch=2))
'Spieler 2 spielt BL1m an Sitzstange 2.'
"""

from __future__ import annotations

from typing import Any

from piepmatz.core.cards import (
    BIRD_NAMES,
    CROW,
    FEEDER_EGGS,
    FEEDER_KIND,
    SEED,
    FeederKind,
)
from piepmatz.core.errors import PiepmatzError
from piepmatz.core.events import EndReason, Event, EventKind
from piepmatz.i18n import N_, _, ngettext, pgettext


def seat_name(player: int) -> str:
    """A seat as people count: ``Player 1`` for seat 0."""
    return _("Player {number}").format(number=player + 1)


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
        "The end of the game is triggered: a card was needed from the empty feeder deck (E1)."
    ),
    EndReason.BIRDS: N_(
        "The end of the game is triggered: the bird deck is empty at the end of a turn "
        "(E1, overview)."
    ),
    EndReason.SKIP: N_(
        "The end of the game is triggered: a player had no card and nothing to draw (E1, T1.3)."
    ),
}


def _birds(cards: tuple[int | None, ...]) -> str:
    """Birds kept or shown, a hidden one said as such; the sentence says when there are none."""
    return ", ".join(
        pgettext("kept", "a hidden bird") if b is None else BIRD_NAMES[b] for b in cards
    )


def tell(event: Event) -> str:
    """One sentence for ``event`` in the current language; hidden fields (``None``) are told as
    hidden. Seats are counted from 1."""
    e: Any = event
    player = getattr(e, "player", 0) + 1
    match e.kind:  # by kind, as the core's describe_event
        case EventKind.TURN:
            return _("Turn {turn}: Player {player}.").format(turn=e.turn, player=player)
        case EventKind.PLAY:
            return _("Player {player} plays {bird} to perch {perch}.").format(
                player=player, bird=BIRD_NAMES[e.bird], perch=e.perch
            )
        case EventKind.CHASE:
            return _("Perch {perch}: the ground beats the perch by {difference} — a chase.").format(
                perch=e.perch, difference=e.difference
            )
        case EventKind.TAKE_SEED:
            return _("Player {player} takes {seed} from position {position}.").format(
                player=player, seed=_seed(e.seed), position=e.position
            )
        case EventKind.TAKE_BLIND:
            if e.seed is None:
                return _("Player {player} takes a seed blind from the feeder deck.").format(
                    player=player
                )
            return _("Player {player} takes {seed} blind from the feeder deck.").format(
                player=player, seed=_seed(e.seed)
            )
        case EventKind.TAKE_PEST:
            if e.position == 0:
                text = (
                    _("Player {player} takes a crow from the feeder deck.")
                    if _crow(e.pest)
                    else _("Player {player} takes a squirrel from the feeder deck.")
                )
            else:
                text = (
                    _("Player {player} takes a crow from beside position {position}.")
                    if _crow(e.pest)
                    else _("Player {player} takes a squirrel from beside position {position}.")
                )
            return text.format(player=player, position=e.position)
        case EventKind.FEEDER_EMPTY:
            return _("The feeder deck is empty: Player {player} takes no seed.").format(
                player=player
            )
        case EventKind.COLLECT_PERCH:
            return _("Player {player} collects the chased {bird}.").format(
                player=player, bird=BIRD_NAMES[e.bird]
            )
        case EventKind.CROW:
            return _("The crow scares away Player {player}'s {bird}.").format(
                player=player, bird=BIRD_NAMES[e.bird]
            )
        case EventKind.CROW_NOTHING:
            return _("The crow finds no bird of Player {player}'s.").format(player=player)
        case EventKind.SQUIRREL:
            if not e.seeds:
                return _("The squirrel takes from Player {player}'s seeds: nothing.").format(
                    player=player
                )
            return _("The squirrel takes from Player {player}'s seeds: {seeds}.").format(
                player=player, seeds=", ".join(seed_card(s) for s in e.seeds)
            )
        case EventKind.PROMOTE:
            return _("{bird} now sits at perch {perch}.").format(
                bird=BIRD_NAMES[e.bird], perch=e.perch
            )
        case EventKind.COLLECT:
            return _("Player {player} adds {bird} from hand to the collection.").format(
                player=player, bird=BIRD_NAMES[e.bird]
            )
        case EventKind.PASS:
            return _("Player {player} adds no bird.").format(player=player)
        case EventKind.DRAW_DECK:
            if e.bird is None:
                return _("Player {player} draws a bird from the deck.").format(player=player)
            return _("Player {player} draws {bird} from the deck.").format(
                player=player, bird=BIRD_NAMES[e.bird]
            )
        case EventKind.DRAW_DISPLAY:
            return _("Player {player} takes {bird} from display slot {slot}.").format(
                player=player, bird=BIRD_NAMES[e.bird], slot=e.slot
            )
        case EventKind.REFILL_DISPLAY:
            return _("Display slot {slot} is refilled with {bird}.").format(
                slot=e.slot, bird=BIRD_NAMES[e.bird]
            )
        case EventKind.REFILL_COLUMN:
            return _("Seed column position {position}: {seed}.").format(
                position=e.position, seed=_seed(e.seed)
            )
        case EventKind.PEST_BESIDE:
            text = (
                _("A crow lands beside the seed at position {position}.")
                if _crow(e.pest)
                else _("A squirrel lands beside the seed at position {position}.")
            )
            return text.format(position=e.position)
        case EventKind.PEST_OUT:
            if _crow(e.pest):
                return _("A crow finds no free seed and leaves the game.")
            return _("A squirrel finds no free seed and leaves the game.")
        case EventKind.END_TRIGGERED:
            template = _END_REASONS.get(e.reason)
            if template is None:
                return _("The end of the game is triggered: {reason}.").format(reason=e.reason)
            return _(template)
        case EventKind.SKIP:
            return _("Player {player} has no card and skips the turn.").format(player=player)
        case EventKind.KEEP:
            if e.birds and e.birds[0] is None:
                return _("Player {player} chooses the last hand.").format(player=player)
            if not e.birds:
                return _("Player {player} keeps nothing.").format(player=player)
            return _("Player {player} keeps {birds}.").format(player=player, birds=_birds(e.birds))
        case EventKind.REVEAL:
            if not e.birds:
                return _("Player {player} adds nothing from the last hand.").format(player=player)
            return _("Player {player} adds {birds} from the last hand.").format(
                player=player, birds=_birds(e.birds)
            )
        case EventKind.GAME_OVER:
            return _("The game is over.")
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
    "wrong_decision": N_("a '{kind}' is not possible now: the decision is a '{expected}'"),
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
    "unreadable": N_(
        "cannot read action {text!r}: type e.g. 'play BL5m 2', 'collect BL3f', 'pass', "
        "'draw display 1', 'draw deck', 'crow BL5m' or 'keep BL5m YE2f'"
    ),
}


def reason(error: PiepmatzError) -> str:
    """What was wrong with a player's move, in the current language (the core's English message
    when the error names no reason)."""
    template = REASONS.get(error.reason or "")
    if template is None:
        return str(error)
    return _(template).format(**error.params)
