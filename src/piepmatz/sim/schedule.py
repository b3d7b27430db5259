"""Who sits where, and every seed of a tournament.

A tournament plays a number of *deals* (card seeds). Each deal is played once with every
*lineup* of the schedule (the duplicate format), so the luck of the cards falls on every bot alike.
Game ``index`` is deal ``index // L`` played with lineup ``index % L`` (``L`` lineups).

Lineups (``k`` bot entries, ``n`` seats):

- ``k == n``: the ``n`` cyclic rotations of the bot list over the seats — each bot sits in every
  seat once per deal. With ``seating="permutations"`` every ordering of the bots is played
  (``n!`` lineups), which also balances who sits after whom.
- ``k < n``: the seats are filled by cycling the bot list (``A B`` at 3 seats is ``A B A``) and that
  filled list is rotated over the seats (its distinct rotations: ``A B A B`` has two, a single bot
  one), so every bot still sits in every seat; a bot listed earlier can fill one seat more per
  game than a later one (statistics are per seat, so this does not bias them).
- ``k > n``: every combination of ``n`` bots (in list order), each rotated over the seats.

Every seed comes from the tournament seed by hashing (the deals' here, the bots' generators by
:func:`~piepmatz.bots.base.bot_rngs` with the game's index), so a game depends on nothing but the
tournament seed and its index — not on the backend, the batching or the number of workers:

>>> deal_seed(7, 0) == deal_seed(7, 0) != deal_seed(7, 1)
True
>>> cyclic_lineups(3, 3)
((0, 1, 2), (1, 2, 0), (2, 0, 1))
>>> cyclic_lineups(2, 3)
((0, 1, 0), (1, 0, 0), (0, 0, 1))
"""

from __future__ import annotations

import itertools
from typing import Final

from piepmatz.bots.base import derive_seed

SEATINGS: Final = ("cyclic", "permutations")


def deal_seed(seed: int, deal: int) -> int:
    """The game seed (cards, first player) of deal ``deal``."""
    return derive_seed(seed, "deal", deal)


def _rotations(filled: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The distinct cyclic rotations (``A A A`` has one, ``A B A B`` two): every distinct one once
    keeps each bot equally often in each seat, and plays no lineup twice per deal."""
    n = len(filled)
    out: list[tuple[int, ...]] = []
    for r in range(n):
        rotated = tuple(filled[(seat + r) % n] for seat in range(n))
        if rotated not in out:
            out.append(rotated)
    return out


def cyclic_lineups(entries: int, seats: int) -> tuple[tuple[int, ...], ...]:
    """Entry index per seat for each lineup, by the rules in the module docstring."""
    if entries < 1 or seats < 1:
        raise ValueError("a tournament needs at least one bot and one seat")
    if entries <= seats:
        return tuple(_rotations(tuple(i % entries for i in range(seats))))
    out: list[tuple[int, ...]] = []
    for group in itertools.combinations(range(entries), seats):
        out.extend(_rotations(group))
    return tuple(out)


def permutation_lineups(entries: int, seats: int) -> tuple[tuple[int, ...], ...]:
    """Every ordering of ``seats`` bots (fewer bots than seats: orderings of the filled list)."""
    if entries < 1 or seats < 1:
        raise ValueError("a tournament needs at least one bot and one seat")
    if entries <= seats:
        filled = tuple(i % entries for i in range(seats))
        return tuple(sorted(set(itertools.permutations(filled))))
    return tuple(itertools.permutations(range(entries), seats))


def lineups(entries: int, seats: int, seating: str = "cyclic") -> tuple[tuple[int, ...], ...]:
    if seating == "cyclic":
        return cyclic_lineups(entries, seats)
    if seating == "permutations":
        return permutation_lineups(entries, seats)
    raise ValueError(f"unknown seating {seating!r}: choose one of {', '.join(SEATINGS)}")
