"""A score sheet that explains itself: the cards behind each number (E4), told in words."""

from __future__ import annotations

import random

import pytest

from piepmatz.core import Rules, State
from piepmatz.core.cards import BIRD_EGGS, BIRD_NAMES, FEEDER_EGGS, FEEDER_NAMES
from piepmatz.core.scoring import PAIR_POINTS, breakdown, score
from piepmatz.i18n import use_language
from piepmatz.text.scoresheet import explain

STANDARD, OVERVIEW = Rules.preset("standard"), Rules.preset("overview")


def _birds(*names: str) -> list[int]:
    return [BIRD_NAMES.index(n) for n in names]


def _seeds(*names: str) -> list[int]:
    return [FEEDER_NAMES.index(n) for n in names]


COLLECTIONS = [
    _birds("BL5m", "BL5f", "GR3m", "GR3f", "CH5f", "BU4f"),
    _birds("BU2f", "BU6f", "BU1m", "SP2m"),
    _birds("SP3f"),
]
PILES = [_seeds("S3a", "S1a"), [], _seeds("S2a")]


def test_the_pairs_line_names_each_pair_and_what_it_is_worth() -> None:
    sheet = score(STANDARD, COLLECTIONS, PILES)
    lines = explain(sheet, STANDARD, COLLECTIONS, PILES, 0)
    assert lines == [
        "Seeds 4: 1 + 3 eggs",
        "Pairs 10: Blackbird 5♂ + Blackbird 5♀ · Greenfinch 3♂ + Greenfinch 3♀, 5 each",
        "Chaffinch singles 3: Chaffinch 5♀ (3) — the most birds of this species",
        "Bullfinch: Bullfinch 4♀ scores nothing — another player has more of this species",
        "Total 17",
    ]
    third = explain(sheet, STANDARD, COLLECTIONS, PILES, 2)
    assert third[1] == "Pairs 0: no male and female to pair"
    assert third[2] == (
        "House sparrow: House sparrow 3♀ scores nothing — the most birds of this species are shared"
    )


def test_the_overview_pairs_count_every_bird_of_a_species_with_both_sexes() -> None:
    sheet = score(OVERVIEW, COLLECTIONS, PILES)
    lines = explain(sheet, OVERVIEW, COLLECTIONS, PILES, 0)
    assert lines[1] == (
        "Pairs 10: Blackbird 5♂ + Blackbird 5♀ · Greenfinch 3♂ + Greenfinch 3♀ "
        "(both sexes: every bird scores its eggs)"
    )
    assert sheet.players[0].pair_points == 3 + 3 + 2 + 2


@pytest.mark.parametrize("lang", ["cs", "de"])
def test_the_explanation_is_told_in_the_language(lang: str) -> None:
    sheet = score(STANDARD, COLLECTIONS, PILES)
    with use_language(lang):
        lines = explain(sheet, STANDARD, COLLECTIONS, PILES, 0)
    english = explain(sheet, STANDARD, COLLECTIONS, PILES, 0)
    assert all(a != b for a, b in zip(lines, english, strict=True))
    assert ("kos 5♂" if lang == "cs" else "Amsel 5♂") in lines[1]


@pytest.mark.parametrize("rules", [STANDARD, OVERVIEW], ids=["standard", "overview"])
def test_the_breakdown_adds_up_to_the_sheet_over_random_games(rules: Rules) -> None:
    rng = random.Random(5)
    for game in range(150):
        players = 2 + game % 3
        state = State.new_game(players=players, seed=game, rules=rules)
        while not state.is_over():
            state.apply_id(rng.choice(state.legal_action_ids()))
        piles = [state.seed_pile(p) for p in range(players)]
        sheet = score(rules, state.collections, piles)
        for p, mine in enumerate(sheet.players):
            parts = breakdown(rules, state.collections, piles, p)
            assert sum(FEEDER_EGGS[c] for c in parts.seeds) == mine.seeds
            paired = [b for group in parts.pairs for b in group]
            worth = len(parts.pairs) * PAIR_POINTS if rules.pairs == "mated" else None
            assert mine.pair_points == (worth or sum(BIRD_EGGS[b] for b in paired))
            singles = {c: sum(BIRD_EGGS[b] for b in bs) for c, bs in parts.singles.items()}
            assert singles == mine.singles
            # Every bird of the collection is told exactly once: paired, single or unscored.
            told = paired + [
                b for bs in (*parts.singles.values(), *parts.unscored.values()) for b in bs
            ]
            assert sorted(told) == sorted(state.collections[p])
            lines = explain(sheet, rules, state.collections, piles, p)
            assert lines[-1] == f"Total {mine.total}"
            assert len(lines) == 3 + len(parts.singles) + len(parts.unscored)
