"""The ``reward`` option and the final score sheet, the same in every binding."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel
import pytest

import piepmatz.envs.openspiel  # noqa: F401 — registers python_piepmatz
from piepmatz.core.cards import NUM_BIRDS, NUM_FEEDER
from piepmatz.core.rules import Rules
from piepmatz.core.scoring import PlayerScore, ScoreSheet, score, score_state
from piepmatz.envs import piepmatz_v0
from piepmatz.envs.gymnasium import PiepmatzEnv
from piepmatz.envs.rewards import (
    MAX_POINTS,
    Reward,
    final_rewards,
    illegal_reward,
    reward_range,
    win_rewards,
)

from .test_openspiel import _run_checks


def _sheet(totals: list[int], winners: tuple[int, ...]) -> ScoreSheet:
    players = tuple(PlayerScore(p, t, 0, 0, {}, 0, t) for p, t in enumerate(totals))
    return ScoreSheet(players, {}, winners, False, True)


def test_a_margin_is_the_lead_over_the_best_other_player() -> None:
    sheet = _sheet([20, 31, 26], (1,))
    assert final_rewards(sheet, "margin") == [-11.0, 5.0, -5.0]
    assert final_rewards(sheet, Reward.SCORE) == [20.0, 31.0, 26.0]
    assert final_rewards(sheet) == win_rewards((1,), 3) == [-0.5, 1.0, -0.5]
    # Level on points, the win decided by birds (E5): no margin either way.
    assert final_rewards(_sheet([30, 30, 12], (0,)), "margin") == [0.0, 0.0, -18.0]
    with pytest.raises(ValueError, match="reward must be one of 'win', 'margin', 'score'"):
        final_rewards(sheet, "lead")


@pytest.mark.parametrize("preset", ["standard", "overview"])
def test_nobody_can_score_max_points(preset: str) -> None:
    """The bound holds for one player holding every bird and every seed, the most anyone could
    collect, under either way of scoring pairs."""
    every = score(Rules.parse(preset), [list(range(NUM_BIRDS))], [list(range(NUM_FEEDER))], True)
    assert 100 < every.players[0].total <= MAX_POINTS
    assert reward_range("margin", 3) == (-MAX_POINTS, MAX_POINTS)
    assert illegal_reward("margin", 3) == -MAX_POINTS
    assert illegal_reward("win", 3) == illegal_reward("score", 2) == -1.0


@pytest.mark.parametrize("reward", list(Reward))
def test_gymnasium_rewards_and_result(reward: Reward) -> None:
    env = PiepmatzEnv(players=3, seat=1, reward=reward)
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(4)
    while True:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, got, terminated, _, info = env.step(action)
        if terminated:
            break
        assert got == 0.0 and "result" not in info
    sheet = score_state(env._state)
    assert got == final_rewards(sheet, reward)[1]
    assert info == {"seat": 1, "result": sheet.to_json()}


@pytest.mark.parametrize("reward", list(Reward))
def test_pettingzoo_rewards_and_result(reward: Reward) -> None:
    env = piepmatz_v0.raw_env(players=4, reward=reward)
    env.reset(seed=6)
    rng = random.Random(6)
    while not env.state_.is_over():
        assert all(not info for info in env.infos.values())
        env.step(rng.choice(env.state_.legal_action_ids()))
    sheet = score_state(env.state_)
    expected = final_rewards(sheet, reward)
    assert [env.rewards[a] for a in env.possible_agents] == expected
    assert all(env.infos[a] == {"result": sheet.to_json()} for a in env.possible_agents)


@pytest.mark.parametrize(
    ("reward", "players"), [("win", 3), ("margin", 2), ("margin", 3), ("score", 4)]
)
def test_openspiel_returns_and_utility(reward: str, players: int) -> None:
    game = pyspiel.load_game("python_piepmatz", {"players": players, "reward": reward})
    low, high = reward_range(reward, players)
    assert (game.min_utility(), game.max_utility()) == (low, high)
    zero_sum = reward == "win" or (reward == "margin" and players == 2)
    utility = pyspiel.GameType.Utility
    assert game.get_type().utility == (utility.ZERO_SUM if zero_sum else utility.GENERAL_SUM)
    rng = random.Random(players)
    state = game.new_initial_state()
    while not state.is_terminal():
        assert state.returns() == [0.0] * players
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    sheet = state.score_sheet()
    assert sheet.final and sheet == score_state(state.position.engine)
    assert state.returns() == final_rewards(sheet, reward)
    assert state.clone().returns() == state.returns()
    if zero_sum:
        assert sum(state.returns()) == pytest.approx(0.0)


def test_openspiel_checks_a_general_sum_reward() -> None:
    _run_checks("random-sim", "3", "standard", "5", "margin")


def test_an_illegal_action_never_pays_better_than_the_lowest_margin() -> None:
    gym_env = PiepmatzEnv(players=2, reward="margin")
    obs, _ = gym_env.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    assert gym_env.step(illegal)[1] == -MAX_POINTS
    aec: Any = piepmatz_v0.env(players=2, reward="margin")
    aec.reset(seed=1)
    offender = aec.agent_selection
    aec.step(int(np.flatnonzero(aec.last()[0]["action_mask"] == 0)[0]))
    assert aec.rewards[offender] == -MAX_POINTS


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("reward", list(Reward))
def test_an_illegal_action_s_rewards_per_environment(players: int, reward: Reward) -> None:
    """Where an illegal action ends the game: the offender gets ``illegal_reward`` in PettingZoo
    and Gymnasium alike; under ``win`` the other agents share +1, so the game stays zero-sum (as
    in the JAX environment), under ``margin`` and ``score`` they get 0."""
    penalty = -MAX_POINTS if reward == Reward.MARGIN else -1.0
    share = 1 / (players - 1) if reward == Reward.WIN else 0.0
    aec: Any = piepmatz_v0.env(players=players, reward=reward)
    aec.reset(seed=players)
    offender = aec.agent_selection
    aec.step(int(np.flatnonzero(aec.last()[0]["action_mask"] == 0)[0]))
    assert all(aec.terminations.values())
    expected = {a: penalty if a == offender else share for a in aec.possible_agents}
    assert aec.rewards == pytest.approx(expected)
    seen = {}
    for agent in aec.agent_iter():  # what each agent's last() reports on its final step
        seen[agent] = aec.last()[1]
        aec.step(None)
    assert seen == pytest.approx(expected)
    if reward == Reward.WIN:
        assert sum(expected.values()) == pytest.approx(0.0)
    gym_env = PiepmatzEnv(players=players, reward=reward)
    obs, _ = gym_env.reset(seed=players)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    assert gym_env.step(illegal)[1] == penalty
