"""``piepmatz train``: PPO with action masking, checkpoints and a learning curve, on the
Gymnasium environment (``--backend python``) or inside one compiled function on the JAX
environment (``--backend jax``, :mod:`piepmatz.rl.league`).

Light on purpose: JAX, Optax, tqdm and matplotlib are imported only when the command runs, and a
missing one is named in a one-line message with the extra that brings it.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from piepmatz.args import add_rules, positive

EXTRA_HINT = "pip install 'piepmatz[rl]'"
#: What each backend needs installed, and how to install it.
BACKEND_EXTRAS = {
    "python": ("the 'rl' extra", EXTRA_HINT),
    "jax": ("the 'rl' and 'jax' extras", "pip install 'piepmatz[rl,jax]'"),
}


def _count(flag: str) -> Any:
    """A whole number of at least 0 (0 switches the feature off)."""

    def parse(text: str) -> int:
        try:
            value = int(text.replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} is a whole number, not {text!r}") from None
        if value < 0:
            raise argparse.ArgumentTypeError(f"{flag} must be 0 or more, not {value}")
        return value

    return parse


def _rate(text: str) -> float:
    """A learning rate: a number more than 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--learning-rate is a number, not {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"--learning-rate must be more than 0, not {text}")
    return value


def _minutes(text: str) -> float:
    """A time limit in minutes: a number more than 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--minutes is a number, not {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"--minutes must be more than 0, not {text}")
    return value


#: What a run writes into --out: another run's would be overwritten.
WRITTEN = ("final.npz", "curve.json", "curve.png", "step-*.npz")


def register(subparsers: Any) -> None:
    train = subparsers.add_parser(
        "train",
        help="train a PPO policy (action masking) against bots or itself, with a learning curve",
        description=(
            "Train a policy with PPO on the Gymnasium environment (--backend python), or inside "
            "one compiled JAX function on thousands of games at once against random and a "
            "league of its own past snapshots (--backend jax). Writes checkpoints "
            "(step-N.npz, final.npz), curve.json and curve.png into --out; a checkpoint plays "
            "as the bot ppo:PATH."
        ),
    )
    train.add_argument(
        "--backend",
        choices=tuple(BACKEND_EXTRAS),
        default="python",
        help="python: the Gymnasium environment, opponents any bots (default); jax: the JAX "
        "environment and the learner in one compiled function, opponents random and self",
    )
    train.add_argument("--out", required=True, help="directory for checkpoints and the curve")
    train.add_argument(
        "--overwrite",
        action="store_true",
        help="write into an --out that holds another run's checkpoints (else refused)",
    )
    train.add_argument("--players", type=int, default=2, choices=(2, 3, 4), help="seats (2)")
    add_rules(train)
    train.add_argument(
        "--opponents",
        nargs="+",
        help="bot specs for the other seats, or 'self' (self-play; with --backend jax the "
        "league of past snapshots), spread over the environments (default: random; with "
        "--backend jax: random self)",
    )
    train.add_argument(
        "--steps",
        type=positive("--steps"),
        default=100_000,
        help="learner steps (its own decisions), rounded up to whole updates of --envs × "
        "--rollout steps; with --backend jax, to the end of the update that reaches them "
        "(100,000)",
    )
    train.add_argument(
        "--minutes",
        type=_minutes,
        help="stop before an update that, as long as the last one, would pass this much "
        "training time (evaluations not counted), even before --steps (default: no limit)",
    )
    train.add_argument("--seed", type=int, default=0, help="the run's seed (0)")
    train.add_argument(
        "--envs",
        type=positive("--envs"),
        help="environments stepped together (default 8; with --backend jax 512)",
    )
    train.add_argument(
        "--rollout",
        type=positive("--rollout"),
        help="steps per environment between updates (default 128; with --backend jax 64)",
    )
    train.add_argument(
        "--league",
        type=positive("--league"),
        help="--backend jax: snapshots in the pool that 'self' plays against (default 8)",
    )
    train.add_argument(
        "--snapshot-every",
        type=positive("--snapshot-every"),
        help="--backend jax: updates between two snapshots joining the pool (default 10)",
    )
    train.add_argument(
        "--shaping",
        type=float,
        help="--backend jax: reward per point of lead, paid as the lead changes, beside the "
        "win reward (default 0.05; 0: the win reward alone)",
    )
    train.add_argument(
        "--hidden",
        type=positive("--hidden"),
        nargs="+",
        help="hidden layer widths (default: one layer of 64; with --backend jax 256)",
    )
    train.add_argument("--learning-rate", type=_rate, help="Adam's step size (default 1e-3)")
    train.add_argument(
        "--eval-every",
        type=_count("--eval-every"),
        help="save and evaluate every N steps (0: at the start and end only; default 20,000, "
        "with --backend jax 2,000,000)",
    )
    train.add_argument(
        "--eval-games",
        type=positive("--eval-games"),
        default=200,
        help="games per evaluation opponent (the same deals every time)",
    )
    train.add_argument(
        "--eval-against",
        nargs="+",
        default=["random", "easy", "medium"],
        help="bots of the learning curve",
    )
    train.add_argument("--quiet", action="store_true", help="no progress bar")
    train.set_defaults(func=_train)


def _train(args: argparse.Namespace) -> int:
    try:
        if args.backend == "jax":
            from piepmatz.rl.league import LeagueConfig as TrainConfig
            from piepmatz.rl.league import train
        else:
            from piepmatz.rl.ppo import TrainConfig, train  # type: ignore[assignment]
    except ModuleNotFoundError as exc:
        extras, hint = BACKEND_EXTRAS[args.backend]
        sys.stderr.write(f"piepmatz train: needs {extras} ({exc.name} is not installed): {hint}\n")
        return 2
    try:
        options = {
            "players": args.players,
            "preset": args.rules,
            "opponents": None if args.opponents is None else tuple(args.opponents),
            "steps": args.steps,
            "minutes": args.minutes,
            "seed": args.seed,
            "envs": args.envs,
            "rollout": args.rollout,
            "hidden": None if args.hidden is None else tuple(args.hidden),
            "learning_rate": args.learning_rate,
            "eval_every": args.eval_every,
            "eval_games": args.eval_games,
            "eval_opponents": tuple(args.eval_against),
        }
        if args.backend == "jax":
            options |= {
                "league": args.league,
                "snapshot_every": args.snapshot_every,
                "shaping": args.shaping,
            }
        elif any(v is not None for v in (args.league, args.snapshot_every, args.shaping)):
            raise ValueError(
                "--league, --snapshot-every and --shaping are options of --backend jax"
            )
        # Options not given keep TrainConfig's defaults (one place for them).
        config = TrainConfig(**{k: v for k, v in options.items() if v is not None})
    except ValueError as exc:
        sys.stderr.write(f"piepmatz train: error: {exc}\n")
        return 2
    out = Path(args.out)
    if not args.overwrite and out.is_dir() and any(next(out.glob(p), None) for p in WRITTEN):
        sys.stderr.write(
            f"piepmatz train: error: {out} holds another run's checkpoints: choose another "
            "--out, or add --overwrite\n"
        )
        return 2
    if args.backend == "python" and (whole := config.updates * config.batch) != config.steps:
        print(
            f"--steps {config.steps:,} runs as {whole:,}: training updates on whole batches of "
            f"--envs × --rollout ({config.envs} × {config.rollout}) steps"
        )

    try:
        result = train(config, args.out, progress=not args.quiet, report=print_line)
    except OSError as exc:
        sys.stderr.write(f"piepmatz train: cannot write to {args.out}: {exc.strerror or exc}\n")
        return 2
    if config.minutes and result.steps < config.steps:  # --minutes came first
        print(
            f"training stopped at the time limit (--minutes {config.minutes:g}) after "
            f"{result.steps:,} of {config.steps:,} steps"
        )
    print(
        f"trained {result.steps:,} steps in {result.train_seconds:.0f} s "
        f"({result.steps_per_second:,.0f} learner steps/s, evaluation not counted; "
        f"backend {args.backend}); "
        f"policy: {result.final} (play it as --bots ppo:{result.final}); "
        f"curve: {result.final.parent / 'curve.png'}"
    )
    return 0


def print_line(line: str) -> None:
    print(line, flush=True)
