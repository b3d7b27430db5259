"""Rule flags and the two presets (RULES.md section V).

A preset is a named set of flags; a game's options name a preset and may override single flags.
Presets are found by name through a registry with aliases:

>>> Rules.preset("standard").draw
'refill'
>>> Rules.preset("english").draw
'one'
>>> Rules.preset("standard", last_hand=False).last_hand
False
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Final, Literal

from .errors import InvalidOptionsError

Draw = Literal["refill", "one"]
EndTrigger = Literal["feeder", "feeder_or_birds"]
Pairs = Literal["mated", "species"]

_CHOICES: Final[dict[str, tuple[Any, ...]]] = {
    "no_chase_collect": (True, False),
    "draw": ("refill", "one"),
    "end_trigger": ("feeder", "feeder_or_birds"),
    "last_hand": (True, False),
    "pairs": ("mated", "species"),
}


@dataclass(frozen=True, slots=True)
class Rules:
    """The flags of section V. The defaults are the published game (``standard``)."""

    #: T2.2 — after no chase, the player may add a low hand bird to their collection.
    no_chase_collect: bool = True
    #: T3.1 — ``refill`` the hand to four cards, or draw exactly ``one``.
    draw: Draw = "refill"
    #: E1 — the end is triggered by the empty ``feeder`` deck, or also by an empty bird deck at the
    #: end of a turn (``feeder_or_birds``).
    end_trigger: EndTrigger = "feeder"
    #: E3 — two hand cards join the collection at the end.
    last_hand: bool = True
    #: E4 — ``mated``: male + female of the same species and value score 5; ``species``: every bird
    #: of a species in which the player holds both sexes scores its eggs.
    pairs: Pairs = "mated"

    @staticmethod
    def preset(name: str = "standard", **overrides: Any) -> Rules:
        """The preset called ``name`` (or one of its aliases), with single flags overridden."""
        key = name.strip().lower() if isinstance(name, str) else None
        if key not in _ALIASES:
            raise InvalidOptionsError(
                f"unknown rules preset {name!r}: choose one of {', '.join(sorted(PRESETS))}"
            )
        return PRESETS[_ALIASES[key]].with_flags(**overrides)

    def with_flags(self, **overrides: Any) -> Rules:
        """A copy with some flags changed; every name and value is checked."""
        for key, value in overrides.items():
            if key not in _CHOICES:
                raise InvalidOptionsError(
                    f"unknown rule flag {key!r}: flags are {', '.join(_CHOICES)}"
                )
            if value not in _CHOICES[key] or type(value) is not type(_CHOICES[key][0]):
                choices = ", ".join(repr(c) for c in _CHOICES[key])
                raise InvalidOptionsError(
                    f"rule flag {key!r} cannot be {value!r}: choose {choices}"
                )
        return replace(self, **overrides)

    @staticmethod
    def parse(spec: str) -> Rules:
        """Rules from ``preset`` or ``preset:flag=value,flag=value`` (``true``/``false`` or
        ``yes``/``no`` for yes/no flags): the one reader of a rule set given as text.

        >>> Rules.parse("standard:last_hand=false,draw=one").last_hand
        False
        """
        if not isinstance(spec, str):
            raise InvalidOptionsError(f"a rule set is text such as 'standard', not {spec!r}")
        name, _, rest = spec.partition(":")
        flags: dict[str, Any] = {}
        for item in filter(None, (part.strip() for part in rest.split(","))):
            key, eq, value = item.partition("=")
            key = key.strip()
            if not eq:
                raise InvalidOptionsError(f"rule flag {item!r} needs a value: write {item}=...")
            choices = _CHOICES.get(key)
            if choices is not None and isinstance(choices[0], bool):
                low = value.strip().lower()
                if low not in ("true", "false", "yes", "no", "1", "0"):
                    raise InvalidOptionsError(f"rule flag {key!r} is true or false, not {value!r}")
                flags[key] = low in ("true", "yes", "1")
            else:
                flags[key] = value.strip()
        return Rules.preset(name, **flags)

    def to_json(self) -> dict[str, Any]:
        # Every flag is a bool, an int or a str: no deep copy (``asdict``) needed.
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: Any) -> Rules:
        if not isinstance(data, dict):
            raise InvalidOptionsError(
                f"rules must be an object of flags, not {type(data).__name__}"
            )
        missing = [f.name for f in fields(cls) if f.name not in data]
        if missing:
            raise InvalidOptionsError(f"rules lack the flags {', '.join(missing)}")
        return cls().with_flags(**data)

    @property
    def name(self) -> str:
        """The preset these flags are, or ``custom``."""
        for preset_name, rules in PRESETS.items():
            if rules == self:
                return preset_name
        return "custom"


PRESETS: Final = {
    "standard": Rules(),
    "overview": Rules(
        no_chase_collect=False,
        draw="one",
        end_trigger="feeder_or_birds",
        last_hand=False,
        pairs="species",
    ),
}
_ALIASES: Final = {
    "standard": "standard",
    "published": "standard",
    "default": "standard",
    "overview": "overview",
    "english": "overview",
}
FLAGS: Final = tuple(_CHOICES)
#: S1: the game is for two, three or four players.
PLAYER_COUNTS: Final = (2, 3, 4)


def check_players(players: object) -> int:
    """``players`` if it is a player count the game has (S1), else :class:`InvalidOptionsError`."""
    if type(players) is not int or players not in PLAYER_COUNTS:
        raise InvalidOptionsError(f"Piepmatz is for 2, 3 or 4 players, not {players!r} (S1)")
    return players


FLAG_CHOICES: Final = _CHOICES
