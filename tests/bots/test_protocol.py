"""Every bot answers every kind of decision with a legal id, from the player's view only."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from piepmatz.bots import Bot, make_bot
from piepmatz.bots.base import BotMoveError, decide
from piepmatz.core import Action, PlayerView
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
    "ismcts:iterations=40,depth=0",
    "ismcts:iterations=40,depth=3,search=all,stop=full",
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


class _Answers:
    """A bot that answers ``answer(legal)`` (or raises what that raises)."""

    name = "answers"

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> Any:
        return self.answer(legal)


def _exit(legal: Sequence[int]) -> int:
    raise SystemExit(0)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (lambda legal: float(legal[0]), r"returned \d+\.0, not an action id \(an int\)"),
        (lambda legal: str(legal[0]), r"returned '\d+', not an action id"),
        (lambda legal: None, "returned None, not an action id"),
        (lambda legal: True, "returned True, not an action id"),
        (lambda legal: Action.from_id(legal[0]), r"returned Action\.parse\(.*\), not an action id"),
        (lambda legal: max(legal) + 1, r"chose \d+, which is not legal"),
        (lambda legal: legal.pop(), "raised AttributeError"),  # its own copy, and a tuple
        (lambda legal: 1 / 0, r"raised ZeroDivisionError\('division by zero'\)"),
        (_exit, r"raised SystemExit\(0\)"),  # a bot cannot end the program
    ],
)
def test_decide_holds_a_bot_to_the_protocol(answer: Any, message: str) -> None:
    state = POSITIONS[2][PLAY]
    legal = state.legal_action_ids()
    before = list(legal)
    with pytest.raises(BotMoveError, match=message):
        decide(_Answers(answer), view_of(state, state.current_player), legal, random.Random(1))
    assert legal == before


def test_decide_takes_numpy_integers_and_lets_an_interrupt_through() -> None:
    state = POSITIONS[2][PLAY]
    view, legal = view_of(state, state.current_player), state.legal_action_ids()
    choice = decide(_Answers(lambda legal: np.int64(legal[-1])), view, legal, random.Random(1))
    assert choice == legal[-1] and type(choice) is int

    def interrupt(legal: Sequence[int]) -> int:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        decide(_Answers(interrupt), view, legal, random.Random(1))
