"""The ``ppo:PATH`` bot's factory, declared to :mod:`piepmatz.bots` as a package entry point.

The bots package names no learner: a trained policy joins the registry the way any installed
plugin does (``[project.entry-points."piepmatz.bots"]`` in ``pyproject.toml``). This module
imports nothing beyond the standard library until a ``ppo:`` bot is asked for, so listing the
bots never needs NumPy.
"""

from __future__ import annotations

from piepmatz.bots.base import Bot
from piepmatz.bots.plugins import needs_argument


@needs_argument  # the path of a checkpoint: a menu cannot offer a bare "ppo"
def ppo(arg: str) -> Bot:
    """The factory of ``make_bot("ppo:PATH")``: the policy saved at PATH."""
    try:
        from piepmatz.rl.policy import make_policy_bot
    except ModuleNotFoundError as exc:
        raise ValueError(
            f"bot 'ppo' needs NumPy ({exc.name} is missing): pip install 'piepmatz[rl]'"
        ) from None
    return make_policy_bot(arg)
