"""The differential check: random games played in the JAX environment and in the core from the
same deals, compared at every step.

Each game starts from a JAX deal, taken to the core card for card
(:func:`~piepmatz.jax.bridge.core_deal`). Both then play the same random legal actions; the
squirrel's picks, which the JAX step draws from its key, are given to the core through its
chance interface (:class:`~piepmatz.core.chance.Chance`). At every step the legal mask, the
observation of the player to move, the rewards and the end must be the core's (the mask and the
observation as the PettingZoo binding builds them, the rewards as
:func:`~piepmatz.envs.rewards.final_rewards` gives them); at the end, pgx's mask (all true).

``tests/envs/test_jax_env.py`` runs a few games of every player count and preset;
``benchmarks/jax_differential.py`` runs thousands.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from piepmatz.core.actions import Action
from piepmatz.core.cards import FEEDER_EGGS
from piepmatz.core.chance import Chance
from piepmatz.core.rules import Rules
from piepmatz.core.scoring import score_state
from piepmatz.core.state import State
from piepmatz.core.view import view_of
from piepmatz.envs.encoding import FIELDS, Encoder, action_mask
from piepmatz.envs.rewards import final_rewards

from .bridge import core_deal
from .env import PiepmatzEnv, new_state
from .game import RULE_FLAGS, rule_flags, squirrel_draws, squirrel_index


class Disagreement(AssertionError):
    """The JAX environment and the core disagree; the message says where."""


class Mirror(Chance):
    """The core's chance, except that a squirrel picks what the JAX step picked with ``key``:
    the ``picks``-th pick of the step, a seed of the same eggs (seeds of one value are alike)."""

    __slots__ = ("key", "picks")

    def __init__(self) -> None:
        self.key: Any = None
        self.picks = 0

    def squirrel(self, state: State, player: int, pile: list[int]) -> int:
        counts = np.bincount([FEEDER_EGGS[c] - 1 for c in pile], minlength=3)
        draws = squirrel_draws(self.key)
        index = int(squirrel_index(draws, jnp.int32(self.picks), jnp.int32(len(pile))))
        self.picks += 1
        eggs = int(np.searchsorted(np.cumsum(counts), index, side="right")) + 1
        return next(c for c in pile if FEEDER_EGGS[c] == eggs)


class Tally(NamedTuple):
    """What a run compared: games to their end, and steps (each with its mask, observation,
    rewards and end)."""

    games: int
    steps: int


def compiled(
    players: int, batch: int, quick: bool = False
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """Deal and step over a batch of ``batch`` games, compiled once per player count and batch
    size: the deal takes the rule flags as an argument (an array of
    :data:`~piepmatz.jax.game.RULE_FLAGS`), and a state carries them, so both serve every rule
    set. ``quick`` compiles without LLVM's optimisations: the same arithmetic, compiled about
    three times faster and run somewhat slower, for short runs (the tests)."""
    return _compiled(players, batch, quick)


@functools.cache
def _compiled(
    players: int, batch: int, quick: bool
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    env = PiepmatzEnv(players)
    deal = jax.jit(jax.vmap(lambda key, flags: new_state(key, players, flags), in_axes=(0, None)))
    step = jax.jit(jax.vmap(env.step))
    # Arguments of the shapes and types the functions will get (their values do not matter).
    keys = np.zeros((batch, 2), np.uint32)
    flags = np.zeros(len(RULE_FLAGS), np.bool_)
    state = jax.eval_shape(deal, keys, flags)
    actions = np.zeros(batch, np.int32)
    options: dict[str, str | bool] = {"xla_backend_optimization_level": "0"} if quick else {}
    return (
        deal.lower(keys, flags).compile(compiler_options=options),
        step.lower(state, actions, keys).compile(compiler_options=options),
    )


def run(
    players: int, rules: Rules, games: int, seed: int = 0, batch: int = 16, quick: bool = False
) -> Tally:
    """Play at least ``games`` random games, ``batch`` at a time (whole batches), both ways and
    compare every step; :class:`Disagreement` at the first difference. ``quick``: see
    :func:`compiled`."""
    rng = np.random.default_rng(seed)
    key = jax.random.PRNGKey(seed)
    init, step = compiled(players, batch, quick)
    encoder = Encoder(players, rules)

    class Mirrored(State):
        __slots__ = ()
        chance = Mirror()

    mirror = Mirrored.chance
    assert isinstance(mirror, Mirror)
    played = steps = 0
    while played < games:
        size = batch
        key, deal_key = jax.random.split(key)
        state = init(jax.random.split(deal_key, size), np.array(rule_flags(rules)))
        cores = [core_deal(state, rules, i, Mirrored, events=False) for i in range(size)]
        done = np.zeros(size, bool)
        while not done.all():
            masks = np.asarray(state.legal_action_mask)
            observations = np.asarray(state.observation)
            rewards = np.asarray(state.rewards)
            ended = np.asarray(state.terminated)
            seats = np.asarray(state.current_player)
            actions = np.zeros(size, np.int32)
            for i, core in enumerate(cores):
                if done[i]:
                    continue
                where = f"{players} players, {rules.name}, game {played + i}: {core!r}"
                if ended[i] != core.is_over():
                    raise Disagreement(f"{where}: JAX says over={bool(ended[i])}")
                if core.is_over():
                    expected = final_rewards(score_state(core))
                    if not np.allclose(rewards[i], expected, atol=1e-6):
                        raise Disagreement(f"{where}: rewards {rewards[i]}, core {expected}")
                    if not masks[i].all():
                        raise Disagreement(f"{where}: the mask of an ended game is all true")
                    seat = int(seats[i])
                    _same_observation(encoder, core, seat, observations[i], where)
                    done[i] = True
                    played += 1
                    continue
                steps += 1
                if rewards[i].any():
                    raise Disagreement(f"{where}: rewards {rewards[i]} before the end")
                if int(seats[i]) != core.current_player:
                    raise Disagreement(f"{where}: JAX's player to move is {int(seats[i])}")
                legal = core.legal_action_ids()
                expected_mask = action_mask(legal).astype(bool)
                if not np.array_equal(masks[i], expected_mask):
                    extra = [
                        str(Action.from_id(int(a)))
                        for a in np.flatnonzero(masks[i] & ~expected_mask)
                    ]
                    lacking = [
                        str(Action.from_id(int(a)))
                        for a in np.flatnonzero(~masks[i] & expected_mask)
                    ]
                    raise Disagreement(f"{where}: JAX also allows {extra}, lacks {lacking}")
                _same_observation(encoder, core, core.current_player, observations[i], where)
                actions[i] = legal[int(rng.integers(len(legal)))]
            key, step_key = jax.random.split(key)
            keys = jax.random.split(step_key, size)
            state = step(state, actions, keys)
            for i, core in enumerate(cores):
                if not done[i]:
                    mirror.key, mirror.picks = keys[i], 0
                    core.apply_id(int(actions[i]))
    return Tally(played, steps)


def _same_observation(
    encoder: Encoder, core: State, seat: int, observation: Any, where: str
) -> None:
    expected = np.frombuffer(encoder.encode_bytes(view_of(core, seat, log=False)), np.int8)
    if not np.array_equal(observation, expected):
        differ = {
            name: [(int(i), int(observation[o + i]), int(expected[o + i])) for i in wrong]
            for name, (o, length) in FIELDS.items()
            if len(wrong := np.flatnonzero(observation[o : o + length] != expected[o : o + length]))
        }
        raise Disagreement(
            f"{where}: the observation of seat {seat} differs, by field as (entry, JAX, core): "
            f"{differ}"
        )
