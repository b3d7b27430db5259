"""Piepmatz as a PettingZoo AEC environment, laid out like ``pettingzoo.classic.*_vN``.

>>> from piepmatz.envs import piepmatz_v0
>>> env = piepmatz_v0.env(players=3)
>>> env.reset(seed=1)
>>> obs, reward, terminated, truncated, info = env.last()
>>> sorted(obs), obs["observation"].shape, obs["action_mask"].dtype.name
(['action_mask', 'observation'], (1461,), 'int8')

``env()`` is the standard wrapper stack of PettingZoo's classic games (an illegal move ends the
game with reward -1 for the offender, and under ``reward="win"`` +1 shared by the others;
out-of-range actions assert; calls must come in order); ``raw_env()`` is the bare environment,
which raises ``ValueError`` on an illegal action or an id outside the action space and changes
nothing. Agents are ``player_0`` … ``player_{n-1}``, seat numbers of the engine.

Observations are built from :func:`~piepmatz.core.view.view_of` only (see
:mod:`piepmatz.envs.encoding`). The action space is the engine's fixed ``NUM_ACTIONS`` (2921);
the mask is 1 exactly for :meth:`~piepmatz.core.state.State.legal_action_ids` of the agent to act,
all zeros for everybody else. Rewards come only at the end: a sole winner +1, the others share
-1 (two players: +1/-1, a shared win splits it; see :func:`~piepmatz.envs.rewards.win_rewards`);
``reward="margin"`` gives the lead over the best other player in points, ``reward="score"`` the
own points (:mod:`piepmatz.envs.rewards`). When a game ends, ``infos[agent]["result"]`` holds
the final score sheet (:meth:`~piepmatz.core.scoring.ScoreSheet.to_json`, players by seat).

``opponents`` maps agents to opponents the environment plays itself (bot specs, bots, policies
over observations, pools: :mod:`piepmatz.envs.opponents`); those seats are no agents, and the
others keep their names:

>>> env = piepmatz_v0.env(players=3, opponents={"player_1": "random", "player_2": "random"})
>>> env.reset(seed=1)
>>> env.possible_agents, env.agent_selection
(['player_0'], 'player_0')
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from piepmatz.bots import Bot
from piepmatz.bots.base import BotMoveError, decide
from piepmatz.core.actions import NUM_ACTIONS, Action
from piepmatz.core.rules import Rules, check_players
from piepmatz.core.scoring import score_state
from piepmatz.core.state import State
from piepmatz.core.view import view_of

from . import encoding
from .encoding import OBSERVATION_HIGH, OBSERVATION_SIZE, Encoder, action_mask
from .opponents import Member, OpponentPool, Seat, as_seat, draw_opponents
from .records import episode_record
from .rewards import final_rewards, illegal_reward, illegal_share, reward_kind
from .text import draw_table

NAME = "piepmatz_v0"


def env(**kwargs: Any) -> AECEnv:
    """The environment wrapped like PettingZoo's classic games; an illegal move earns -1, or the
    lowest margin under ``reward="margin"`` (:func:`~piepmatz.envs.rewards.illegal_reward`), and
    under ``reward="win"`` the other agents share +1
    (:func:`~piepmatz.envs.rewards.illegal_share`)."""
    bare = raw_env(**kwargs)
    n = bare.num_players
    return classic_wrappers(bare, illegal_reward(bare.reward, n), illegal_share(bare.reward, n))


def classic_wrappers(environment: AECEnv, penalty: float = -1.0, share: float = 0.0) -> AECEnv:
    """PettingZoo's wrapper stack for its classic games (benchmarks/envs.py measures its cost);
    ``penalty`` is the reward of an illegal move, ``share`` that of each other agent then."""
    environment = TerminateIllegal(environment, penalty, share)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    return wrappers.OrderEnforcingWrapper(environment)


class TerminateIllegal(wrappers.TerminateIllegalWrapper):  # type: ignore[misc]
    """PettingZoo's wrapper that ends the game on an illegal move, which gives every other
    agent 0; here they get ``share`` (under ``win`` the game stays zero-sum)."""

    def __init__(self, environment: AECEnv, penalty: float, share: float) -> None:
        super().__init__(environment, illegal_reward=penalty)
        self._share = share

    def step(self, action: Any) -> None:
        offender, ended = self.agent_selection, self._terminated
        super().step(action)
        if self._terminated and not ended:  # this move was the illegal one
            bare = self.env.unwrapped
            for agent in bare.agents:
                if agent != offender:
                    bare.rewards[agent] = self._share
                    bare._cumulative_rewards[agent] += self._share


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
    """The bare AEC environment: ``raw_env(players=2, preset="standard", render_mode=None,
    reward="win", opponents=None)``; ``opponents`` maps agent names to the opponents that play
    those seats (:mod:`piepmatz.envs.opponents`)."""

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
        reward: str = "win",
        opponents: Mapping[str, Member | OpponentPool] | None = None,
    ) -> None:
        super().__init__()
        check_players(players)
        self.rules = preset if isinstance(preset, Rules) else Rules.parse(preset)
        self.reward = reward_kind(reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}"
            )
        self.render_mode = render_mode
        self.num_players = players
        seats = [f"player_{i}" for i in range(players)]
        if opponents is not None and not isinstance(opponents, Mapping):
            raise ValueError(
                f"opponents maps agents to opponents, e.g. {{'player_1': 'heuristic'}}, "
                f"not {opponents!r}"
            )
        given = dict(opponents or {})
        unknown = sorted(set(given) - set(seats))
        if unknown:
            raise ValueError(f"opponents are given for agents, {', '.join(seats)}; not {unknown}")
        if len(given) == players:
            raise ValueError("opponents fill every seat: leave at least one agent")
        bot_seats = [seats.index(agent) for agent in sorted(given, key=seats.index)]
        #: Per seat the environment plays itself: its bot, or the pool it draws one from.
        self.opponents: dict[int, Seat] = {p: as_seat(given[seats[p]]) for p in bot_seats}
        self.possible_agents = [a for p, a in enumerate(seats) if p not in self.opponents]
        self._seat_of = {agent: seats.index(agent) for agent in self.possible_agents}
        self._agent_of = {seat: agent for agent, seat in self._seat_of.items()}
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
        #: :meth:`state`'s space: every seat's observation, in seat order.
        self.state_space = spaces.Box(
            np.zeros(players * OBSERVATION_SIZE, np.int8),
            np.tile(OBSERVATION_HIGH, players),
            dtype=np.int8,
        )
        self._encoder = Encoder(players, self.rules)
        self._seeds = random.Random()
        self._bot_rng = random.Random()
        self._bots: dict[int, Bot] = {}
        #: The episode's deal and every action since, for :meth:`record`.
        self._seed = 0
        self._actions: list[int] = []
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
        if self.opponents:  # without opponents, the seeds' sequence is what it always was
            self._bot_rng = random.Random(self._seeds.getrandbits(63))
            bots = draw_opponents(list(self.opponents.values()), self._bot_rng)
            self._bots = dict(zip(self.opponents, bots, strict=True))
        # The event log is not kept: nothing here reads it, and it would cost time every turn.
        self.state_ = State.new_game(self.num_players, self.rules, game_seed, events=False)
        self._seed, self._actions = game_seed, []
        start_episode(self)
        self._after_move()

    def record(self) -> dict[str, Any]:
        """The episode so far (or just ended) as a game record: ``piepmatz replay`` and
        ``review`` read it (:func:`~piepmatz.envs.records.episode_record`)."""
        self._require_state()
        return episode_record(self.num_players, self.rules, self._seed, self._actions)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self._require_state()
        seat = self._seat_of[agent]
        mask = action_mask(self._legal if seat == state.current_player else ())
        # The encoder was made for this game's player count and rules: skip encode()'s check.
        observation = np.frombuffer(self._encoder.encode_bytes(view_of(state, seat)), np.int8)
        return {"observation": observation, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The global state for a centralised critic (MAPPO and the like): every seat's
        observation, opponents' seats included, in seat order (``state_space``). So it holds
        every hand and every blind seed; the decks' order, which no seat knows, it does not.
        Never give it to a policy that acts: it is what every player knows, together."""
        state = self._require_state()
        return np.concatenate(
            [
                np.frombuffer(self._encoder.encode_bytes(view_of(state, seat)), np.int8)
                for seat in range(self.num_players)
            ]
        )

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._require_state()
        action_id = encoding.action_id(action)
        if action_id not in self._legal:
            text = str(Action.from_id(action_id))
            raise ValueError(
                f"{text!r} is not legal for {agent} now ({state.describe_position()}); "
                "legal action ids are those with action_mask 1"
            )
        self._cumulative_rewards[agent] = 0.0
        state.apply_id(action_id)
        self._actions.append(action_id)
        self._after_move()
        if self.render_mode == "human":
            self.render()

    def _after_move(self) -> None:
        state = self._require_state()
        self._play_bots()
        if state.is_over():
            sheet = score_state(state)
            values = final_rewards(sheet, self.reward)
            self.rewards = {a: values[p] for a, p in self._seat_of.items()}
            self.terminations = dict.fromkeys(self.agents, True)
            self.infos = {a: {"result": sheet.to_json()} for a in self.agents}
            self._legal = []
            self._accumulate_rewards()
            # Every agent still takes its final (dead) step, starting with the next one.
            agents = self.possible_agents
            self.agent_selection = agents[(agents.index(self.agent_selection) + 1) % len(agents)]
            return
        self._legal = state.legal_action_ids()
        self.agent_selection = self._agent_of[state.current_player]

    def _play_bots(self) -> None:
        """The seats the environment plays, until an agent is to move or the game is over."""
        state = self._require_state()
        bots = self._bots
        while bots and not state.is_over() and state.current_player in bots:
            p = state.current_player
            bot = bots[p]
            try:
                choice = decide(bot, view_of(state, p), state.legal_action_ids(), self._bot_rng)
            except BotMoveError as exc:
                raise RuntimeError(f"the opponent {bot.name!r} in seat {p} {exc}") from exc
            state.apply_id(choice)
            self._actions.append(choice)

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
