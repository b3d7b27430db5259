"""PPO inside one compiled function, against a league: ``piepmatz train --backend jax``.

PureJaxRL's recipe on :mod:`piepmatz.jax`: ``envs`` games advance together, and one call of
the compiled update (:func:`make_trainer`) plays ``rollout`` steps of all of them
(``jax.lax.scan``), computes the advantages and runs the clipped-objective epochs, without
leaving JAX. A step is one decision in every game: the learner's where its seat is to move,
else its opponent's. The learner's own decisions are its transitions (``mine``); the others
only carry the game on, and the rewards they bring count for the learner's last decision
(:func:`league_gae`).

The opponents are a **league**: ``random`` (a uniformly random legal move) and ``self``, the
learner's past parameters, a pool of ``league`` snapshots held as arrays inside the compiled
function (:class:`Pool`): slot 0 the newest snapshot, the others a uniform sample of all the
older ones (reservoir sampling, :func:`add_snapshot`). The games are laid out in blocks, one
block per entry of ``opponents`` (``random self``: half the games each), and the
``self`` games in one block per slot, so that each slot's network is one batched product.

The network, the masking, the checkpoints and the learning curve are the Python trainer's
(:mod:`piepmatz.rl.ppo`): a checkpoint of this trainer is the same ``ppo:PATH`` bot, and it is
measured the same way, in Python, against the bots on fixed deals.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

import jax
import jax.numpy as jnp
import optax

from piepmatz.jax import PiepmatzEnv
from piepmatz.jax import State as Game
from piepmatz.jax.game import scores
from piepmatz.jax.observe import observe

from .policy import INPUT_SCALE, MASKED, init_params
from .ppo import (
    SELF,
    TrainConfig,
    TrainResult,
    _describe,
    _evaluate,
    _forward,
    _progress,
    finish,
    out_of_time,
)

RANDOM = "random"
#: The opponents a league can hold: bots other than ``random`` play in Python, outside JIT.
LEAGUE_OPPONENTS = (RANDOM, SELF)

Params = dict[str, jax.Array]


@dataclass(frozen=True)
class LeagueConfig(TrainConfig):
    """A run of the compiled trainer: :class:`~piepmatz.rl.ppo.TrainConfig`'s options, with
    batches sized for thousands of games, and the league's."""

    BACKEND: ClassVar[str] = "jax"

    #: ``random`` or ``self`` (the league's snapshots), each entry an equal block of the games.
    opponents: tuple[str, ...] = (RANDOM, SELF)
    envs: int = 512
    rollout: int = 64
    #: An update is thousands of decisions: evaluations further apart than the Python
    #: trainer's.
    eval_every: int = 2_000_000
    #: Snapshots in the pool, each facing an equal share of the ``self`` games.
    league: int = 8
    #: Updates between two snapshots of the learner joining the pool.
    snapshot_every: int = 10
    #: Reward per point of lead, paid as the lead changes: each decision also earns
    #: ``shaping`` times the change of the learner's points minus the best other player's
    #: (scored as if the game ended then, E4), so a game's sum is ``shaping`` times its final
    #: margin, beside the win reward. 0: the win reward alone. It and the wider network are
    #: what the one-hour run that beat ``easy`` trained with (docs/research.md).
    shaping: float = 0.05
    #: One layer of 256: in short runs it learned as much as 64 in half the steps.
    hidden: tuple[int, ...] = (256,)

    def __post_init__(self) -> None:
        super().__post_init__()
        unknown = [spec for spec in self.opponents if spec not in LEAGUE_OPPONENTS]
        if unknown:
            raise ValueError(
                f"the jax backend trains against 'random' and 'self' (its own past snapshots), "
                f"not {', '.join(map(repr, unknown))}: other bots play in Python "
                "(--backend python)"
            )
        if not (math.isfinite(self.shaping) and self.shaping >= 0):
            raise ValueError(f"shaping must be 0 or more, not {self.shaping!r}")
        for name in ("league", "snapshot_every"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ValueError(f"{name} must be a positive whole number, not {value!r}")
        if self.envs % len(self.opponents):
            raise ValueError(
                f"envs ({self.envs}) must divide into equal blocks for the "
                f"{len(self.opponents)} opponents"
            )
        if self.self_envs % self.league:
            raise ValueError(
                f"the {self.self_envs} games against 'self' must divide into equal blocks for "
                f"the {self.league} snapshots of the league"
            )
        if self.batch < self.minibatches:
            raise ValueError(f"envs × rollout must be at least {self.minibatches} steps")

    @property
    def random_envs(self) -> int:
        """The games against ``random``: the first block of the batch."""
        return self.envs // len(self.opponents) * self.opponents.count(RANDOM)

    @property
    def self_envs(self) -> int:
        """The games against the league: the rest, one block per slot of the pool."""
        return self.envs - self.random_envs

    @property
    def minibatch(self) -> int:
        """Transitions per minibatch: the learner's expected share of a rollout (one decision
        in ``players``), divided by ``minibatches``. How many minibatches an epoch has follows
        from how many decisions were the learner's."""
        return max(1, math.ceil(self.batch / self.players / self.minibatches))


# ---------------------------------------------------------------------------- the league


class Pool(NamedTuple):
    """The league's snapshots: each parameter with a leading axis of ``league`` slots, and how
    many snapshots were ever added (``added``; the initial parameters fill every slot)."""

    params: Params
    added: jax.Array


def new_pool(params: Params, league: int) -> Pool:
    """Every slot holds ``params`` (the first policy)."""
    return Pool(
        {k: jnp.broadcast_to(v, (league, *v.shape)) for k, v in params.items()}, jnp.int32(0)
    )


def add_snapshot(pool: Pool, params: Params, key: jax.Array) -> Pool:
    """``params`` into slot 0; the snapshot it replaces joins the past, which the other slots
    hold as a uniform sample (reservoir sampling: the ``i``-th older snapshot, counted from 0,
    takes a slot with probability ``min(1, (league - 1) / (i + 1))``, a random one of them)."""
    league = pool.params["pi_b"].shape[0]
    past = league - 1
    # The snapshot leaving slot 0, counted among the older ones; before the first addition
    # slot 0 holds the first policy, which is not one of them.
    i = pool.added - 1
    pick = jax.random.randint(key, (), 0, jnp.maximum(i + 1, 1))
    slot = jnp.where(i < past, i, pick) + 1
    keep = (i >= 0) & (slot <= past)
    slots = jnp.arange(league)

    def put(stack: jax.Array, new: jax.Array) -> jax.Array:
        where = (slots == slot) & keep
        shape = (league,) + (1,) * new.ndim
        stack = jnp.where(where.reshape(shape), stack[0][None], stack)
        return jnp.where((slots == 0).reshape(shape), new[None], stack)

    return Pool(
        {k: put(pool.params[k], params[k]) for k in pool.params},
        pool.added + 1,
    )


def league_logits(pool: Params, observations: jax.Array) -> jax.Array:
    """Each slot's raw logits for its block of games: ``observations`` is ``league`` equal
    blocks, block ``k`` faced by slot ``k``; one batched product per layer."""
    league = pool["pi_b"].shape[0]
    x = observations.astype(jnp.float32) * jnp.asarray(INPUT_SCALE)
    x = x.reshape(league, -1, x.shape[-1])
    k = 0
    while f"w{k}" in pool:
        x = jnp.tanh(jnp.einsum("kbi,kio->kbo", x, pool[f"w{k}"]) + pool[f"b{k}"][:, None, :])
        k += 1
    out = jnp.einsum("kbi,kio->kbo", x, pool["pi_w"]) + pool["pi_b"][:, None, :]
    return out.reshape(-1, out.shape[-1])


#: Action ids in a block of the sampler: one cumulative sum over the blocks, one inside one.
SAMPLE_BLOCK = 64


def sample(key: jax.Array, logits: jax.Array, mask: jax.Array) -> tuple[jax.Array, jax.Array]:
    """An action per row with the probabilities of the masked softmax, and its log-probability.

    Inverse transform, from one uniform number per row: the first action whose cumulative
    probability passes it, in two levels (blocks of :data:`SAMPLE_BLOCK` ids, then the ids of
    the chosen block, each cumulative sum a product with a triangular matrix). Only an action
    of probability above 0 can pass first, and a masked one has exactly 0
    (:data:`~piepmatz.rl.policy.MASKED`); should rounding leave none past the number, the last
    one above 0 is taken. On a CPU, ``jnp.cumsum`` or ``jnp.argmax`` over 2,921 ids, or one
    random number per id for ``jax.random.categorical``, each cost more than a step of the
    game (measured: benchmarks/rl_jax.py)."""
    rows, size = logits.shape
    log_p = jax.nn.log_softmax(jnp.where(mask, logits, MASKED), axis=-1)
    blocks = -(-size // SAMPLE_BLOCK)
    p = jnp.pad(jnp.exp(log_p), ((0, 0), (0, blocks * SAMPLE_BLOCK - size)))
    p = p.reshape(rows, blocks, SAMPLE_BLOCK)
    per_block = p.sum(axis=-1)
    through = per_block @ jnp.triu(jnp.ones((blocks, blocks), p.dtype))
    u = jax.random.uniform(key, (rows,)) * through[:, -1]
    block = _first_past(through, u, per_block > 0)
    inside = jnp.take_along_axis(p, block[:, None, None], axis=1)[:, 0]
    before = jnp.take_along_axis(through - per_block, block[:, None], axis=1)[:, 0]
    within = inside @ jnp.triu(jnp.ones((SAMPLE_BLOCK, SAMPLE_BLOCK), p.dtype))
    action = block * SAMPLE_BLOCK + _first_past(within, u - before, inside > 0)
    return action, jnp.take_along_axis(log_p, action[:, None], axis=1)[:, 0]


def _first_past(cumulative: jax.Array, u: jax.Array, possible: jax.Array) -> jax.Array:
    """Per row, the first index whose cumulative sum passes ``u``, or else the last possible
    one."""
    past = cumulative > u[:, None]
    last = possible.shape[1] - 1 - jnp.argmax(possible[:, ::-1], axis=1)
    return jnp.where(jnp.any(past, axis=1), jnp.argmax(past, axis=1), last).astype(jnp.int32)


# ---------------------------------------------------------------------------- a rollout


class Games(NamedTuple):
    """The games between two updates: pgx's batched state and the learner's seat in each."""

    state: Game
    seat: jax.Array


class Transition(NamedTuple):
    """One step of every game (leading axis: the games)."""

    observation: jax.Array
    mask: jax.Array
    action: jax.Array
    logp: jax.Array
    value: jax.Array
    #: The learner's reward of this step: the change of its lead times ``shaping``, and at the
    #: game's end the win reward.
    reward: jax.Array
    #: The learner's win reward (0 but at a game's end): its share of the wins.
    won: jax.Array
    #: The game ended with this step (a new one was dealt).
    done: jax.Array
    #: The learner made this decision: a transition to learn from.
    mine: jax.Array


def new_games(env: PiepmatzEnv, key: jax.Array, envs: int) -> Games:
    deal, seats = jax.random.split(key)
    state = jax.vmap(env.init)(jax.random.split(deal, envs))
    return Games(state, jax.random.randint(seats, (envs,), 0, env.num_players))


def lead(game: Any, seat: jax.Array) -> jax.Array:
    """Per game (batched), the points of ``seat`` minus the best other player's, scored as if
    the game ended now."""
    total = jax.vmap(scores)(game)[0]
    others = jnp.where(jnp.arange(total.shape[1]) == seat[:, None], -(2**30), total)
    return (jnp.take_along_axis(total, seat[:, None], axis=1)[:, 0] - others.max(axis=1)).astype(
        jnp.float32
    )


def league_gae(
    t: Transition, last_value: jax.Array, gamma: float, lam: float
) -> tuple[jax.Array, jax.Array]:
    """GAE over the learner's own decisions (``[time, games]`` arrays): the reward of a
    decision is the learner's reward until its next decision or the game's end, and a decision
    after which the game ended is not bootstrapped. Entries of other players' steps are 0."""

    def back(carry: Any, step: Transition) -> tuple[Any, tuple[jax.Array, jax.Array]]:
        next_value, next_advantage, reward, ended = carry
        # Going back in time: a game that ended here starts its own return from here.
        reward = jnp.where(step.done, step.reward, reward + step.reward)
        ended = ended | step.done
        alive = 1.0 - ended.astype(jnp.float32)
        delta = reward + gamma * next_value * alive - step.value
        advantage = delta + gamma * lam * alive * next_advantage
        mine = step.mine
        carry = (
            jnp.where(mine, step.value, next_value),
            jnp.where(mine, advantage, next_advantage),
            jnp.where(mine, 0.0, reward),
            jnp.where(mine, False, ended),
        )
        advantage = jnp.where(mine, advantage, 0.0)
        return carry, (advantage, jnp.where(mine, advantage + step.value, 0.0))

    zeros = jnp.zeros_like(last_value)
    start = (last_value, zeros, zeros, jnp.zeros(last_value.shape, jnp.bool_))
    _, (advantage, returns) = jax.lax.scan(back, start, t, reverse=True)
    return advantage, returns


# ---------------------------------------------------------------------------- the update


def _weighted_loss(
    params: Params, batch: dict[str, jax.Array], weight: jax.Array, config: TrainConfig
) -> tuple[jax.Array, dict[str, jax.Array]]:
    """The Python trainer's loss (:func:`piepmatz.rl.ppo._loss`) over the rows with weight 1:
    the last minibatch of an epoch is partly empty."""
    total_weight = jnp.maximum(weight.sum(), 1.0)

    def mean(x: jax.Array) -> jax.Array:
        return (x * weight).sum() / total_weight

    raw, value = _forward(params, batch["observation"])
    logp_all = jax.nn.log_softmax(jnp.where(batch["mask"], raw, MASKED))
    logp = jnp.take_along_axis(logp_all, batch["action"][:, None], axis=1)[:, 0]
    ratio = jnp.exp(logp - batch["logp"])
    adv = batch["advantage"]
    clipped = jnp.clip(ratio, 1 - config.clip, 1 + config.clip)
    policy_loss = -mean(jnp.minimum(ratio * adv, clipped * adv))
    value_loss = 0.5 * mean((value - batch["returns"]) ** 2)
    entropy = mean(-(jnp.exp(logp_all) * logp_all).sum(axis=1))
    total = policy_loss + config.value_coef * value_loss - config.entropy * entropy
    return total, {"policy": policy_loss, "value": value_loss, "entropy": entropy}


class Learner(NamedTuple):
    """What the compiled update carries from one call to the next."""

    params: Params
    opt_state: Any
    pool: Pool
    games: Games
    key: jax.Array


def optimiser(config: TrainConfig) -> optax.GradientTransformation:
    return optax.chain(
        optax.clip_by_global_norm(config.max_grad_norm),
        optax.adam(config.learning_rate, eps=1e-5),
    )


def environment(config: TrainConfig) -> PiepmatzEnv:
    return PiepmatzEnv(config.players, config.preset)


class Trainer(NamedTuple):
    """A config's update, compiled (``update``), and its two halves as plain functions, for
    timing each (``benchmarks/rl_jax.py``)."""

    #: ``learner -> (learner, figures)``: :func:`collect` then :func:`improve`, one compiled
    #: function.
    update: Callable[[Learner], tuple[Learner, dict[str, Any]]]
    #: ``learner -> (learner, transitions)``: ``rollout`` steps of every game.
    collect: Callable[[Learner], tuple[Learner, Transition]]
    #: ``(learner, transitions) -> (learner, figures)``: GAE and the epochs.
    improve: Callable[[Learner, Transition], tuple[Learner, dict[str, Any]]]


@functools.lru_cache(maxsize=4)
def make_trainer(config: LeagueConfig) -> Trainer:
    """The update of ``config``: a rollout of every game, GAE, ``epochs`` epochs of
    minibatches. It returns the learner and the update's figures: the learner's decisions
    (``steps``), its games that ended and its share of their wins against ``random`` and the
    league, and the loss terms. Cached, so that runs of one config compile once."""
    env = environment(config)
    tx = optimiser(config)
    n, players = config.envs, config.players
    randoms = config.random_envs
    games_at = jnp.arange(n)

    def act(learner: Learner, _: None) -> tuple[Learner, Transition]:
        params, pool, games = learner.params, learner.pool, learner.games
        key, pick, step_keys, deal_keys, seat_key = jax.random.split(learner.key, 5)
        state = games.state
        observation, mask = state.observation, state.legal_action_mask
        mine = state.current_player == games.seat
        logits, value = _forward(params, observation)
        # The opponents: random (every legal move alike) in the first block, the league's
        # slots in the others; one draw per game, by whoever is to move.
        theirs = jnp.concatenate(
            [
                jnp.zeros((randoms, logits.shape[1]), logits.dtype),
                league_logits(pool.params, observation[randoms:]),
            ]
        )
        # The log-probability is the learner's wherever the decision is the learner's.
        action, logp = sample(pick, jnp.where(mine[:, None], logits, theirs), mask)
        after = jax.vmap(env.step)(state, action, jax.random.split(step_keys, n))
        won = after.rewards[games_at, games.seat]
        reward = won
        if config.shaping:
            gained = lead(after._game, games.seat) - lead(state._game, games.seat)
            reward = reward + config.shaping * gained
        done = after.terminated
        # A game that ended is dealt again, the learner in a new random seat.
        fresh = new_games(env, deal_keys, n)

        def again(new: jax.Array, old: jax.Array) -> jax.Array:
            return jnp.where(done.reshape((n,) + (1,) * (old.ndim - 1)), new, old)

        games = Games(
            jax.tree.map(again, fresh.state, after),
            jnp.where(done, jax.random.randint(seat_key, (n,), 0, players), games.seat),
        )
        transition = Transition(observation, mask, action, logp, value, reward, won, done, mine)
        return learner._replace(games=games, key=key), transition

    def learn(
        params: Params, opt_state: Any, data: dict[str, jax.Array], count: jax.Array, key: Any
    ) -> tuple[Params, Any, dict[str, jax.Array]]:
        rows = data["action"].shape[0]
        size = config.minibatch

        def minibatch(i: jax.Array, carry: Any) -> Any:
            params, opt_state, order, totals = carry
            at = i * size + jnp.arange(size)
            index = order[jnp.minimum(at, rows - 1)]
            weight = (at < count).astype(jnp.float32)
            part = {name: value[index] for name, value in data.items()}
            grads, stats = jax.grad(_weighted_loss, has_aux=True)(params, part, weight, config)
            updates, opt_state = tx.update(grads, opt_state, params)
            totals = {k: totals[k] + stats[k] for k in totals}
            return optax.apply_updates(params, updates), opt_state, order, totals

        totals = {k: jnp.float32(0) for k in ("policy", "value", "entropy")}
        batches = (count + size - 1) // size
        epoch_keys = jax.random.split(key, config.epochs)

        def epoch(e: jax.Array, carry: Any) -> Any:
            params, opt_state, totals = carry
            # The learner's decisions first, shuffled; the others are never read.
            noise = jax.random.uniform(epoch_keys[e], (rows,))
            order = jnp.argsort(jnp.where(data["mine"], noise, noise + 2.0))
            params, opt_state, _, totals = jax.lax.fori_loop(
                0, batches, minibatch, (params, opt_state, order, totals)
            )
            return params, opt_state, totals

        params, opt_state, totals = jax.lax.fori_loop(
            0, config.epochs, epoch, (params, opt_state, totals)
        )
        seen = jnp.maximum(batches * config.epochs, 1).astype(jnp.float32)
        return params, opt_state, {k: v / seen for k, v in totals.items()}

    def collect(learner: Learner) -> tuple[Learner, Transition]:
        return jax.lax.scan(act, learner, None, length=config.rollout)

    def improve(learner: Learner, t: Transition) -> tuple[Learner, dict[str, Any]]:
        state, seat = learner.games
        # The bootstrap: the learner's value of where its games stand, from its own view.
        mine_now = jax.vmap(observe)(state._game, seat)
        last_value = _forward(learner.params, mine_now)[1]
        advantage, returns = league_gae(t, last_value, config.gamma, config.gae_lambda)
        mine = t.mine.reshape(-1)
        count = mine.sum()
        adv = advantage.reshape(-1)
        weight = mine.astype(jnp.float32)
        mean = (adv * weight).sum() / jnp.maximum(count, 1)
        std = jnp.sqrt(((adv - mean) ** 2 * weight).sum() / jnp.maximum(count, 1))
        data = {
            "observation": t.observation.reshape(-1, t.observation.shape[-1]),
            "mask": t.mask.reshape(-1, t.mask.shape[-1]),
            "action": t.action.reshape(-1),
            "logp": t.logp.reshape(-1),
            "advantage": (adv - mean) / (std + 1e-8),
            "returns": returns.reshape(-1),
            "mine": mine,
        }
        key, learn_key = jax.random.split(learner.key)
        params, opt_state, losses = learn(learner.params, learner.opt_state, data, count, learn_key)
        # The learner's share of the wins in its games that ended, by the kind of opponent:
        # the win reward r of a share s is (players·s − 1)/(players − 1).
        share = (t.won * (players - 1) + 1) / players
        against_random = games_at < randoms
        ended = {
            "random": t.done & against_random[None, :],
            "league": t.done & ~against_random[None, :],
        }
        figures: dict[str, Any] = {"steps": count, **losses}
        for name, where in ended.items():
            figures[f"games_{name}"] = where.sum()
            figures[f"wins_{name}"] = jnp.where(where, share, 0.0).sum()
        return learner._replace(params=params, opt_state=opt_state, key=key), figures

    def update(learner: Learner) -> tuple[Learner, dict[str, Any]]:
        return improve(*collect(learner))

    return Trainer(jax.jit(update), collect, improve)


@functools.lru_cache(maxsize=4)
def _snapshot() -> Callable[[Pool, Params, jax.Array], Pool]:
    return jax.jit(add_snapshot)


@functools.lru_cache(maxsize=4)
def _deal(players: int, preset: str, envs: int) -> Callable[[jax.Array], Games]:
    return jax.jit(functools.partial(new_games, PiepmatzEnv(players, preset), envs=envs))


def start(config: LeagueConfig) -> Learner:
    """The first policy (the Python trainer's, from the same seed), its pool and the games."""
    params = {k: jnp.asarray(v) for k, v in init_params(config.hidden, config.seed).items()}
    key, deal = jax.random.split(jax.random.PRNGKey(config.seed))
    return Learner(
        params,
        optimiser(config).init(params),
        new_pool(params, config.league),
        _deal(config.players, config.preset, config.envs)(deal),
        key,
    )


# ---------------------------------------------------------------------------- training


def train(
    config: LeagueConfig,
    out: str | Path,
    progress: bool = False,
    report: Callable[[str], None] | None = None,
) -> TrainResult:
    """Train until ``config.steps`` learner decisions or ``config.minutes`` (whole updates),
    writing what the Python trainer writes into ``out``: ``step-NNNNNNNNN.npz`` checkpoints,
    ``final.npz``, ``curve.json`` and ``curve.png``; the progress bar shows the learner's recent
    share of the wins against ``random`` and against the league."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    update = make_trainer(config).update
    snapshot = _snapshot()
    learner = start(config)
    result = TrainResult(final=folder / "final.npz")
    bar = _progress(config.steps, progress)
    wins = {"random": [0.0, 0.0], "league": [0.0, 0.0]}  # recent games and wins
    next_eval: float = 0
    steps = updates = 0
    try:
        took = 0.0  # the last update's seconds
        while steps < config.steps and not out_of_time(config, result.train_seconds, took):
            if steps >= next_eval:
                point = _evaluate(config, folder, learner.params, steps, result.train_seconds)
                result.curve.append(point)
                if report:
                    report(_describe(point))
                next_eval = steps + config.eval_every if config.eval_every else math.inf
            started = time.perf_counter()
            learner, figures = update(learner)
            updates += 1
            if updates % config.snapshot_every == 0:
                key, sub = jax.random.split(learner.key)
                learner = learner._replace(
                    pool=snapshot(learner.pool, learner.params, sub), key=key
                )
            figures = jax.device_get(figures)
            took = time.perf_counter() - started
            result.train_seconds += took
            steps += int(figures["steps"])
            for name, tally in wins.items():
                # A running tally that forgets: the progress bar shows the recent games.
                tally[0] = 0.9 * tally[0] + float(figures[f"games_{name}"])
                tally[1] = 0.9 * tally[1] + float(figures[f"wins_{name}"])
            if bar is not None:
                bar.update(int(figures["steps"]))
                bar.set_postfix(
                    {f"vs {name}": f"{w / g:.2f}" for name, (g, w) in wins.items() if g > 0}
                    | {
                        "entropy": f"{float(figures['entropy']):.2f}",
                        "sps": f"{steps / result.train_seconds:.0f}",
                    }
                )
    finally:
        if bar is not None:
            bar.close()
    finish(
        config,
        folder,
        result,
        learner.params,
        steps,
        report,
        f"PPO in JAX, {config.players} players, against {', '.join(config.opponents)}",
    )
    return result
