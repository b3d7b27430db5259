"""Bots that play from a player's view: ``random`` (and, as they land, stronger ones).

>>> bot = make_bot("random")
>>> bot.name
'random'
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot, RandomBot

_FACTORIES: dict[str, Callable[[str], Bot]] = {
    "random": lambda arg: RandomBot(),
}


def register(name: str, factory: Callable[[str], Bot]) -> None:
    """Make ``make_bot(name)`` / ``make_bot("name:arg")`` build a bot with ``factory(arg)``."""
    _FACTORIES[name] = factory


def bot_names() -> list[str]:
    return sorted(_FACTORIES)


def make_bot(spec: str) -> Bot:
    """Build a bot from ``name`` or ``name:argument`` (for example ``ismcts:hard``)."""
    name, _, arg = spec.partition(":")
    if name not in _FACTORIES:
        raise ValueError(f"unknown bot {spec!r}: choose one of {', '.join(bot_names())}")
    return _FACTORIES[name](arg)


__all__ = ["Bot", "RandomBot", "bot_names", "make_bot", "register"]
