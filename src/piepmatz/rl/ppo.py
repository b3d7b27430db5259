"""PPO with action masking on the Gymnasium environment, in JAX and Optax (CleanRL's recipe).

The learner plays one seat of ``Piepmatz-v0`` (a random seat each episode) against bots, or
against itself (``self``: the opponent samples from the latest policy, refreshed every update).
Each update collects ``rollout`` steps from each of ``envs`` environments, computes advantages
with GAE, and runs ``epochs`` passes of clipped-objective minibatch updates. Illegal actions get
the logit ``MASKED`` before sampling and in the loss, so they are never sampled and carry no
probability. Every ``eval_every`` steps the policy is saved (:mod:`piepmatz.rl.policy`) and that
file plays fixed deals against the evaluation bots: the learning curve.

JAX runs on its default device: the CPU here, an accelerator when a JAX build for one is
installed; nothing in this file names a device.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import optax

from piepmatz.bots import make_bot
from piepmatz.bots.base import derive_seed
from piepmatz.core.actions import NUM_ACTIONS
from piepmatz.envs.gymnasium import PiepmatzEnv

from .curve import play_checkpoint, plot_curve, win_rate, write_curve
from .policy import (
    INPUT_SCALE,
    MASKED,
    PolicyBot,
    init_params,
    one_blas_thread,
    save_checkpoint,
)

SELF = "self"


@dataclass(frozen=True)
class TrainConfig:
    """Everything a training run depends on: the same config gives the same run on one device."""

    #: Which trainer runs it (``piepmatz train --backend``), recorded in the checkpoints.
    BACKEND: ClassVar[str] = "python"

    players: int = 2
    preset: str = "standard"
    #: Bot specs (or ``self``), assigned to the environments in turn.
    opponents: tuple[str, ...] = ("random",)
    #: Learner steps (its own decisions; the opponents' moves are not counted).
    steps: int = 100_000
    envs: int = 8
    rollout: int = 128
    epochs: int = 4
    minibatches: int = 4
    #: One hidden layer of 64 learned faster per step and per second than (256, 256) in the
    #: short runs that were compared (docs/research.md).
    hidden: tuple[int, ...] = (64,)
    learning_rate: float = 1e-3
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    entropy: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 0.5
    seed: int = 0
    #: Save and evaluate every this many steps (0: only at the start and the end).
    eval_every: int = 20_000
    eval_games: int = 200
    eval_opponents: tuple[str, ...] = ("random", "easy", "medium")
    #: The seed of the evaluation deals: the same deals at every point of the curve.
    eval_seed: int = 1
    #: Stop before an update that, as long as the last one, would pass this many minutes of
    #: training (evaluations not counted), even before ``steps``; 0: no limit. The first
    #: update always runs.
    minutes: float = 0.0

    def __post_init__(self) -> None:
        for name in ("steps", "envs", "rollout", "epochs", "minibatches", "eval_games"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ValueError(f"{name} must be a positive whole number, not {value!r}")
        if (self.envs * self.rollout) % self.minibatches:
            raise ValueError(
                f"envs × rollout ({self.envs * self.rollout}) must divide into "
                f"{self.minibatches} minibatches"
            )
        if type(self.eval_every) is not int or self.eval_every < 0:
            raise ValueError(f"eval_every must be 0 or more steps, not {self.eval_every!r}")
        if not self.opponents:
            raise ValueError("name at least one opponent (a bot spec or 'self')")
        for spec in (*self.opponents, *self.eval_opponents):
            if spec != SELF:
                make_bot(spec)  # an unknown bot raises ValueError naming the known ones
        if not (math.isfinite(self.minutes) and self.minutes >= 0):
            raise ValueError(f"minutes must be 0 (no limit) or more, not {self.minutes!r}")
        if not (math.isfinite(self.learning_rate) and self.learning_rate > 0):
            raise ValueError(f"learning_rate must be more than 0, not {self.learning_rate!r}")
        if not self.hidden or not all(type(h) is int and h > 0 for h in self.hidden):
            raise ValueError(f"hidden layer widths must be positive, not {self.hidden!r}")

    @property
    def batch(self) -> int:
        return self.envs * self.rollout

    @property
    def updates(self) -> int:
        return math.ceil(self.steps / self.batch)


@dataclass
class TrainResult:
    final: Path
    #: One point per evaluation: steps, seconds of training, the win rates.
    curve: list[dict[str, Any]] = field(default_factory=list)
    steps: int = 0
    #: Wall seconds spent collecting and learning (evaluation excluded).
    train_seconds: float = 0.0

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.train_seconds if self.train_seconds else 0.0


# ---------------------------------------------------------------------------- the network


def _forward(params: dict[str, jax.Array], obs: jax.Array) -> tuple[jax.Array, jax.Array]:
    x = obs.astype(jnp.float32) * jnp.asarray(INPUT_SCALE)
    k = 0
    while f"w{k}" in params:
        x = jnp.tanh(x @ params[f"w{k}"] + params[f"b{k}"])
        k += 1
    return x @ params["pi_w"] + params["pi_b"], (x @ params["v_w"] + params["v_b"])[:, 0]


def _masked(logits_: jax.Array, mask: jax.Array) -> jax.Array:
    return jnp.where(mask.astype(bool), logits_, MASKED)


@jax.jit
def _act(
    params: dict[str, jax.Array], obs: jax.Array, mask: jax.Array, key: jax.Array
) -> tuple[jax.Array, jax.Array, jax.Array]:
    raw, value = _forward(params, obs)
    masked = _masked(raw, mask)
    action = jax.random.categorical(key, masked)
    logp = jnp.take_along_axis(jax.nn.log_softmax(masked), action[:, None], axis=1)[:, 0]
    return action, logp, value


@jax.jit
def _value(params: dict[str, jax.Array], obs: jax.Array) -> jax.Array:
    return _forward(params, obs)[1]


def _loss(
    params: dict[str, jax.Array], batch: dict[str, jax.Array], config: TrainConfig
) -> tuple[jax.Array, dict[str, jax.Array]]:
    raw, value = _forward(params, batch["obs"])
    logp_all = jax.nn.log_softmax(_masked(raw, batch["mask"]))
    logp = jnp.take_along_axis(logp_all, batch["action"][:, None], axis=1)[:, 0]
    ratio = jnp.exp(logp - batch["logp"])
    adv = batch["advantage"]
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    clipped = jnp.clip(ratio, 1 - config.clip, 1 + config.clip)
    policy_loss = -jnp.minimum(ratio * adv, clipped * adv).mean()
    value_loss = 0.5 * ((value - batch["returns"]) ** 2).mean()
    # Masked entries have probability exactly 0, so they add 0 * MASKED = 0 here.
    entropy = -(jnp.exp(logp_all) * logp_all).sum(axis=1).mean()
    total = policy_loss + config.value_coef * value_loss - config.entropy * entropy
    return total, {"policy": policy_loss, "value": value_loss, "entropy": entropy}


@functools.lru_cache(maxsize=4)
def _make_update(config: TrainConfig) -> tuple[optax.GradientTransformation, Callable[..., Any]]:
    """The optimiser and the jitted update of one config (cached: a second run with the same
    config does not compile again)."""
    tx = optax.chain(
        optax.clip_by_global_norm(config.max_grad_norm),
        optax.adam(config.learning_rate, eps=1e-5),
    )
    size = config.batch // config.minibatches

    def loss(params: Any, batch: dict[str, jax.Array]) -> Any:
        return _loss(params, batch, config)

    def minibatch(carry: Any, indices: jax.Array) -> tuple[Any, dict[str, jax.Array]]:
        params, opt_state, batch = carry
        part = {name: value[indices] for name, value in batch.items()}
        grads, stats = jax.grad(loss, has_aux=True)(params, part)
        updates, opt_state = tx.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state, batch), stats

    def epoch(carry: Any, key: jax.Array) -> tuple[Any, dict[str, jax.Array]]:
        order = jax.random.permutation(key, config.batch).reshape(config.minibatches, size)
        return jax.lax.scan(minibatch, carry, order)

    @jax.jit
    def update(params: Any, opt_state: Any, batch: dict[str, jax.Array], key: jax.Array) -> Any:
        keys = jax.random.split(key, config.epochs)
        (params, opt_state, _), stats = jax.lax.scan(epoch, (params, opt_state, batch), keys)
        return params, opt_state, jax.tree.map(jnp.mean, stats)

    return tx, update


# ---------------------------------------------------------------------------- training


def self_play_opponent() -> PolicyBot:
    """The opponent of ``self``-play: it samples its moves, from its own view like every bot,
    from a copy of the learner's policy that ``train`` replaces after every update."""
    return PolicyBot({}, SELF, sample=True)


