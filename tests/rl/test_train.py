"""PPO training: masked sampling, the player's view, seeded runs, and a run that improves."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from leaks import assert_view_only
from piepmatz.cli import main
from piepmatz.core.actions import NUM_ACTIONS
from piepmatz.core.state import State
from piepmatz.core.view import view_of
from piepmatz.envs.encoding import encode
from piepmatz.rl import ppo
from piepmatz.rl.curve import play_checkpoint, shares
from piepmatz.rl.policy import init_params, load_checkpoint, logits, save_checkpoint
from piepmatz.sim.stats import mean_interval

#: The improvement test, planned before it was run: this training, then the first and the final
#: policy each play the same 300 deals (600 games, seats rotated) against ``random``.
IMPROVEMENT = ppo.TrainConfig(
    steps=20_480,
    envs=8,
    rollout=64,
    hidden=(64,),
    learning_rate=1e-3,
    seed=1,
    eval_every=0,
    eval_games=2,
    eval_opponents=("random",),
)
IMPROVEMENT_GAMES = 600
IMPROVEMENT_DEALS_SEED = 2031


def _views(players: int, games: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = random.Random(seed)
    out = []
    for g in range(games):
        state = State.new_game(players, "standard", seed * 10 + g)
        while not state.is_over():
            mask = np.zeros(NUM_ACTIONS, np.int8)
            mask[state.legal_action_ids()] = 1
            out.append((encode(view_of(state, state.current_player)), mask))
            state.apply_id(rng.choice(state.legal_action_ids()))
    return out


@pytest.mark.slow
def test_a_short_seeded_run_beats_its_first_policy_against_random(tmp_path: Path) -> None:
    result = ppo.train(IMPROVEMENT, tmp_path)
    first = tmp_path / "step-000000000.npz"
    before = play_checkpoint(first, "random", IMPROVEMENT_GAMES, IMPROVEMENT_DEALS_SEED)
    after = play_checkpoint(result.final, "random", IMPROVEMENT_GAMES, IMPROVEMENT_DEALS_SEED)
    # Paired by deal: the same cards and seats before and after, so the deal's luck cancels.
    per_deal: dict[int, list[float]] = {}
    for game, b, a in zip(before, shares(before), shares(after), strict=True):
        per_deal.setdefault(game.deal, []).append(a - b)
    gain = mean_interval([sum(d) / len(d) for d in per_deal.values()])
    assert gain.n == IMPROVEMENT_GAMES // 2
    assert gain.low > 0, f"no clear improvement: {gain}"


def test_masked_actions_are_never_sampled() -> None:
    params = {k: jnp.asarray(v) for k, v in init_params([16], seed=0).items()}
    # The illegal actions get by far the largest raw logits: masking alone keeps them out.
    params["pi_b"] = params["pi_b"].at[:].set(50.0)
    obs, masks = (np.array(x) for x in zip(*_views(2, games=1, seed=3)[:32], strict=True))
    params["pi_b"] = params["pi_b"].at[np.flatnonzero(masks.any(axis=0))].set(-50.0)
    for k in range(20):
        action, logp, _ = ppo._act(params, obs, masks, jax.random.PRNGKey(k))
        assert all(masks[i, a] == 1 for i, a in enumerate(np.asarray(action)))
        assert np.all(np.isfinite(np.asarray(logp)))


def test_the_trainer_and_the_bot_compute_the_same_policy() -> None:
    params = init_params([32, 16], seed=2)
    params["pi_w"] *= 100.0
    obs, masks = (np.array(x) for x in zip(*_views(3, games=1, seed=4)[:64], strict=True))
    jax_logits, _ = ppo._forward({k: jnp.asarray(v) for k, v in params.items()}, obs)
    jax_masked = np.asarray(ppo._masked(jax_logits, masks))
    numpy_masked = logits(params, obs, masks)
    np.testing.assert_allclose(jax_masked, numpy_masked, rtol=1e-4, atol=1e-3)
    assert np.array_equal(jax_masked.argmax(axis=1), numpy_masked.argmax(axis=1))


@pytest.mark.parametrize("opponents", [("random",), ("self",)])
def test_the_learner_observes_its_players_view_only(opponents: tuple[str, ...]) -> None:
    config = ppo.TrainConfig(players=3, opponents=opponents, envs=2, hidden=(8,))
    snapshot = ppo.self_play_opponent()
    snapshot.params = init_params([8], seed=0)
    rng = random.Random(6)
    for i, env in enumerate(ppo.make_envs(config, snapshot)):
        obs, info = env.reset(seed=i)
        for _ in range(40):
            state = env._require_state()
            assert_view_only(obs["observation"], state, info["seat"], rng)
            legal = np.flatnonzero(obs["action_mask"])
            assert legal.tolist() == state.legal_action_ids()
            obs, _, done, _, info = env.step(int(rng.choice(legal.tolist())))
            if done:
                obs, info = env.reset()


def test_advantages_follow_the_rewards_and_stop_at_episode_ends() -> None:
    rewards = np.array([[0.0], [1.0], [0.0], [-1.0]], np.float32)
    values = np.array([[0.5], [0.5], [0.0], [0.0]], np.float32)
    dones = np.array([[0.0], [1.0], [0.0], [0.0]], np.float32)
    advantage, returns = ppo.gae(rewards, values, dones, np.array([2.0], np.float32), 1.0, 1.0)
    # gamma = lambda = 1: the return is the rest of the episode's reward (bootstrapped by the
    # last value when the rollout stops mid-episode); the first episode ends at step 1.
    assert returns[:, 0].tolist() == [1.0, 1.0, 1.0, 1.0]
    assert advantage[:, 0].tolist() == [0.5, 0.5, 1.0, 1.0]


TINY = [
    "--steps",
    "64",
    "--envs",
    "2",
    "--rollout",
    "32",
    "--hidden",
    "8",
    "--eval-games",
    "2",
    "--eval-against",
    "random",
    "--quiet",
]


def test_the_train_command_is_seeded_and_writes_checkpoints_and_the_curve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = []
    for name, seed in (("a", "5"), ("b", "5")):
        assert main(["train", "--out", str(tmp_path / name), "--seed", seed, *TINY]) == 0
        out = capsys.readouterr().out
        assert "step        64: win rate vs random" in out and "ppo:" in out
        assert "runs as" not in out  # 64 steps are whole updates
        runs.append(load_checkpoint(tmp_path / name / "final.npz"))
    # A second run into the same --out is refused, not written over.
    assert main(["train", "--out", str(tmp_path / "a"), "--seed", "6", *TINY]) == 2
    assert "holds another run's checkpoints" in capsys.readouterr().err
    assert load_checkpoint(tmp_path / "a" / "final.npz").meta["seed"] == 5
    a, b = runs
    assert a.meta["steps"] == 64 and a.meta["seed"] == 5 and a.hidden == [8]
    assert all(np.array_equal(a.params[k], b.params[k]) for k in a.params)
    # Trained: the policy moved away from its seeded start.
    assert not np.array_equal(a.params["pi_w"], init_params([8], seed=5)["pi_w"])
    curve = json.loads((tmp_path / "a" / "curve.json").read_text())
    assert [p["steps"] for p in curve] == [0, 64]
    assert curve[0]["rates"][0]["opponent"] == "random" and curve[0]["rates"][0]["games"] == 2
    assert (tmp_path / "a" / "curve.png").read_bytes()[:4] == b"\x89PNG"


def test_the_train_command_refuses_bad_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["train", "--out", str(tmp_path), "--opponents", "nobot", *TINY]) == 2
    err = capsys.readouterr().err
    assert err.startswith("piepmatz train: error: unknown bot 'nobot'")
    for bad in ("-0.1", "0", "nan"):
        with pytest.raises(SystemExit):
            main(["train", "--out", str(tmp_path), "--learning-rate", bad, *TINY])
        assert "--learning-rate must be more than 0" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_the_train_command_names_the_missing_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "jax", None)  # import jax now raises ModuleNotFoundError
    monkeypatch.delitem(sys.modules, "piepmatz.rl.ppo")
    assert main(["train", "--out", str(tmp_path), *TINY]) == 2
    err = capsys.readouterr().err
    assert (
        err == "piepmatz train: needs the 'rl' extra (jax is not installed): "
        "pip install 'piepmatz[rl]'\n"
    )


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_curve_marks_a_fair_share_for_the_player_count(
    players: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import matplotlib.axes

    from piepmatz.rl.curve import plot_curve

    lines: list[float] = []
    original = matplotlib.axes.Axes.axhline

    def axhline(self: Any, y: float = 0, *args: Any, **kwargs: Any) -> Any:
        lines.append(y)
        return original(self, y, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "axhline", axhline)
    point = {"steps": 10, "rates": [{"opponent": "random", "rate": 0.4, "low": 0.3, "high": 0.5}]}
    plot_curve([point], tmp_path / "curve.png", players=players)
    assert lines == [pytest.approx(1 / players)]


def test_the_train_command_says_when_steps_round_up_to_whole_updates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import piepmatz.rl.ppo

    def stop(*args: object, **kwargs: object) -> None:
        raise OSError("stopped before training")

    monkeypatch.setattr(piepmatz.rl.ppo, "train", stop)
    argv = ["train", "--out", str(tmp_path), *TINY, "--steps", "50"]
    assert main(argv) == 2  # the double stops it once the run's shape is said
    assert (
        "--steps 50 runs as 64: training updates on whole batches of --envs × --rollout (2 × 32)"
        in (capsys.readouterr().out)
    )


@pytest.mark.parametrize(("steps", "said"), [(64, True), (6400, False)])
def test_the_train_command_says_when_the_time_limit_stopped_it(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    steps: int,
    said: bool,
) -> None:
    import piepmatz.rl.ppo

    def trained(*args: object, **kwargs: object) -> ppo.TrainResult:
        return ppo.TrainResult(tmp_path / "final.npz", steps=steps, train_seconds=60.0)

    monkeypatch.setattr(piepmatz.rl.ppo, "train", trained)
    argv = ["train", "--out", str(tmp_path), *TINY, "--steps", "6400", "--minutes", "1"]
    assert main(argv) == 0
    line = f"training stopped at the time limit (--minutes 1) after {steps:,} of 6,400 steps"
    assert (line in capsys.readouterr().out) is said


def test_a_time_limit_stops_before_an_update_would_pass_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A run stops when one more update, as long as the last, would pass the limit.
    one_minute = ppo.TrainConfig(minutes=1)
    assert not ppo.out_of_time(one_minute, 50.0, 9.0) and ppo.out_of_time(one_minute, 50.0, 11.0)
    assert not ppo.out_of_time(ppo.TrainConfig(), 1e9, 1e9)  # no limit
    # 100 updates asked for, and a limit that the first update passes: it alone runs.
    argv = ["train", "--out", str(tmp_path), *TINY, "--steps", "6400", "--minutes", "0.00001"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "training stopped at the time limit (--minutes 1e-05) after 64 of 6,400 steps" in out
    assert "trained 64 steps" in out
    assert load_checkpoint(tmp_path / "final.npz").meta["steps"] == 64
    with pytest.raises(SystemExit):
        main(["train", "--out", str(tmp_path / "b"), *TINY, "--minutes", "0"])
    assert "--minutes must be more than 0" in capsys.readouterr().err


@pytest.mark.parametrize("players", [3, 4])
def test_the_curve_plays_the_checkpoint_in_one_seat_against_the_opponent_in_every_other(
    players: int, tmp_path: Path
) -> None:
    """So that its win rate compares with ``1 / players``, the fair share the curve marks."""
    config = ppo.TrainConfig(players=players, hidden=(8,))
    path = tmp_path / "first.npz"
    save_checkpoint(path, init_params(config.hidden, 0), ppo.checkpoint_meta(config, 0))
    results = play_checkpoint(path, "random", players, seed=5, players=players)
    assert len(results) == players  # one deal, the checkpoint in each seat once
    assert sorted(r.lineup.index(0) for r in results) == list(range(players))
    assert all(r.lineup.count(0) == 1 for r in results)
