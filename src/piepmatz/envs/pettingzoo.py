"""Piepmatz as a PettingZoo AEC environment, laid out like ``pettingzoo.classic.*_vN``.

>>> from piepmatz.envs import piepmatz_v0
>>> env = piepmatz_v0.env(players=3)
>>> env.reset(seed=1)
>>> obs, reward, terminated, truncated, info = env.last()
>>> sorted(obs), obs["observation"].shape, obs["action_mask"].dtype.name
(['action_mask', 'observation'], (1461,), 'int8')

``env()`` is the standard wrapper stack of PettingZoo's classic games (an illegal move ends the
game with reward -1 for the offender; out-of-range actions assert; calls must come in order);
``raw_env()`` is the bare environment, which raises ``ValueError`` on an illegal action and
changes nothing. Agents are ``player_0`` … ``player_{n-1}``, seat numbers of the engine.

Observations are built from :func:`~piepmatz.core.view.view_of` only (see
:mod:`piepmatz.envs.encoding`). The action space is the engine's fixed ``NUM_ACTIONS`` (2921);
the mask is 1 exactly for :meth:`~piepmatz.core.state.State.legal_action_ids` of the agent to act,
all zeros for everybody else. Rewards come only at the end: a sole winner +1, the others share
-1 (two players: +1/-1, a shared win splits it; see :func:`~piepmatz.envs.encoding.win_rewards`).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from piepmatz.core.actions import NUM_ACTIONS, Action
from piepmatz.core.rules import Rules, check_players
from piepmatz.core.scoring import score_state
from piepmatz.core.state import State
from piepmatz.core.view import view_of

from . import encoding
from .encoding import OBSERVATION_HIGH, OBSERVATION_SIZE, Encoder, action_mask, win_rewards
from .text import draw_table

NAME = "piepmatz_v0"


def env(**kwargs: Any) -> AECEnv:
    """The environment wrapped like PettingZoo's classic games."""
    return classic_wrappers(raw_env(**kwargs))


def classic_wrappers(environment: AECEnv) -> AECEnv:
    """PettingZoo's wrapper stack for its classic games (benchmarks/envs.py measures its cost)."""
    environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    return wrappers.OrderEnforcingWrapper(environment)


def start_episode(environment: AECEnv) -> None:
    """The AEC bookkeeping of a new episode: every agent live, no rewards, nothing ended."""
    agents = environment.possible_agents[:]
    environment.agents = agents
    environment.rewards = dict.fromkeys(agents, 0.0)
    environment._cumulative_rewards = dict.fromkeys(agents, 0.0)
    environment.terminations = dict.fromkeys(agents, False)
    environment.truncations = dict.fromkeys(agents, False)
    environment.infos = {a: {} for a in agents}


def parallel_env(**kwargs: Any) -> Any:
    """Not offered: turns are sequential (one decision at a time); use :func:`env`."""
    raise NotImplementedError(
        "Piepmatz is turn-based: use the AEC environment env() (PettingZoo marks it "
        "is_parallelizable=False)"
    )


class raw_env(AECEnv):  # type: ignore[misc]
    """The bare AEC environment: ``raw_env(players=2, preset="standard", render_mode=None)``."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": NAME,
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        players: int = 2,
        preset: str | Rules = "standard",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        check_players(players)
        self.rules = preset if isinstance(preset, Rules) else Rules.parse(preset)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}"
            )
        self.render_mode = render_mode
        self.num_players = players
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.agents = self.possible_agents[:]
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(
                        np.zeros(OBSERVATION_SIZE, np.int8), OBSERVATION_HIGH, dtype=np.int8
                    ),
                    "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._encoder = Encoder(players, self.rules)
        self._seeds = random.Random()
        self.state_: State | None = None
        self._legal: list[int] = []
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ AEC API

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game; ``seed`` makes it and every later ``reset()`` reproducible."""
        if seed is not None:
            self._seeds = random.Random(seed)
        game_seed = self._seeds.getrandbits(63)
        # The event log is not kept: nothing here reads it, and it would cost time every turn.
        self.state_ = State.new_game(self.num_players, self.rules, game_seed, events=False)
        start_episode(self)
        self._after_move()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self._require_state()
        seat = self._seat_of[agent]
        mask = action_mask(self._legal if seat == state.current_player else ())
        # The encoder was made for this game's player count and rules: skip encode()'s check.
        observation = np.frombuffer(self._encoder.encode_bytes(view_of(state, seat)), np.int8)
        return {"observation": observation, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._require_state()
        action_id = encoding.action_id(action)
        if action_id not in self._legal:
            text = str(Action.from_id(action_id)) if 0 <= action_id < NUM_ACTIONS else action_id
            raise ValueError(
                f"{text!r} is not legal for {agent} now ({state.describe_position()}); "
                "legal action ids are those with action_mask 1"
            )
        self._cumulative_rewards[agent] = 0.0
        state.apply_id(action_id)
        self._after_move()
        if self.render_mode == "human":
            self.render()

    def _after_move(self) -> None:
        state = self._require_state()
        if state.is_over():
            sheet = score_state(state)
            values = win_rewards(sheet.winners, state.num_players)
            self.rewards = {a: values[i] for i, a in enumerate(self.possible_agents)}
            self.terminations = dict.fromkeys(self.agents, True)
            self._legal = []
            self._accumulate_rewards()
            # Every agent still takes its final (dead) step, starting with the next seat.
            seat = self.possible_agents.index(self.agent_selection)
            self.agent_selection = self.possible_agents[(seat + 1) % state.num_players]
            return
        self._legal = state.legal_action_ids()
        self.agent_selection = self.possible_agents[state.current_player]

    def render(self) -> str | None:
        """``ansi``: the table as text from the view of the agent to act; ``human``: print it."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; nothing to draw")
            return None
        state = self._require_state()
        seat = state.current_player if state.current_player >= 0 else 0
        text = draw_table(view_of(state, seat))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def _require_state(self) -> State:
        if self.state_ is None:
            raise RuntimeError("call reset() before using the environment")
        return self.state_
