"""The single-agent Gymnasium environment ``Piepmatz-v0``."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import piepmatz.bots
import piepmatz.envs.gymnasium as piepmatz_gym
from piepmatz.bots import bot_names
from piepmatz.core.view import view_of
from piepmatz.envs.encoding import encode
from piepmatz.envs.rewards import win_rewards


def _strongest_available() -> str:
    """The strongest bot present (the bots package grows while the envs are built)."""
    names = bot_names()
    return next(n for n in ("heuristic", "greedy", "random") if n in names)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_check_env(players: int) -> None:
    env = gymnasium.make("Piepmatz-v0", players=players, render_mode="ansi")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)


def _episode(env, seed: int) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, steps = 0.0, 0
    while True:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, terminated, truncated, _ = env.step(action)
        total += reward
        steps += 1
        assert not truncated
        if terminated:
            return total, steps
        assert reward == 0.0


def test_an_episode_against_bots_ends_with_the_win_reward() -> None:
    env = piepmatz_gym.PiepmatzEnv(players=3, opponents=_strongest_available())
    rewards = {_episode(env, seed)[0] for seed in range(6)}
    assert rewards <= {1.0, -0.5, 0.25}  # win, loss, win shared by two
    assert rewards & {1.0, -0.5}


def test_the_learner_sees_its_own_view_and_acts_only_on_its_turn() -> None:
    env = piepmatz_gym.PiepmatzEnv(players=2, seat=1, opponents="random")
    obs, info = env.reset(seed=3)
    state = env._state
    assert info["seat"] == 1 and state.current_player == 1
    assert np.array_equal(obs["observation"], encode(view_of(state, 1)))
    assert np.flatnonzero(obs["action_mask"]).tolist() == state.legal_action_ids()


def test_a_random_seat_follows_the_seed() -> None:
    env = piepmatz_gym.PiepmatzEnv(players=4, seat=None)
    seats = {env.reset(seed=s)[1]["seat"] for s in range(12)}
    assert len(seats) > 1
    assert env.reset(seed=5)[1]["seat"] == env.reset(seed=5)[1]["seat"]


def test_the_same_seed_replays_the_same_episode() -> None:
    a = piepmatz_gym.PiepmatzEnv(players=3, opponents=["random", _strongest_available()])
    b = piepmatz_gym.PiepmatzEnv(players=3, opponents=["random", _strongest_available()])
    assert _episode(a, 21) == _episode(b, 21)


def test_render_after_an_episode_ended_on_an_illegal_action_draws_its_last_position() -> None:
    env = piepmatz_gym.PiepmatzEnv(players=2, render_mode="ansi")
    obs, _ = env.reset(seed=3)
    before = env.render()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    env.step(illegal)
    text = env.render()
    assert isinstance(before, str) and isinstance(text, str)
    assert text == before + "\n(the episode ended on an illegal action)"
    with pytest.raises(RuntimeError, match="ended on an illegal action: call reset"):
        env.step(0)


def test_an_illegal_action_loses_or_raises() -> None:
    env = piepmatz_gym.PiepmatzEnv(players=2)
    obs, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    with pytest.raises(RuntimeError, match="ended on an illegal action: call reset"):
        env.step(0)
    strict = piepmatz_gym.PiepmatzEnv(players=2, illegal_action="raise")
    obs, _ = strict.reset(seed=1)
    before = obs["observation"].copy()
    with pytest.raises(ValueError, match="not legal"):
        strict.step(illegal)
    assert np.array_equal(strict._observation()["observation"], before)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        piepmatz_gym.PiepmatzEnv(opponents="grandmaster")
    with pytest.raises(ValueError, match="give one opponent or 2 of them, not 1"):
        piepmatz_gym.PiepmatzEnv(players=3, opponents=["random"])
    with pytest.raises(ValueError, match="seat"):
        piepmatz_gym.PiepmatzEnv(players=2, seat=2)
    with pytest.raises(ValueError, match="illegal_action"):
        piepmatz_gym.PiepmatzEnv(illegal_action="ignore")
    with pytest.raises(ValueError, match=r"an opponent is a bot spec, a bot .* not 5"):
        piepmatz_gym.PiepmatzEnv(opponents=5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="reward must be one of 'win', 'margin', 'score'"):
        piepmatz_gym.PiepmatzEnv(reward="points")


def test_actions_must_be_integers_and_others_change_nothing() -> None:
    env = piepmatz_gym.PiepmatzEnv(players=2)
    obs, _ = env.reset(seed=1)
    legal = int(np.flatnonzero(obs["action_mask"])[0])
    for action in (str(legal), legal + 0.5, None, np.array([legal]), True):
        with pytest.raises(ValueError, match=r"an action is an integer id 0-2920 \(Discrete"):
            env.step(action)
        assert np.array_equal(env._observation()["observation"], obs["observation"])
    _, _, _, _, info = env.step(np.array(legal))  # a 0-d array, as policies return one
    assert "illegal_action" not in info
    obs, _ = env.reset(seed=1)
    assert "illegal_action" not in env.step(np.int64(legal))[4]


@pytest.mark.parametrize("illegal_action", ["lose", "raise"])
def test_an_id_outside_the_action_space_raises_and_changes_nothing(illegal_action: str) -> None:
    """Not an illegal move to lose by: a mistake in the caller's code, in either mode."""
    env = piepmatz_gym.PiepmatzEnv(players=2, illegal_action=illegal_action)
    obs, _ = env.reset(seed=1)
    for action in (2921, 5000, -1, np.int64(-2921)):
        assert not env.action_space.contains(action)
        with pytest.raises(ValueError, match=rf"^action {action} is outside the action space "):
            env.step(action)
        assert np.array_equal(env._observation()["observation"], obs["observation"])
    legal = int(np.flatnonzero(obs["action_mask"])[0])
    assert "illegal_action" not in env.step(legal)[4]  # the episode goes on


