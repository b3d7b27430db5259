"""The PettingZoo AEC environment ``piepmatz_v0``, checked by PettingZoo's own tests."""

from __future__ import annotations

import pickle
import random
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from pettingzoo.test import api_test, render_test, seed_test

from piepmatz.core.view import view_of
from piepmatz.envs import piepmatz_v0
from piepmatz.envs.encoding import encode, win_rewards

CONFIGS = [(n, preset) for n in (2, 3, 4) for preset in ("standard", "overview")]

#: PettingZoo 1.27 compares the environment's name with hard-coded lists of its own classic games
#: before accepting a dict observation; these two warnings fire for any other environment with
#: ``{"observation", "action_mask"}`` observations, so they alone are allowed.
WRONG_FOR_DICT_OBSERVATIONS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
)


def _play(env, rng: random.Random, steps: int) -> None:  # type: ignore[no-untyped-def]
    """A few random legal moves (not through agent_iter, which must run to its end)."""
    for _ in range(steps):
        obs = env.last()[0]
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))


@pytest.mark.parametrize(("players", "preset"), CONFIGS)
def test_api_test_with_warnings_as_errors(players: int, preset: str) -> None:
    env = piepmatz_v0.env(players=players, preset=preset)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for message in WRONG_FOR_DICT_OBSERVATIONS:
            warnings.filterwarnings("ignore", message=message)
        api_test(env, num_cycles=1000)


def test_api_test_raises_only_the_two_dict_warnings() -> None:
    env = piepmatz_v0.env(players=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=300)
    messages = {str(w.message) for w in caught}
    assert messages == set(WRONG_FOR_DICT_OBSERVATIONS)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_seed_test(players: int) -> None:
    seed_test(lambda: piepmatz_v0.env(players=players), num_cycles=500)


def test_different_seeds_deal_differently() -> None:
    a, b = piepmatz_v0.raw_env(), piepmatz_v0.raw_env()
    a.reset(seed=1)
    b.reset(seed=2)
    assert not np.array_equal(
        a.observe("player_0")["observation"], b.observe("player_0")["observation"]
    )


def test_render_test() -> None:
    def env_fn(render_mode: str | None = None):  # type: ignore[no-untyped-def]
        return piepmatz_v0.env(players=3, render_mode=render_mode)

    render_test(env_fn, custom_tests={"ansi": lambda text: "perch 1:" in text})


def test_ansi_render_shows_only_the_acting_players_hand() -> None:
    env = piepmatz_v0.raw_env(players=2, render_mode="ansi")
    env.reset(seed=3)
    state = env.state_
    text = env.render()
    me = state.current_player
    mine = " ".join(piepmatz_v0_names(state.hands[me]))
    theirs = " ".join(piepmatz_v0_names(state.hands[1 - me]))
    assert f"hand {mine} |" in text
    assert theirs not in text
    assert "hand 4 cards" in text


def piepmatz_v0_names(cards: list[int]) -> list[str]:
    from piepmatz.core.cards import BIRD_NAMES

    return [BIRD_NAMES[c] for c in cards]


def test_pickle_round_trip_mid_game() -> None:
    env = piepmatz_v0.env(players=3)
    env.reset(seed=11)
    _play(env, random.Random(1), steps=25)
    copy = pickle.loads(pickle.dumps(env))
    rng_a, rng_b = random.Random(2), random.Random(2)
    for agent_a, agent_b in zip(env.agent_iter(), copy.agent_iter(), strict=True):
        assert agent_a == agent_b
        last_a, last_b = env.last(), copy.last()
        assert data_equivalence(last_a, last_b)
        obs, _, terminated, truncated, _ = last_a
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        action_a = None if terminated or truncated else rng_a.choice(legal)
        action_b = None if terminated or truncated else rng_b.choice(legal)
        env.step(action_a)
        copy.step(action_b)
    assert env.agents == copy.agents == []


def test_pickle_round_trip_before_reset() -> None:
    env = piepmatz_v0.env(players=2, render_mode="ansi")
    copy = pickle.loads(pickle.dumps(env))
    env.reset(seed=42)
    copy.reset(seed=42)
    assert data_equivalence(env.last(), copy.last())


def test_observations_are_the_view_encoded_and_the_mask_the_legal_moves() -> None:
    env = piepmatz_v0.raw_env(players=3)
    env.reset(seed=5)
    rng = random.Random(5)
    for _ in range(60):
        state = env.state_
        for seat, agent in enumerate(env.possible_agents):
            obs = env.observe(agent)
            assert np.array_equal(obs["observation"], encode(view_of(state, seat)))
            mask = np.flatnonzero(obs["action_mask"]).tolist()
            assert mask == (state.legal_action_ids() if seat == state.current_player else [])
        assert env.agent_selection == f"player_{state.current_player}"
        env.step(rng.choice(state.legal_action_ids()))


