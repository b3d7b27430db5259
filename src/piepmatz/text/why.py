"""Why a step of the log happened: the rule behind each event, in words, with its id for a link
to the rules text.

The words say the rule as the game in play has it (the rule flags: how many cards are drawn, what
triggers the end), so "Why?" never explains a rule the table does not use.

>>> from piepmatz.core import Rules
>>> from piepmatz.core.events import Promote
>>> answer = why(Promote(bird=0, perch=1), Rules.preset("standard"))
>>> answer.rule
'T2.1e'
>>> answer.text.startswith("After a chase the highest bird on the ground moves up to the perch")
True
"""

from __future__ import annotations

from dataclasses import dataclass

from piepmatz.core.events import EndReason, EndTriggered, Event, EventKind
from piepmatz.core.rules import Rules
from piepmatz.i18n import N_, _


@dataclass(frozen=True)
class Why:
    """The rule behind an event: its id (``T2.1e``) and what it says, in the current language."""

    rule: str
    text: str


#: Each kind of event: the rule that makes it happen and that rule in words.
RULES_OF_EVENTS: dict[EventKind, tuple[str, str]] = {
    EventKind.TURN: (
        "S5",
        N_("Play goes round the table; a turn is: play a bird, resolve its row, draw."),
    ),
    EventKind.PLAY: (
        "T1.1",
        N_(
            "Each turn starts with a bird from hand, laid at the end of a perch's row: the first "
            "bird of a row sits at the perch, the others wait on the ground."
        ),
    ),
    EventKind.CHASE: (
        "T2.1",
        N_(
            "When the birds on the ground add up to more than the bird at the perch, they chase "
            "it away; the difference says which seed is taken."
        ),
    ),
    EventKind.TAKE_SEED: (
        "T2.1a",
        N_(
            "The seed at the position the difference names is taken (position 1 is next to the "
            "feeder), with a pest lying beside it; the seeds above slide down."
        ),
    ),
    EventKind.TAKE_BLIND: (
        "T2.1a",
        N_(
            "When the seed column holds fewer seeds than the difference, the top card of the "
            "feeder deck is taken instead; only its taker sees it."
        ),
    ),
    EventKind.TAKE_PEST: (
        "T2.1a",
        N_("A pest lying beside the seed taken, or drawn from the feeder deck, comes with it."),
    ),
    EventKind.FEEDER_EMPTY: (
        "E1",
        N_(
            "A seed was needed from the empty feeder deck: none is taken, and the end of the "
            "game is triggered."
        ),
    ),
    EventKind.COLLECT_PERCH: (
        "T2.1c",
        N_("The bird chased from the perch goes into the collection of the player who chased it."),
    ),
    EventKind.CROW: (
        "T2.1d",
        N_(
            "A crow makes its taker discard one bird of a species of which they hold the most; "
            "the bird leaves the game."
        ),
    ),
    EventKind.CROW_NOTHING: (
        "T2.1d",
        N_("A crow takes a bird from its taker's collection; with no bird there, it takes none."),
    ),
    EventKind.SQUIRREL: (
        "T2.1d",
        N_(
            "A squirrel takes two seed cards at random from its taker's pile; they leave the "
            "game face up."
        ),
    ),
    EventKind.PROMOTE: (
        "T2.1e",
        N_(
            "After a chase the highest bird on the ground moves up to the perch; on a tie, the "
            "one nearest the perch."
        ),
    ),
    EventKind.COLLECT: (
        "T2.2",
        N_(
            "After a play without a chase, the player may add a bird from hand worth no more "
            "than the bird just played to their collection, or decline."
        ),
    ),
    EventKind.REFILL_DISPLAY: (
        "T3.1",
        N_("A bird taken from the display is replaced at once from the bird deck."),
    ),
    EventKind.REFILL_COLUMN: (
        "T3.2",
        N_("At the end of a turn the seed column is refilled to four seeds from the feeder deck."),
    ),
    EventKind.PEST_BESIDE: (
        "T3.2",
        N_("A pest turned up while refilling lands beside the lowest seed that has no pest yet."),
    ),
    EventKind.PEST_OUT: (
        "T3.2",
        N_("A pest that finds no seed without a pest leaves the game."),
    ),
    EventKind.SKIP: (
        "T1.3",
        N_("A player with no card in hand and nothing left to draw skips the turn."),
    ),
    EventKind.KEEP: (
        "E3",
        N_(
            "At the end each player secretly chooses two birds of their hand for their "
            "collection; the rest are discarded."
        ),
    ),
    EventKind.REVEAL: (
        "E3",
        N_("Once everybody has chosen, the birds kept are shown and join the collections."),
    ),
    EventKind.GAME_OVER: (
        "E2",
        N_(
            "The game ends after the turn of the player seated just before the first player: "
            "everybody has had as many turns."
        ),
    ),
}
RULES_OF_EVENTS[EventKind.PASS] = RULES_OF_EVENTS[EventKind.COLLECT]

_DRAW = {
    "refill": N_(
        "The player refills their hand to four cards, one at a time: a display bird or the top "
        "of the bird deck."
    ),
    "one": N_("The player draws one card: a display bird or the top of the bird deck."),
}
_END = {
    EndReason.FEEDER: N_(
        "The end is triggered the first time a card is needed from the empty feeder deck; play "
        "goes on until everybody has had as many turns."
    ),
    EndReason.BIRDS: N_(
        "In these rules the end is also triggered when the bird deck is empty at the end of a "
        "turn; play goes on until everybody has had as many turns."
    ),
    EndReason.SKIP: N_(
        "The end is triggered when a player has no card and nothing to draw; play goes on until "
        "everybody has had as many turns."
    ),
}


def why(event: Event, rules: Rules) -> Why:
    """The rule behind ``event`` in a game played by ``rules``, in the current language."""
    kind = event.kind
    if kind in (EventKind.DRAW_DECK, EventKind.DRAW_DISPLAY):
        return Why("T3.1", _(_DRAW[rules.draw]))
    if isinstance(event, EndTriggered):
        return Why("E1", _(_END[EndReason(event.reason)]))
    rule, text = RULES_OF_EVENTS[EventKind(kind)]
    return Why(rule, _(text))


def whys(rules: Rules) -> tuple[dict[str, Why], dict[str, Why]]:
    """The rule behind every kind of event under ``rules`` (by kind), and behind each reason the
    end can be triggered (by reason): for an interface that looks a log entry up by its kind."""
    kinds = {str(kind): Why(rule, _(text)) for kind, (rule, text) in RULES_OF_EVENTS.items()}
    draw = Why("T3.1", _(_DRAW[rules.draw]))
    kinds |= {str(EventKind.DRAW_DECK): draw, str(EventKind.DRAW_DISPLAY): draw}
    return kinds, {str(reason): Why("E1", _(text)) for reason, text in _END.items()}
