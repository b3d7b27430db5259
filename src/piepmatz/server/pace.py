"""How fast a table plays: its pace, chosen by name from the paces the operator offers.

A *live* table gives each person a clock (time for the game and some seconds more after each of
their moves) and counts a person disconnected too long as away; a *turn-based* one gives each
move a day or more; an *untimed* one has no clock and is only for a table with one person,
where nobody else waits. What a pace does at a table is :mod:`.clocks`'.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class PaceKind(StrEnum):
    LIVE = "live"
    TURN = "turn"
    UNTIMED = "untimed"


#: Seconds in each unit a spec may write a time in.
_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_TIME = r"(\d+(?:\.\d+)?)([smhd]?)"
_LIVE = re.compile(rf"live:{_TIME}\+{_TIME}(?:,away={_TIME})?")
_TURN = re.compile(rf"turn:{_TIME}")
#: A live table's default for "disconnected too long", in seconds.
AWAY = 60.0
#: The longest time a spec may set (a year): a clock, not a storage of forever.
LONGEST = 365 * 86400.0


@dataclass(frozen=True)
class Pace:
    """A table's pace; times in seconds, ``None`` where they do not apply."""

    name: str
    kind: PaceKind
    #: Live: each person's time for the game, and the seconds added after each of their moves.
    base: float | None = None
    increment: float | None = None
    #: Turn-based: the time for each move.
    per_move: float | None = None
    #: Live: how long a person may be disconnected before a stand-in plays for them.
    away: float | None = None

    @property
    def timed(self) -> bool:
        return self.kind != PaceKind.UNTIMED

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind.value,
            "base": self.base,
            "increment": self.increment,
            "per_move": self.per_move,
            "away": self.away,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Pace:
        return cls(
            str(data["name"]),
            PaceKind(data["kind"]),
            data.get("base"),
            data.get("increment"),
            data.get("per_move"),
            data.get("away"),
        )


def _seconds(number: str, unit: str) -> float:
    seconds = float(number) * _UNITS[unit]
    if not 0 < seconds <= LONGEST:
        raise ValueError(f"{number}{unit}: a time must be more than 0 and at most a year")
    return seconds


def parse_pace(name: str, spec: str) -> Pace:
    """A pace from its spec: ``live:BASE+INCREMENT[,away=T]``, ``turn:PER_MOVE`` or
    ``untimed``; times in seconds or with a unit (``s``, ``m``, ``h``, ``d``). ``ValueError``
    says what was wrong."""
    if spec == "untimed":
        return Pace(name, PaceKind.UNTIMED)
    if match := _LIVE.fullmatch(spec):
        base = _seconds(*match.group(1, 2))
        increment = float(match[3]) * _UNITS[match[4]]  # 0 is allowed: no increment
        away = _seconds(*match.group(5, 6)) if match[5] else AWAY
        return Pace(name, PaceKind.LIVE, base=base, increment=increment, away=away)
    if match := _TURN.fullmatch(spec):
        return Pace(name, PaceKind.TURN, per_move=_seconds(*match.group(1, 2)))
    raise ValueError(
        f"pace {name}: {spec!r} is not a pace: write live:5m+5s (optionally ,away=60s), "
        "turn:1d or untimed"
    )


#: The paces every server offers, by name, with their specs.
PACES = {"live": "live:5m+5s,away=60s", "turn-based": "turn:1d", "untimed": "untimed"}
#: The pace of a table with several people unless the request names one; and of a table with
#: one person (a quick game).
WITH_PEOPLE = "turn-based"
ALONE = "untimed"


#: What a resignation does: the game ends (two players only) or the stand-in plays on.
RESIGN_END = "end"
RESIGN_PLAY_ON = "play_on"
#: The stand-in bot unless the table names one.
STAND_IN = "medium"


@dataclass(frozen=True)
class TableSetup:
    """How a table plays, chosen when it is opened: its pace, the bot that stands in for a
    person who is away, what a resignation does, and whether the game counts for the people's
    ratings."""

    pace: Pace
    stand_in: str = STAND_IN
    resign: str = RESIGN_PLAY_ON
    rated: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "pace": self.pace.to_json(),
            "stand_in": self.stand_in,
            "resign": self.resign,
            "rated": self.rated,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any] | None, players: int) -> TableSetup:
        """The stored setup; a table stored before paces is untimed with the medium stand-in."""
        if data is None:
            return cls(Pace(ALONE, PaceKind.UNTIMED), STAND_IN, default_resign(players))
        return cls(
            Pace.from_json(data["pace"]),
            str(data["stand_in"]),
            str(data["resign"]),
            bool(data.get("rated", False)),
        )


def default_resign(players: int) -> str:
    return RESIGN_END if players == 2 else RESIGN_PLAY_ON


class UnknownPace(ValueError):
    """A request named a pace this server does not offer; the message lists those it does."""


class PaceRoster:
    """The paces a request may choose from, by name: :data:`PACES` and the operator's own."""

    def __init__(self, paces: Iterable[Pace]) -> None:
        self.paces = {pace.name: pace for pace in paces}

    @classmethod
    def build(cls, entries: Iterable[str] = ()) -> PaceRoster:
        """The default paces and ``serve --pace NAME=SPEC`` entries (which may redefine one)."""
        specs = dict(PACES)
        for entry in entries:
            name, sep, spec = entry.partition("=")
            if not sep or not re.fullmatch(r"[a-z][a-z0-9-]{0,31}", name):
                raise ValueError(
                    f"--pace {entry!r}: write NAME=SPEC, NAME in lower-case letters, digits and -"
                )
            specs[name] = spec
        return cls(parse_pace(name, spec) for name, spec in specs.items())

    def names(self) -> list[str]:
        return list(self.paces)

    def choose(self, name: str) -> Pace:
        try:
            return self.paces[name]
        except KeyError:
            raise UnknownPace(
                "not a pace this server offers: choose one of " + ", ".join(self.paces)
            ) from None


__all__ = [
    "ALONE",
    "PACES",
    "RESIGN_END",
    "RESIGN_PLAY_ON",
    "STAND_IN",
    "WITH_PEOPLE",
    "Pace",
    "PaceKind",
    "PaceRoster",
    "TableSetup",
    "UnknownPace",
    "default_resign",
    "parse_pace",
]
