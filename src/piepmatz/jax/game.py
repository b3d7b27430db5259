"""The rules of :mod:`piepmatz.core.state` again, as pure JAX functions over fixed-size arrays.

A second implementation, held to the core by the differential test
(``tests/envs/test_jax_env.py``): every legal mask, observation, reward and end it gives must be
the core's for the same deal. The rule ids in the comments are RULES.md's, as in the core.

A game is a :class:`Game` (a named tuple of arrays, so a JAX pytree) for a player count fixed
when the functions are traced; the rule flags are values in it, so one compiled step plays both
presets. Where the core keeps lists, the arrays keep what the rules and the observation need:

- birds by place: a hand, a collection, a kept pair, the birds seen drawn (``[players, 72]``
  flags); a row as each bird's perch and place in it (``row_of``, ``row_pos``: 0 at the perch,
  then the ground birds in arrival order, T1.2); decks as card ids with the top card last;
- seed piles as counts by eggs (1–3): seeds of one value are alike (T2.1d), and scores and
  observations see only eggs and counts.

:func:`play` applies one legal action and plays on, as the core does, until the next decision
or the end: the chase (T2.1), the draws with one option only (T3.1), the column's refill (T3.2),
the next turn (E1, E2, T1.3) and the last hands of two cards or fewer (E3). Randomness comes from
the key: the deal's shuffles (:func:`deal`) and the squirrel's picks (:func:`squirrel_draws`).
"""

from __future__ import annotations

from typing import Final, NamedTuple

import jax
import jax.numpy as jnp

from piepmatz.core.actions import (
    COLLECT_BASE,
    CROW_BASE,
    DISPLAY_SIZE,
    DRAW_DECK_ID,
    DRAW_DISPLAY_BASE,
    KEEP_BASE,
    MAX_PERCHES,
    PAIRS,
    PASS_ID,
)
from piepmatz.core.cards import (
    BIRD_EGGS,
    BIRD_FEMALE,
    BIRD_SPECIES,
    BIRD_VALUE,
    CROW,
    FEEDER_EGGS,
    FEEDER_KIND,
    NUM_BIRDS,
    NUM_FEEDER,
    NUM_SPECIES,
    SQUIRREL,
    THREE_PLUS,
)
from piepmatz.core.rules import Rules
from piepmatz.core.scoring import PAIR_POINTS
from piepmatz.core.state import COLUMN_SIZE, HAND_SIZE, Phase, perches_for

Array = jax.Array

PLAY, COLLECT, CROW_VICTIM, DRAW, LAST_HAND, GAME_OVER = (int(p) for p in Phase)

#: The rule flags as a game holds them, in the order of the observation's ``rules`` field.
RULE_FLAGS: Final = ("no_chase_collect", "draw_one", "end_on_birds", "last_hand", "species_pairs")


def rule_flags(rules: Rules) -> tuple[bool, ...]:
    """The flags of ``rules`` in :data:`RULE_FLAGS` order (as the observation encodes them)."""
    return (
        rules.no_chase_collect,
        rules.draw == "one",
        rules.end_trigger == "feeder_or_birds",
        rules.last_hand,
        rules.pairs == "species",
    )


# The core's card tables as arrays.
VALUE: Final = jnp.array(BIRD_VALUE, jnp.int32)
EGGS: Final = jnp.array(BIRD_EGGS, jnp.int32)
FEMALE: Final = jnp.array(BIRD_FEMALE, jnp.bool_)
SPECIES_OF: Final = jnp.array(BIRD_SPECIES, jnp.int32)
#: ``[72, 6]``: 1 where a bird is of a species; counts by species are a product with it.
SPECIES_ONE_HOT: Final = jax.nn.one_hot(SPECIES_OF, NUM_SPECIES, dtype=jnp.int32)
#: A mated pair's other bird: the same species and value, the other sex (E4).
PARTNER: Final = jnp.arange(NUM_BIRDS) ^ 1
SEED_EGGS: Final = jnp.array(FEEDER_EGGS, jnp.int32)
FEEDER_KINDS: Final = jnp.array([int(k) for k in FEEDER_KIND], jnp.int32)
IS_THREE_PLUS: Final = jnp.array([f in THREE_PLUS for f in range(NUM_FEEDER)])
PAIR_FIRST: Final = jnp.array([a for a, _ in PAIRS], jnp.int32)
PAIR_SECOND: Final = jnp.array([b for _, b in PAIRS], jnp.int32)
#: Most pests one refill of the column can set aside: every crow and squirrel.
MAX_ASIDE: Final = sum(1 for k in FEEDER_KIND if k != 0)

