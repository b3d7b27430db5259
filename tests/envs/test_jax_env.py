"""The JAX environment (``piepmatz.jax``) against the core, and pgx's API.

Compiling a step takes seconds, so each player count compiles once, for one batch size and
without LLVM's optimisations (``differential.compiled``, cached; the checks beyond the
differential test all use two players), and a worker that finds it in JAX's cache on disk,
compiled by the other, does not compile it again.
``benchmarks/jax_differential.py`` plays the long version of the differential test.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from piepmatz.core.actions import NUM_ACTIONS
from piepmatz.core.rules import Rules
from piepmatz.core.serial import state_from_json, state_to_json
from piepmatz.envs.encoding import OBSERVATION_SIZE
from piepmatz.envs.rewards import illegal_reward, illegal_share
from piepmatz.jax import PiepmatzEnv, State, differential
from piepmatz.jax.bridge import core_deal
from piepmatz.jax.differential import Disagreement, compiled, run

PRESETS = ("standard", "overview")


@pytest.fixture(scope="module", autouse=True)
def jax_compilation_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    cache = tmp_path_factory.getbasetemp().parent / "jax-cache"
    jax.config.update("jax_compilation_cache_dir", str(cache))


#: One batch size for every test: another shape would compile the step again.
BATCH = 6


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_agree_with_the_core_step_by_step(players: int) -> None:
    """Every legal mask, observation, reward and end of random games from the same deals."""
    for preset in PRESETS:
        tally = run(
            players, Rules.preset(preset), games=BATCH, seed=players, batch=BATCH, quick=True
        )
        assert tally.games == BATCH
        assert tally.steps > BATCH * 30  # whole games, not a few steps


def test_a_difference_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deals under the overview flags played by a core under the standard rules: the first
    observation differs (its rules field), and the check says so."""
    overview = differential.rule_flags(Rules.preset("overview"))
    monkeypatch.setattr(differential, "rule_flags", lambda rules: overview)
    with pytest.raises(Disagreement, match=r"observation of seat \d differs.*'rules'"):
        run(2, Rules.preset("standard"), games=BATCH, batch=BATCH, quick=True)


def _batch(players: int, seed: int = 0) -> State:
    init, _ = compiled(players, BATCH, quick=True)
    flags = np.array(differential.rule_flags(Rules.preset("standard")))
    return init(jax.random.split(jax.random.PRNGKey(seed), BATCH), flags)


def _keys(key: jax.Array) -> jax.Array:
    return jax.random.split(key, BATCH)


def test_a_deal_follows_pgx_conventions_and_s2_to_s5() -> None:
    state = _batch(2)
    assert state.current_player.dtype == jnp.int32
    assert state.terminated.dtype == jnp.bool_ and not state.terminated.any()
    assert state.rewards.dtype == jnp.float32 and not state.rewards.any()
    assert state.legal_action_mask.dtype == jnp.bool_
    assert state.legal_action_mask.shape == (BATCH, NUM_ACTIONS)
    assert state.observation.shape == (BATCH, OBSERVATION_SIZE)
    assert state.observation.dtype == jnp.int8
    # pgx's public fields, and the game behind an underscore.
    assert sorted(k for k in vars(state) if not k.startswith("_")) == [
        "current_player",
        "legal_action_mask",
        "observation",
        "rewards",
        "terminated",
        "truncated",
    ]
    # T1.1: four hand birds on two perches; S2: a species (12 birds) and the five 3+ cards out.
    assert (state.legal_action_mask.sum(axis=1) == 8).all()
    game = state._game
    assert (game.removed_species >= 0).all()
    assert (game.bird_count == 72 - 12 - 2 - 8 - 3).all()
    assert (game.feeder_count == 36 - 5 - 4).all()