def test_the_global_state_is_every_seats_observation_for_a_centralised_critic() -> None:
    """``state()``: each seat's observation in seat order, an opponent's seat included, so
    every hand is in it; PettingZoo's own state checks pass."""
    from pettingzoo.test.state_test import test_state, test_state_space

    env = piepmatz_v0.raw_env(players=3, opponents={"player_2": "random"})
    env.reset(seed=7)
    rng = random.Random(7)
    for _ in range(40):
        state = env.state_
        assert state is not None
        glued = env.state()
        assert glued.shape == env.state_space.shape and env.state_space.contains(glued)
        assert np.array_equal(glued, np.concatenate([encode(view_of(state, p)) for p in range(3)]))
        for agent in env.agents:
            seat = int(agent.split("_")[1])
            size = len(glued) // 3
            assert np.array_equal(
                glued[seat * size : (seat + 1) * size], env.observe(agent)["observation"]
            )
        env.step(rng.choice(state.legal_action_ids()))
    wrapped = piepmatz_v0.env(players=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        test_state_space(wrapped.unwrapped)
        test_state(wrapped, num_cycles=200)


def test_rewards_come_at_the_end_and_follow_the_winners() -> None:
    from piepmatz.core.scoring import score

    env = piepmatz_v0.raw_env(players=4)
    env.reset(seed=9)
    rng = random.Random(9)
    while not env.state_.is_over():
        assert set(env.rewards.values()) == {0.0}
        env.step(rng.choice(env.state_.legal_action_ids()))
    state = env.state_
    sheet = score(state.rules, state.collections, [state.seed_pile(p) for p in range(4)], True)
    expected = win_rewards(sheet.winners, 4)
    assert [env.rewards[a] for a in env.possible_agents] == expected
    assert all(env.terminations.values())
    assert sum(expected) == pytest.approx(0.0)


def test_raw_env_refuses_an_illegal_action_and_changes_nothing() -> None:
    env = piepmatz_v0.raw_env(players=2)
    env.reset(seed=4)
    legal = env.state_.legal_action_ids()
    illegal = next(i for i in range(2921) if i not in legal)
    before = env.observe(env.agent_selection)
    with pytest.raises(ValueError, match="not legal"):
        env.step(illegal)
    assert data_equivalence(before, env.observe(env.agent_selection))
    for action in (str(legal[0]), float(legal[0]), None, np.array([legal[0]])):
        with pytest.raises(ValueError, match="an action is an integer id"):
            env.step(action)
        assert data_equivalence(before, env.observe(env.agent_selection))


def test_raw_env_refuses_an_id_outside_the_action_space_and_changes_nothing() -> None:
    """Not an illegal move ("not legal now"): a mistake in the caller's code."""
    env = piepmatz_v0.raw_env(players=2)
    env.reset(seed=4)
    before = env.observe(env.agent_selection)
    for action in (2921, 5000, -1):
        with pytest.raises(ValueError, match=f"^action {action} is outside the action space 0-"):
            env.step(action)
        assert data_equivalence(before, env.observe(env.agent_selection))


def test_wrapped_env_ends_the_game_on_an_illegal_action() -> None:
    env = piepmatz_v0.env(players=2)
    env.reset(seed=4)
    offender = env.agent_selection
    obs = env.last()[0]
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="2, 3 or 4"):
        piepmatz_v0.raw_env(players=5)
    with pytest.raises(ValueError, match="preset"):
        piepmatz_v0.raw_env(preset="chess")
    with pytest.raises(ValueError, match="render_mode"):
        piepmatz_v0.raw_env(render_mode="rgb_array")
    with pytest.raises(NotImplementedError):
        piepmatz_v0.parallel_env()


def test_metadata_names_the_environment() -> None:
    env = piepmatz_v0.raw_env()
    assert env.metadata["name"] == "piepmatz_v0"
    assert str(env) == "piepmatz_v0"
    assert env.metadata["is_parallelizable"] is False


def test_an_episode_is_kept_as_a_game_record_that_replays() -> None:
    from piepmatz.core import Game

    env = piepmatz_v0.raw_env(players=2)
    env.reset(seed=8)
    rng = random.Random(8)
    results = []
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            results.append(info["result"])
            env.step(None)
            continue
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    record = env.record()
    game = Game.from_record(record)
    assert game.state.is_over()
    assert results and all(r == record["result"] == game.score().to_json() for r in results)
