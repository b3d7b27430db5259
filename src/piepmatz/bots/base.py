"""The bot protocol: a bot sees a player's view, never the full state.

A bot is any object with a ``name`` and a ``choose`` method that gets the acting player's
:class:`~piepmatz.core.view.PlayerView`, the legal action ids (ascending, never empty) and a random
generator, and returns one of those ids. Bots that search sample hidden cards with
:func:`piepmatz.core.view.determinise`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from piepmatz.core.view import PlayerView


@runtime_checkable
class Bot(Protocol):
    name: str

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        """Return one of ``legal``."""
        ...


class RandomBot:
    """Uniform over the legal actions."""

    name = "random"

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        return legal[rng.randrange(len(legal))]


class NoisyBot:
    """Another bot that, with probability ``noise``, plays a uniformly random legal action.

    A weaker opponent for people (the ``easy`` level) that still plays sensibly most of the time.
    """

    def __init__(self, bot: Bot, noise: float, name: str | None = None) -> None:
        if not 0.0 <= noise <= 1.0:
            raise ValueError(f"noise is a probability between 0 and 1, not {noise}")
        self.bot = bot
        self.noise = noise
        self.name = name or f"{bot.name}+noise={noise}"

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        if len(legal) > 1 and rng.random() < self.noise:
            return legal[rng.randrange(len(legal))]
        return self.bot.choose(view, legal, rng)
