"""From the JAX environment's deal to the core's :class:`~piepmatz.core.state.State`: the same
game, card for card, for the core's bots and tools (and for the differential test).

Only a deal (a state as :meth:`~piepmatz.jax.env.PiepmatzEnv.init` returns it) is taken: later
the JAX game keeps seeds as counts by eggs, not as cards.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from piepmatz.core.cards import SPECIES
from piepmatz.core.rules import Rules
from piepmatz.core.state import State

from .game import Game


def core_deal(
    state: Any,
    rules: Rules,
    index: int | None = None,
    cls: type[State] = State,
    events: bool = True,
) -> State:
    """The core state (of class ``cls``) of the deal in ``state`` (element ``index`` of a
    batch), played under ``rules`` (the environment's). ``ValueError`` if it is not a deal, or
    not one the core could have dealt (a card in two places or missing)."""
    game: Game = state._game
    g: Any = Game._make(np.asarray(x) if index is None else np.asarray(x)[index] for x in game)
    n = int(g.hand.shape[0])
    if int(g.turn) != 1 or int(g.phase) != 0 or int(g.column_len) != 4:
        raise ValueError("only a deal (turn 1, before the first action) can be taken to the core")
    removed = int(g.removed_species)
    core = cls.new_game(
        n,
        rules,
        events=events,
        first_player=int(g.first_player),
        removed_species=SPECIES[removed] if removed >= 0 else None,
    )
    perches = core.num_perches
    rows = [[int(b) for b in np.flatnonzero(g.row_of == k)] for k in range(perches)]
    if any(len(row) != 1 for row in rows):
        raise ValueError(f"a deal has one bird at each perch, not rows {rows}")
    core.rows = rows
    core.column = [int(c) for c in g.column]
    core.feeder_deck = [int(c) for c in g.feeder_deck[: int(g.feeder_count)]]
    core.bird_deck = [int(b) for b in g.bird_deck[: int(g.bird_count)]]
    core.display = [int(b) for b in g.display]
    core.hands = [[int(b) for b in np.flatnonzero(g.hand[p])] for p in range(n)]
    birds, feeder = core.card_places()  # ValueError for a card in two places
    if len(birds) != 72 or len(feeder) != 36:
        raise ValueError(
            f"a deal places every card: {len(birds)} birds, {len(feeder)} feeder cards"
        )
    return core
