"""How people are told the game, in their language: seats counted from 1, the events as
sentences, an illegal move's reason.

The engine numbers seats from 0 (its formats and protocol keep that); people count from 1. The
core's own sentences (:func:`piepmatz.core.describe_event`) stay English for logs and tools;
these are the player's, one whole sentence per case so that each language can phrase it (Czech
declines nouns: the sentence, not the noun, is translated). Birds keep their codes (``BL5m``),
which read the same in every language.

>>> tell(("turn", 0, 1))
'Turn 1: Player 1.'
>>> tell(("take_seed", 2, 7, 3))
'Player 3 takes a 1-egg seed from position 3.'
>>> tell(("squirrel", 0, 7, 12))
"The squirrel takes from Player 1's seeds: S1, S2."
>>> from piepmatz.i18n import use_language
>>> with use_language("de"):
...     tell(("play", 1, 0, 2))
'Spieler 2 spielt BL1m an Sitzstange 2.'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from piepmatz.core.cards import BIRD_NAMES, FEEDER_EGGS, FEEDER_KIND, FeederKind
from piepmatz.core.errors import PiepmatzError
from piepmatz.core.events import EndReason
from piepmatz.i18n import N_, _, ngettext, pgettext


def seat_name(player: int) -> str:
    """A seat as people count: ``Player 1`` for seat 0."""
    return _("Player {number}").format(number=player + 1)


def seed_card(card: int) -> str:
    """A seed named alone (the squirrel's loot): by its eggs, as the table shows it (``S3``)."""
    return f"S{FEEDER_EGGS[card]}"


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


def _birds(cards: tuple[Any, ...]) -> str:
    """Birds kept or shown, a hidden one said as such; the sentence says when there are none."""
    return ", ".join(
        pgettext("kept", "a hidden bird") if b is None else BIRD_NAMES[b] for b in cards
    )


def tell(event: tuple[Any, ...]) -> str:
    """One sentence for ``event`` in the current language; hidden fields (``None``) are told as
    hidden."""
    kind = event[0]
    a = event[1:]
    teller = _TELLERS.get(kind)
    return teller(a) if teller is not None else f"{kind} {a}"


def _player(a: tuple[Any, ...]) -> int:
    return int(a[0]) + 1


def _take_blind(a: tuple[Any, ...]) -> str:
    if a[1] is None:
        return _("Player {player} takes a seed blind from the feeder deck.").format(
            player=_player(a)
        )
    return _("Player {player} takes {seed} blind from the feeder deck.").format(
        player=_player(a), seed=_seed(a[1])
    )


def _take_pest(a: tuple[Any, ...]) -> str:
    player, pest, where = _player(a), a[1], a[2]
    if where == 0:
        text = (
            _("Player {player} takes a crow from the feeder deck.")
            if _crow(pest)
            else _("Player {player} takes a squirrel from the feeder deck.")
        )
    else:
        text = (
            _("Player {player} takes a crow from beside position {position}.")
            if _crow(pest)
            else _("Player {player} takes a squirrel from beside position {position}.")
        )
    return text.format(player=player, position=where)


def _squirrel(a: tuple[Any, ...]) -> str:
    if not a[1:]:
        return _("The squirrel takes from Player {player}'s seeds: nothing.").format(
            player=_player(a)
        )
    return _("The squirrel takes from Player {player}'s seeds: {seeds}.").format(
        player=_player(a), seeds=", ".join(seed_card(s) for s in a[1:])
    )


def _draw_deck(a: tuple[Any, ...]) -> str:
    if a[1] is None:
        return _("Player {player} draws a bird from the deck.").format(player=_player(a))
    return _("Player {player} draws {bird} from the deck.").format(
        player=_player(a), bird=BIRD_NAMES[a[1]]
    )


def _pest_beside(a: tuple[Any, ...]) -> str:
    text = (
        _("A crow lands beside the seed at position {position}.")
        if _crow(a[1])
        else _("A squirrel lands beside the seed at position {position}.")
    )
    return text.format(position=a[0])


def _pest_out(a: tuple[Any, ...]) -> str:
    if _crow(a[0]):
        return _("A crow finds no free seed and leaves the game.")
    return _("A squirrel finds no free seed and leaves the game.")


def _end(a: tuple[Any, ...]) -> str:
    template = _END_REASONS.get(a[1])
    if template is None:
        return _("The end of the game is triggered: {reason}.").format(reason=a[1])
    return _(template)


def _keep(a: tuple[Any, ...]) -> str:
    if a[1:] and a[1] is None:
        return _("Player {player} chooses the last hand.").format(player=_player(a))
    if not a[1:]:
        return _("Player {player} keeps nothing.").format(player=_player(a))
    return _("Player {player} keeps {birds}.").format(player=_player(a), birds=_birds(a[1:]))


def _reveal(a: tuple[Any, ...]) -> str:
    if not a[1:]:
        return _("Player {player} adds nothing from the last hand.").format(player=_player(a))
    return _("Player {player} adds {birds} from the last hand.").format(
        player=_player(a), birds=_birds(a[1:])
    )


_TELLERS: dict[str, Callable[[tuple[Any, ...]], str]] = {
    "turn": lambda a: _("Turn {turn}: Player {player}.").format(turn=a[1], player=_player(a)),
    "play": lambda a: _("Player {player} plays {bird} to perch {perch}.").format(
        player=_player(a), bird=BIRD_NAMES[a[1]], perch=a[2]
    ),
    "chase": lambda a: _(
        "Perch {perch}: the ground beats the perch by {difference} — a chase."
    ).format(perch=a[1], difference=a[2]),
    "take_seed": lambda a: _("Player {player} takes {seed} from position {position}.").format(
        player=_player(a), seed=_seed(a[1]), position=a[2]
    ),
    "take_blind": _take_blind,
    "take_pest": _take_pest,
    "feeder_empty": lambda a: _("The feeder deck is empty: Player {player} takes no seed.").format(
        player=_player(a)
    ),
    "collect_perch": lambda a: _("Player {player} collects the chased {bird}.").format(
        player=_player(a), bird=BIRD_NAMES[a[1]]
    ),
    "crow": lambda a: _("The crow scares away Player {player}'s {bird}.").format(
        player=_player(a), bird=BIRD_NAMES[a[1]]
    ),
    "crow_nothing": lambda a: _("The crow finds no bird of Player {player}'s.").format(
        player=_player(a)
    ),
    "squirrel": _squirrel,
    "promote": lambda a: _("{bird} now sits at perch {perch}.").format(
        bird=BIRD_NAMES[a[1]], perch=a[0]
    ),
    "collect": lambda a: _("Player {player} adds {bird} from hand to the collection.").format(
        player=_player(a), bird=BIRD_NAMES[a[1]]
    ),
    "pass": lambda a: _("Player {player} adds no bird.").format(player=_player(a)),
    "draw_deck": _draw_deck,
    "draw_display": lambda a: _("Player {player} takes {bird} from display slot {slot}.").format(
        player=_player(a), bird=BIRD_NAMES[a[2]], slot=a[1]
    ),
    "refill_display": lambda a: _("Display slot {slot} is refilled with {bird}.").format(
        slot=a[0], bird=BIRD_NAMES[a[1]]
    ),
    "refill_column": lambda a: _("Seed column position {position}: {seed}.").format(
        position=a[0], seed=_seed(a[1])
    ),
    "pest_beside": _pest_beside,
    "pest_out": _pest_out,
    "end_triggered": _end,
    "skip": lambda a: _("Player {player} has no card and skips the turn.").format(
        player=_player(a)
    ),
    "keep": _keep,
    "reveal": _reveal,
    "game_over": lambda a: _("The game is over."),
}

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
