"""The observation encoding: every field holds what the view says, and nothing else."""

from __future__ import annotations

import random

import numpy as np
import pytest

from leaks import assert_view_only
from piepmatz.core.cards import BIRD_SPECIES, BIRD_VALUE, FEEDER_EGGS
from piepmatz.core.state import State
from piepmatz.core.view import determinise, view_of
from piepmatz.envs.encoding import (
    FIELDS,
    OBSERVATION_HIGH,
    OBSERVATION_SIZE,
    Encoder,
    action_mask,
    describe_fields,
    encode,
    field_slice,
    win_rewards,
)


def _positions(players: int, preset: str, games: int, seed: int) -> list[State]:
    rng = random.Random(seed)
    states = []
    for g in range(games):
        state = State.new_game(players, preset, seed * 100 + g)
        while not state.is_over():
            states.append(state.copy())
            state.apply_id(rng.choice(state.legal_action_ids()))
        states.append(state)
    return states


def test_the_layout_is_contiguous_and_every_entry_can_vary() -> None:
    at = 0
    for name, offset, length, top, _ in describe_fields():
        assert offset == at
        assert FIELDS[name] == (offset, length)
        assert top > 0
        at += length
    assert at == OBSERVATION_SIZE
    assert OBSERVATION_HIGH.shape == (OBSERVATION_SIZE,)
    assert (OBSERVATION_HIGH > 0).all()


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("preset", ["standard", "overview"])
def test_values_stay_within_their_bounds(players: int, preset: str) -> None:
    for state in _positions(players, preset, games=6, seed=players):
        for p in range(players):
            vector = encode(view_of(state, p))
            assert vector.dtype == np.int8
            assert (vector >= 0).all()
            assert (vector <= OBSERVATION_HIGH).all()


def test_fields_hold_the_view() -> None:
    state = _positions(3, "standard", games=1, seed=7)[40]
    for p in range(3):
        view = view_of(state, p)
        v = encode(view)
        assert np.flatnonzero(v[field_slice("hand")]).tolist() == sorted(view.hand)
        perch = v[field_slice("perch_bird")].reshape(3, 72)
        ground = v[field_slice("ground")].reshape(3, 72)
        strength = v[field_slice("row_strength")].reshape(3, 2)
        for k, row in enumerate(view.rows):
            assert np.flatnonzero(perch[k]).tolist() == [row[0]]
            order = sorted(np.flatnonzero(ground[k]), key=lambda b: ground[k][b])
            assert order == list(row[1:])
            assert strength[k].tolist() == [BIRD_VALUE[row[0]], sum(BIRD_VALUE[b] for b in row[1:])]
        assert v[field_slice("column_seed")].tolist()[: len(view.column)] == [
            FEEDER_EGGS[s] for s in view.column
        ]
        display = v[field_slice("display")].reshape(3, 72)
        for slot, bird in enumerate(view.display):
            assert np.flatnonzero(display[slot]).tolist() == ([bird] if bird >= 0 else [])
        assert v[field_slice("deck_sizes")].tolist() == [view.bird_deck_size, view.feeder_deck_size]
        collections = v[field_slice("collections")].reshape(4, 72)
        hand_sizes = v[field_slice("hand_sizes")]
        shown = v[field_slice("shown")].reshape(4, 72)
        for q in range(3):
            r = (q - p) % 3  # seats relative to the observer
            assert np.flatnonzero(collections[r]).tolist() == sorted(view.collections[q])
            assert hand_sizes[r] == view.hand_sizes[q]
            assert np.flatnonzero(shown[r]).tolist() == sorted(view.shown[q])
        assert v[field_slice("current_player")].tolist().index(1) == (view.current_player - p) % 3
        assert v[field_slice("phase")].tolist().index(1) == view.phase
        assert v[field_slice("num_players")].tolist() == [0, 1, 0]
        assert v[field_slice("own_blind_eggs")][0] == sum(FEEDER_EGGS[s] for s in view.own_blind)


def test_two_players_show_the_species_set_aside() -> None:
    state = State.new_game(2, seed=3)
    v = encode(view_of(state, 0))
    species = BIRD_SPECIES[state.removed_birds[0]]
    assert np.flatnonzero(v[field_slice("removed_species")]).tolist() == [species]


def test_hidden_cards_do_not_change_the_observation() -> None:
    """Worlds that differ only in what the observer cannot see encode identically."""
    rng = random.Random(12)
    for state in _positions(4, "standard", games=2, seed=12)[::9]:
        for p in range(4):
            world = determinise(view_of(state, p), rng)
            assert world.hands != state.hands or world.bird_deck != state.bird_deck
            assert_view_only(encode(view_of(state, p)), state, p, rng)


def test_observers_see_different_things() -> None:
    state = _positions(2, "standard", games=1, seed=2)[20]
    assert not np.array_equal(encode(view_of(state, 0)), encode(view_of(state, 1)))


def test_an_encoder_refuses_views_of_other_games() -> None:
    encoder = Encoder(3, State.new_game(3).rules)
    with pytest.raises(ValueError, match="3 players"):
        encoder.encode(view_of(State.new_game(2), 0))
    with pytest.raises(ValueError, match="2, 3 or 4"):
        Encoder(5, State.new_game(3).rules)


def test_the_action_mask_marks_exactly_the_legal_actions() -> None:
    for state in _positions(3, "overview", games=1, seed=5)[:-1]:
        legal = state.legal_action_ids()
        mask = action_mask(legal)
        assert mask.shape == (2921,) and mask.dtype == np.int8
        assert np.flatnonzero(mask).tolist() == legal
    assert not action_mask(()).any()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_win_rewards_are_zero_sum_and_bounded(players: int) -> None:
    for k in range(1, players + 1):
        for winners in (list(range(k)), list(range(players - k, players))):
            rewards = win_rewards(winners, players)
            assert sum(rewards) == pytest.approx(0.0)
            assert max(rewards) <= 1.0
            assert min(rewards) >= -1.0 / (players - 1) - 1e-12
            assert len({rewards[w] for w in winners}) == 1
    assert win_rewards([0], players)[0] == 1.0
