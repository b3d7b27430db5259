"""Piepmatz as a pgx environment: :class:`PiepmatzEnv`, a ``pgx.Env`` whose ``init`` and
``step`` ``jax.jit`` and ``jax.vmap`` take whole.

As in every pgx game: ``state.observation`` is the observation of ``state.current_player``
(:mod:`piepmatz.envs.encoding`'s vector; the player to move, so no other hand is in it),
``state.rewards`` the step's rewards by seat (the end's ``win`` reward of
:mod:`piepmatz.envs.rewards`, else zeros), ``state.legal_action_mask`` the legal actions over
the core's action ids, all true once the game is over (pgx's rule, so that a policy can always
be normalised). An illegal action ends the game: -1 for the offender, the others share +1.
``step`` needs a key: a squirrel's pick is random (T2.1d). ``docs/research.md`` shows a batched
rollout.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import pgx
from pgx._src.struct import dataclass

from piepmatz.core.actions import NUM_ACTIONS
from piepmatz.core.rules import Rules, check_players
from piepmatz.envs.encoding import OBSERVATION_SIZE

from .game import GAME_OVER, Game, deal, legal_mask, play, rule_flags, scores, win_rewards
from .observe import observe

Array = jax.Array

#: The environment's id (pgx's own games' ids are a closed list; this one is not in it).
ENV_ID = "piepmatz"


@dataclass
class State(pgx.State):  # type: ignore[misc]
    """pgx's state of a game: its six public fields and the game itself (``_game``)."""

    current_player: Array = jnp.int32(0)
    observation: Array = jnp.zeros(OBSERVATION_SIZE, jnp.int8)
    rewards: Array = jnp.zeros(2, jnp.float32)
    terminated: Array = jnp.bool_(False)
    truncated: Array = jnp.bool_(False)
    legal_action_mask: Array = jnp.zeros(NUM_ACTIONS, jnp.bool_)
    _step_count: Array = jnp.int32(0)
    _game: Any = None

    @property
    def env_id(self) -> str:
        return ENV_ID


def new_state(key: Array, players: int, flags: Array) -> State:
    """A deal as pgx's state, observation included, under the rule flags ``flags``
    (:data:`~piepmatz.jax.game.RULE_FLAGS`: an array, so that one compiled function deals for
    every rule set)."""
    game = deal(key, players, flags)
    return State(
        current_player=game.current_player,
        observation=observe(game, game.current_player),
        rewards=jnp.zeros(players, jnp.float32),
        legal_action_mask=legal_mask(game),
        _game=game,
    )


class PiepmatzEnv(pgx.Env):  # type: ignore[misc]
    """``PiepmatzEnv(players=2, rules="standard")``: 2–4 players, a preset or a
    :class:`~piepmatz.core.rules.Rules` (text as ``Rules.parse`` reads it). The state holds the
    rule flags, so one compiled ``step`` plays every rule set with this player count."""

    def __init__(self, players: int = 2, rules: str | Rules = "standard") -> None:
        super().__init__()
        self._players = check_players(players)
        self.rules = rules if isinstance(rules, Rules) else Rules.parse(rules)
        self._flags = rule_flags(self.rules)

    def _init(self, key: Array) -> State:
        return new_state(key, self._players, jnp.array(self._flags))

    def step(self, state: State, action: Array, key: Array | None = None) -> State:
        """pgx's ``Env.step``, its conditionals narrowed to the fields each one changes: under
        ``vmap`` a conditional selects every array of the state, 6 KB a game, most of it the
        legal mask and the observation."""
        # An id outside the action space is illegal too (nothing can raise inside jit; JAX
        # would read it clamped, or from the end, as some legal id).
        outside = (action < 0) | (action >= NUM_ACTIONS)
        is_illegal = outside | ~state.legal_action_mask[jnp.clip(action, 0, NUM_ACTIONS - 1)]
        current_player = state.current_player
        stopped = state.terminated | state.truncated
        moved: State = self._step(state.replace(_step_count=state._step_count + 1), action, key)
        # A finished game stays as it was, with zero rewards (pgx's rule).
        state = jax.tree.map(lambda new, old: jnp.where(stopped, old, new), moved, state)
        state = state.replace(rewards=jnp.where(stopped, 0.0, state.rewards))
        # An illegal action ends the game (pgx's rule): only the rewards and the end change.
        lost = self._step_with_illegal_action(state, current_player)
        terminated = state.terminated | is_illegal
        return state.replace(  # type: ignore[no-any-return]
            rewards=jnp.where(is_illegal, lost.rewards, state.rewards),
            terminated=terminated,
            # All actions are legal once the game is over, as in every pgx game.
            legal_action_mask=state.legal_action_mask | terminated,
            observation=self._observe(state, state.current_player),
        )

    def _step(self, state: State, action: Array, key: Array | None) -> State:
        if key is None:
            raise ValueError(
                "Piepmatz deals at random during play (a squirrel's pick, T2.1d): "
                "call step(state, action, key) with a key"
            )
        game: Game = play(state._game, action, key)
        over = game.phase == GAME_OVER
        _, winners = scores(game)
        return state.replace(  # type: ignore[no-any-return]
            # pgx wants a seat even after the end: the last one to move.
            current_player=jnp.where(over, state.current_player, game.current_player),
            rewards=jnp.where(over, win_rewards(winners), 0.0).astype(jnp.float32),
            terminated=over,
            legal_action_mask=legal_mask(game),
            _game=game,
        )

    def _observe(self, state: State, player_id: Array) -> Array:
        return observe(state._game, player_id)

    def _step_with_illegal_action(self, state: State, loser: Array) -> State:
        # Zero-sum as the win reward is: -1 for the offender, +1 shared by the others.
        n = self._players
        rewards = jnp.full(n, 1.0 / (n - 1), jnp.float32).at[loser].set(-1.0)
        return state.replace(rewards=rewards, terminated=jnp.bool_(True))  # type: ignore[no-any-return]

    @property
    def id(self) -> str:
        return ENV_ID

    @property
    def version(self) -> str:
        return "v0"

    @property
    def num_players(self) -> int:
        return self._players
