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

    def to_json(self) -> dict[str, Any]:
        return {
            "players": [p.to_json() for p in self.players],
            "majority": dict(self.majority),
            "winners": list(self.winners),
            "tiebreak": self.tiebreak,
            "final": self.final,
        }


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
        seeds = sum(FEEDER_EGGS[c] for c in seed_piles[p])
        owned = set(collection)
        singles: dict[str, int] = {}
        pairs = 0
        pair_points = 0
        if rules.pairs == "mated":
            paired = mated(rules, collection)
            pairs = len(paired) // 2
            pair_points = PAIR_POINTS * pairs
            for bird in owned - paired:
                code = SPECIES[BIRD_SPECIES[bird]]
                if majority.get(code) == p:
                    singles[code] = singles.get(code, 0) + BIRD_EGGS[bird]
        else:
            for s, code in enumerate(SPECIES):
                birds = [b for b in owned if BIRD_SPECIES[b] == s]
                sexes = {BIRD_FEMALE[b] for b in birds}
                eggs = sum(BIRD_EGGS[b] for b in birds)
                if len(sexes) == 2:
                    pairs += 1
                    pair_points += eggs
                elif birds and majority.get(code) == p:
                    singles[code] = eggs
        total = seeds + pair_points + sum(singles.values())
        sheets.append(PlayerScore(p, seeds, pairs, pair_points, singles, len(collection), total))
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
