"""Opponents given as bots, policies over observations and pools, in Gymnasium and PettingZoo;
Piepmatz bots as OpenSpiel bots."""

from __future__ import annotations

import random
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyspiel
import pytest
from pettingzoo.test import api_test, seed_test

from piepmatz.bots import RandomBot
from piepmatz.core.view import PlayerView, view_of
from piepmatz.envs import piepmatz_v0
from piepmatz.envs.encoding import encode
from piepmatz.envs.gymnasium import PiepmatzEnv
from piepmatz.envs.openspiel_bot import PiepmatzBot
from piepmatz.envs.opponents import ObservationPolicy, OpponentPool

from .test_pettingzoo import WRONG_FOR_DICT_OBSERVATIONS


class Recorder:
    """A bot that plays the first legal id and keeps the views it was given."""

    def __init__(self, name: str = "recorder") -> None:
        self.name = name
        self.views: list[PlayerView] = []

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        self.views.append(view)
        return legal[0]


def _play_out(env: PiepmatzEnv, seed: int) -> tuple[int, float]:
    """A random learner's episode: its length and final reward."""
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps, terminated = 0, False
    while not terminated:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, terminated, _, _ = env.step(action)
        steps += 1
    return steps, float(reward)


def test_a_policy_gets_the_observation_of_its_own_seat() -> None:
    seen: list[int] = []

    def policy(observation: dict[str, Any]) -> int:
        state = env._state  # the env made below
        seat = state.current_player
        assert seat != 0
        assert np.array_equal(observation["observation"], encode(view_of(state, seat)))
        assert np.flatnonzero(observation["action_mask"]).tolist() == state.legal_action_ids()
        seen.append(seat)
        return int(np.flatnonzero(observation["action_mask"])[-1])

    env = PiepmatzEnv(players=3, seat=0, opponents=[policy, "random"])
    _play_out(env, 1)
    assert set(seen) == {1}  # the list is by seat: seat 1 the policy, seat 2 the random bot
    assert env._bots[1].name == "policy"


def test_a_bot_object_is_played_as_it_is_from_its_own_view() -> None:
    bot = Recorder()
    env = PiepmatzEnv(players=2, seat=1, opponents=bot)
    _play_out(env, 2)
    assert bot.views and {v.player for v in bot.views} == {0}


def test_a_pool_draws_per_seat_and_episode_following_the_seed() -> None:
    first, second = Recorder("first"), Recorder("second")
    pool = OpponentPool([first, second], weights=[1, 3])
    env = PiepmatzEnv(players=4, opponents=pool)
    drawn = []
    for seed in range(8):
        env.reset(seed=seed)
        drawn.append(tuple(env._bots[p].name for p in (1, 2, 3)))
    assert {name for names in drawn for name in names} == {"first", "second"}
    assert len(set(drawn)) > 1  # drawn anew for each seat and episode
    again = PiepmatzEnv(players=4, opponents=pool)
    assert [
        (again.reset(seed=s), tuple(again._bots[p].name for p in (1, 2, 3)))[1] for s in range(8)
    ] == drawn
    # A member added while training goes on is drawn from then on.
    pool.add(Recorder("third"), weight=1000)
    env.reset(seed=0)
    assert "third" in {env._bots[p].name for p in (1, 2, 3)}


def test_bot_objects_play_as_their_specs_do() -> None:
    """Given as objects or by name, the same bots play the same episodes from a seed."""
    by_name = PiepmatzEnv(players=3, opponents="random", reward="score")
    as_objects = PiepmatzEnv(players=3, opponents=[RandomBot(), RandomBot()], reward="score")
    assert _play_out(by_name, 9) == _play_out(as_objects, 9)


def test_bad_opponents_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        OpponentPool(["random", "grandmaster"])
    with pytest.raises(ValueError, match="one weight per member"):
        OpponentPool(["random"], weights=[1, 2])
    with pytest.raises(ValueError, match="positive"):
        OpponentPool(["random"], weights=[0])
    with pytest.raises(ValueError, match="not pools"):
        OpponentPool([OpponentPool(["random"])])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="not its class RandomBot"):
        PiepmatzEnv(opponents=RandomBot)  # type: ignore[arg-type]
    env = PiepmatzEnv(opponents=OpponentPool([]))
    with pytest.raises(ValueError, match="pool is empty"):
        env.reset(seed=1)


