"""Every bot answers every kind of decision with a legal id, from the player's view only."""

from __future__ import annotations

import random

import pytest

from piepmatz.bots import Bot, make_bot
from piepmatz.core.state import COLLECT, CROW_VICTIM, DRAW, LAST_HAND, PHASE_NAMES, PLAY, State
from piepmatz.core.view import determinise, view_of

PHASES = (PLAY, COLLECT, DRAW, CROW_VICTIM, LAST_HAND)
SPECS = (
    "random",
    "greedy",
    "heuristic",
    "heuristic:noise=0.5",
    "easy",
    "medium",
    "ismcts:iterations=40",
    "ismcts:iterations=40,rollout=random,depth=0",
    "ismcts:iterations=40,rollout=heuristic,depth=3,reward=win",
)


def _positions(players: int) -> dict[int, State]:
    """One position per decision kind with at least two options, from seeded random games."""
    found: dict[int, State] = {}
    for seed in range(400):
        state = State.new_game(players, seed=seed)
        rng = random.Random(seed)
        while not state.is_over():
            legal = state.legal_action_ids()
            if len(legal) > 1 and state.phase not in found:
                found[state.phase] = state.copy()
            state.apply_id(legal[rng.randrange(len(legal))])
        if len(found) == len(PHASES):
            return found
    raise AssertionError(f"no position for {set(PHASES) - set(found)} in {players}-player games")


POSITIONS = {players: _positions(players) for players in (2, 4)}


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("phase", PHASES, ids=[PHASE_NAMES[p] for p in PHASES])
@pytest.mark.parametrize("spec", SPECS)
def test_bot_answers_every_decision_kind_legally(spec: str, phase: int, players: int) -> None:
    state = POSITIONS[players][phase]
    legal = state.legal_action_ids()
    view = view_of(state, state.current_player)
    bot = make_bot(spec)
    assert isinstance(bot, Bot)
    for seed in range(3):
        assert bot.choose(view, legal, random.Random(seed)) in legal


@pytest.mark.parametrize("spec", ["greedy", "heuristic", "ismcts:iterations=60"])
@pytest.mark.parametrize("phase", PHASES, ids=[PHASE_NAMES[p] for p in PHASES])
def test_choice_depends_only_on_the_view(spec: str, phase: int) -> None:
    """A world with other hidden cards but the same view gets the same answer.

    The bot is given only a view; here the view comes from a *sampled* world whose hidden cards
    (others' hands, decks, blind seeds) differ from the real game. Same view, same generator →
    same action, so nothing but the view can have gone into the choice.
    """
    state = POSITIONS[2][phase]
    p = state.current_player
    real_view = view_of(state, p)
    world = determinise(real_view, random.Random(99))
    assert world.hands[1 - p] != state.hands[1 - p] or world.bird_deck != state.bird_deck
    sampled_view = view_of(world, p)
    assert sampled_view == real_view
    legal = state.legal_action_ids()
    assert world.legal_action_ids() == legal
    bot = make_bot(spec)
    assert bot.choose(real_view, legal, random.Random(3)) == bot.choose(
        sampled_view, legal, random.Random(3)
    )


def test_bots_work_on_views_without_an_event_log() -> None:
    state = POSITIONS[4][PLAY]
    view = view_of(state, state.current_player)._replace(events=None)
    legal = state.legal_action_ids()
    for spec in ("heuristic", "ismcts:iterations=30"):
        assert make_bot(spec).choose(view, legal, random.Random(0)) in legal


@pytest.mark.parametrize("spec", ["heuristic", "greedy", "ismcts:iterations=30"])
def test_bots_play_whole_games_under_both_rule_sets(spec: str) -> None:
    for rules in ("standard", "overview"):
        state = State.new_game(3, rules=rules, seed=5, events=False)
        bot = make_bot(spec)
        rng = random.Random(1)
        decisions = 0
        while not state.is_over():
            legal = state.legal_action_ids()
            action = bot.choose(view_of(state, state.current_player), legal, rng)
            assert action in legal
            state.apply_id(action)
            decisions += 1
        assert decisions > 20