def test_registered_with_gymnasium() -> None:
    assert "Piepmatz-v0" in gymnasium.registry
    env = gymnasium.make("Piepmatz-v0", players=4, preset="overview")
    assert env.unwrapped.players == 4
    assert env.unwrapped.rules.name == "overview"


class _Crashing:
    name = "crashing"

    def choose(self, view: object, legal: object, rng: object) -> int:
        raise RuntimeError("no seeds left")


def test_an_opponent_that_fails_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(piepmatz.bots._FACTORIES, "crashing", lambda arg: _Crashing())
    env = piepmatz_gym.PiepmatzEnv(players=2, seat=1, opponents="crashing")
    with pytest.raises(RuntimeError, match=r"opponent 'crashing' in seat 0 raised RuntimeError"):
        for seed in range(10):  # the opponent moves first in some deal
            env.reset(seed=seed)


@pytest.mark.parametrize("mode", ["NEXT_STEP", "SAME_STEP"])
def test_masked_sampling_runs_in_a_vector_env_across_game_ends(mode: str) -> None:
    """Under either autoreset mode every observation has an action to sample: at the end the
    mask is all ones, and the action that next-step autoreset then asks for is never played
    (``illegal_action="raise"`` would raise if it were)."""
    from gymnasium.vector import AutoresetMode, SyncVectorEnv

    next_step = AutoresetMode[mode] == AutoresetMode.NEXT_STEP
    envs = SyncVectorEnv(
        [lambda: piepmatz_gym.PiepmatzEnv(players=2, illegal_action="raise")] * 2,
        autoreset_mode=AutoresetMode[mode],
    )
    obs, _ = envs.reset(seed=[1, 2])
    rng = np.random.default_rng(0)
    ends = 0
    resetting = np.zeros(2, bool)  # next-step autoreset: the envs that reset on this step
    while ends < 6:
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in obs["action_mask"]])
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        assert not truncated.any()
        if next_step:
            # A reset: nothing was played, no reward, a new game.
            assert not terminated[resetting].any() and not rewards[resetting].any()
            resetting = terminated.copy()
            end_masks, results = obs["action_mask"], infos.get("result")
        else:  # the end's observations, one per env (None for the others), and infos
            end_masks = [o and o["action_mask"] for o in infos.get("final_obs", [None] * 2)]
            results = infos.get("final_info", {}).get("result")
        for i in np.flatnonzero(terminated):
            ends += 1
            assert end_masks[i].all()
            assert rewards[i] == win_rewards(results["winners"][i], 2)[0]
        playing = ~terminated if next_step else np.ones(2, bool)
        assert (obs["action_mask"][playing].sum(axis=1) < 2921).all()  # a legal mask
    envs.close()


def test_an_episode_is_kept_as_a_game_record_that_replays() -> None:
    """The learner's and the bots' moves, from the deal the seed made: ``piepmatz replay`` and
    ``review`` read it, and it ends with the score the episode's ``result`` had."""
    from piepmatz.core import Game

    env = piepmatz_gym.PiepmatzEnv(players=3, opponents=["random", "random"])
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(4)
    steps = 0
    while True:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, _, terminated, _, info = env.step(action)
        steps += 1
        if steps == 3:  # mid-episode: the moves so far, no result yet
            early = Game.from_record(env.record())
            assert early.record()["result"] is None and len(early.actions) >= 3
        if terminated:
            break
    record = env.record()
    game = Game.from_record(record)
    assert record["result"] == info["result"] == game.score().to_json()
    assert len(record["actions"]) > steps  # the bots' moves too
    obs, info = env.reset(seed=5)  # a new episode: its own deal, none of the last one's moves
    again = env.record()
    assert again["options"]["seed"] != record["options"]["seed"] and again["result"] is None
    replayed = Game.from_record(again).state  # the bots' moves before the learner's turn
    assert np.array_equal(encode(view_of(replayed, info["seat"])), obs["observation"])