# What :func:`play` does next, after the action itself.
_PAUSE, _CHASE, _START_DRAW, _DRAW, _REFILL, _END_TURN, _LAST_HAND = range(7)


class Game(NamedTuple):
    """One game's state as arrays (see the module's docstring); ``-1`` is no card or no seat."""

    rules: Array  # bool[5], RULE_FLAGS
    first_player: Array
    turn: Array
    turn_player: Array
    current_player: Array  # -1 once the game is over
    phase: Array  # Phase
    end_triggered: Array  # bool
    chase_perch: Array
    chased: Array  # bool
    played_value: Array
    draws_left: Array
    hand: Array  # bool[n, 72]
    shown: Array  # bool[n, 72]: hand birds everybody saw drawn from the display
    collection: Array  # bool[n, 72]
    kept: Array  # bool[n, 72]: E3, until everybody has chosen
    chosen: Array  # bool[n]
    row_of: Array  # int32[72]: the perch of the row a bird lies in, -1
    row_pos: Array  # int32[72]: 0 at the perch, then the ground in arrival order
    gone_birds: Array  # bool[72]: crows' victims
    removed_species: Array  # -1, or the species set aside (S2)
    bird_deck: Array  # int32[72], top card last
    bird_count: Array
    display: Array  # int32[3]
    feeder_deck: Array  # int32[36], top card last
    feeder_count: Array
    column: Array  # int32[4], position 1 first
    column_len: Array
    column_pests: Array  # int32[4]: the pest beside each seed, -1
    seen: Array  # int32[n, 3]: seeds taken from the column, by eggs
    blind: Array  # int32[n, 3]: seeds drawn blind, by eggs
    crows: Array  # int32[n]
    squirrels: Array  # int32[n]
    gone_eggs: Array  # eggs on the seeds squirrels took


def num_players(game: Game) -> int:
    """The player count, from the arrays' shapes (static under ``jit``)."""
    return int(game.hand.shape[0])


# ---------------------------------------------------------------------------- the deal (S2-S5)


def _shuffled(key: Array, last: Array) -> Array:
    """The card ids ``0..len(last)-1`` in random order, those flagged in ``last`` after the
    others. One sort of packed keys (the group in the top bit, 24 random bits, the card in the
    low seven; equal random bits, below 2e-4 in a deal, keep the cards' order)."""
    size = last.shape[0]
    bits = jax.random.bits(key, (size,), jnp.uint32)
    keyed = (
        (last.astype(jnp.uint32) << 31)
        | ((bits >> 1) & jnp.uint32(0x7FFFFF80))
        | jnp.arange(size, dtype=jnp.uint32)
    )
    return (jnp.sort(keyed) & 127).astype(jnp.int32)


