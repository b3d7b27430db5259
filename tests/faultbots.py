"""Bots that fail on purpose, for the fault tests. :func:`plugin` writes a plugin file that
registers them (a server loads it with ``--plugin``, in its bot workers too); importing this
module registers nothing, so that no other test sees them.

``servertest_crash:N`` ends its worker process at every decision of its first turn from turn N
on, and ``servertest_hang:N`` never answers then; at other turns both play at random.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import time
from collections.abc import Sequence
from pathlib import Path

from piepmatz.bots import bot_names, register
from piepmatz.core import PlayerView


class FailingBot:
    def __init__(self, name: str, turn: int) -> None:
        self.name = name
        self.turn = turn

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        if self.turn <= view.turn < self.turn + view.num_players:
            # Only ever in a worker: a bot thinking in the server's own thread must not end it.
            assert multiprocessing.parent_process() is not None, "a fault bot thinks in a worker"
            if self.name == "servertest_crash":
                os._exit(3)
            time.sleep(3600)
        return rng.choice(list(legal))


class SlowBot:
    """Plays at random; takes 2 s per decision while the file named by the environment's
    ``PIEPMATZ_TEST_SLOW_MARKER`` exists (so that a test can fail the database meanwhile)."""

    name = "servertest_slow"

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        marker = os.environ.get("PIEPMATZ_TEST_SLOW_MARKER")
        if marker and os.path.exists(marker):
            time.sleep(2)
        return rng.choice(list(legal))


class SleepyBot:
    """Plays at random after thinking ``seconds`` (``servertest_sleepy:SECONDS``)."""

    name = "servertest_sleepy"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        time.sleep(self.seconds)
        return rng.choice(list(legal))


def register_all() -> None:
    if "servertest_slow" in bot_names():
        return  # loaded again, by a second plugin file in the same process
    register("servertest_crash", lambda arg: FailingBot("servertest_crash", int(arg or 2)))
    register("servertest_hang", lambda arg: FailingBot("servertest_hang", int(arg or 2)))
    register("servertest_slow", lambda arg: SlowBot())
    register("servertest_sleepy", lambda arg: SleepyBot(float(arg)))


def plugin(folder: Path) -> str:
    """A plugin file in ``folder`` that registers these bots (the server and its workers find
    this module on the tests' path)."""
    path = folder / "faultbots_plugin.py"
    path.write_text("import faultbots\n\nfaultbots.register_all()\n")
    return str(path)
