"""Chance: where the engine's random events after the deal come from.

The engine asks a :class:`Chance` for each of them: the next bird from the bird deck, the next
card from the feeder deck, and the seed a squirrel takes (T2.1d). It never reads a deck's order
or the generator itself, so a caller can supply the outcomes: the OpenSpiel binding makes each
one an explicit chance node (:mod:`piepmatz.envs.openspiel`).

The default, :data:`DECKS`, plays the decks in the order the seeded deal shuffled them and draws
the squirrel's pick from the game's SplitMix64 generator (:mod:`.rng`), so that the same seed
gives the same game, card for card.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import rng as _rng

if TYPE_CHECKING:
    from .state import State


class Chance:
    """The random events of a game in progress; every method takes the card out of its place.

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


#: The seeded decks and the game's own generator.
DECKS = Chance()