def deal(key: Array, players: int, flags: Array) -> Game:
    """S2–S5 from ``key``: the species set aside (two players), the first player, the seed
    column's four seeds (S3: the first four seeds of a shuffled feeder deck, the rest shuffled
    again) and the birds at the perches, in the hands and on the display (S4)."""
    n = players
    k_species, k_first, k_column, k_feeder, k_birds = jax.random.split(key, 5)
    i32 = jnp.int32
    if n == 2:
        removed = jax.random.randint(k_species, (), 0, NUM_SPECIES, i32)
        bird_out = removed == SPECIES_OF
        feeder_out = IS_THREE_PLUS
    else:
        removed = i32(-1)
        bird_out = jnp.zeros(NUM_BIRDS, jnp.bool_)
        feeder_out = jnp.zeros(NUM_FEEDER, jnp.bool_)
    first = jax.random.randint(k_first, (), 0, n, i32)
    # S3: the column is the first four seeds turned up; set-aside pests go back and the deck is
    # shuffled again, so the rest of the deck is in a new random order.
    is_seed = FEEDER_KINDS == 0
    column = _shuffled(k_column, ~is_seed | feeder_out)[:COLUMN_SIZE]
    in_column = jnp.any(column[:, None] == jnp.arange(NUM_FEEDER)[None, :], axis=0)
    rest = ~feeder_out & ~in_column
    # A deck's cards come first in its array, the others after them; its top is its last card.
    feeder_deck = _shuffled(k_feeder, ~rest)
    feeder_count = jnp.sum(rest).astype(i32)
    birds = _shuffled(k_birds, bird_out)
    bird_count = jnp.sum(~bird_out).astype(i32)
    # S4, in the core's order: a bird at each perch, four into each hand, three to the display.
    perches = perches_for(n)
    dealt = perches + HAND_SIZE * n + DISPLAY_SIZE
    drawn = birds[bird_count - 1 - jnp.arange(dealt)]  # from the top down
    birds_ids = jnp.arange(NUM_BIRDS)
    at_perch = drawn[:perches, None] == birds_ids[None, :]
    row_of = jnp.where(jnp.any(at_perch, axis=0), jnp.argmax(at_perch, axis=0), -1).astype(i32)
    hands = drawn[perches : perches + HAND_SIZE * n].reshape(n, HAND_SIZE)
    hand = jnp.any(hands[:, :, None] == birds_ids[None, None, :], axis=1)
    zeros_n72 = jnp.zeros((n, NUM_BIRDS), jnp.bool_)
    zeros_n3 = jnp.zeros((n, 3), i32)
    return Game(
        rules=jnp.asarray(flags, jnp.bool_),
        first_player=first,
        turn=i32(1),
        turn_player=first,
        current_player=first,
        phase=i32(PLAY),
        end_triggered=jnp.bool_(False),
        chase_perch=i32(-1),
        chased=jnp.bool_(False),
        played_value=i32(0),
        draws_left=i32(0),
        hand=hand,
        shown=zeros_n72,
        collection=zeros_n72,
        kept=zeros_n72,
        chosen=jnp.zeros(n, jnp.bool_),
        row_of=row_of,
        row_pos=jnp.zeros(NUM_BIRDS, i32),
        gone_birds=jnp.zeros(NUM_BIRDS, jnp.bool_),
        removed_species=removed,
        bird_deck=birds,
        bird_count=bird_count - dealt,
        display=drawn[dealt - DISPLAY_SIZE :],
        feeder_deck=feeder_deck,
        feeder_count=feeder_count,
        column=column,
        column_len=i32(COLUMN_SIZE),
        column_pests=jnp.full(COLUMN_SIZE, -1, i32),
        seen=zeros_n3,
        blind=zeros_n3,
        crows=jnp.zeros(n, i32),
        squirrels=jnp.zeros(n, i32),
        gone_eggs=i32(0),
    )


# ---------------------------------------------------------------------------- queries


def row_strength(game: Game, perch: Array) -> tuple[Array, Array]:
    """``(P, G)`` of the row at ``perch``: its first bird's value and the others' total (T2)."""
    in_row = game.row_of == perch
    first = in_row & (game.row_pos == 0)
    return jnp.sum(jnp.where(first, VALUE, 0)), jnp.sum(jnp.where(in_row & ~first, VALUE, 0))


def crow_candidates(game: Game, player: Array) -> Array:
    """T2.1d: the birds of the player's most numerous species (all tied species), as flags."""
    collection = game.collection[player]
    counts = collection.astype(jnp.int32) @ SPECIES_ONE_HOT
    top = jnp.max(counts)
    return collection & (counts[SPECIES_OF] == top) & (top > 0)


def draw_options(game: Game) -> tuple[Array, Array]:
    """T3.1: the display slots with a bird, and whether the bird deck has one."""
    return game.display >= 0, game.bird_count > 0


