"""Piepmatz as a single-agent Gymnasium environment, ``Piepmatz-v0`` (registered on import).

The learner takes one seat; bots (:func:`piepmatz.bots.make_bot`) play the others from their own
views. Observations and actions are those of the PettingZoo environment: a dict with the
``observation`` vector (:mod:`piepmatz.envs.encoding`) and the ``action_mask`` over the engine's
2921 action ids. The reward comes at the end: +1 for a sole win, a share for a shared win, a
negative share for a loss (:func:`~piepmatz.envs.rewards.win_rewards`).

>>> import gymnasium
>>> import piepmatz.envs.gymnasium
>>> env = gymnasium.make("Piepmatz-v0", players=3, opponents="random")
>>> obs, info = env.reset(seed=1)
>>> int(obs["action_mask"].sum()) > 0, info["seat"]
(True, 0)

``reward`` picks the reward (:mod:`piepmatz.envs.rewards`): ``"win"`` (the default, above),
``"margin"`` (the lead over the best other player, in points) or ``"score"`` (the own points).
When a game ends, ``info["result"]`` holds the final score sheet
(:meth:`~piepmatz.core.scoring.ScoreSheet.to_json`, players by seat) beside ``info["seat"]``.

``opponents`` takes bot specs, bots, policies over observations and pools
(:mod:`piepmatz.envs.opponents`).

The observation of the end has every entry of ``action_mask`` set (as pgx does): the action a
vector environment asks for on the step after the end, under Gymnasium's default next-step
autoreset, is never played, and masked sampling finds no empty mask.

An action that is not legal ends the episode with reward -1 and ``info["illegal_action"]`` (as
PettingZoo's classic games do; with ``reward="margin"`` the lowest margin,
:func:`~piepmatz.envs.rewards.illegal_reward`), unless the environment was made with
``illegal_action="raise"``, which raises ``ValueError`` and leaves the game unchanged. An id
outside the action space is a mistake in the caller's code, not a move: ``ValueError`` in both
modes, the game unchanged.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from piepmatz.bots import Bot
from piepmatz.bots.base import BotMoveError, decide
from piepmatz.core.actions import NUM_ACTIONS, Action
from piepmatz.core.rules import Rules, check_players
from piepmatz.core.scoring import score_state
from piepmatz.core.state import State
from piepmatz.core.view import view_of

from . import encoding
from .encoding import OBSERVATION_HIGH, OBSERVATION_SIZE, Encoder, action_mask
from .opponents import Opponents, Seat, draw_opponents, seat_opponents
from .records import episode_record
from .rewards import final_rewards, illegal_reward, reward_kind
from .text import draw_table

ENV_ID = "Piepmatz-v0"
Observation = dict[str, Any]
_ALL_ACTIONS = np.ones(NUM_ACTIONS, np.int8)


class PiepmatzEnv(gymnasium.Env[Observation, np.int64]):
    """``PiepmatzEnv(players=2, preset="standard", seat=0, opponents="random", ...)``.

    ``seat`` is the learner's seat (``None``: a random seat each episode); ``opponents`` is one
    opponent for every other seat or a list with one per other seat, in seat order: a bot spec
    (``"heuristic"``, ``["random", "ismcts"]``), a bot, a policy over observations or an
    :class:`~piepmatz.envs.opponents.OpponentPool` drawn from at every reset. ``reward`` is
    ``"win"``, ``"margin"`` or ``"score"`` (:mod:`piepmatz.envs.rewards`).
    """

    # Gymnasium declares ``metadata`` an instance variable with a class-level default.
    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        players: int = 2,
        preset: str | Rules = "standard",
        seat: int | None = 0,
        opponents: Opponents = "random",
        render_mode: str | None = None,
        illegal_action: str = "lose",
        reward: str = "win",
    ) -> None:
        super().__init__()
        check_players(players)
        if seat is not None and (type(seat) is not int or not 0 <= seat < players):
            raise ValueError(f"seat must be None or a seat 0-{players - 1}, not {seat!r}")
        #: Per other seat, in seat order: its bot, or the pool it draws one from every reset.
        self.opponents: list[Seat] = seat_opponents(opponents, players - 1)
        self.reward = reward_kind(reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}"
            )
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', not {illegal_action!r}")
        self.players = players
        self.rules = preset if isinstance(preset, Rules) else Rules.parse(preset)
        self.fixed_seat = seat
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    np.zeros(OBSERVATION_SIZE, np.int8), OBSERVATION_HIGH, dtype=np.int8
                ),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._encoder = Encoder(players, self.rules)
        self._state: State | None = None
        #: Why there is no game to step: not started yet, or ended on an illegal action.
        self._ended = "call reset() before using the environment"
        #: Set when the episode ended on an illegal action: the position stays to be rendered.
        self._abandoned = False
        self._seat = 0
        self._bot_rng = random.Random()
        self._bots: dict[int, Bot] = {}
        #: The episode's deal and every action since, for :meth:`record`.
        self._seed = 0
        self._actions: list[int] = []

    # ------------------------------------------------------------------ Gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        # Everything random (deal, seat, bots) follows Gymnasium's seeded generator.
        game_seed = int(self.np_random.integers(2**63 - 1))
        self._bot_rng = random.Random(int(self.np_random.integers(2**63 - 1)))
        if self.fixed_seat is None:
            self._seat = int(self.np_random.integers(self.players))
        else:
            self._seat = self.fixed_seat
        others = [p for p in range(self.players) if p != self._seat]
        # Pools draw from the bots' generator: without one, the episode is what it always was.
        bots = draw_opponents(self.opponents, self._bot_rng)
        self._bots = dict(zip(others, bots, strict=True))
        self._state = State.new_game(self.players, self.rules, game_seed, events=False)
        self._seed, self._actions = game_seed, []
        self._abandoned = False
        self._play_bots()
        return self._observation(), self._info()

    def record(self) -> dict[str, Any]:
        """The episode so far (or just ended) as a game record: ``piepmatz replay`` and
        ``review`` read it (:func:`~piepmatz.envs.records.episode_record`)."""
        self._require_state()
        return episode_record(self.players, self.rules, self._seed, self._actions)

    def step(self, action: Any) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        state = self._require_state()
        if state.is_over():
            raise RuntimeError("the episode is over: call reset()")
        action_id = encoding.action_id(action)
        legal = state.legal_action_ids()
        if action_id not in legal:
            if self.illegal_action == "raise":
                text = str(Action.from_id(action_id))
                raise ValueError(
                    f"{text!r} is not legal now ({state.describe_position()}); legal action ids "
                    "are those with action_mask 1"
                )
            info = self._info()
            info["illegal_action"] = True
            # The game is abandoned: the observation shows the position the move was refused in.
            obs = self._observation()
            self._abandoned = True
            self._ended = "the episode ended on an illegal action: call reset()"
            return obs, illegal_reward(self.reward, self.players), True, False, info
        state.apply_id(action_id)
        self._actions.append(action_id)
        self._play_bots()
        reward = 0.0
        info = self._info()
        if state.is_over():
            sheet = score_state(state)
            reward = final_rewards(sheet, self.reward)[self._seat]
            info["result"] = sheet.to_json()
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, state.is_over(), False, info

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; nothing to draw")
            return None
        if self._state is None:
            raise RuntimeError(self._ended)
        # After an illegal action the episode is over, but its last position can still be drawn.
        text = draw_table(view_of(self._state, self._seat))
        if self._abandoned:
            text += "\n(the episode ended on an illegal action)"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # ------------------------------------------------------------------ internals

    def _play_bots(self) -> None:
        state = self._require_state()
        while not state.is_over() and state.current_player != self._seat:
            p = state.current_player
            bot = self._bots[p]
            try:
                choice = decide(bot, view_of(state, p), state.legal_action_ids(), self._bot_rng)
            except BotMoveError as exc:
                raise RuntimeError(f"the opponent {bot.name!r} in seat {p} {exc}") from exc
            state.apply_id(choice)
            self._actions.append(choice)

    def _observation(self) -> Observation:
        state = self._require_state()
        # The bots have played: the learner is to move, or the game is over. At the end every id
        # is set (pgx's convention): under a vector environment's next-step autoreset the action
        # asked for next is never played, and a masked sampler needs something to sample.
        over = state.is_over()
        return {
            "observation": self._encoder.encode(view_of(state, self._seat)),
            "action_mask": _ALL_ACTIONS.copy() if over else action_mask(state.legal_action_ids()),
        }

    def _info(self) -> dict[str, Any]:
        return {"seat": self._seat}

    def _require_state(self) -> State:
        if self._state is None or self._abandoned:
            raise RuntimeError(self._ended)
        return self._state


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="piepmatz.envs.gymnasium:PiepmatzEnv")
