"""PPO inside JIT (``piepmatz train --backend jax``): a run that learns, its checkpoint as a
bot, the league's pool, masked sampling and the advantages over the learner's own decisions.

One training run (:func:`run`, through the command) serves every test that needs one, so its
update compiles once: the module's tests share one xdist worker, which sets the run up once.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from piepmatz.bots import make_bot
from piepmatz.bots.base import decide
from piepmatz.cli import main
from piepmatz.core.actions import NUM_ACTIONS
from piepmatz.core.cards import FEEDER_EGGS
from piepmatz.core.rules import Rules
from piepmatz.core.scoring import score_state
from piepmatz.core.state import State
from piepmatz.core.view import view_of
from piepmatz.envs.encoding import encode
from piepmatz.envs.rewards import final_rewards
from piepmatz.jax.game import deal, rule_flags
from piepmatz.rl import league
from piepmatz.rl.curve import play_checkpoint, shares
from piepmatz.rl.policy import init_params, load_checkpoint
from piepmatz.rl.ppo import _forward
from piepmatz.sim.stats import mean_interval

#: The run: 32 games of two players (16 against random, 16 against a league of two snapshots)
#: for 16,384 of the learner's decisions, then the first and the final policy each play the same
#: 300 deals (600 games, seats swapped) against ``random``.
RUN = [
    "train",
    "--backend",
    "jax",
    "--steps",
    "16384",
    "--envs",
    "32",
    "--rollout",
    "32",
    "--league",
    "2",
    "--snapshot-every",
    "4",
    "--hidden",
    "64",
    "--seed",
    "3",
    "--eval-every",
    "0",
    "--eval-games",
    "2",
    "--eval-against",
    "random",
    "--quiet",
]
DEALS_GAMES = 600

pytestmark = pytest.mark.xdist_group("league")
DEALS_SEED = 4051


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("league")
    assert main([*RUN, "--out", str(out)]) == 0
    return out


def test_the_run_writes_checkpoints_and_the_curve(
    run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    final = load_checkpoint(run / "final.npz")
    assert final.meta["backend"] == "jax" and final.hidden == [64]
    assert final.meta["opponents"] == ["random", "self"] and final.meta["steps"] >= 16_384
    assert final.meta["options"]["league"] == 2
    curve = json.loads((run / "curve.json").read_text())
    assert [p["steps"] for p in curve] == [0, final.meta["steps"]]
    assert (run / "curve.png").read_bytes()[:4] == b"\x89PNG"
    # Trained: the policy moved away from its seeded start.
    assert not np.array_equal(final.params["pi_w"], init_params([64], seed=3)["pi_w"])


def test_a_short_run_beats_its_first_policy_against_random_on_fixed_deals(run: Path) -> None:
    before = play_checkpoint(run / "step-000000000.npz", "random", DEALS_GAMES, DEALS_SEED)
    after = play_checkpoint(run / "final.npz", "random", DEALS_GAMES, DEALS_SEED)
    # Paired by deal: the same cards and seats before and after, so the deal's luck cancels.
    per_deal: dict[int, list[float]] = {}
    for game, b, a in zip(before, shares(before), shares(after), strict=True):
        per_deal.setdefault(game.deal, []).append(a - b)
    gain = mean_interval([sum(d) / len(d) for d in per_deal.values()])
    assert gain.n == DEALS_GAMES // 2
    assert gain.low > 0, f"no clear improvement: {gain}"


def _positions(players: int, games: int, seed: int) -> list[State]:
    rng = random.Random(seed)
    out = []
    for g in range(games):
        state = State.new_game(players, "standard", seed * 100 + g)
        while not state.is_over():
            out.append(state.copy())
            state.apply_id(rng.choice(state.legal_action_ids()))
    return out


def test_the_checkpoint_plays_as_a_bot_what_the_learner_would_play(run: Path) -> None:
    path = run / "final.npz"
    bot = make_bot(f"ppo:{path}")
    params = {k: jnp.asarray(v) for k, v in load_checkpoint(path).params.items()}
    for state in _positions(2, games=2, seed=8):
        p = state.current_player
        view, legal = view_of(state, p), state.legal_action_ids()
        chosen = decide(bot, view, legal, random.Random(0))  # refuses an illegal move
        mask = np.zeros((1, NUM_ACTIONS), bool)
        mask[0, legal] = True
        # The trainer's network in JAX, on the player's observation: its most likely move.
        raw, _ = _forward(params, jnp.asarray(encode(view)[None, :]))
        assert chosen == int(np.argmax(np.where(mask, np.asarray(raw), -np.inf)))


def test_the_pool_keeps_the_newest_snapshot_and_a_uniform_sample_of_the_older() -> None:
    slots, snapshots, trials = 4, 12, 3000
    params = {"pi_b": jnp.zeros(1)}

    def fill(key: jax.Array) -> jax.Array:
        def add(s: jax.Array, pool: league.Pool) -> league.Pool:  # snapshot s has the value s
            snapshot = {"pi_b": jnp.full(1, s, jnp.float32)}
            return league.add_snapshot(pool, snapshot, jax.random.fold_in(key, s))

        pool = jax.lax.fori_loop(1, snapshots + 1, add, league.new_pool(params, slots))
        return pool.params["pi_b"][:, 0]

    held = np.asarray(jax.jit(jax.vmap(fill))(jax.random.split(jax.random.PRNGKey(0), trials)))
    assert (held[:, 0] == snapshots).all()  # slot 0: the newest
    past = held[:, 1:]
    # The others: three distinct older snapshots; the first policy (0) is gone by now.
    assert ((past >= 1) & (past < snapshots)).all()
    assert all(len(set(row)) == slots - 1 for row in past.tolist())
    # Each of the 11 older snapshots is held in 3 of 11 pools, whatever its age.
    share = [(past == s).any(axis=1).mean() for s in range(1, snapshots)]
    assert max(abs(x - 3 / 11) for x in share) < 0.04, share


def test_the_pool_starts_as_the_first_policy_and_fills_in_order() -> None:
    pool = league.new_pool({"pi_b": jnp.zeros(2)}, 3)
    add = jax.jit(league.add_snapshot)
    for s in (1, 2, 3):
        pool = add(pool, {"pi_b": jnp.full(2, float(s))}, jax.random.PRNGKey(s))
    assert np.asarray(pool.params["pi_b"][:, 0]).tolist() == [3.0, 1.0, 2.0]
    assert int(pool.added) == 3


def test_sampling_never_picks_a_masked_action_and_follows_the_policy() -> None:
    rows = 4000
    rng = np.random.default_rng(1)
    mask = rng.random((rows, NUM_ACTIONS)) < 0.01
    mask[:, 2900] |= True  # a legal action in the last, partial block
    mask[:50] = False
    mask[:50, 7] = True  # only one legal action
    # The masked actions get by far the largest logits: masking alone keeps them out.
    raw = np.where(mask, rng.normal(size=mask.shape), 50.0).astype(np.float32)
    action, logp = jax.jit(league.sample)(jax.random.PRNGKey(2), jnp.asarray(raw), mask)
    action, logp = np.asarray(action), np.asarray(logp)
    assert mask[np.arange(rows), action].all()
    assert (action[:50] == 7).all() and np.allclose(logp[:50], 0.0)
    # One policy, many draws: the frequencies are its probabilities.
    row = np.full(NUM_ACTIONS, -np.inf, np.float32)
    chosen = {3: 0.0, 64: 1.0, 1000: 0.5, 2900: -0.5}  # across blocks
    row[list(chosen)] = list(chosen.values())
    p = np.exp(list(chosen.values())) / np.exp(list(chosen.values())).sum()
    draws = 10_000
    legal = np.isfinite(row)[None, :].repeat(draws, axis=0)
    logits_ = np.where(legal, row[None, :], 0.0)
    picked, logp = jax.jit(league.sample)(jax.random.PRNGKey(3), jnp.asarray(logits_), legal)
    counts = np.array([(np.asarray(picked) == a).sum() for a in chosen])
    assert counts.sum() == draws
    assert np.abs(counts / draws - p).max() < 0.02
    assert np.allclose(
        np.exp(np.asarray(logp)[:10]),
        p[[list(chosen).index(a) for a in np.asarray(picked)[:10]]],
        atol=1e-5,
    )


def test_advantages_run_over_the_learners_own_decisions() -> None:
    # One game slot, five steps: the learner decides at 0 and 2, the opponent at 1, 3 and 4;
    # the game ends with step 3 (the learner wins, +1), and a new game's step 4 follows.
    mine = np.array([1, 0, 1, 0, 0], bool)
    reward = np.array([0.0, 0.0, 0.0, 1.0, 0.0], np.float32)
    done = np.array([0, 0, 0, 1, 0], bool)
    value = np.array([0.2, 9.0, 0.5, 9.0, 9.0], np.float32)  # 9: not the learner's
    t = league.Transition(
        observation=jnp.zeros((5, 1)),
        mask=jnp.zeros((5, 1)),
        action=jnp.zeros((5, 1), jnp.int32),
        logp=jnp.zeros((5, 1)),
        value=jnp.asarray(value)[:, None],
        reward=jnp.asarray(reward)[:, None],
        won=jnp.asarray(reward)[:, None],
        done=jnp.asarray(done)[:, None],
        mine=jnp.asarray(mine)[:, None],
    )
    advantage, returns = league.league_gae(t, jnp.array([7.0]), gamma=1.0, lam=1.0)
    # gamma = lambda = 1: each decision's return is the rest of its game's reward for the
    # learner, the opponent's steps included, and never the next game's value (7).
    assert np.asarray(returns)[:, 0].tolist() == [1.0, 0.0, 1.0, 0.0, 0.0]
    assert np.allclose(np.asarray(advantage)[:, 0], [0.8, 0.0, 0.5, 0.0, 0.0])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_shaping_lead_is_the_cores_margin_at_the_end_and_zero_at_a_deal(
    players: int,
) -> None:
    # Games played out in the core; their collections and seeds put into a JAX deal: the lead
    # of every seat is the core's margin reward, so the shaping a game pays sums to it.
    flags = jnp.array(rule_flags(Rules.parse("standard")))
    # Compiled once each: run op by op, every step of the deal and the scoring compiles alone.
    dealt, lead = jax.jit(deal, static_argnums=1), jax.jit(league.lead)
    games, margins = [], []
    for seed in range(4):
        core = State.new_game(players=players, seed=seed)
        rng = random.Random(seed)
        while not core.is_over():
            core.apply_id(rng.choice(core.legal_action_ids()))
        margins.append(final_rewards(score_state(core), "margin"))
        game = dealt(jax.random.PRNGKey(seed), players, flags)
        assert np.all(np.asarray(lead(jax.tree.map(lambda x: x[None], game), jnp.arange(1))) == 0)
        seeds = np.zeros((players, 3), np.int32)
        for p in range(players):
            for card in core.seeds_seen[p] + core.seeds_blind[p]:
                seeds[p, FEEDER_EGGS[card] - 1] += 1
        collection = np.zeros((players, 72), bool)
        for p, birds in enumerate(core.collections):
            collection[p, birds] = True
        games.append(
            game._replace(
                collection=jnp.asarray(collection),
                seen=jnp.asarray(seeds),
                blind=jnp.zeros_like(game.blind),
            )
        )
    batch = jax.tree.map(lambda *x: jnp.stack(x), *games)
    for seat in range(players):
        got = np.asarray(lead(batch, jnp.full(len(games), seat)))
        assert got.tolist() == [m[seat] for m in margins]


def test_the_jax_backend_refuses_what_it_cannot_train(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["train", "--out", str(tmp_path), "--quiet", "--eval-games", "2"]
    assert main([*base, "--backend", "jax", "--opponents", "random", "easy"]) == 2
    err = capsys.readouterr().err
    assert "the jax backend trains against 'random' and 'self'" in err and "'easy'" in err
    assert main([*base, "--backend", "jax", "--envs", "100", "--league", "8"]) == 2
    assert "must divide into equal blocks for the 8 snapshots" in capsys.readouterr().err
    assert main([*base, "--league", "4"]) == 2
    assert "--shaping are options of --backend jax" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_the_jax_backend_names_the_missing_extras(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pgx", None)  # import pgx now raises ModuleNotFoundError
    for name in [m for m in sys.modules if m.startswith(("piepmatz.jax", "piepmatz.rl.league"))]:
        monkeypatch.delitem(sys.modules, name)
    assert main(["train", "--backend", "jax", "--out", str(tmp_path), "--quiet"]) == 2
    assert capsys.readouterr().err == (
        "piepmatz train: needs the 'rl' and 'jax' extras (pgx is not installed): "
        "pip install 'piepmatz[rl,jax]'\n"
    )
    assert not any(tmp_path.iterdir())
