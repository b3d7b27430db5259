"""Position evaluation, shared by the heuristic and ISMCTS.

Everything here works on *sampled* worlds (states built by
:func:`piepmatz.core.view.determinise` from a player's view) or on the view itself — never on the
real state of a game.

:func:`standings` estimates every player's final score from a position: the running score of
E4 (computed by the engine's :func:`~piepmatz.core.scoring.score` for rule sets other than the
published one; a fast equivalent for ``pairs="mated"``, checked against the engine by the tests),
plus a small allowance for hand birds that would complete a mated pair at the last hand (E3).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from piepmatz.core.cards import (
    BIRD_EGGS,
    BIRD_SPECIES,
    BIRD_VALUE,
    CROW,
    FEEDER_EGGS,
    FEEDER_KIND,
    NUM_SPECIES,
)
from piepmatz.core.rules import Rules
from piepmatz.core.scoring import PAIR_POINTS, score
from piepmatz.core.state import GAME_OVER, State

#: Value of a hand bird whose mate is already in its owner's collection: it can join the
#: collection at the last hand (E3) or by collecting after a calm play (T2.2).
HAND_MATE_BONUS = 1.5
#: A sigmoid of the score margin turns an estimate into a reward in [0, 1]; a lead of this many
#: points gives a reward of about 0.73.
MARGIN_SCALE = 6.0


#: Eggs expected from a seed drawn blind from the feeder deck (1, 2 or 3 eggs, ten of each).
BLIND_EGGS = 2.0
#: What a pest beside the seed costs: a crow takes a bird, a squirrel two seeds.
CROW_COST = 2.5
SQUIRREL_COST = 3.0
#: Points a mated pair adds beyond its birds' eggs, roughly (5 points against 2 × 2 eggs).
MATE_GAIN = 4.0
#: Share of the next player's best chase that a play is charged for (they may lack the bird).
EXPOSURE_WEIGHT = 0.5


def chase_gain(
    row: Sequence[int],
    column: Sequence[int],
    column_pests: Sequence[int],
    value: int,
    collection: Sequence[int] = (),
) -> float:
    """Points the first chase step would bring after playing a bird of ``value`` onto ``row``.

    Zero when the play does not chase (T2.1: G must exceed P). Counts the seed at position d (or
    a blind draw), the perch bird with a bonus if it completes a pair with ``collection``, and
    the cost of the pest lying beside the seed.
    """
    perch = row[0]
    ground = value
    for bird in row[1:]:
        ground += BIRD_VALUE[bird]
    d = ground - BIRD_VALUE[perch]
    if d <= 0:
        return 0.0
    gain = float(BIRD_EGGS[perch])
    if perch ^ 1 in collection:
        gain += MATE_GAIN
    if d <= len(column):
        gain += FEEDER_EGGS[column[d - 1]]
        pest = column_pests[d - 1]
        if pest >= 0:
            gain -= CROW_COST if FEEDER_KIND[pest] == CROW else SQUIRREL_COST
    else:
        gain += BLIND_EGGS
    return gain


def exposure(rows: Sequence[Sequence[int]], column: Sequence[int], pests: Sequence[int]) -> float:
    """The best first chase step any bird value could start on these rows."""
    best = 0.0
    for row in rows:
        for value in range(1, 7):
            g = chase_gain(row, column, pests, value)
            if g > best:
                best = g
    return best


def running_scores(
    rules: Rules, collections: Sequence[Sequence[int]], seed_piles: Sequence[Sequence[int]]
) -> list[int]:
    """E4 totals as they stand: the engine's scoring, with a fast path for mated pairs."""
    if rules.pairs != "mated":
        sheet = score(rules, [list(c) for c in collections], [list(s) for s in seed_piles], False)
        return [p.total for p in sheet.players]
    n = len(collections)
    counts = [[0] * NUM_SPECIES for _ in range(n)]
    for p in range(n):
        row = counts[p]
        for bird in collections[p]:
            row[BIRD_SPECIES[bird]] += 1
    # The strict majority holder of each species, or -1 (a tie or nobody): E4 singles.
    holder = [-1] * NUM_SPECIES
    for sp in range(NUM_SPECIES):
        best = 0
        who = -1
        for p in range(n):
            c = counts[p][sp]
            if c > best:
                best, who = c, p
            elif c == best:
                who = -1
        holder[sp] = who
    totals = []
    for p in range(n):
        owned = set(collections[p])
        total = 0
        for seed in seed_piles[p]:
            total += FEEDER_EGGS[seed]
        paired = 0
        for bird in owned:
            if bird ^ 1 in owned:  # the mate: same species and value, other sex
                paired += 1
            elif holder[BIRD_SPECIES[bird]] == p:
                total += BIRD_EGGS[bird]
        totals.append(total + paired // 2 * PAIR_POINTS)
    return totals


def standings(world: State) -> list[float]:
    """Every player's estimated final score in a (sampled) world."""
    n = world.num_players
    piles = [world.seeds_seen[p] + world.seeds_blind[p] for p in range(n)]
    if world.phase == GAME_OVER:
        return [float(t) for t in running_scores(world.rules, world.collections, piles)]
    collections = world.collections
    kept = world.kept
    if any(k for k in kept):
        # E3 choices made but not yet revealed count as collected.
        collections = [c + (kept[p] or []) for p, c in enumerate(collections)]
    values = [float(t) for t in running_scores(world.rules, collections, piles)]
    if world.rules.last_hand:
        for p in range(n):
            owned = collections[p]
            if not owned:
                continue
            mates = sum(1 for bird in world.hands[p] if bird ^ 1 in owned)
            values[p] += HAND_MATE_BONUS * min(mates, 2)
    return values


def margins(values: Sequence[float]) -> list[float]:
    """Each player's lead over the best of the others (negative when behind)."""
    out = []
    for p, v in enumerate(values):
        best_other = max(values[q] for q in range(len(values)) if q != p)
        out.append(v - best_other)
    return out


def final_values(world: State) -> list[float]:
    """:func:`standings`, where at the end of the game the tiebreak (E5: most birds) separates
    equal scores, so that a won tie is worth more than a lost one."""
    values = standings(world)
    if world.phase == GAME_OVER:
        values = [v + 0.01 * len(world.collections[p]) for p, v in enumerate(values)]
    return values


def sigmoid(margin: float) -> float:
    """A score margin as a reward in [0, 1] (:data:`MARGIN_SCALE`)."""
    return 1.0 / (1.0 + math.exp(-margin / MARGIN_SCALE))


def rewards(world: State) -> list[float]:
    """Rewards in [0, 1] for every player: a sigmoid of the estimated final score margin."""
    return [sigmoid(m) for m in margins(final_values(world))]
