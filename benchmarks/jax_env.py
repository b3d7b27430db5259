"""The JAX environment's speed: steps per second at batch 1, 64, 1,024 and 4,096, beside the
PettingZoo ``raw_env`` of the same game and pgx's own backgammon, Leduc hold'em and Gardner
chess as anchors, all in one run with the same random-legal-move loop.

Each environment plays its batch inside one compiled function (``lax.scan`` over the steps):
a random legal action per game (:func:`random_legal`, the same for every game), ``step``, and
pgx's ``auto_reset`` (a finished game is dealt
again; the deal is part of every step's cost). The sample sizes are fixed in advance
(``STEPS``: steps per game slot; ``REPEATS`` timed runs after a first run that compiles), and
the best run is printed, in wall-clock steps per second and in steps per CPU second of this
process (all its threads). The PettingZoo loop is benchmarks/envs.py's (random legal moves,
one observation per turn) for a fixed number of turns.

``--parts`` times the pieces of a Piepmatz step on a batch of positions from random games:
where the step's time goes.

    python benchmarks/jax_env.py [--players 2 3 4] [--batches 1 64 1024 4096] [--parts]
                                 [--no-anchors]
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

#: Steps per game slot in each timed run, by batch size (fixed before measuring).
STEPS = {1: 2_000, 64: 500, 1024: 60, 4096: 20}
REPEATS = 3
#: PettingZoo turns per timed run.
TURNS = 20_000


def random_legal(key: jax.Array, mask: jax.Array) -> jax.Array:
    """A random legal action per row of ``mask``: the legal action with the largest of
    pseudo-random priorities, each a hash (MurmurHash3's finaliser) of the action id and one
    random seed per row. Each legal action is about equally likely; the exact ways (a running
    count over the mask, or a random number per action from JAX's generator) cost two to ten
    times the game's own step on a CPU with 2,921 actions."""
    seed = jax.random.bits(key, (mask.shape[0], 1), jnp.uint32)
    x = jnp.arange(mask.shape[1], dtype=jnp.uint32)[None, :] * jnp.uint32(0x9E3779B1) + seed
    x = (x ^ (x >> 16)) * jnp.uint32(0x85EBCA6B)
    x = (x ^ (x >> 13)) * jnp.uint32(0xC2B2AE35)
    x = x ^ (x >> 16)
    return jnp.argmax(jnp.where(mask, x, 0), axis=-1).astype(jnp.int32)


def rollout(env: Any, batch: int, steps: int) -> Callable[[Any, jax.Array], Any]:
    """``steps`` random steps of ``batch`` games, compiled as one function."""
    from pgx.experimental import auto_reset

    step = jax.vmap(auto_reset(env.step, env.init))

    def body(carry: tuple[Any, jax.Array], _: None) -> tuple[tuple[Any, jax.Array], None]:
        state, key = carry
        key, pick, keys = jax.random.split(key, 3)
        state = step(
            state, random_legal(pick, state.legal_action_mask), jax.random.split(keys, batch)
        )
        return (state, key), None

    def run(state: Any, key: jax.Array) -> Any:
        (state, _), _ = jax.lax.scan(body, (state, key), None, length=steps)
        return state

    return jax.jit(run)


def steps_per_second(env: Any, batch: int) -> tuple[float, float, float]:
    """Best-of-``REPEATS`` steps per wall second and per CPU second, and compile seconds."""
    steps = STEPS[batch]
    init = jax.jit(jax.vmap(env.init))
    state = init(jax.random.split(jax.random.PRNGKey(0), batch))
    run = rollout(env, batch, steps)
    t0 = time.perf_counter()
    state = run(state, jax.random.PRNGKey(1))
    jax.block_until_ready(state)
    compile_seconds = time.perf_counter() - t0
    best_wall = best_cpu = 0.0
    for r in range(REPEATS):
        wall0, cpu0 = time.perf_counter(), time.process_time()
        state = run(state, jax.random.PRNGKey(2 + r))
        jax.block_until_ready(state)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        best_wall = max(best_wall, batch * steps / wall)
        best_cpu = max(best_cpu, batch * steps / cpu)
    return best_wall, best_cpu, compile_seconds


def pettingzoo_turns(players: int) -> tuple[float, float]:
    """The PettingZoo ``raw_env``: turns per wall and CPU second over ``TURNS`` turns (best of
    ``REPEATS``)."""
    from piepmatz.envs.pettingzoo import raw_env

    env = raw_env(players=players)
    rng = random.Random(0)
    env.reset(seed=0)
    best_wall = best_cpu = 0.0
    for _ in range(REPEATS):
        turns = 0
        wall0, cpu0 = time.perf_counter(), time.process_time()
        while turns < TURNS:
            for _agent in env.agent_iter(env.num_agents):
                obs, _, termination, truncation, _ = env.last()
                if termination or truncation:
                    action = None
                else:
                    action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
                env.step(action)
                turns += 1
                if all(env.terminations.values()):
                    env.reset()
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        best_wall, best_cpu = max(best_wall, turns / wall), max(best_cpu, turns / cpu)
    return best_wall, best_cpu


def positions(players: int, batch: int, seed: int = 0) -> Any:
    """A batch of states from random games, each some random number of steps in."""
    from piepmatz.jax import PiepmatzEnv

    env = PiepmatzEnv(players)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(seed), batch))
    run = rollout(env, batch, 1)
    rng = np.random.default_rng(seed)
    for i in range(int(rng.integers(20, 60))):
        state = run(state, jax.random.PRNGKey(100 + i))
    return state


