"""The evaluation agrees with the engine's scoring; resampling deals hidden cards only."""

from __future__ import annotations

import random

import pytest

from piepmatz.bots.evaluate import rewards, running_scores, standings
from piepmatz.core.rules import Rules
from piepmatz.core.scoring import score
from piepmatz.core.state import State
from piepmatz.core.view import Sampler, view_of


def _random_states(players: int, rules: str, count: int) -> list[State]:
    out = []
    for seed in range(count):
        state = State.new_game(players, rules=rules, seed=seed, events=False)
        rng = random.Random(seed)
        stop = rng.randrange(20, 200)
        for _ in range(stop):
            if state.is_over():
                break
            legal = state.legal_action_ids()
            state.apply_id(legal[rng.randrange(len(legal))])
        out.append(state)
    return out


@pytest.mark.parametrize("rules", ["standard", "overview"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_running_scores_match_the_engine(players: int, rules: str) -> None:
    for state in _random_states(players, rules, 40):
        piles = [state.seed_pile(p) for p in range(players)]
        sheet = score(state.rules, state.collections, piles, final=state.is_over())
        assert running_scores(state.rules, state.collections, piles) == [
            p.total for p in sheet.players
        ]


def test_final_standings_are_the_final_scores() -> None:
    for state in _random_states(3, "standard", 30):
        if state.is_over():
            piles = [state.seed_pile(p) for p in range(3)]
            sheet = score(state.rules, state.collections, piles)
            assert standings(state) == [float(p.total) for p in sheet.players]


def test_rewards_favour_the_leader() -> None:
    rules = Rules.preset("standard")
    # Player 0 has a mated pair (BL1m, BL1f) and more seeds.
    state = State.new_game(2, seed=1, removed_species="YE", events=False)
    state.collections = [[0, 1], [14]]
    state.seeds_seen = [[25, 26], [0]]
    assert running_scores(rules, state.collections, state.seeds_seen) == [5 + 6, 0 + 1 + 1]
    r = rewards(state)
    assert r[0] > 0.5 > r[1]
    assert all(0.0 <= x <= 1.0 for x in r)


@pytest.mark.parametrize("players", [2, 4])
def test_resampled_worlds_keep_the_view_and_vary_the_hidden_cards(players: int) -> None:
    for state in _random_states(players, "standard", 12):
        if state.is_over():
            continue
        p = state.current_player
        view = view_of(state, p)
        sampler = Sampler(view)
        rng = random.Random(1)
        seen_hands = set()
        for _ in range(20):
            world = sampler.sample(rng)
            assert view_of(world, p) == view
            world.card_places()  # every card in exactly one place
            seen_hands.add(tuple(tuple(world.hands[q]) for q in range(players) if q != p))
            # Birds seen drawn from the display stay with their holder in every world.
            assert all(set(state.shown[q]) <= set(world.hands[q]) for q in range(players))
        hidden = sum(len(state.hands[q]) - len(state.shown[q]) for q in range(players) if q != p)
        if hidden and state.bird_deck:
            assert len(seen_hands) > 1
