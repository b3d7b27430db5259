"""Chance: where the engine's random events come from, the deal's and play's.

The engine asks a :class:`Chance` for each of them: in the deal (S2–S5) the species set aside,
the first player, the order of each deck, every feeder card turned up for the seed column and
every bird dealt; in play the next bird from the bird deck, the next card from the feeder deck,
and the seed a squirrel takes (T2.1d). It never reads a deck's order or the generator itself,
so a caller can supply the outcomes.

The default, :data:`DECKS`, draws the choices and shuffles the decks with the game's SplitMix64
generator (:mod:`.rng`), plays the decks in that order, and draws the squirrel's pick from the
same generator, so that the same seed gives the same game, card for card.

:data:`ASKED` leaves every outcome open: the engine pauses where it needs one, and the state
records what it waits for (:class:`Asked`) until :meth:`~piepmatz.core.state.State.apply_outcome`
gives it; its decks hold the unseen cards in ascending order. The OpenSpiel binding makes each of
these pauses an explicit chance node (:mod:`piepmatz.envs.openspiel`).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import TYPE_CHECKING, Final, NamedTuple

from . import rng as _rng
from .cards import SPECIES
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
    # The deal, in its order.
    SPECIES = 5  # S2: the species set aside in a two-player game
    FIRST_PLAYER = 6  # S5: the first player
    DEAL_COLUMN = 7  # S3: the feeder card turned up to fill the column
    DEAL_PERCH = 8  # S4: the bird placed at a perch
    DEAL_HAND = 9  # S4: a bird dealt into a hand
    DEAL_DISPLAY = 10  # S4: the bird turned face up in a display slot


#: The draws of the deal (S2–S5): a state paused at one has not begun turn 1.
DEAL_DRAWS: Final = frozenset(
    {
        Draw.SPECIES,
        Draw.FIRST_PLAYER,
        Draw.DEAL_COLUMN,
        Draw.DEAL_PERCH,
        Draw.DEAL_HAND,
        Draw.DEAL_DISPLAY,
    }
)


class Pool(IntEnum):
    """What a draw's outcomes are (:meth:`~piepmatz.core.state.State.chance_pool`)."""

    BIRD_DECK = 0  # birds of the bird deck
    FEEDER_DECK = 1  # cards of the feeder deck
    SEED_PILE = 2  # seeds of the chasing player's pile
    SPECIES = 3  # species, by index of SPECIES
    SEATS = 4  # seats


#: By :class:`Draw`: what it draws from.
POOLS: Final = (
    Pool.BIRD_DECK,  # BIRD
    Pool.BIRD_DECK,  # DISPLAY
    Pool.FEEDER_DECK,  # CHASE
    Pool.SEED_PILE,  # SQUIRREL
    Pool.FEEDER_DECK,  # COLUMN
    Pool.SPECIES,  # SPECIES
    Pool.SEATS,  # FIRST_PLAYER
    Pool.FEEDER_DECK,  # DEAL_COLUMN
    Pool.BIRD_DECK,  # DEAL_PERCH
    Pool.BIRD_DECK,  # DEAL_HAND
    Pool.BIRD_DECK,  # DEAL_DISPLAY
)


class Asked(NamedTuple):
    """What a paused engine waits for, and what it holds meanwhile."""

    draw: Draw
    #: ``DISPLAY``, ``DEAL_DISPLAY``: the display slot; ``DEAL_PERCH``: the perch;
    #: ``DEAL_HAND``: the player.
    slot: int = -1
    #: ``SQUIRREL``: the seed it took already; ``COLUMN``, ``DEAL_COLUMN``: the pests set aside
    #: so far (T3.2, S3).
    taken: tuple[int, ...] = ()
    #: The outcome, once given: the engine draws again and :data:`ASKED` answers it.
    given: int = ASK


class Chance:
    """The random events of a game; every draw takes the card out of its place, or answers
    :data:`ASK` and leaves it there.

    A subclass supplies its own outcomes. Each method is called only when an outcome exists:
    the deck is not empty, the pile holds a seed.
    """

    __slots__ = ()

    def species(self, state: State) -> int:
        """S2: the species set aside in a two-player game (an index of ``SPECIES``),
        uniformly."""
        state.rng, species = _rng.below(state.rng, len(SPECIES))
        return species

    def first_player(self, state: State) -> int:
        """S5: the first player, uniformly."""
        state.rng, seat = _rng.below(state.rng, state.num_players)
        return seat

    def shuffle(self, state: State, deck: list[int]) -> None:
        """S3, S4: shuffle a deck of the state in place, before cards are drawn from it."""
        state.rng = _rng.shuffle(deck, state.rng)

    def bird(self, state: State) -> int:
        """S4, T3.1: the top bird of the bird deck, removed from it."""
        return state.bird_deck.pop()

    def feeder(self, state: State) -> int:
        """S3, T2.1a, T3.2: the top card of the feeder deck, removed from it."""
        return state.feeder_deck.pop()

    def squirrel(self, state: State, player: int, pile: list[int]) -> int:
        """T2.1d: the seed of ``pile`` (seen seeds, then blind ones) the squirrel takes,
        uniformly; the engine takes it out of the pile."""
        state.rng, i = _rng.below(state.rng, len(pile))
        return pile[i]


class _Asked(Chance):
    """Answers :data:`ASK`, or the outcome given to a paused state as it draws again."""

    __slots__ = ()

    def species(self, state: State) -> int:
        return _given(state, range(len(SPECIES)), take=False)

    def first_player(self, state: State) -> int:
        return _given(state, range(state.num_players), take=False)

    def shuffle(self, state: State, deck: list[int]) -> None:
        # No order: each card is asked as it is drawn. Ascending, as the outcomes are listed.
        deck.sort()

    def bird(self, state: State) -> int:
        return _given(state, state.bird_deck)

    def feeder(self, state: State) -> int:
        return _given(state, state.feeder_deck)

    def squirrel(self, state: State, player: int, pile: list[int]) -> int:
        return _given(state, pile, take=False)


def _given(state: State, outcomes: Sequence[int], take: bool = True) -> int:
    """The outcome given to a paused ``state``, one of ``outcomes``; ``take``: out of them."""
    asked = state.asked
    if asked is None:
        return ASK
    card = asked.given
    try:
        if take:
            assert isinstance(outcomes, list)
            outcomes.remove(card)
        elif card not in outcomes:
            raise ValueError
    except ValueError:
        raise IllegalActionError(
            f"{card!r} is no outcome of this {asked.draw.name.lower()} draw: "
            f"it is not among the {len(outcomes)} chance draws from",
            "no_outcome",
        ) from None
    state.asked = None
    return card


#: The seeded decks and the game's own generator.
DECKS: Final[Chance] = Chance()
#: Every outcome asked of the caller (:meth:`~piepmatz.core.state.State.apply_outcome`).
ASKED: Final[Chance] = _Asked()
