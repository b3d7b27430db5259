"""The bots a server offers: names a request may choose, each standing for a spec the operator set.

A request from the network names a bot by one of these names and nothing else: never a spec
with options, never a path. The operator decides the list when the server starts: the levels
(:data:`LEVELS`), bots given with ``serve --bot NAME=SPEC`` (a ``ppo:`` checkpoint, an ISMCTS
budget) and the bots the operator's ``--plugin`` files register. A name not on the list is
refused with one message, the same whatever the name, that tells only what is offered.

A table stored with a bot that is no longer offered (an older server took specs from requests)
is resumed with :attr:`BotRoster.fallback` in that seat, and the table is told.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from piepmatz.bots import ISMCTSBot, make_bot

#: The levels every server offers, by the name people choose them by, weakest first.
LEVELS: dict[str, str] = {
    "random": "random",
    "easy": "easy",
    "greedy": "greedy",
    "medium": "medium",
    "hard": "hard",
}
#: Plays for a stored bot that this server no longer offers.
RESUME_FALLBACK = "medium"
#: A person's seat (every other seat names a bot).
HUMAN = "human"
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")


class UnknownBot(ValueError):
    """A request named a bot this server does not offer."""


@dataclass(frozen=True)
class BotRoster:
    """Bot names a request may choose, each mapped to the spec its bot is built from."""

    specs: Mapping[str, str] = field(default_factory=lambda: dict(LEVELS))
    fallback: str = RESUME_FALLBACK
    #: Each offered bot's own time budget per move (an ISMCTS ``time``), if it has one, as
    #: found when the roster was built.
    budgets: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def build(cls, extra: Iterable[str] = (), plugin_bots: Iterable[str] = ()) -> BotRoster:
        """The levels, the operator's ``NAME=SPEC`` entries and the plugins' bots (those built
        from their bare name); raises ``ValueError`` naming the entry that is wrong (a bad
        name, a taken name, a spec whose bot cannot be built). Each bot is built once, here."""
        specs = dict(LEVELS)
        for entry in extra:
            name, eq, spec = entry.partition("=")
            name, spec = name.strip().lower(), spec.strip()
            if not eq or not spec:
                raise ValueError(f"--bot {entry!r}: expected NAME=SPEC, e.g. deep=ismcts:time=3")
            if not _NAME.fullmatch(name) or name == HUMAN:
                raise ValueError(
                    f"--bot {entry!r}: a name is 1-32 lower-case letters, digits, '-' or '_', "
                    f"and not {HUMAN!r}"
                )
            if name in LEVELS:
                raise ValueError(f"--bot {entry!r}: {name!r} is a level every server offers")
            specs[name] = spec
        budgets: dict[str, float] = {}
        for name, spec in specs.items():
            try:
                _budget(budgets, name, spec)
            except ValueError as exc:
                raise ValueError(f"bot {name!r}: {exc}") from None
        for plugin_bot in plugin_bots:
            name = plugin_bot.lower()
            if name in specs:
                continue
            try:
                _budget(budgets, name, plugin_bot)
            except ValueError:
                continue  # a plugin's bot that needs options is offered with --bot only
            specs[name] = plugin_bot
        return cls(specs, budgets=budgets)

    def names(self) -> list[str]:
        """The names offered, the levels first."""
        return list(LEVELS) + sorted(n for n in self.specs if n not in LEVELS)

    def choose(self, name: str) -> str:
        """The offered name a request's ``name`` means (letter case aside); raises
        :class:`UnknownBot` otherwise, without repeating what was sent."""
        found = name.strip().lower() if isinstance(name, str) else None
        if found is None or found not in self.specs:
            raise UnknownBot(
                f"not a bot this server offers: choose one of {', '.join(self.names())}"
            )
        return found

    def spec(self, name: str) -> str:
        """The spec the bot called ``name`` is built from (``name`` is offered)."""
        return self.specs[name]

    def resumed(self, kind: str) -> str:
        """The bot that plays a stored seat of ``kind``: itself if still offered, else
        :attr:`fallback`."""
        return kind if kind in self.specs else self.fallback

    def longest_think(self, ceiling: float) -> list[str]:
        """The offered bots whose own time budget passes ``ceiling`` seconds (they would always
        be cut off): refused when the server starts."""
        return [
            f"{name} ({self.specs[name]}: {limit:g} s a move)"
            for name, limit in self.budgets.items()
            if limit >= ceiling
        ]


def _budget(budgets: dict[str, float], name: str, spec: str) -> None:
    """Build the bot of ``spec`` (raising ``ValueError`` if it cannot be) and note its own time
    budget per move under ``name``, if it has one."""
    bot = make_bot(spec)
    if isinstance(bot, ISMCTSBot) and bot.time_limit is not None:
        budgets[name] = bot.time_limit


__all__ = ["HUMAN", "LEVELS", "RESUME_FALLBACK", "BotRoster", "UnknownBot"]
