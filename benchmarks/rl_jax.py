"""PPO inside JIT (``piepmatz train --backend jax``) beside the Python trainer: learner steps per
second, where a step's time goes, and what a short run of a fixed length learns.

1. **Speed** (``speed``): learner steps (the learner's own decisions) per second of each backend
   with its default batch, two players: the jax backend over ``UPDATES`` updates after the one
   that compiles, the Python trainer (``random`` opponents) over ``PYTHON_STEPS`` steps. Wall
   seconds and CPU seconds of this process (all its threads).
2. **Parts** (``parts``): microseconds per game of each piece of one decision of the jax
   backend's rollout, and the rollout against the learning in an update.
3. **A short run** (``run``): ``--steps`` learner steps of the jax backend (the Python
   trainer's network and the win reward alone, as in ``speed``; seed 0, fixed before the run),
   then the first and the final policy against ``random`` and ``easy`` on the same fixed deals
   (``--games`` each, seats swapped)::

    python benchmarks/rl_jax.py speed
    python benchmarks/rl_jax.py parts
    python benchmarks/rl_jax.py run --out /tmp/rl-jax [--steps 600000] [--games 400]
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from piepmatz.rl import league
from piepmatz.rl.curve import play_checkpoint, win_rate
from piepmatz.rl.ppo import TrainConfig, _forward, train

UPDATES = 3
PYTHON_STEPS = 8_192
DEALS_SEED = 31_000


def _timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = jax.block_until_ready(fn())
    return out, time.perf_counter() - wall, time.process_time() - cpu


#: The Python trainer's network and reward, so that both backends are timed on the same work
#: (the jax backend's own defaults are a wider network and the lead's shaping).
SAME_WORK: dict[str, Any] = {"hidden": TrainConfig.hidden, "shaping": 0.0}


def speed(players: int) -> None:
    config = league.LeagueConfig(players=players, **SAME_WORK)
    update = league.make_trainer(config).update
    learner = league.start(config)
    (learner, _), compile_wall, _ = _timed(lambda: update(learner))
    steps = wall = cpu = 0.0
    for _ in range(UPDATES):
        (learner, figures), w, c = _timed(functools.partial(update, learner))
        steps += int(figures["steps"])
        wall, cpu = wall + w, cpu + c
    print(
        f"jax backend, {players} players, {config.envs} games × {config.rollout} steps an "
        f"update: {steps / wall:,.0f} learner steps/s wall, {steps / cpu:,.0f} per CPU second "
        f"({steps:,.0f} steps in {UPDATES} updates; the first update, compiling, "
        f"{compile_wall:.0f} s)",
        flush=True,
    )
    python = TrainConfig(
        players=players, steps=PYTHON_STEPS, eval_every=0, eval_games=2, eval_opponents=("random",)
    )
    with tempfile.TemporaryDirectory() as out:
        cpu0 = time.process_time()
        result = train(python, out)
        cpu = time.process_time() - cpu0
    print(
        f"python backend, {players} players, {python.envs} environments × {python.rollout} "
        f"steps an update: {result.steps_per_second:,.0f} learner steps/s wall "
        f"({result.steps:,} steps; CPU seconds of the whole run, evaluation included: "
        f"{result.steps / cpu:,.0f} steps per CPU second at least)",
        flush=True,
    )


def parts(players: int) -> None:
    config = league.LeagueConfig(players=players, **SAME_WORK)
    env = league.environment(config)
    n = config.envs
    trainer = league.make_trainer(config)
    learner = league.start(config)
    collect, improve = jax.jit(trainer.collect), jax.jit(trainer.improve)
    # Positions of games under way: a rollout of the first policy.
    learner, t = collect(learner)
    state, key = learner.games.state, jax.random.PRNGKey(0)
    obs, mask = state.observation, state.legal_action_mask
    actions = league.sample(key, jnp.zeros(mask.shape), mask)[0]
    pieces: list[tuple[str, Callable[..., Any], tuple[Any, ...]]] = [
        ("the learner's network (every game)", lambda p, o: _forward(p, o), (learner.params, obs)),
        (
            "the league's networks (its games)",
            lambda p, o: league.league_logits(p, o[config.random_envs :]),
            (learner.pool.params, obs),
        ),
        ("sampling a legal action", league.sample, (key, jnp.zeros(mask.shape), mask)),
        (
            "jnp.cumsum over the action ids (not used)",
            lambda x: jnp.cumsum(x, axis=-1),
            (jnp.zeros(mask.shape),),
        ),
        (
            "jax.random.categorical (not used)",
            lambda k, x: jax.random.categorical(k, x),
            (key, jnp.zeros(mask.shape)),
        ),
        (
            "the game's step (pgx's, with the observation)",
            lambda s, a, k: jax.vmap(env.step)(s, a, jax.random.split(k, n)),
            (state, actions, key),
        ),
        (
            "a new deal for every game (the reset)",
            lambda k: league.new_games(env, k, n),
            (key,),
        ),
    ]
    print(f"one decision of {n} games, {players} players (µs per game, best of 5):")
    for name, fn, args in pieces:
        compiled = jax.jit(fn)
        jax.block_until_ready(compiled(*args))
        best = min(_timed(functools.partial(compiled, *args))[2] for _ in range(5))
        print(f"  {name:<48} {best / n * 1e6:7.1f}", flush=True)
    jax.block_until_ready(improve(learner, t))
    (_, t), _, rollout = _timed(lambda: collect(learner))
    (_, figures), _, learning = _timed(lambda: improve(learner, t))
    steps = int(figures["steps"])
    print(
        f"an update ({n} games × {config.rollout} steps, {steps:,} of them the learner's): "
        f"the rollout {rollout:.2f} CPU s, the learning ({config.epochs} epochs) "
        f"{learning:.2f} CPU s",
        flush=True,
    )


def run(out: str, steps: int, games: int) -> None:
    config = league.LeagueConfig(
        steps=steps, eval_every=0, eval_games=2, eval_opponents=("random",), **SAME_WORK
    )
    result = league.train(config, out, report=lambda s: print(s, flush=True))
    print(
        f"trained {result.steps:,} learner steps in {result.train_seconds:.0f} s "
        f"({result.steps_per_second:,.0f}/s wall, compiling included)",
        flush=True,
    )
    first = os.path.join(out, "step-000000000.npz")
    for label, path in (("first", first), ("final", str(result.final))):
        for opponent in ("random", "easy"):
            rate = win_rate(opponent, play_checkpoint(path, opponent, games, DEALS_SEED))
            low, high = rate.interval
            print(
                f"  {label} policy vs {opponent:<7} {100 * rate.rate:5.1f} % "
                f"[{100 * low:.1f}, {100 * high:.1f}] of {rate.games} (deals seed {DEALS_SEED})",
                flush=True,
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("speed", "parts", "run"))
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--out", help="run: the directory for the checkpoints")
    parser.add_argument("--steps", type=int, default=600_000)
    parser.add_argument("--games", type=int, default=400)
    args = parser.parse_args()
    print(
        f"JAX {jax.__version__} on {jax.devices()}, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()}",
        flush=True,
    )
    if args.what == "speed":
        speed(args.players)
    elif args.what == "parts":
        parts(args.players)
    else:
        if not args.out:
            parser.error("run needs --out")
        run(args.out, args.steps, args.games)
    return 0


if __name__ == "__main__":
    sys.exit(main())
