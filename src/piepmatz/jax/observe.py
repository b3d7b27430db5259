"""A player's observation of a :class:`~piepmatz.jax.game.Game`: the vector of
:mod:`piepmatz.envs.encoding`, entry for entry, built from what that player may know.

Each field of the encoding's ``LAYOUT`` is built here by name and laid out in the layout's
order; a field of the wrong length fails when the function is traced, so the two cannot drift
apart silently (the differential test compares the values).
"""

from __future__ import annotations

from typing import Final

import jax
import jax.numpy as jnp

from piepmatz.core.actions import MAX_PERCHES
from piepmatz.core.cards import CROW, NUM_BIRDS, NUM_SPECIES, SQUIRREL
from piepmatz.core.state import COLUMN_SIZE, perches_for
from piepmatz.envs.encoding import FIELDS, LAYOUT, MAX_PLAYERS, MAX_TURN, OBSERVATION_SIZE

from .game import FEEDER_KINDS, GAME_OVER, SEED_EGGS, VALUE, Game, num_players

Array = jax.Array

_PHASES: Final = FIELDS["phase"][1]
_EGG_VALUES: Final = jnp.arange(1, 4, dtype=jnp.int32)


def _by_seat(x: Array, order: Array) -> Array:
    """Per-seat rows in the observer's order (observer first), padded to four seats."""
    rows = x[order]
    pad = jnp.zeros((MAX_PLAYERS - rows.shape[0], *rows.shape[1:]), rows.dtype)
    return jnp.concatenate([rows, pad]).reshape(-1)


def _one_hot(index: Array, size: int, on: Array | bool = True) -> Array:
    return (jnp.arange(size) == index) & on


def observe(game: Game, player: Array) -> Array:
    """The ``int8`` observation vector of ``player`` (``OBSERVATION_SIZE`` long)."""
    n = num_players(game)
    me = player
    order = (me + jnp.arange(n)) % n
    perches = jnp.arange(MAX_PERCHES)
    in_row = game.row_of[None, :] == perches[:, None]  # [3, 72]
    at_perch = in_row & (game.row_pos == 0)[None, :]
    ground = in_row & ~at_perch
    column_at = jnp.arange(COLUMN_SIZE) < game.column_len
    column_seed = jnp.where(column_at, SEED_EGGS[jnp.maximum(game.column, 0)], 0)
    pest_kind = jnp.where(
        column_at & (game.column_pests >= 0),
        FEEDER_KINDS[jnp.maximum(game.column_pests, 0)],
        0,
    )
    column_pest = jnp.stack([pest_kind == CROW, pest_kind == SQUIRREL], axis=1)
    display = game.display[:, None] == jnp.arange(NUM_BIRDS)[None, :]
    seeds = jnp.stack(
        [
            game.seen @ _EGG_VALUES,
            jnp.sum(game.seen, axis=1),
            jnp.sum(game.blind, axis=1),
        ],
        axis=1,
    )
    relative = (jnp.arange(MAX_PLAYERS) + me) % n
    over = game.phase == GAME_OVER
    fields = {
        "hand": game.hand[me],
        "perch_bird": at_perch,
        "ground": jnp.where(ground, game.row_pos[None, :], 0),
        "row_strength": jnp.stack(
            [
                jnp.sum(jnp.where(at_perch, VALUE[None, :], 0), axis=1),
                jnp.sum(jnp.where(ground, VALUE[None, :], 0), axis=1),
            ],
            axis=1,
        ),
        "perch_open": perches < perches_for(n),
        "column_seed": column_seed,
        "column_pest": column_pest,
        "display": display,
        "deck_sizes": jnp.stack([game.bird_count, game.feeder_count]),
        "hand_sizes": _by_seat(jnp.sum(game.hand, axis=1), order),
        "shown": _by_seat(game.shown, order),
        "collections": _by_seat(game.collection, order),
        "pests": _by_seat(jnp.stack([game.crows, game.squirrels], axis=1), order),
        "seeds": _by_seat(seeds, order),
        "own_blind_eggs": (game.blind[me] @ _EGG_VALUES)[None],
        "gone_birds": game.gone_birds,
        "gone_seed_eggs": game.gone_eggs[None],
        "removed_species": _one_hot(game.removed_species, NUM_SPECIES),
        "phase": _one_hot(game.phase, _PHASES),
        "current_player": (relative == game.current_player) & ~over & (jnp.arange(4) < n),
        "turn_player": (relative == game.turn_player) & (jnp.arange(4) < n),
        "first_player": (relative == game.first_player) & (jnp.arange(4) < n),
        "turn_state": jnp.stack(
            [game.played_value, game.chased, game.draws_left, game.end_triggered]
        ),
        "chase_perch": _one_hot(game.chase_perch, MAX_PERCHES),
        "turn": jnp.minimum(game.turn, MAX_TURN)[None],
        "chosen": _by_seat(game.chosen, order),
        "num_players": jnp.arange(2, 5) == n,
        "rules": game.rules,
    }
    parts = []
    for name, length, _, _ in LAYOUT:
        part = jnp.asarray(fields[name]).reshape(-1).astype(jnp.int8)
        if part.shape != (length,):
            raise AssertionError(
                f"observation field {name}: {part.shape}, the encoding has {length}"
            )
        parts.append(part)
    vector = jnp.concatenate(parts)
    assert vector.shape == (OBSERVATION_SIZE,)
    return vector
