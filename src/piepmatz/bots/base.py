"""The bot protocol: a bot sees a player's view, never the full state.

A bot is any object with a ``name`` and a ``choose`` method that gets the acting player's
:class:`~piepmatz.core.view.PlayerView`, the legal action ids (ascending, never empty) and a random
generator, and returns one of those ids. Bots that search sample hidden cards with
:func:`piepmatz.core.view.determinise`.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from piepmatz.core.actions import as_id
from piepmatz.core.errors import InvalidActionError
from piepmatz.core.view import PlayerView


@runtime_checkable
class Bot(Protocol):
    """A bot: a ``name`` and :meth:`choose`. A bot may also say ``reads_log = False`` (the
    shipped ones do): it never reads ``view.events``, so a tournament need not keep the game's
    log for it (:func:`reads_log`)."""

    name: str

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        """Return one of ``legal``."""
        ...


class BotMoveError(RuntimeError):
    """A bot broke the protocol: it raised, or returned something that is not a legal action id.

    The message says what the bot did ("raised ZeroDivisionError('…')", "returned 'pass', not an
    action id"); callers add which bot, seat and game.
    """


class MoveTimeExceeded(Exception):
    """Raised inside a bot that thinks past a move time limit (``--move-limit``)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"took more than {seconds:g} s to move")


def decide(bot: Bot, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
    """Ask ``bot`` for a move and hold it to the protocol; every interface asks bots this way.

    The bot gets its own copy of ``legal`` (a tuple), so it cannot change the list the move is
    checked against. Its answer must be an integer id (NumPy integers count; ``True`` does not)
    among ``legal``. Anything a bot raises becomes :class:`BotMoveError`, ``SystemExit``
    included: a bot cannot end the program (only ``KeyboardInterrupt`` passes through).
    """
    options = tuple(legal)
    try:
        choice = bot.choose(view, options, rng)
    except KeyboardInterrupt:
        raise
    except MoveTimeExceeded as exc:
        raise BotMoveError(str(exc)) from exc
    except BotMoveError:  # a bot that says itself what went wrong (another program's bot)
        raise
    except BaseException as exc:
        raise BotMoveError(f"raised {exc!r}") from exc
    try:
        action = as_id(choice)
    except InvalidActionError:
        raise BotMoveError(f"returned {choice!r}, not an action id (an int)") from None
    if action not in options:
        raise BotMoveError(f"chose {action}, which is not legal")
    return action


def derive_seed(seed: int, *parts: int | str) -> int:
    """A 63-bit seed from ``seed`` and a path of parts, the same on every platform and run.

    >>> derive_seed(7, "deal", 0) == derive_seed(7, "deal", 0) != derive_seed(7, "deal", 1)
    True
    """
    text = ":".join(str(p) for p in (seed, *parts)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


def bot_rngs(players: int, seed: int, *game: int | str) -> list[random.Random]:
    """The random generators of one game's bots, one per seat, from one seed.

    Every interface seats bots this way: ``seed`` is the game's seed (the terminal game,
    ``piepmatz demo``), or a tournament's seed with the game's place in it as ``game``. So a seeded
    game plays the same moves wherever it is played, and a seat's generator does not depend on
    which bots sit in the other seats.
    """
    return [random.Random(derive_seed(seed, "bot", *game, seat)) for seat in range(players)]


class RandomBot:
    """Uniform over the legal actions."""

    name = "random"
    reads_log = False

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        return legal[rng.randrange(len(legal))]


def reads_log(bot: Bot) -> bool:
    """Whether ``bot`` may read the log of the game in its view (``view.events``): unless it
    says otherwise, a bot may, as in every interface."""
    return bool(getattr(bot, "reads_log", True))


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
        self.reads_log = reads_log(bot)

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        if len(legal) > 1 and rng.random() < self.noise:
            return legal[rng.randrange(len(legal))]
        return self.bot.choose(view, legal, rng)