def legal_mask(game: Game) -> Array:
    """The current player's legal actions over the core's action ids (``NUM_ACTIONS``)."""
    n = num_players(game)
    phase = game.phase
    hand = game.hand[jnp.maximum(game.current_player, 0)]
    perch_open = jnp.arange(MAX_PERCHES) < perches_for(n)
    play = (hand[:, None] & perch_open[None, :]).reshape(-1) & (phase == PLAY)
    collect = hand & (game.played_value >= VALUE) & (phase == COLLECT)
    slots, deck = draw_options(game)
    crow = crow_candidates(game, jnp.maximum(game.current_player, 0)) & (phase == CROW_VICTIM)
    keep = hand[PAIR_FIRST] & hand[PAIR_SECOND] & (phase == LAST_HAND)
    return jnp.concatenate(
        [
            play,
            collect,
            (phase == COLLECT)[None],
            slots & (phase == DRAW),
            (deck & (phase == DRAW))[None],
            crow,
            keep,
        ]
    )


def scores(game: Game) -> tuple[Array, Array]:
    """E4 and E5: every player's total and whether they are among the winners."""
    collection = game.collection
    owned = collection.astype(jnp.int32)
    counts = owned @ SPECIES_ONE_HOT  # [n, 6]
    best = jnp.max(counts, axis=0)
    holders = (counts == best) & (best > 0)
    majority = holders & (jnp.sum(holders, axis=0) == 1)  # [n, 6]: the strict majority
    seeds = (game.seen + game.blind) @ jnp.arange(1, 4, dtype=jnp.int32)
    # pairs=mated: male and female of one species and value, 5 points; the rest as singles.
    paired = collection & collection[:, PARTNER]
    single = collection & ~paired & majority[:, SPECIES_OF]
    mated_total = PAIR_POINTS * (jnp.sum(paired, axis=1) // 2) + single.astype(jnp.int32) @ EGGS
    # pairs=species: a species with both sexes scores all its birds' eggs.
    males = (collection & ~FEMALE).astype(jnp.int32) @ SPECIES_ONE_HOT > 0
    females = (collection & FEMALE).astype(jnp.int32) @ SPECIES_ONE_HOT > 0
    both = males & females
    eggs = (owned * EGGS) @ SPECIES_ONE_HOT
    species_total = jnp.sum(jnp.where(both | majority, eggs, 0), axis=1)
    total = seeds + jnp.where(game.rules[4], species_total, mated_total)
    birds = jnp.sum(owned, axis=1)
    leaders = total == jnp.max(total)
    most = jnp.max(jnp.where(leaders, birds, -1))
    return total, leaders & (birds == most)


def win_rewards(winners: Array) -> Array:
    """:func:`piepmatz.envs.rewards.win_rewards` over flags: a sole winner 1, the rest share
    -1."""
    n = winners.shape[0]
    # n/(n-1) * (share - 1/n), written so that a sole winner's 1 is exact in float32.
    return ((n * winners / jnp.sum(winners) - 1.0) / (n - 1)).astype(jnp.float32)


#: Most seeds squirrels can take in one step: two for each squirrel of the game.
MAX_PICKS: Final = 2 * sum(1 for k in FEEDER_KIND if k == SQUIRREL)


def squirrel_draws(key: Array) -> Array:
    """The uniform numbers a step's squirrels pick with, drawn once before the chase."""
    return jax.random.uniform(key, (MAX_PICKS,))


def squirrel_index(draws: Array, draw: Array, size: Array) -> Array:
    """T2.1d: the ``draw``-th pick of a step (counted from 0) from a seed pile of ``size``:
    uniform over its seeds, which the pile lists by eggs (ones first)."""
    index = jnp.floor(draws[jnp.minimum(draw, MAX_PICKS - 1)] * size).astype(jnp.int32)
    return jnp.minimum(index, jnp.maximum(size - 1, 0))


# ---------------------------------------------------------------------------- one action


# Updates at a traced index as masks over the whole array, not scatters: under ``vmap`` a
# scatter becomes a loop over the batch, a mask stays one fused elementwise operation.


def _hot(index: Array, size: int) -> Array:
    return jnp.arange(size) == index


def _cell(x: Array, row: Array, column: Array) -> Array:
    """Flags of ``x``'s shape (2-D), true at ``[row, column]``."""
    return _hot(row, x.shape[0])[:, None] & _hot(column, x.shape[1])[None, :]


def _play(game: Game, action: Array) -> tuple[Game, Array]:
    """T1.1: the bird goes to the end of the row; T2 decides what follows."""
    p = game.turn_player
    bird = action // MAX_PERCHES
    perch = action % MAX_PERCHES
    length = jnp.sum(game.row_of == perch)
    value = VALUE[bird]
    g = game._replace(
        hand=game.hand & ~_cell(game.hand, p, bird),
        shown=game.shown & ~_cell(game.shown, p, bird),
        row_of=jnp.where(_hot(bird, NUM_BIRDS), perch, game.row_of),
        row_pos=jnp.where(_hot(bird, NUM_BIRDS), length, game.row_pos),
        played_value=value,
    )
    perch_value, ground = row_strength(g, perch)
    chase = ground > perch_value
    # T2.2: without a chase, a player holding a bird not higher than the one played is asked.
    ask = ~chase & g.rules[0] & jnp.any(g.hand[p] & (value >= VALUE))
    g = g._replace(
        chased=chase,
        chase_perch=jnp.where(chase, perch, g.chase_perch),
        phase=jnp.where(ask, COLLECT, g.phase),
    )
    return g, jnp.where(chase, _CHASE, jnp.where(ask, _PAUSE, _START_DRAW))


def _collect(game: Game, action: Array) -> tuple[Game, Array]:
    """T2.2: the hand bird joins the collection, or the player passes."""
    p = game.turn_player
    take = action != PASS_ID
    bird = jnp.clip(action - COLLECT_BASE, 0, NUM_BIRDS - 1)
    g = game._replace(
        hand=game.hand & ~(_cell(game.hand, p, bird) & take),
        shown=game.shown & ~(_cell(game.shown, p, bird) & take),
        collection=game.collection | (_cell(game.collection, p, bird) & take),
    )
    return g, jnp.int32(_START_DRAW)


def _crow(game: Game, action: Array) -> tuple[Game, Array]:
    """T2.1d: the crow's victim leaves the game; the chase goes on (e. promotion)."""
    p = game.current_player
    bird = action - CROW_BASE
    g = game._replace(
        collection=game.collection & ~_cell(game.collection, p, bird),
        gone_birds=game.gone_birds | _hot(bird, NUM_BIRDS),
    )
    return _promote(g, g.chase_perch), jnp.int32(_CHASE)


def _draw(game: Game, action: Array) -> tuple[Game, Array]:
    return _take_draw(game, action), jnp.int32(_DRAW)


def _keep(game: Game, action: Array) -> tuple[Game, Array]:
    """E3: the two birds are kept aside; the rest of the hand is discarded."""
    p = game.current_player
    pair = action - KEEP_BASE
    kept = _hot(PAIR_FIRST[pair], NUM_BIRDS) | _hot(PAIR_SECOND[pair], NUM_BIRDS)
    seat = _hot(p, game.chosen.shape[0])
    g = game._replace(
        kept=jnp.where(seat[:, None], kept[None, :], game.kept),
        hand=game.hand & ~seat[:, None],
        chosen=game.chosen | seat,
    )
    return g, jnp.int32(_LAST_HAND)


def _take_draw(game: Game, action: Array) -> Game:
    """T3.1: one bird into the hand, from the deck or a display slot (refilled at once)."""
    p = game.turn_player
    from_deck = action == DRAW_DECK_ID
    slot = jnp.clip(action - DRAW_DISPLAY_BASE, 0, DISPLAY_SIZE - 1)
    has_top = game.bird_count > 0
    top = game.bird_deck[jnp.maximum(game.bird_count - 1, 0)]
    shown_bird = game.display[slot]
    bird = jnp.where(from_deck, top, shown_bird)
    takes_top = from_deck | has_top
    refill = jnp.where(has_top, top, -1)
    return game._replace(
        hand=game.hand | _cell(game.hand, p, bird),
        shown=game.shown | (_cell(game.shown, p, bird) & ~from_deck),
        display=jnp.where(_hot(slot, DISPLAY_SIZE) & ~from_deck, refill, game.display),
        bird_count=game.bird_count - takes_top.astype(jnp.int32),
        draws_left=game.draws_left - 1,
    )


def _promote(game: Game, perch: Array) -> Game:
    """T2.1e: the highest ground bird moves to the perch; ties go to the earliest. The row's
    first bird stands at the perch until a higher one comes (``row_pos`` 0)."""
    in_row = game.row_of == perch
    pos = game.row_pos
    # Highest value first, then the earliest place: one key to maximise.
    rank = jnp.where(in_row, VALUE * 16 - pos, -1)
    best = jnp.argmax(rank)
    best_pos = pos[best]
    moved = jnp.where(in_row & (pos < best_pos), pos + 1, pos)
    return game._replace(row_pos=jnp.where(_hot(best, NUM_BIRDS) & in_row, 0, moved))


# ---------------------------------------------------------------------------- what follows


def _chase_step(state: tuple[Game, Array, Array, Array]) -> tuple[Game, Array, Array, Array]:
    """T2.1: one round of the chase, or its end (then T3 begins)."""
    game, todo, picks, draws = state
    g = game
    p = g.turn_player
    perch = g.chase_perch
    perch_value, ground = row_strength(g, perch)
    going = ground > perch_value
    d = ground - perch_value
    # a. The seed at position d and the pest beside it, or the top of the feeder deck.
    from_column = going & (d <= g.column_len)
    from_deck = going & ~from_column & (g.feeder_count > 0)
    at = jnp.clip(d - 1, 0, COLUMN_SIZE - 1)
    positions = jnp.arange(COLUMN_SIZE)
    after = jnp.minimum(positions + (positions >= at), COLUMN_SIZE - 1)
    last = positions == COLUMN_SIZE - 1
    shifted_column = jnp.where(last, -1, g.column[after])
    shifted_pests = jnp.where(last, -1, g.column_pests[after])
    top = g.feeder_deck[jnp.maximum(g.feeder_count - 1, 0)]
    seed = g.column[at]
    pest_kind = jnp.where(
        from_column,
        jnp.where(g.column_pests[at] >= 0, FEEDER_KINDS[jnp.maximum(g.column_pests[at], 0)], 0),
        jnp.where(from_deck, FEEDER_KINDS[top], 0),
    )
    seen = g.seen + (_cell(g.seen, p, SEED_EGGS[seed] - 1) & from_column)
    blind_seed = from_deck & (FEEDER_KINDS[top] == 0)
    blind = g.blind + (_cell(g.blind, p, SEED_EGGS[top] - 1) & blind_seed)
    # c. The perch bird joins the collection; the row closes up behind it.
    in_row = g.row_of == perch
    perch_bird = jnp.argmax(in_row & (g.row_pos == 0))
    collect = going
    row_of = jnp.where(collect & (jnp.arange(NUM_BIRDS) == perch_bird), -1, g.row_of)
    row_pos = jnp.where(collect & in_row, jnp.maximum(g.row_pos - 1, 0), g.row_pos)
    g = g._replace(
        column=jnp.where(from_column, shifted_column, g.column),
        column_pests=jnp.where(from_column, shifted_pests, g.column_pests),
        column_len=g.column_len - from_column.astype(jnp.int32),
        feeder_count=g.feeder_count - from_deck.astype(jnp.int32),
        seen=seen,
        blind=blind,
        crows=g.crows + (_hot(p, g.crows.shape[0]) & (pest_kind == CROW)),
        squirrels=g.squirrels + (_hot(p, g.squirrels.shape[0]) & (pest_kind == SQUIRREL)),
        end_triggered=g.end_triggered | (going & ~from_column & ~from_deck),
        collection=g.collection | (_cell(g.collection, p, perch_bird) & collect),
        row_of=row_of,
        row_pos=row_pos,
    )
    # d. The crow: the player chooses among several birds; one goes at once.
    crow = pest_kind == CROW
    candidates = crow_candidates(g, p)
    choices = jnp.sum(candidates)
    ask = crow & (choices > 1)
    only = crow & (choices == 1)
    victim = jnp.argmax(candidates)
    g = g._replace(
        collection=g.collection & ~(_cell(g.collection, p, victim) & only),
        gone_birds=g.gone_birds | (_hot(victim, NUM_BIRDS) & only),
        phase=jnp.where(ask, CROW_VICTIM, g.phase),
        current_player=jnp.where(ask, p, g.current_player),
    )
    # The squirrel: two seeds of the pile, each uniformly; a seen copy of the value goes first.
    squirrel = pest_kind == SQUIRREL
    for _ in range(2):
        pile = g.seen[p] + g.blind[p]
        size = jnp.sum(pile)
        pick = squirrel & (size > 0)
        index = squirrel_index(draws, picks, size)
        value = jnp.sum(jnp.cumsum(pile) <= index)
        from_seen = g.seen[p, value] > 0
        take = pick.astype(jnp.int32)
        g = g._replace(
            seen=g.seen - (_cell(g.seen, p, value) & pick & from_seen),
            blind=g.blind - (_cell(g.blind, p, value) & pick & ~from_seen),
            gone_eggs=g.gone_eggs + take * (value + 1),
        )
        picks = picks + take
    # e. Promotion, unless the crow's victim is asked first; the end of the chase: T3 next.
    g = g._replace(
        row_pos=jnp.where(going & ~ask, _promote(g, perch).row_pos, g.row_pos),
        chase_perch=jnp.where(going, g.chase_perch, -1),
    )
    todo = jnp.where(going, jnp.where(ask, _PAUSE, _CHASE), _START_DRAW)
    return g, todo, picks, draws


def _draw_step(state: tuple[Game, Array]) -> tuple[Game, Array]:
    """T3.1: one draw while draws are due and only one place to draw from is left, or the
    pause for the player's choice, or the end of drawing."""
    game, _ = state
    slots, deck = draw_options(game)
    options = jnp.sum(slots) + deck
    due = game.draws_left > 0
    choose = due & (options > 1)
    automatic = due & (options == 1)
    only = jnp.where(deck, DRAW_DECK_ID, DRAW_DISPLAY_BASE + jnp.argmax(slots))
    drawn = _take_draw(game, only)
    done = ~choose & ~automatic
    g = game._replace(
        hand=jnp.where(automatic, drawn.hand, game.hand),
        shown=jnp.where(automatic, drawn.shown, game.shown),
        display=jnp.where(automatic, drawn.display, game.display),
        bird_count=jnp.where(automatic, drawn.bird_count, game.bird_count),
        draws_left=jnp.where(done, 0, jnp.where(automatic, drawn.draws_left, game.draws_left)),
        phase=jnp.where(choose, DRAW, game.phase),
    )
    return g, jnp.where(choose, _PAUSE, jnp.where(automatic, _DRAW, _REFILL))


def _refill_step(state: tuple[Game, Array, Array, Array]) -> tuple[Game, Array, Array, Array]:
    """T3.2: one card turned up for the column, or, once it is full or the deck is empty, the
    set-aside pests laid beside the lowest free seeds (the rest leave the game)."""
    game, _, aside, aside_count = state
    g = game
    wanted = g.column_len < COLUMN_SIZE
    turn = wanted & (g.feeder_count > 0)
    card = g.feeder_deck[jnp.maximum(g.feeder_count - 1, 0)]
    pest = FEEDER_KINDS[card] != 0
    to_column = turn & ~pest
    to_aside = turn & pest
    g = g._replace(
        column=jnp.where(_hot(g.column_len, COLUMN_SIZE) & to_column, card, g.column),
        column_len=g.column_len + to_column.astype(jnp.int32),
        feeder_count=g.feeder_count - turn.astype(jnp.int32),
    )
    aside = jnp.where(_hot(aside_count, MAX_ASIDE) & to_aside, card, aside)
    aside_count = aside_count + to_aside.astype(jnp.int32)
    finished = ~turn
    # Beside the lowest seeds without a pest, in the order the pests were revealed: the j-th
    # pest beside the j-th free seed; pests beyond the free seeds leave the game.
    pests = g.column_pests
    free = (jnp.arange(COLUMN_SIZE) < g.column_len) & (pests < 0)
    rank = jnp.cumsum(free) - 1
    lay = finished & free & (rank < aside_count)
    pests = jnp.where(lay, aside[jnp.clip(rank, 0, MAX_ASIDE - 1)], pests)
    # E1: a card was needed and the feeder deck is empty; E1 (overview): the bird deck too.
    empty_feeder = finished & (g.column_len < COLUMN_SIZE)
    empty_birds = finished & g.rules[2] & (g.bird_count == 0)
    g = g._replace(
        column_pests=pests,
        end_triggered=g.end_triggered | empty_feeder | empty_birds,
    )
    return g, jnp.where(finished, _END_TURN, _REFILL), aside, aside_count


def _end_turn_step(state: tuple[Game, Array]) -> tuple[Game, Array]:
    """E2: after the last seat's turn once the end is triggered, the last hands; else the next
    player's turn, skipped without a hand (T1.3), which triggers the end."""
    game, _ = state
    n = num_players(game)
    last_seat = (game.first_player - 1) % n
    over = game.end_triggered & (game.turn_player == last_seat)
    nxt = (game.turn_player + 1) % n
    plays = jnp.any(game.hand[nxt])
    g = game._replace(
        turn_player=jnp.where(over, game.turn_player, nxt),
        turn=game.turn + (~over).astype(jnp.int32),
        current_player=jnp.where(~over & plays, nxt, game.current_player),
        phase=jnp.where(~over & plays, PLAY, game.phase),
        end_triggered=game.end_triggered | (~over & ~plays),
    )
    return g, jnp.where(over, _LAST_HAND, jnp.where(plays, _PAUSE, _END_TURN))


def _last_hands(game: Game, todo: Array) -> Game:
    """E3: in seat order from the first player, a hand of two birds or fewer is kept whole; the
    first hand with more is asked. Once everybody has chosen, the kept birds join the
    collections and the game is over. Without the last hand (``overview``), it is over at once."""
    n = num_players(game)
    active = todo == _LAST_HAND
    order = (game.first_player + jnp.arange(n)) % n
    sizes = jnp.sum(game.hand, axis=1)
    asks = (~game.chosen & (sizes > 2) & game.rules[3])[order]
    first_ask = jnp.where(jnp.any(asks), jnp.argmax(asks), n)
    auto_in_order = (~game.chosen[order]) & (jnp.arange(n) < first_ask) & game.rules[3]
    # Back from the order of choosing to seats: seat s is at place (s - first) % n.
    auto = auto_in_order[(jnp.arange(n) - game.first_player) % n] & active
    kept = game.kept | (game.hand & auto[:, None])
    waiting = active & (first_ask < n)
    over = active & (first_ask == n)
    reveal = over & game.rules[3]
    return game._replace(
        kept=jnp.where(reveal, False, kept),
        hand=game.hand & ~auto[:, None],
        chosen=game.chosen | auto,
        collection=jnp.where(reveal, game.collection | kept, game.collection),
        shown=jnp.where(reveal, False, game.shown),
        phase=jnp.where(over, GAME_OVER, jnp.where(waiting, LAST_HAND, game.phase)),
        current_player=jnp.where(
            over, -1, jnp.where(waiting, order[jnp.minimum(first_ask, n - 1)], game.current_player)
        ),
    )


def play(game: Game, action: Array, key: Array) -> Game:
    """Apply a legal ``action`` and play on to the next decision or the end of the game."""
    action = jnp.asarray(action, jnp.int32)
    g, todo = jax.lax.switch(
        jnp.minimum(game.phase, LAST_HAND),
        [_play, _collect, _crow, _draw, _keep],
        game,
        action,
    )
    picks = jnp.int32(0)
    draws = squirrel_draws(key)
    g, todo, _, _ = jax.lax.while_loop(
        lambda s: s[1] == _CHASE, _chase_step, (g, todo, picks, draws)
    )
    start = todo == _START_DRAW
    held = jnp.sum(g.hand[g.turn_player])
    missing = HAND_SIZE - held
    due = jnp.where(g.rules[1], jnp.minimum(1, missing), missing)
    g = g._replace(
        draws_left=jnp.where(start, jnp.maximum(due, 0), g.draws_left),
        current_player=jnp.where(start, g.turn_player, g.current_player),
    )
    todo = jnp.where(start, _DRAW, todo)
    g, todo = jax.lax.while_loop(lambda s: s[1] == _DRAW, _draw_step, (g, todo))
    aside = jnp.full(MAX_ASIDE, -1, jnp.int32)
    g, todo, _, _ = jax.lax.while_loop(
        lambda s: s[1] == _REFILL, _refill_step, (g, todo, aside, jnp.int32(0))
    )
    g, todo = jax.lax.while_loop(lambda s: s[1] == _END_TURN, _end_turn_step, (g, todo))
    return _last_hands(g, todo)
