"""``piepmatz envs``: check the research environments, show the observation layout.

Light on purpose: PettingZoo, Gymnasium, OpenSpiel and numpy are imported only when a command
runs.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import subprocess
import sys
import warnings
from typing import Any

from piepmatz.args import add_rules, positive

#: PettingZoo 1.27 raises these for any dict observation outside its own classic games.
PETTINGZOO_DICT_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
)


def register(subparsers: Any) -> None:
    envs = subparsers.add_parser(
        "envs", help="research environments: run their conformance checks, show the layout"
    )
    sub = envs.add_subparsers(dest="envs_command", required=True)
    check = sub.add_parser(
        "check", help="run PettingZoo's, Gymnasium's and OpenSpiel's own checks on the bindings"
    )
    check.add_argument(
        "--players",
        type=int,
        nargs="+",
        default=[2, 3, 4],
        choices=(2, 3, 4),
        help="player counts to check (2 3 4)",
    )
    add_rules(check)
    check.add_argument(
        "--sims", type=positive("--sims"), default=5, help="OpenSpiel random_sim_test games"
    )
    check.set_defaults(func=_check, extra="envs")
    layout = sub.add_parser("layout", help="print the fields of the observation vector")
    layout.set_defaults(func=_layout)


def _check(args: argparse.Namespace) -> int:
    from gymnasium.utils.env_checker import check_env

    from piepmatz.envs.gymnasium import PiepmatzEnv

    failures = 0

    def gymnasium_check(n: int) -> None:
        check_env(PiepmatzEnv(players=n, preset=args.rules))

    checks = (
        ("PettingZoo api_test + seed_test", lambda n: _pettingzoo(n, args.rules)),
        ("Gymnasium check_env", gymnasium_check),
        ("OpenSpiel random_sim_test", lambda n: _openspiel(n, args.rules, args.sims)),
    )
    for n in args.players:
        for name, check in checks:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    for message in PETTINGZOO_DICT_WARNINGS:
                        warnings.filterwarnings("ignore", message=message)
                    warnings.filterwarnings("ignore", message=".*environment not having a spec")
                    check(n)
            except Exception as exc:  # report every failing check, then exit non-zero
                failures += 1
                print(f"FAIL {name}, {n} players, {args.rules}: {exc}")
            else:
                print(f"ok   {name}, {n} players, {args.rules}")
    return 1 if failures else 0


def _pettingzoo(players: int, preset: str) -> None:
    from pettingzoo.test import api_test, seed_test

    from piepmatz.envs import piepmatz_v0

    # api_test prints "Starting API test" and "Passed API test" around the one line this
    # command prints per check: it says ok or FAIL alone.
    with contextlib.redirect_stdout(io.StringIO()):
        api_test(piepmatz_v0.env(players=players, preset=preset), num_cycles=1000)
    seed_test(lambda: piepmatz_v0.env(players=players, preset=preset))


def _openspiel(players: int, preset: str, sims: int) -> None:
    # A failing OpenSpiel check aborts the interpreter: run it in a child process.
    code = (
        "import pyspiel, piepmatz.envs.openspiel; "
        f"g = pyspiel.load_game('python_piepmatz', {{'players': {players}, "
        f"'preset': {preset!r}}}); "
        f"pyspiel.random_sim_test(g, num_sims={sims}, serialize=True, verbose=False)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError((result.stdout + result.stderr).strip()[-2000:])


def _layout(args: argparse.Namespace) -> int:
    from piepmatz.envs.encoding import OBSERVATION_SIZE, describe_fields

    print(f"observation: int8 vector of {OBSERVATION_SIZE} entries, seats relative to the observer")
    print(f"{'field':<16} {'offset':>6} {'length':>6} {'max':>4}  meaning")
    for name, offset, length, top, text in describe_fields():
        print(_row(f"{name:<16} {offset:>6} {length:>6} {top:>4}  ", text))
    try:
        from piepmatz.envs.openspiel_observer import INFO_STATE_SIZE, describe_history
    except ImportError:  # OpenSpiel is not installed: its tensor is not offered either
        return 0
    print(f"\ninformation_state_tensor (OpenSpiel): {INFO_STATE_SIZE} entries: the observation,")
    print("then the public history field after field (seats relative to the observer)")
    print(f"{'field':<18} {'offset':>6} {'shape':>7}  meaning")
    for name, offset, shape, text in describe_history():
        print(_row(f"{name:<18} {offset:>6} {shape:>7}  ", text))
    return 0


def _row(figures: str, meaning: str) -> str:
    """A layout row: ``figures``, then ``meaning`` wrapped in its own column, within the
    terminal's width."""
    from piepmatz.text.lines import wrapped

    return "\n".join(wrapped(meaning, figures, " " * len(figures)) or [figures])
