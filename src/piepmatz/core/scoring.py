"""Scoring (E4) and the winner (E5): a score sheet that shows every part separately.

The sheet can be computed at any moment (a running score); it is final once the game is over.
How a sheet reads in words is :mod:`piepmatz.text.scoresheet`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .cards import BIRD_EGGS, BIRD_FEMALE, BIRD_SPECIES, FEEDER_EGGS, SPECIES
from .rules import Rules

if TYPE_CHECKING:
    from .state import State
    from .view import PlayerView

PAIR_POINTS = 5


@dataclass(frozen=True, slots=True)
class PlayerScore:
    player: int
    seeds: int
    #: Number of mated pairs (``mated``) or of species with both sexes (``species``).
    pairs: int
    pair_points: int
    #: Points from singles, per species code (E4); species with no points are left out.
    singles: dict[str, int]
    birds: int
    total: int

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "seeds": self.seeds,
            "pairs": self.pairs,
            "pair_points": self.pair_points,
            "singles": dict(self.singles),
            "birds": self.birds,
            "total": self.total,
        }


@dataclass(frozen=True, slots=True)
class ScoreSheet:
    players: tuple[PlayerScore, ...]
    #: Species code → the player holding the strict majority, or ``None`` on a tie (E4).
    majority: dict[str, int | None]
    #: E5: the winners (several share the win when still tied after the tiebreak).
    winners: tuple[int, ...]
    #: True when the tiebreak (most birds) was needed to decide or share the win.
    tiebreak: bool
    final: bool

    def places(self) -> list[int]:
        """Each seat's place (1 = best) in E5's order, the total and then the birds; seats
        still tied share a place, and the winners are those in place 1."""
        return places([(p.total, p.birds) for p in self.players])

    def to_json(self) -> dict[str, Any]:
        return {
            "players": [p.to_json() for p in self.players],
            "majority": dict(self.majority),
            "winners": list(self.winners),
            "tiebreak": self.tiebreak,
            "final": self.final,
        }


def places(keys: Sequence[Sequence[float]]) -> list[int]:
    """Each entry's place (1 = best) by its key, the higher the better; equal keys share it.

    >>> places([(30, 9), (34, 7), (30, 9)])
    [2, 1, 2]
    """
    return [1 + sum(tuple(other) > tuple(key) for other in keys) for key in keys]


def majorities(collections: Sequence[Sequence[int]]) -> dict[str, int | None]:
    """E4's majorities: for each species someone collected, the one player with the most birds
    of it, or ``None`` when the most are shared."""
    n = len(collections)
    counts = [[0] * len(SPECIES) for _ in range(n)]
    for p, collection in enumerate(collections):
        for bird in collection:
            counts[p][BIRD_SPECIES[bird]] += 1
    majority: dict[str, int | None] = {}
    for s, code in enumerate(SPECIES):
        best = max(counts[p][s] for p in range(n))
        if best == 0:
            continue
        holders = [p for p in range(n) if counts[p][s] == best]
        majority[code] = holders[0] if len(holders) == 1 else None
    return majority


def mated(rules: Rules, collection: Sequence[int]) -> set[int]:
    """The birds of a collection that E4 scores as mated pairs: under ``pairs=mated`` the male
    and the female of one species and value (ids ``b`` and ``b ^ 1``); none under
    ``pairs=species``, which counts species, not birds."""
    if rules.pairs != "mated":
        return set()
    owned = set(collection)
    return {b for b in owned if b ^ 1 in owned}


@dataclass(frozen=True, slots=True)
class Breakdown:
    """Which cards make each part of one player's score (E4), for a sheet that explains itself."""

    #: The seed cards of the player's pile.
    seeds: tuple[int, ...]
    #: Each mated pair (male, female) under ``pairs=mated``; under ``pairs=species``, the birds
    #: of each species of which the player has both sexes.
    pairs: tuple[tuple[int, ...], ...]
    #: Species code → the birds that score their eggs as singles (the majority holder's).
    singles: dict[str, tuple[int, ...]]
    #: Species code → the player's birds that score nothing (no majority, or a tie).
    unscored: dict[str, tuple[int, ...]]


def breakdown(
    rules: Rules,
    collections: Sequence[Sequence[int]],
    seed_piles: Sequence[Sequence[int]],
    player: int,
    majority: dict[str, int | None] | None = None,
) -> Breakdown:
    """E4 for one player, card by card: :func:`score` adds these parts up."""
    if majority is None:
        majority = majorities(collections)
    owned = sorted(set(collections[player]))
    pairs: list[tuple[int, ...]] = []
    singles: dict[str, tuple[int, ...]] = {}
    unscored: dict[str, tuple[int, ...]] = {}
    for s, code in enumerate(SPECIES):
        birds = [b for b in owned if BIRD_SPECIES[b] == s]
        if not birds:
            continue
        if rules.pairs == "mated":
            paired = mated(rules, birds)
            pairs += [(b, b ^ 1) for b in birds if b in paired and not BIRD_FEMALE[b]]
            rest = tuple(b for b in birds if b not in paired)
        elif len({BIRD_FEMALE[b] for b in birds}) == 2:
            pairs.append(tuple(birds))
            rest = ()
        else:
            rest = tuple(birds)
        if rest:
            (singles if majority.get(code) == player else unscored)[code] = rest
    return Breakdown(tuple(seed_piles[player]), tuple(pairs), singles, unscored)


def score(
    rules: Rules,
    collections: list[list[int]],
    seed_piles: list[list[int]],
    final: bool = True,
) -> ScoreSheet:
    """E4/E5 for given collections and seed piles (one list per player)."""
    majority = majorities(collections)
    sheets = []
    for p, collection in enumerate(collections):
        parts = breakdown(rules, collections, seed_piles, p, majority)
        seeds = sum(FEEDER_EGGS[c] for c in parts.seeds)
        if rules.pairs == "mated":
            pair_points = PAIR_POINTS * len(parts.pairs)
        else:
            pair_points = sum(BIRD_EGGS[b] for group in parts.pairs for b in group)
        singles = {code: sum(BIRD_EGGS[b] for b in birds) for code, birds in parts.singles.items()}
        total = seeds + pair_points + sum(singles.values())
        sheets.append(
            PlayerScore(p, seeds, len(parts.pairs), pair_points, singles, len(collection), total)
        )
    top = max(s.total for s in sheets)
    leaders = [s for s in sheets if s.total == top]
    tiebreak = len(leaders) > 1
    most_birds = max(s.birds for s in leaders)
    winners = tuple(s.player for s in leaders if s.birds == most_birds)
    return ScoreSheet(tuple(sheets), majority, winners, tiebreak, final)


def score_state(state: State) -> ScoreSheet:
    """The score sheet of a state: final once the game is over, a running score before."""
    piles = [state.seed_pile(p) for p in range(state.num_players)]
    return score(state.rules, state.collections, piles, state.is_over())


def score_view(
    view: PlayerView,
    collections: Sequence[Sequence[int]] | None = None,
    seeds_seen: Sequence[Sequence[int]] | None = None,
) -> ScoreSheet:
    """The running score as the view's player knows it: the collections, the seeds everybody
    saw taken and the player's own blind seeds, never another player's (E4 on what is known).

    ``collections`` and ``seeds_seen`` stand in for the view's, to score what a move would do.
    """
    seeds = [list(s) for s in (view.seeds_seen if seeds_seen is None else seeds_seen)]
    seeds[view.player] += view.own_blind
    birds = view.collections if collections is None else collections
    return score(view.rules, [list(c) for c in birds], seeds, final=False)