def test_the_end_and_after_it_as_pgx_has_them() -> None:
    """Played to the end: the win reward once, a mask all true, and a step after the end
    changes nothing and pays nothing."""
    _, step = compiled(2, BATCH, quick=True)
    state = _batch(2, seed=5)
    key = jax.random.PRNGKey(1)
    rng = np.random.default_rng(1)
    rewarded = np.zeros(BATCH, int)
    for _ in range(400):
        if state.terminated.all():
            break
        mask = np.asarray(state.legal_action_mask)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask], np.int32)
        key, sub = jax.random.split(key)
        before = np.asarray(state.terminated)
        state = step(state, actions, _keys(sub))
        rewards = np.asarray(state.rewards)
        rewarded += (rewards != 0).any(axis=1)
        assert not rewards[before].any(), "a step after the end pays nothing"
    assert state.terminated.all()
    assert (rewarded == 1).all(), "the reward comes once, at the end"
    assert np.asarray(state.legal_action_mask).all()
    after = step(state, np.zeros(BATCH, np.int32), _keys(key))
    assert np.array_equal(after.observation, state.observation)
    assert not np.asarray(after.rewards).any()


def test_an_illegal_action_ends_the_game_and_costs_the_offender() -> None:
    _, step = compiled(2, BATCH, quick=True)
    state = _batch(2)
    mover = int(state.current_player[0])
    illegal = int(np.flatnonzero(~np.asarray(state.legal_action_mask[0]))[0])
    actions = np.asarray(state.legal_action_mask).argmax(axis=1).astype(np.int32)
    actions[0] = illegal
    after = step(state, actions, _keys(jax.random.PRNGKey(0)))
    assert np.asarray(after.terminated).tolist() == [True] + [False] * (BATCH - 1)
    expected = np.ones(2, np.float32)
    expected[mover] = -1.0
    assert np.array_equal(np.asarray(after.rewards[0]), expected)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_an_illegal_action_s_rewards_are_those_of_pettingzoo(players: int) -> None:
    """The offender's ``illegal_reward``, the others' ``illegal_share`` under ``win``, as the
    PettingZoo environment gives them (docs/research.md, Rewards)."""
    env = PiepmatzEnv(players=players)
    offender = players - 1
    lost = env._step_with_illegal_action(State(), jnp.int32(offender))
    expected = [illegal_share("win", players)] * players
    expected[offender] = illegal_reward("win", players)
    assert np.asarray(lost.rewards).tolist() == pytest.approx(expected)


def test_an_id_outside_the_action_space_is_an_illegal_move() -> None:
    """Nothing can raise inside jit: -1 or 5000 end the game as an illegal move would, never
    read as a legal id (JAX would index -k from the end, 5000 as 2920)."""
    _, step = compiled(2, BATCH, quick=True)
    state = _batch(2)
    mask = np.asarray(state.legal_action_mask)
    legal = mask.argmax(axis=1).astype(np.int32)  # a legal id in each game
    mover = np.asarray(state.current_player)
    for outside in (legal - NUM_ACTIONS, legal + NUM_ACTIONS, np.full(BATCH, -1, np.int32)):
        actions = legal.copy()
        actions[0] = outside[0]
        after = step(state, actions, _keys(jax.random.PRNGKey(0)))
        assert np.asarray(after.terminated).tolist() == [True] + [False] * (BATCH - 1)
        assert float(after.rewards[0][mover[0]]) == -1.0


def test_step_without_a_key_says_why_it_needs_one() -> None:
    env = PiepmatzEnv(2)
    state = _batch(2)
    single = jax.tree.map(lambda x: x[0], state)
    with pytest.raises(ValueError, match="squirrel"):
        env.step(single, jnp.int32(0))


def test_the_environment_refuses_what_the_game_has_not() -> None:
    with pytest.raises(ValueError, match="2, 3 or 4 players"):
        PiepmatzEnv(5)
    with pytest.raises(ValueError, match="unknown rules preset"):
        PiepmatzEnv(2, "chess")


def test_a_deal_goes_to_the_core_card_for_card() -> None:
    state = _batch(2, seed=3)
    core = core_deal(state, Rules.preset("standard"), 1)
    again = state_from_json(state_to_json(core))  # the state format's own validation
    assert again.hands == core.hands
    assert core.first_player == int(state._game.first_player[1])
    assert [len(h) for h in core.hands] == [4, 4]
    assert len(core.removed_birds) == 12 and len(core.removed_feeder) == 5  # S2
    _, step = compiled(2, BATCH, quick=True)
    first = np.asarray(state.legal_action_mask).argmax(axis=1).astype(np.int32)
    played = step(state, first, _keys(jax.random.PRNGKey(0)))
    with pytest.raises(ValueError, match="only a deal"):
        core_deal(played, Rules.preset("standard"), 0)
