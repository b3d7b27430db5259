"""Property tests over thousands of random games, 2–4 players, both presets."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leaks import assert_names_none, hidden_names
from piepmatz.core import (
    Game,
    State,
    determinise,
    state_from_json,
    state_to_json,
    view_of,
    view_to_json,
    views_to_json,
)
from piepmatz.core.cards import BIRD_VALUE
from piepmatz.core.scoring import score
from piepmatz.core.state import CROW_VICTIM, GAME_OVER
from piepmatz.core.view import public_view

games = st.tuples(
    st.integers(min_value=0, max_value=2**63),
    st.sampled_from([2, 3, 4]),
    st.sampled_from(["standard", "overview"]),
    st.integers(min_value=0, max_value=2**32),
)
SETTINGS = settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_game(seed: int, players: int, preset: str, policy: int) -> Game:
    game = Game.new(players=players, preset=preset, seed=seed)
    rng = random.Random(policy)
    while not game.state.is_over():
        ids = game.state.legal_action_ids()
        game.apply(ids[rng.randrange(len(ids))])
    return game


def check_invariants(state: State) -> None:
    birds, feeder = state.card_places()  # raises if a card lies in two places
    assert len(birds) == 72 and len(feeder) == 36, "every card is in exactly one place"
    assert all(len(h) <= 4 for h in state.hands), "hands never exceed four"
    assert all(state.rows) and len(state.rows) == state.num_perches, "no perch is ever empty"
    assert len(state.column) <= 4 and len(state.column_pests) == 4
    assert all(p < 0 for p in state.column_pests[len(state.column) :])
    if state.phase != CROW_VICTIM:
        for row in state.rows:
            ground = sum(BIRD_VALUE[b] for b in row[1:])
            assert ground <= BIRD_VALUE[row[0]], "every chase is resolved before a decision"
    legal = state.legal_action_ids()
    if state.phase == GAME_OVER:
        assert legal == []
    else:
        assert len(legal) >= 2, "the engine asks only real decisions"
        assert legal == sorted(set(legal))


@SETTINGS
@given(games)
def test_random_games_keep_every_invariant_and_end(game: tuple[int, int, str, int]) -> None:
    seed, players, preset, policy = game
    state = State.new_game(players=players, rules=preset, seed=seed)
    rng = random.Random(policy)
    steps = 0
    while not state.is_over():
        check_invariants(state)
        ids = state.legal_action_ids()
        state.apply_id(ids[rng.randrange(len(ids))])
        steps += 1
        assert steps < 2000, "every game ends"
    check_invariants(state)
    assert state.end_triggered is not None
    assert state.turn % players == 0, "E2: everybody had the same number of turns"
    assert all(not h for h in state.hands) or not state.rules.last_hand
    sheet = score(state.rules, state.collections, [state.seed_pile(p) for p in range(players)])
    for p in sheet.players:
        assert p.total == p.seeds + p.pair_points + sum(p.singles.values()), "sheets add up"
        assert p.birds == len(state.collections[p.player])
    assert set(sheet.winners) <= set(range(players)) and sheet.winners


@settings(max_examples=300, deadline=None)
@given(games)
def test_records_replay_to_the_same_game(game: tuple[int, int, str, int]) -> None:
    original = random_game(*game)
    record = json.loads(json.dumps(original.record()))
    replayed = Game.from_record(record)
    assert state_to_json(replayed.state) == state_to_json(original.state)
    assert replayed.score().to_json() == record["result"]


@settings(max_examples=300, deadline=None)
@given(games, st.floats(min_value=0, max_value=1))
def test_state_json_round_trips_anywhere(game: tuple[int, int, str, int], where: float) -> None:
    seed, players, preset, policy = game
    state = State.new_game(players=players, rules=preset, seed=seed)
    rng = random.Random(policy)
    stop = int(where * 80)
    for _ in range(stop):
        if state.is_over():
            break
        ids = state.legal_action_ids()
        state.apply_id(ids[rng.randrange(len(ids))])
    doc = json.loads(json.dumps(state_to_json(state)))
    again = state_from_json(doc)
    assert state_to_json(again) == doc
    # The copy plays on exactly like the original.
    while not state.is_over():
        ids = state.legal_action_ids()
        assert again.legal_action_ids() == ids
        choice = ids[rng.randrange(len(ids))]
        state.apply_id(choice)
        again.apply_id(choice)
    assert state_to_json(again) == state_to_json(state)


@settings(max_examples=300, deadline=None)
@given(games)
def test_views_leak_nothing_and_determinisation_keeps_the_view(
    game: tuple[int, int, str, int],
) -> None:
    seed, players, preset, policy = game
    state = State.new_game(players=players, rules=preset, seed=seed)
    rng = random.Random(policy)
    while not state.is_over():
        if rng.random() < 0.15:
            for p in range(players):
                view = view_of(state, p)
                world = determinise(view, random.Random(rng.random()))
                world.card_places()
                assert view_of(world, p) == view, "a sampled world gives the same view"
                if state.current_player == p:
                    assert world.legal_action_ids() == state.legal_action_ids()
                assert_hides_the_hidden(state, p)
        ids = state.legal_action_ids()
        state.apply_id(ids[rng.randrange(len(ids))])


def assert_hides_the_hidden(state: State, p: int) -> None:
    """No card the player cannot see is named anywhere in their view (the log aside)."""
    doc = view_to_json(view_of(state, p))
    doc.pop("events")
    assert_names_none(doc, hidden_names(state, p), f"player {p}'s view")


@settings(max_examples=300, deadline=None)
@given(games)
def test_views_of_every_seat_at_once_equal_each_view_on_its_own(
    game: tuple[int, int, str, int],
) -> None:
    """``views_to_json`` shares the common part between the seats' documents: each still equals
    its seat's own document (the log left out), and the public one a spectator's."""
    seed, players, preset, policy = game
    state = State.new_game(players=players, rules=preset, seed=seed)
    rng = random.Random(policy)
    while not state.is_over():
        if rng.random() < 0.2:
            docs = views_to_json(state, [None, *range(players)])
            for p in range(players):
                alone = view_to_json(view_of(state, p, log=False))
                alone.pop("events")
                assert json.dumps(docs[p]) == json.dumps(alone), f"seat {p}'s document"
            public = view_to_json(public_view(state, log=False)) | {"player": None}
            public.pop("events")
            assert json.dumps(docs[None]) == json.dumps(public | {"own_seeds": []})
        ids = state.legal_action_ids()
        state.apply_id(ids[rng.randrange(len(ids))])
