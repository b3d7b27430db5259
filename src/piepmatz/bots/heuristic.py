"""The heuristic bot and the light greedy rule.

:class:`HeuristicBot` values each option by what it gains and risks now. It samples one world
from its view (:func:`~piepmatz.core.view.determinise`), plays each legal action on a copy and
scores the result with :func:`~piepmatz.bots.evaluate.standings` — seed eggs, the bird won, pairs
completed or lost, majorities gained or lost, the pest beside the seed taken all show up there
because the engine resolves the chase. Its own follow-up decisions of the same turn (collect
after a calm play, the crow's victim) are looked ahead one step. A play is then charged for what
it leaves the next player: the best first chase step a bird of any value could start on the rows
it leaves (:func:`chase_gain`). Draws are scored directly from the view.

:func:`greedy_action` is a much cheaper rule of thumb over the same ideas (the ``greedy`` bot, a
step between random and the heuristic): it reads only the acting player's own cards and the table
of a sampled world.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence

from piepmatz.core.actions import (
    COLLECT_BASE,
    CROW_BASE,
    DRAW_DECK_ID,
    DRAW_DISPLAY_BASE,
    KEEP_BASE,
    MAX_PERCHES,
    PAIRS,
    PASS_ID,
)
from piepmatz.core.cards import BIRD_EGGS, BIRD_SPECIES, BIRD_VALUE
from piepmatz.core.state import COLLECT, CROW_VICTIM, DRAW, LAST_HAND, PLAY, State
from piepmatz.core.view import PlayerView, determinise

from .evaluate import (
    EXPOSURE_WEIGHT,
    MATE_GAIN,
    chase_gain,
    exposure,
    standings,
)


def _pick(scored: list[tuple[float, int]], rng: random.Random) -> int:
    """The best-scored action id; ties broken by ``rng``."""
    top = max(s for s, _ in scored)
    best = [a for s, a in scored if s >= top - 1e-9]
    return best[0] if len(best) == 1 else best[rng.randrange(len(best))]


def draw_score(
    bird: int, hand: Sequence[int], collection: Sequence[int], species: Collection[int]
) -> float:
    """How much a display bird is worth taking into ``hand`` (the deck scores 1.0).

    ``species`` are the species present in ``collection``.
    """
    if bird ^ 1 in collection:
        return 2.0 + MATE_GAIN
    score = 0.5 + 0.2 * BIRD_EGGS[bird]
    if bird ^ 1 in hand:
        score += 1.5
    if BIRD_SPECIES[bird] in species:
        score += 0.3
    return score


class HeuristicBot:
    """Greedy one-step evaluation on a sampled world, with a look at the next player's chance."""

    name = "heuristic"
    reads_log = False  # the view alone: a tournament keeps no log for it

    def __init__(self, exposure_weight: float = EXPOSURE_WEIGHT) -> None:
        self.exposure_weight = exposure_weight

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        if len(legal) == 1:
            return legal[0]
        if view.phase == DRAW:
            return self._draw(view, legal, rng)
        world = determinise(view, rng, events=False)
        return best_by_evaluation(world, legal, rng, self.exposure_weight)

    def _draw(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        me = view.player
        collection = view.collections[me]
        species = {BIRD_SPECIES[b] for b in collection}
        scored = []
        for a in legal:
            if a == DRAW_DECK_ID:
                scored.append((1.0, a))
            else:
                bird = view.display[a - DRAW_DISPLAY_BASE]
                scored.append((draw_score(bird, view.hand, collection, species), a))
        return _pick(scored, rng)


def _margin(world: State, player: int) -> float:
    values = standings(world)
    mine = values[player]
    return mine - max(v for q, v in enumerate(values) if q != player)


def _resolve_own(world: State, player: int) -> float:
    """The player's margin after taking their best immediate follow-up decision, if any."""
    if world.current_player == player and world.phase in (COLLECT, CROW_VICTIM):
        best = float("-inf")
        for a in world.legal_action_ids():
            w = world.copy(events=False)
            w.apply_id(a)
            m = _margin(w, player)
            if m > best:
                best = m
        return best
    return _margin(world, player)


def best_by_evaluation(
    world: State, legal: Sequence[int], rng: random.Random, exposure_weight: float
) -> int:
    """The action whose result evaluates best for the acting player of ``world``."""
    player = world.current_player
    phase = world.phase
    scored = []
    for a in legal:
        w = world.copy(events=False)
        w.apply_id(a)
        value = _resolve_own(w, player)
        if phase == PLAY and exposure_weight:
            value -= exposure_weight * exposure(w.rows, w.column, w.column_pests)
        scored.append((value, a))
    return _pick(scored, rng)


def greedy_action(world: State, legal: Sequence[int], rng: random.Random) -> int:
    """A cheap rule of thumb: the acting player's own cards and the table only."""
    if len(legal) == 1:
        return legal[0]
    p = world.current_player
    phase = world.phase
    collection = world.collections[p]
    if phase == PLAY:
        best = -1.0
        choice = legal[int(rng.random() * len(legal))]
        rows, column, pests = world.rows, world.column, world.column_pests
        for a in legal:
            bird = a // MAX_PERCHES
            g = chase_gain(rows[a % MAX_PERCHES], column, pests, BIRD_VALUE[bird], collection)
            if g > best:
                best, choice = g, a
        return choice
    if phase == COLLECT:
        scored = [
            (
                (MATE_GAIN if (a - COLLECT_BASE) ^ 1 in collection else 0.0)
                + BIRD_EGGS[a - COLLECT_BASE]
                if a != PASS_ID
                else 0.0,
                a,
            )
            for a in legal
        ]
        return max(scored)[1]
    if phase == DRAW:
        hand = world.hands[p]
        species = {BIRD_SPECIES[b] for b in collection}
        best_score = 1.0
        choice = DRAW_DECK_ID if DRAW_DECK_ID in legal else legal[0]
        for a in legal:
            if a != DRAW_DECK_ID:
                s = draw_score(world.display[a - DRAW_DISPLAY_BASE], hand, collection, species)
                if s > best_score:
                    best_score, choice = s, a
        return choice
    if phase == CROW_VICTIM:
        # Lose the bird that costs least: an unpaired one with the fewest eggs.
        def loss(a: int) -> float:
            bird = a - CROW_BASE
            return (5.0 if bird ^ 1 in collection else 0.0) + BIRD_EGGS[bird]

        return min(legal, key=loss)
    if phase == LAST_HAND:

        def gain(a: int) -> float:
            x, y = PAIRS[a - KEEP_BASE]
            g = float(BIRD_EGGS[x] + BIRD_EGGS[y])
            if x ^ 1 in collection or x ^ 1 == y:
                g += 5.0
            if y ^ 1 in collection:
                g += 5.0
            return g

        return max(legal, key=gain)
    return legal[rng.randrange(len(legal))]


class GreedyBot:
    """:func:`greedy_action` as a bot (on one sampled world): a step between random and the
    heuristic."""

    name = "greedy"
    reads_log = False

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        if len(legal) == 1:
            return legal[0]
        world = determinise(view, rng, events=False)
        return greedy_action(world, legal, rng)


__all__ = [
    "GreedyBot",
    "HeuristicBot",
    "best_by_evaluation",
    "chase_gain",
    "draw_score",
    "exposure",
    "greedy_action",
]
