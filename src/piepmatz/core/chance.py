"""Chance: where the engine's random events after the deal come from.

The engine asks a :class:`Chance` for each of them: the next bird from the bird deck, the next
card from the feeder deck, and the seed a squirrel takes (T2.1d). It never reads a deck's order
or the generator itself, so a caller can supply the outcomes.

The default, :data:`DECKS`, plays the decks in the order the seeded deal shuffled them and draws
the squirrel's pick from the game's SplitMix64 generator (:mod:`.rng`), so that the same seed
gives the same game, card for card.

:data:`ASKED` leaves every outcome open: the engine pauses where it needs one, and the state
records what it waits for (:class:`Asked`) until :meth:`~piepmatz.core.state.State.apply_outcome`
gives it. The OpenSpiel binding makes each of these pauses an explicit chance node
(:mod:`piepmatz.envs.openspiel`).
"""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING, Final, NamedTuple

from . import rng as _rng
from .errors import IllegalActionError

if TYPE_CHECKING:
    from .state import State

#: What :data:`ASKED` answers: the outcome is given later, the engine pauses.
ASK: Final = -2


class Draw(IntEnum):
    """Where a paused engine waits for chance (the rule that draws)."""

    BIRD = 0  # T3.1: a bird drawn blind from the bird deck
    DISPLAY = 1  # T3.1: the bird of the bird deck that refills a display slot
    CHASE = 2  # T2.1a: the feeder card a chase takes blind
    SQUIRREL = 3  # T2.1d: a seed of the chasing player's pile the squirrel takes
    COLUMN = 4  # T3.2: the feeder card revealed to refill the column


class Asked(NamedTuple):
    """What a paused engine waits for, and what it holds meanwhile."""

    draw: Draw
    #: ``DISPLAY``: the slot to refill.
    slot: int = -1
    #: ``SQUIRREL``: the seed it took already; ``COLUMN``: the pests set aside so far (T3.2).
    taken: tuple[int, ...] = ()
    #: The outcome, once given: the engine draws again and :data:`ASKED` answers it.
    given: int = ASK


class Chance:
    """The random events of a game in progress; every method takes the card out of its place,
    or answers :data:`ASK` and leaves it there.

    A subclass supplies its own outcomes. Each method is called only when an outcome exists:
    the deck is not empty, the pile holds a seed.
    """

    __slots__ = ()

    def bird(self, state: State) -> int:
        """T3.1: the top bird of the bird deck, removed from it."""
        return state.bird_deck.pop()

    def feeder(self, state: State) -> int:
        """T2.1a, T3.2: the top card of the feeder deck, removed from it."""
        return state.feeder_deck.pop()

    def squirrel(self, state: State, player: int, pile: list[int]) -> int:
        """T2.1d: the seed of ``pile`` (seen seeds, then blind ones) the squirrel takes,
        uniformly; the engine takes it out of the pile."""
        state.rng, i = _rng.below(state.rng, len(pile))
        return pile[i]


class _Asked(Chance):
    """Answers :data:`ASK`, or the outcome given to a paused state as it draws again."""

    __slots__ = ()

    def bird(self, state: State) -> int:
        return _given(state, state.bird_deck)

    def feeder(self, state: State) -> int:
        return _given(state, state.feeder_deck)

    def squirrel(self, state: State, player: int, pile: list[int]) -> int:
        return _given(state, pile, take=False)


def _given(state: State, cards: list[int], take: bool = True) -> int:
    asked = state.asked
    if asked is None:
        return ASK
    card = asked.given
    try:
        if take:
            cards.remove(card)
        elif card not in cards:
            raise ValueError
    except ValueError:
        raise IllegalActionError(
            f"{card!r} is no outcome of this {asked.draw.name.lower()} draw: "
            f"it is not among the {len(cards)} cards chance draws from",
            "no_outcome",
        ) from None
    state.asked = None
    return card


#: The seeded decks and the game's own generator.
DECKS: Final[Chance] = Chance()
#: Every outcome asked of the caller (:meth:`~piepmatz.core.state.State.apply_outcome`).
ASKED: Final[Chance] = _Asked()