def test_a_policy_that_breaks_the_protocol_is_named() -> None:
    def stubborn(observation: dict[str, Any]) -> int:
        return int(np.flatnonzero(observation["action_mask"] == 0)[0])

    env = PiepmatzEnv(players=2, seat=1, opponents=stubborn)
    with pytest.raises(
        RuntimeError, match=r"opponent 'stubborn' in seat 0 chose \d+, which is not"
    ):
        env.reset(seed=1)
    aec = piepmatz_v0.raw_env(players=2, opponents={"player_0": ObservationPolicy(stubborn, "x")})
    with pytest.raises(RuntimeError, match=r"opponent 'x' in seat 0 chose"):
        aec.reset(seed=1)


# ---------------------------------------------------------------------------- PettingZoo


def _mixed(**kwargs: Any) -> Any:
    def last_legal(observation: dict[str, Any]) -> int:
        return int(np.flatnonzero(observation["action_mask"])[-1])

    pool = OpponentPool(["random", last_legal])
    return piepmatz_v0.env(players=4, opponents={"player_1": pool, "player_3": "greedy"}, **kwargs)


def test_pettingzoo_opponents_pass_api_test_and_seed_test() -> None:
    env = _mixed()
    assert env.possible_agents == ["player_0", "player_2"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for message in WRONG_FOR_DICT_OBSERVATIONS:
            warnings.filterwarnings("ignore", message=message)
        api_test(env, num_cycles=300)
    seed_test(_mixed, num_cycles=200)


def test_pettingzoo_agents_move_only_in_their_own_seats() -> None:
    env = piepmatz_v0.raw_env(players=3, opponents={"player_0": "random", "player_2": "random"})
    env.reset(seed=3)
    rng = random.Random(3)
    moves = 0
    while not env.state_.is_over():
        assert env.agent_selection == "player_1" and env.state_.current_player == 1
        env.step(rng.choice(env.state_.legal_action_ids()))
        moves += 1
    assert moves > 10 and env.rewards.keys() == {"player_1"}
    assert "result" in env.infos["player_1"]


def test_pettingzoo_refuses_opponents_for_no_agent_or_every_agent() -> None:
    with pytest.raises(ValueError, match=r"not \['player_5'\]"):
        piepmatz_v0.raw_env(players=3, opponents={"player_5": "random"})
    with pytest.raises(ValueError, match="opponents maps agents to opponents"):
        piepmatz_v0.raw_env(players=2, opponents="random")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="leave at least one agent"):
        piepmatz_v0.raw_env(players=2, opponents={"player_0": "random", "player_1": "random"})


# ---------------------------------------------------------------------------- OpenSpiel


def test_piepmatz_bot_decides_from_the_view_for_whoever_is_to_move() -> None:
    game = pyspiel.load_game("python_piepmatz", {"players": 3})
    recorder = Recorder()
    bot = PiepmatzBot(recorder, seed=1)
    rng = random.Random(1)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
            continue
        player = state.current_player()
        action = bot.step(state)
        view = recorder.views[-1]
        assert view.player == player and view == view_of(state.position.engine, player)
        assert action == state.legal_actions()[0]
        state.apply_action(action)
    assert len(recorder.views) > 30


def test_piepmatz_bot_refuses_other_games_and_broken_bots() -> None:
    with pytest.raises(ValueError, match="plays python_piepmatz only"):
        PiepmatzBot("random").step(pyspiel.load_game("kuhn_poker").new_initial_state())

    class Wrong(Recorder):
        def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
            return -5

    state = pyspiel.load_game("python_piepmatz").new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    with pytest.raises(RuntimeError, match=r"bot 'recorder' in seat \d chose -5"):
        PiepmatzBot(Wrong()).step(state)
    with pytest.raises(ValueError, match="unknown bot"):
        PiepmatzBot("grandmaster")
