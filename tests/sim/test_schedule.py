"""Seat rotation (duplicate format) and seeding."""

from __future__ import annotations

import itertools

import pytest

from piepmatz.bots.base import derive_seed
from piepmatz.sim.schedule import deal_seed, lineups


@pytest.mark.parametrize("seating", ["cyclic", "permutations"])
@pytest.mark.parametrize(
    ("bots", "seats"), [(3, 3), (2, 3), (1, 4), (3, 4), (4, 2), (5, 3), (2, 2)]
)
def test_every_bot_sits_in_every_seat(bots: int, seats: int, seating: str) -> None:
    table = lineups(bots, seats, seating)
    assert all(len(lineup) == seats for lineup in table)
    for bot in range(bots):
        seats_taken = {seat for lineup in table for seat, b in enumerate(lineup) if b == bot}
        assert seats_taken == set(range(seats)), (bot, table)


@pytest.mark.parametrize("seating", ["cyclic", "permutations"])
@pytest.mark.parametrize(("bots", "seats"), [(3, 3), (4, 4), (2, 4), (4, 3)])
def test_each_bot_sits_equally_often_in_each_seat(bots: int, seats: int, seating: str) -> None:
    table = lineups(bots, seats, seating)
    for bot in range(bots):
        counts = [sum(lineup[s] == bot for lineup in table) for s in range(seats)]
        assert len(set(counts)) == 1, (bot, counts)


def test_cyclic_rotations_when_bots_match_seats() -> None:
    assert lineups(3, 3) == ((0, 1, 2), (1, 2, 0), (2, 0, 1))


def test_fewer_bots_fill_seats_by_cycling_the_list() -> None:
    # A B at four seats is A B A B, rotated (two distinct rotations); one bot needs one lineup.
    assert lineups(2, 4) == ((0, 1, 0, 1), (1, 0, 1, 0))
    assert lineups(1, 3) == ((0, 0, 0),)


def test_more_bots_than_seats_play_every_combination() -> None:
    table = lineups(4, 2)
    assert len(table) == 6 * 2
    assert {frozenset(lineup) for lineup in table} == {
        frozenset(c) for c in itertools.combinations(range(4), 2)
    }


def test_permutations_are_every_ordering() -> None:
    assert set(lineups(3, 3, "permutations")) == set(itertools.permutations(range(3)))
    assert len(lineups(2, 3, "permutations")) == 3  # orderings of A B A


def test_unknown_seating_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown seating"):
        lineups(2, 2, "random")


def test_seeds_are_stable_and_distinct() -> None:
    # A fixed value: seeds must not change between Python runs or versions (no hash()).
    assert derive_seed(7, "deal", 0) == deal_seed(7, 0)
    assert deal_seed(7, 0) == 0x34ABD1F23C1B6119
    assert derive_seed(7, "bot", 5, 2) == 5745067513283480171  # game 5, seat 2's generator
    seeds = {deal_seed(7, d) for d in range(1000)}
    seeds |= {derive_seed(7, "bot", g, s) for g in range(300) for s in range(4)}
    assert len(seeds) == 1000 + 1200
    assert all(0 <= s < 2**63 for s in seeds)
    assert deal_seed(7, 3) != deal_seed(8, 3)
