"""Piepmatz as a single-agent Gymnasium environment, ``Piepmatz-v0`` (registered on import).

The learner takes one seat; bots (:func:`piepmatz.bots.make_bot`) play the others from their own
views. Observations and actions are those of the PettingZoo environment: a dict with the
``observation`` vector (:mod:`piepmatz.envs.encoding`) and the ``action_mask`` over the engine's
2921 action ids. The reward comes at the end: +1 for a sole win, a share for a shared win, a
negative share for a loss (:func:`~piepmatz.envs.encoding.win_rewards`).

>>> import gymnasium
>>> import piepmatz.envs.gymnasium
>>> env = gymnasium.make("Piepmatz-v0", players=3, opponents="random")
>>> obs, info = env.reset(seed=1)
>>> int(obs["action_mask"].sum()) > 0, info["seat"]
(True, 0)

An action that is not legal ends the episode with reward -1 and ``info["illegal_action"]`` (as
PettingZoo's classic games do), unless the environment was made with ``illegal_action="raise"``,
which raises ``ValueError`` and leaves the game unchanged.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from piepmatz.bots import Bot, make_bot
from piepmatz.bots.base import BotMoveError, decide
from piepmatz.core.actions import NUM_ACTIONS, Action
from piepmatz.core.rules import Rules, check_players
from piepmatz.core.scoring import score_state
from piepmatz.core.state import State
from piepmatz.core.view import view_of

from . import encoding
from .encoding import OBSERVATION_HIGH, OBSERVATION_SIZE, Encoder, action_mask, win_rewards
from .text import draw_table

ENV_ID = "Piepmatz-v0"
Observation = dict[str, Any]


class PiepmatzEnv(gymnasium.Env[Observation, np.int64]):
    """``PiepmatzEnv(players=2, preset="standard", seat=0, opponents="random", ...)``.

    ``seat`` is the learner's seat (``None``: a random seat each episode); ``opponents`` is one
    bot spec for every other seat or a list with one per other seat, in seat order (for example
    ``"heuristic"`` or ``["random", "ismcts"]``).
    """

    # Gymnasium declares ``metadata`` an instance variable with a class-level default.
    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        players: int = 2,
        preset: str | Rules = "standard",
        seat: int | None = 0,
        opponents: str | Sequence[str] = "random",
        render_mode: str | None = None,
        illegal_action: str = "lose",
    ) -> None:
        super().__init__()
        check_players(players)
        if seat is not None and (type(seat) is not int or not 0 <= seat < players):
            raise ValueError(f"seat must be None or a seat 0-{players - 1}, not {seat!r}")
        if isinstance(opponents, str):
            specs = [opponents] * (players - 1)
        elif isinstance(opponents, list | tuple) and all(isinstance(s, str) for s in opponents):
            specs = list(opponents)
        else:
            raise ValueError(f"opponents must be a bot spec or a list of them, not {opponents!r}")
        if len(specs) != players - 1:
            raise ValueError(f"give one opponent spec or {players - 1} of them, not {len(specs)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}"
            )
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', not {illegal_action!r}")
        self.players = players
        self.rules = preset if isinstance(preset, Rules) else Rules.parse(preset)
        self.fixed_seat = seat
        self.opponent_specs = specs
        self.opponents: list[Bot] = [make_bot(spec) for spec in specs]  # unknown names raise
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
        self._bots = dict(zip(others, self.opponents, strict=True))
        self._state = State.new_game(self.players, self.rules, game_seed, events=False)
        self._abandoned = False
        self._play_bots()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        state = self._require_state()
        if state.is_over():
            raise RuntimeError("the episode is over: call reset()")
        action_id = encoding.action_id(action)
        legal = state.legal_action_ids()
        if action_id not in legal:
            if self.illegal_action == "raise":
                text = str(Action.from_id(action_id)) if 0 <= action_id < NUM_ACTIONS else action_id
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
            return obs, -1.0, True, False, info
        state.apply_id(action_id)
        self._play_bots()
        reward = 0.0
        if state.is_over():
            sheet = score_state(state)
            reward = win_rewards(sheet.winners, state.num_players)[self._seat]
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, state.is_over(), False, self._info()

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

    def _observation(self) -> Observation:
        state = self._require_state()
        mine = not state.is_over() and state.current_player == self._seat
        return {
            "observation": self._encoder.encode(view_of(state, self._seat)),
            "action_mask": action_mask(state.legal_action_ids() if mine else ()),
        }

    def _info(self) -> dict[str, Any]:
        return {"seat": self._seat}

    def _require_state(self) -> State:
        if self._state is None or self._abandoned:
            raise RuntimeError(self._ended)
        return self._state


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="piepmatz.envs.gymnasium:PiepmatzEnv")
