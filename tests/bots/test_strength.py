"""The heuristic beats random play by a clear margin (duplicate deals, seats swapped)."""

from __future__ import annotations

import pytest

from piepmatz.bots import make_bot
from piepmatz.bots.base import bot_rngs
from piepmatz.core.scoring import score
from piepmatz.core.state import State
from piepmatz.core.view import view_of


def _win_rate(first: str, second: str, deals: int) -> float:
    wins = 0.0
    for deal in range(deals):
        for seat in range(2):
            specs = [second, second]
            specs[seat] = first
            bots = [make_bot(s) for s in specs]
            state = State.new_game(2, seed=10_000 + deal, events=False)
            rngs = bot_rngs(2, 10_000 + deal, seat)
            while not state.is_over():
                p = state.current_player
                legal = state.legal_action_ids()
                state.apply_id(bots[p].choose(view_of(state, p), legal, rngs[p]))
            piles = [state.seed_pile(q) for q in range(2)]
            winners = score(state.rules, state.collections, piles).winners
            if seat in winners:
                wins += 1 / len(winners)
    return wins / (2 * deals)


@pytest.mark.parametrize("spec", ["heuristic", "greedy"])
def test_beats_random_in_two_player_games(spec: str) -> None:
    # 100 games, played with fixed seeds; both won all of them when this was written. The bound
    # leaves room for changes to the bots yet fails one that merely reaches the 80 % target.
    assert _win_rate(spec, "random", 50) >= 0.9


def test_easy_is_weaker_than_the_heuristic() -> None:
    assert _win_rate("heuristic", "easy", 30) > 0.55
