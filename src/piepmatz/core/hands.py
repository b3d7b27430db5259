"""What everybody knows about a player's hidden hand from how the player moved (T2.2).

After a play without a chase a player who holds a bird worth at most the one played is asked
whether to collect it; a player who holds none moves on at once. Everybody sees which happened,
so everybody learns a bound on the values in that hand: "at least one bird worth at most v"
(asked) or "every bird worth more than v" (moved on). The bounds hold until the birds leave the
hand, and birds drawn later are not bound.

A player's knowledge is a :data:`Facts` tuple of lower bounds on counts, kept by the state and
shown in every view, so that a sampled world (:mod:`piepmatz.core.view`) deals only hands that
agree with what the table showed:

>>> facts = moved_on(NO_FACTS, held=3, played=2)  # three birds, none worth 1 or 2
>>> allows(facts, [3, 5, 6]), allows(facts, [2, 5, 6])
(True, False)
>>> after = left_hand(facts, 5)  # one of the three left: two remain above 2
>>> after is not None and allows(after, [1, 6]), allows(after, [1, 5, 6])
(False, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Final

#: ``facts[v]``: at least that many hand birds are worth more than ``v`` (v = 0-6);
#: ``facts[7 + v]``: at least that many are worth at most ``v``.
Facts = tuple[int, ...]
NO_FACTS: Final[Facts] = (0,) * 14
_VALUES: Final = range(7)


# The engine updates facts on every play, so the three updates are cached: a game meets few
# distinct facts.
@lru_cache(maxsize=4096)
def moved_on(facts: Facts, held: int, played: int) -> Facts:
    """T2.2: the player holding ``held`` birds was not asked, so all are worth more than
    ``played``."""
    return tuple(max(f, held) if i <= played else f for i, f in enumerate(facts[:7])) + facts[7:]


@lru_cache(maxsize=4096)
def asked(facts: Facts, played: int) -> Facts:
    """T2.2: the player was asked, so at least one hand bird is worth at most ``played``."""
    return facts[:7] + tuple(max(f, 1) if v >= played else f for v, f in enumerate(facts[7:]))


@lru_cache(maxsize=4096)
def left_hand(facts: Facts, value: int) -> Facts | None:
    """A bird worth ``value`` left the hand (played, collected): each bound it may have met is
    one less. ``None`` once nothing is known any more."""
    after = tuple(
        (f - 1 if f and value > i else f) if i < 7 else (f - 1 if f and value <= i - 7 else f)
        for i, f in enumerate(facts)
    )
    return after if any(after) else None


def allows(facts: Facts, values: Sequence[int]) -> bool:
    """Whether a hand of birds with these values agrees with the facts."""
    for v in _VALUES:
        above = facts[v]
        below = facts[7 + v]
        if above or below:
            more = sum(1 for x in values if x > v)
            if more < above or len(values) - more < below:
                return False
    return True