def make_envs(config: TrainConfig, snapshot: PolicyBot) -> list[PiepmatzEnv]:
    """The environments, each seeded from the run's seed; opponents assigned in turn."""
    envs = []
    for i in range(config.envs):
        spec = config.opponents[i % len(config.opponents)]
        env = PiepmatzEnv(
            players=config.players,
            preset=config.preset,
            seat=None,
            opponents="random" if spec == SELF else spec,
        )
        if spec == SELF:
            env.opponents = [snapshot] * (config.players - 1)
        envs.append(env)
    return envs


def checkpoint_meta(config: TrainConfig, steps: int) -> dict[str, Any]:
    options = asdict(config)
    return {
        "hidden": list(config.hidden),
        "players": config.players,
        "preset": config.preset,
        "opponents": list(config.opponents),
        "seed": config.seed,
        "steps": steps,
        "backend": config.BACKEND,
        "options": options,
    }


def train(
    config: TrainConfig,
    out: str | Path,
    progress: bool = False,
    report: Callable[[str], None] | None = None,
) -> TrainResult:
    """Train, writing ``step-NNNNNNNNN.npz`` checkpoints, ``final.npz``, ``curve.json`` and
    ``curve.png`` into the directory ``out``; returns the curve and the speed."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    key = jax.random.PRNGKey(config.seed)
    one_blas_thread()
    params = {k: jnp.asarray(v) for k, v in init_params(config.hidden, config.seed).items()}
    tx, update = _make_update(config)
    opt_state = tx.init(params)
    snapshot = self_play_opponent()
    snapshot.params = {k: np.asarray(v) for k, v in params.items()}
    envs = make_envs(config, snapshot)
    observations = [
        env.reset(seed=derive_seed(config.seed, "env", i))[0] for i, env in enumerate(envs)
    ]
    n, t_max = config.envs, config.rollout
    buffers = {
        "obs": np.zeros((t_max, n, observations[0]["observation"].size), np.int8),
        "mask": np.zeros((t_max, n, NUM_ACTIONS), np.int8),
        "action": np.zeros((t_max, n), np.int32),
        "logp": np.zeros((t_max, n), np.float32),
        "value": np.zeros((t_max, n), np.float32),
        "reward": np.zeros((t_max, n), np.float32),
        "done": np.zeros((t_max, n), np.float32),
    }
    result = TrainResult(final=folder / "final.npz")
    bar = _progress(config.updates * config.batch, progress)
    wins: list[float] = []
    next_eval: float = 0
    steps = 0
    try:
        for _ in range(config.updates):
            if steps >= next_eval:
                result.curve.append(_evaluate(config, folder, params, steps, result.train_seconds))
                if report:
                    report(_describe(result.curve[-1]))
                next_eval = steps + config.eval_every if config.eval_every else math.inf
            started = time.perf_counter()
            for t in range(t_max):
                obs = np.stack([o["observation"] for o in observations])
                mask = np.stack([o["action_mask"] for o in observations])
                key, sub = jax.random.split(key)
                action, logp, value = jax.device_get(_act(params, obs, mask, sub))
                buffers["obs"][t], buffers["mask"][t] = obs, mask
                buffers["action"][t], buffers["logp"][t], buffers["value"][t] = action, logp, value
                for i, env in enumerate(envs):
                    o, reward, terminated, truncated, _ = env.step(int(action[i]))
                    done = terminated or truncated
                    buffers["reward"][t, i] = reward
                    buffers["done"][t, i] = done
                    if done:
                        wins.append(1.0 if reward > 0 else 0.5 if reward == 0 else 0.0)
                        o, _ = env.reset()
                    observations[i] = o
            last = np.asarray(_value(params, np.stack([o["observation"] for o in observations])))
            advantage, returns = gae(
                buffers["reward"],
                buffers["value"],
                buffers["done"],
                last,
                config.gamma,
                config.gae_lambda,
            )
            batch = {
                "obs": buffers["obs"].reshape(config.batch, -1),
                "mask": buffers["mask"].reshape(config.batch, -1),
                "action": buffers["action"].reshape(-1),
                "logp": buffers["logp"].reshape(-1),
                "advantage": advantage.reshape(-1),
                "returns": returns.reshape(-1),
            }
            key, sub = jax.random.split(key)
            params, opt_state, stats = update(params, opt_state, batch, sub)
            snapshot.params = {k: np.asarray(v) for k, v in params.items()}
            steps += config.batch
            took = time.perf_counter() - started
            result.train_seconds += took
            if bar is not None:
                recent = wins[-200:]
                bar.update(config.batch)
                bar.set_postfix(
                    win=f"{sum(recent) / len(recent):.2f}" if recent else "-",
                    entropy=f"{float(stats['entropy']):.2f}",
                    sps=f"{steps / result.train_seconds:.0f}",
                )
            if out_of_time(config, result.train_seconds, took):
                break
    finally:
        if bar is not None:
            bar.close()
    finish(
        config,
        folder,
        result,
        params,
        steps,
        report,
        f"PPO, {config.players} players, trained against {', '.join(config.opponents)}",
    )
    return result


def finish(
    config: TrainConfig,
    folder: Path,
    result: TrainResult,
    params: Any,
    steps: int,
    report: Callable[[str], None] | None,
    title: str,
) -> None:
    """The end of a run, whichever trainer made it: the last point of the curve, ``final.npz``,
    ``curve.json`` and ``curve.png``."""
    result.steps = steps
    result.curve.append(_evaluate(config, folder, params, steps, result.train_seconds))
    if report:
        report(_describe(result.curve[-1]))
    save_checkpoint(result.final, params, checkpoint_meta(config, steps))
    write_curve(result.curve, folder / "curve.json")
    plot_curve(result.curve, folder / "curve.png", title, players=config.players)


def out_of_time(config: TrainConfig, seconds: float, update: float = 0.0) -> bool:
    """Whether a run that has trained ``seconds`` stops: another update as long as the last
    one (``update`` seconds) would take it past its ``minutes``."""
    return bool(config.minutes) and seconds + update > 60 * config.minutes


def gae(
    rewards: np.ndarray[Any, Any],
    values: np.ndarray[Any, Any],
    dones: np.ndarray[Any, Any],
    last_value: np.ndarray[Any, Any],
    gamma: float,
    lam: float,
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Generalised advantage estimates and returns of a rollout (``[time, env]`` arrays);
    ``dones[t]`` marks an episode that ended with step ``t`` (no bootstrap across it)."""
    advantage = np.zeros_like(rewards)
    running = np.zeros_like(last_value)
    next_value = last_value
    for t in range(rewards.shape[0] - 1, -1, -1):
        alive = 1.0 - dones[t]
        delta = rewards[t] + gamma * next_value * alive - values[t]
        running = delta + gamma * lam * alive * running
        advantage[t] = running
        next_value = values[t]
    return advantage, advantage + values


def _evaluate(
    config: TrainConfig, folder: Path, params: dict[str, jax.Array], steps: int, seconds: float
) -> dict[str, Any]:
    path = folder / f"step-{steps:09d}.npz"
    save_checkpoint(path, params, checkpoint_meta(config, steps))
    rates = [
        win_rate(
            opponent,
            play_checkpoint(
                path, opponent, config.eval_games, config.eval_seed, config.players, config.preset
            ),
        ).to_json()
        for opponent in config.eval_opponents
    ]
    return {
        "steps": steps,
        "train_seconds": round(seconds, 2),
        "checkpoint": path.name,
        "rates": rates,
    }


def _describe(point: dict[str, Any]) -> str:
    parts = [
        f"{r['opponent']} {100 * r['rate']:.1f} % [{100 * r['low']:.1f}, {100 * r['high']:.1f}]"
        for r in point["rates"]
    ]
    return f"step {point['steps']:>9,}: win rate vs " + ", ".join(parts)


def _progress(total: int, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="step", desc="train", dynamic_ncols=True)