def parts(players: int, batch: int) -> list[tuple[str, float]]:
    """Microseconds per game of each piece of a step, at ``batch``, on random positions."""
    from piepmatz.jax import PiepmatzEnv
    from piepmatz.jax.game import deal, legal_mask, play, scores
    from piepmatz.jax.observe import observe

    env = PiepmatzEnv(players)
    state = positions(players, batch)
    game = state._game
    keys = jax.random.split(jax.random.PRNGKey(7), batch)
    actions = random_legal(jax.random.PRNGKey(8), state.legal_action_mask)
    flags = jnp.asarray(game.rules[0])
    pieces: list[tuple[str, Callable[..., Any], tuple[Any, ...]]] = [
        ("step (pgx's, with the observation)", jax.vmap(env.step), (state, actions, keys)),
        ("play: the rules of one action and what follows", jax.vmap(play), (game, actions, keys)),
        ("observation", jax.vmap(observe), (game, game.current_player)),
        ("legal mask", jax.vmap(legal_mask), (game,)),
        ("scores (every step, for the end's reward)", jax.vmap(scores), (game,)),
        (
            "deal (auto-reset's init, every step)",
            jax.vmap(lambda k: deal(k, players, flags)),
            (keys,),
        ),
        (
            "random legal action",
            lambda k, m: random_legal(k, m),
            (keys[0], state.legal_action_mask),
        ),
    ]
    out = []
    for name, fn, args in pieces:
        compiled = jax.jit(fn)
        jax.block_until_ready(compiled(*args))
        best = float("inf")
        for _ in range(10):
            t0 = time.perf_counter()
            jax.block_until_ready(compiled(*args))
            best = min(best, time.perf_counter() - t0)
        out.append((name, best / batch * 1e6))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2])
    parser.add_argument("--batches", type=int, nargs="+", default=list(STEPS))
    parser.add_argument("--parts", action="store_true", help="where a step's time goes")
    parser.add_argument("--no-anchors", action="store_true", help="skip pgx's own games")
    args = parser.parse_args()
    import pgx

    from piepmatz.jax import PiepmatzEnv

    print(f"JAX {jax.__version__} on {jax.devices()}, pgx {pgx.__version__}, {os.cpu_count()} CPUs")
    print(f"steps per game slot per run {STEPS}, best of {REPEATS}; PettingZoo {TURNS} turns")
    if args.parts:
        for players in args.players:
            print(f"\nWhere a step's time goes: {players} players, batch 1024 (µs per game)")
            for name, micros in parts(players, 1024):
                print(f"  {name:<52} {micros:8.2f}")
        return
    envs: list[tuple[str, Any]] = [(f"piepmatz {p}p", PiepmatzEnv(p)) for p in args.players]
    if not args.no_anchors:
        envs += [(name, pgx.make(name)) for name in ("backgammon", "leduc_holdem", "gardner_chess")]
    header = "".join(f"{'batch ' + str(b):>22}" for b in args.batches)
    print(f"\nsteps/s, wall (CPU)  {header}")
    for name, env in envs:
        cells = []
        for batch in args.batches:
            wall, cpu, _ = steps_per_second(env, batch)
            cells.append(f"{wall:>12,.0f} ({cpu:>7,.0f})")
        print(f"{name:<20} " + "".join(f"{c:>22}" for c in cells), flush=True)
    for players in args.players:
        wall, cpu = pettingzoo_turns(players)
        print(f"{'pettingzoo raw ' + str(players) + 'p':<20} {wall:>12,.0f} ({cpu:>7,.0f}) turns/s")


if __name__ == "__main__":
    main()
