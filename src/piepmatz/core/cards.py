"""The cards of Piepmatz (RULES.md C1–C6) as small integers with a text notation.

Cards are plain ``int`` ids so that the engine's hot path works on lists of ints; the tables in
this module turn an id into its species, value, sex, eggs or name.

Birds (C1) have ids 0–71: ``species * 12 + (value - 1) * 2 + sex`` with sex 0 = male,
1 = female. Their notation is species code, value, sex letter:

>>> bird_name(bird_id("BL", 5, "m"))
'BL5m'
>>> parse_bird("CH1f") == bird_id("CH", 1, "f")
True

Feeder cards (C3) have ids 0–35: seeds with 1, 2 and 3 eggs (ten each), then three crows and
three squirrels. Seeds of one value look alike on the table; the letter only tells copies apart
so that every card has exactly one place:

>>> feeder_name(0), feeder_name(29), feeder_name(30), feeder_name(35)
('S1a', 'S3j', 'CRa', 'SQc')
>>> FEEDER_EGGS[parse_feeder("S2c")]
2
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

SPECIES: Final = ("BL", "BU", "CH", "GR", "SP", "YE")
NUM_SPECIES: Final = len(SPECIES)
NUM_BIRDS: Final = 72
NUM_FEEDER: Final = 36
SEXES: Final = ("m", "f")

BIRD_SPECIES: Final = tuple(b // 12 for b in range(NUM_BIRDS))
BIRD_VALUE: Final = tuple((b % 12) // 2 + 1 for b in range(NUM_BIRDS))
BIRD_FEMALE: Final = tuple(b & 1 for b in range(NUM_BIRDS))
# C2: eggs = value / 2 rounded up.
BIRD_EGGS: Final = tuple((v + 1) // 2 for v in BIRD_VALUE)
BIRD_NAMES: Final = tuple(
    f"{SPECIES[BIRD_SPECIES[b]]}{BIRD_VALUE[b]}{SEXES[BIRD_FEMALE[b]]}" for b in range(NUM_BIRDS)
)
_BIRD_BY_NAME: Final = {name: b for b, name in enumerate(BIRD_NAMES)}


class FeederKind(IntEnum):
    """C3: what a feeder card is."""

    SEED = 0
    CROW = 1
    SQUIRREL = 2


SEED, CROW, SQUIRREL = FeederKind
#: Feeder ids 0-29 are seeds, 30-32 crows, 33-35 squirrels.
NUM_SEEDS: Final = 30
FEEDER_KIND: Final = tuple(
    SEED if f < NUM_SEEDS else CROW if f < NUM_SEEDS + 3 else SQUIRREL for f in range(NUM_FEEDER)
)
#: Whether a feeder card is a pest (a crow or a squirrel): the engine's hot path reads this.
IS_PEST: Final = tuple(kind != SEED for kind in FEEDER_KIND)
# C3 [house rule]: 10 seeds each of 1, 2 and 3 eggs.
FEEDER_EGGS: Final = tuple(f // 10 + 1 if not IS_PEST[f] else 0 for f in range(NUM_FEEDER))
_COPY = "abcdefghij"
FEEDER_NAMES: Final = tuple(
    f"S{FEEDER_EGGS[f]}{_COPY[f % 10]}"
    if not IS_PEST[f]
    else ("CR" if FEEDER_KIND[f] == CROW else "SQ") + _COPY[(f - NUM_SEEDS) % 3]
    for f in range(NUM_FEEDER)
)
_FEEDER_BY_NAME: Final = {name: f for f, name in enumerate(FEEDER_NAMES)}

# C4 [house rule]: the five "3+" cards are one 1-egg seed, two 2-egg seeds, one 3-egg seed, one
# crow.
THREE_PLUS: Final = frozenset(_FEEDER_BY_NAME[n] for n in ("S1j", "S2i", "S2j", "S3j", "CRc"))


def bird_id(species: str, value: int, sex: str) -> int:
    """The id of a bird from its species code, value 1–6 and sex letter ``m``/``f``."""
    return SPECIES.index(species) * 12 + (value - 1) * 2 + SEXES.index(sex)


def bird_name(bird: int) -> str:
    return BIRD_NAMES[bird]


def feeder_name(card: int) -> str:
    return FEEDER_NAMES[card]


def parse_bird(text: str) -> int:
    """Parse a bird's notation (``BL5m``); raise ``ValueError`` naming the text if it is none."""
    try:
        return _BIRD_BY_NAME[text]
    except KeyError:
        raise ValueError(
            f"{text!r} is not a bird card: expected species {'/'.join(SPECIES)}, value 1-6 and "
            "sex m/f, as in 'BL5m'"
        ) from None


def parse_feeder(text: str) -> int:
    """Parse a feeder card's notation (``S2c``, ``CRa``, ``SQb``)."""
    try:
        return _FEEDER_BY_NAME[text]
    except KeyError:
        raise ValueError(
            f"{text!r} is not a feeder card: expected S1a-S3j for seeds, CRa-CRc for crows or "
            "SQa-SQc for squirrels"
        ) from None


def species_birds(species: int) -> list[int]:
    """The ids of the twelve birds of one species (S2 sets one aside with two players)."""
    return [b for b in range(NUM_BIRDS) if BIRD_SPECIES[b] == species]


def describe_feeder(card: int) -> str:
    kind = FEEDER_KIND[card]
    if kind == SEED:
        eggs = FEEDER_EGGS[card]
        return f"seed ({eggs} egg{'s' if eggs > 1 else ''})"
    return "crow" if kind == CROW else "squirrel"
