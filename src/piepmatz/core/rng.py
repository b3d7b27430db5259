"""The game's own random generator: SplitMix64 on a single 64-bit integer.

The whole generator state is one ``int``, so copying a state for search costs nothing, a state
document stores it as one number, and a program in any language can reproduce a game from its
seed. It is never the global :mod:`random` state.

>>> a, b = [1, 2, 3, 4, 5], [1, 2, 3, 4, 5]
>>> shuffle(a, 7) == shuffle(b, 7) and a == b
True
"""

from __future__ import annotations

from typing import Final, TypeVar

MASK: Final = (1 << 64) - 1
_GOLDEN: Final = 0x9E3779B97F4A7C15

T = TypeVar("T")


def next_u64(state: int) -> tuple[int, int]:
    """Advance the generator: returns ``(new_state, 64 random bits)``."""
    state = (state + _GOLDEN) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def below(state: int, n: int) -> tuple[int, int]:
    """``(new_state, r)`` with ``r`` uniform in ``0..n-1`` (multiply-shift; bias < 2**-58)."""
    state, z = next_u64(state)
    return state, (z * n) >> 64


def shuffle(items: list[T], state: int) -> int:
    """Fisher–Yates shuffle in place; returns the new generator state."""
    for i in range(len(items) - 1, 0, -1):
        state, j = below(state, i + 1)
        items[i], items[j] = items[j], items[i]
    return state


def seed_state(seed: int) -> int:
    """The generator state for a game seed (any integer, negative ones included)."""
    return seed & MASK
