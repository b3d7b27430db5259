"""The game review: honest (the view only), right on positions whose best move is known, and the
same in a process pool as in one process."""

from __future__ import annotations

import random

import pytest

from piepmatz.bots import make_bot
from piepmatz.bots.analysis import (
    CATEGORIES,
    GRADE_NAMES,
    decisions,
    evaluate_options,
    grade,
    hint,
    review_decision,
    review_game,
    summarise,
)
from piepmatz.bots.base import decide
from piepmatz.core import Game
from piepmatz.core.actions import Action
from piepmatz.core.state import COLLECT, State
from piepmatz.core.view import determinise, view_of
from scenarios import scenario


def _id(text: str) -> int:
    return Action.parse(text).id


def _bot_game(seed: int, players: int = 2, stop_after: int | None = None) -> Game:
    game = Game.new(players=players, seed=seed)
    bot = make_bot("heuristic")
    rng = random.Random(seed)
    while not game.state.is_over() and (stop_after is None or len(game.actions) < stop_after):
        p = game.state.current_player
        game.apply(decide(bot, game.view(p), game.state.legal_action_ids(), rng))
    return game


def _midgame() -> State:
    state = _bot_game(4, stop_after=30).state
    while len(state.legal_action_ids()) < 2:
        state.apply_id(state.legal_action_ids()[0])
    return state


def test_two_states_with_the_same_view_get_the_same_review() -> None:
    """Honesty: the review depends on nothing the reviewed player cannot see."""
    state = _midgame()
    me = state.current_player
    view = view_of(state, me)
    first = determinise(view, random.Random(1))
    second = determinise(view, random.Random(2))
    # The hidden cards differ, the view does not.
    other = 1 - me
    assert (first.hands[other], first.bird_deck) != (second.hands[other], second.bird_deck)
    assert view_of(first, me) == view_of(second, me) == view
    played = state.legal_action_ids()[-1]
    reviews = [review_decision(view_of(s, me), played, 60, seed=9) for s in (first, second)]
    assert reviews[0] == reviews[1]
    # ... and it is not the same whatever happens: another seed searches other worlds.
    assert review_decision(view, played, 60, seed=10).options != reviews[0].options


def _swapped_midgame() -> tuple[State, State, int]:
    """A mid-game state, and a copy in which the other player holds another hidden bird."""
    state = _midgame()
    me = state.current_player
    other = 1 - me
    # The other player must hold a bird nobody saw drawn: play on (drawing from the deck, the
    # last option) until they do.
    while all(b in state.shown[other] for b in state.hands[other]) or state.current_player != me:
        state.apply_id(state.legal_action_ids()[-1])
    swapped = state.copy()
    i = next(i for i, b in enumerate(swapped.hands[other]) if b not in swapped.shown[other])
    swapped.hands[other][i], swapped.bird_deck[0] = swapped.bird_deck[0], swapped.hands[other][i]
    swapped.hands[other].sort()
    assert swapped.hands[other] != state.hands[other]
    return state, swapped, me


def test_swapping_a_hidden_card_changes_nothing() -> None:
    state, swapped, me = _swapped_midgame()
    assert view_of(swapped, me) == view_of(state, me)
    played = state.legal_action_ids()[0]
    assert review_decision(view_of(state, me), played, 60, seed=3) == review_decision(
        view_of(swapped, me), played, 60, seed=3
    )


def test_collecting_a_free_mated_pair_is_best_and_passing_a_mistake() -> None:
    # Player 0 holds CH2f and has CH2m in the collection: after a play that does not chase
    # (T2.2) collecting CH2f makes a mated pair (5 points) at no cost.
    state = scenario(
        rows=[["BL6m"], ["SP6m"]],
        hands=[["BU3m", "CH2f", "GR5m", "SP1f"], ["GR6f", "BU1m", "BL4f", "SP2m"]],
        collections=[["CH2m"], []],
        display=["BL1f", "BL2f", "BL3f"],
    )
    state.apply("play BU3m 1")
    assert state.phase == COLLECT
    review = review_decision(view_of(state, 0), _id("pass"), 300, seed=1)
    assert review.best.text == "collect CH2f"
    assert review.grade in ("mistake", "blunder")
    assert review.loss >= 2.0 and review.win_change < 0
    assert review_decision(view_of(state, 0), _id("collect CH2f"), 300, seed=1).grade == "best"


def test_a_chase_for_a_three_egg_seed_without_a_pest_is_best() -> None:
    # CH6m onto perch 1 (BL2m): ground 6 > perch 2, d = 4 takes S3a (3 eggs, no pest beside
    # it) and BL2m; onto perch 2 (SP6m) it does not chase at all.
    state = scenario(
        rows=[["BL2m"], ["SP6m"]],
        hands=[["CH6m", "CH1f", "GR2m", "SP1f"], ["GR6f", "BU1m", "BL4f", "SP2m"]],
        display=["BL1f", "BL3f", "BU3f"],
    )
    review = review_decision(view_of(state, 0), _id("play CH6m 2"), 300, seed=1)
    assert review.best.text == "play CH6m 1"
    assert review.grade in ("mistake", "blunder")
    assert len(review.options) == len(state.legal_action_ids())
    # Every estimate has its spread over the sampled worlds and is bounded as it must be.
    for option in review.options:
        assert option.worlds == 300
        assert option.lead_spread > 0 and 0 <= option.win <= 1
        assert sum(option.wins) == pytest.approx(1.0)


def test_grades_follow_the_thresholds() -> None:
    assert grade(0.0, True) == "best"
    assert [grade(x, False) for x in (0.0, 0.99, 1.0, 1.99, 2.0, 3.99, 4.0, 12.0)] == [
        "good",
        "good",
        "inaccuracy",
        "inaccuracy",
        "mistake",
        "mistake",
        "blunder",
        "blunder",
    ]


def test_a_whole_game_review_adds_up_and_is_the_same_in_a_pool() -> None:
    game = _bot_game(8)
    found = list(decisions(game, 1))
    assert found and all(d.view.player == 1 and d.view.current_player == 1 for d in found)
    assert all(game.actions[d.index].id == d.played for d in found)
    reviews = review_game(game, 1, iterations=8, seed=5)
    assert [r.index for r in reviews] == [d.index for d in found]
    assert review_game(game, 1, iterations=8, seed=5, processes=2) == reviews
    summary = summarise(reviews)
    assert summary.decisions == len(reviews)
    assert sum(summary.grades.values()) == len(reviews)
    assert sum(c.decisions for c in summary.categories.values()) == len(reviews)
    assert set(summary.categories) == set(CATEGORIES)
    assert summary.categories["play"].decisions == sum(r.phase == "play" for r in reviews)
    assert summary.loss == pytest.approx(sum(r.loss for r in reviews))
    accurate = sum(r.grade in ("best", "good") for r in reviews)
    assert summary.accuracy == pytest.approx(accurate / len(reviews))
    assert all(r.grade in GRADE_NAMES and r.loss >= 0 for r in reviews)


def test_an_unfinished_game_is_reviewed_up_to_where_it_stands() -> None:
    game = _bot_game(8, stop_after=12)
    assert not game.state.is_over()
    found = list(decisions(game, 0))
    assert found and max(d.index for d in found) < 12


def test_a_player_not_in_the_game_is_refused() -> None:
    with pytest.raises(ValueError, match="no player 2 in this 2-player game"):
        list(decisions(_bot_game(8, stop_after=4), 2))


def test_no_decision_no_review() -> None:
    state = _midgame()
    waiting = 1 - state.current_player
    with pytest.raises(ValueError, match=f"player {waiting} has no decision"):
        evaluate_options(view_of(state, waiting), 10)
    with pytest.raises(ValueError, match="not a legal option"):
        review_decision(view_of(state, state.current_player), _id("crow BL1m"), 10)


def test_a_hint_is_the_bots_move_with_its_estimate_and_ignores_hidden_cards() -> None:
    state, swapped, me = _swapped_midgame()
    bot = "ismcts:iterations=200"
    hints = [hint(view_of(s, me), seed=4, bot=bot, iterations=50) for s in (state, swapped)]
    assert hints[0] == hints[1]
    assert hints[0].action in state.legal_action_ids()
    # The bot's own move, as it would choose it with the same generator.
    own = make_bot(bot).choose(view_of(state, me), state.legal_action_ids(), random.Random(4))
    assert hints[0].action == own and hints[0].estimate.worlds == 50


def test_every_players_win_chances_add_up_to_one_in_larger_games() -> None:
    state = _bot_game(6, players=4, stop_after=20).state
    options = evaluate_options(view_of(state, state.current_player), 20, seed=2)
    assert len(options) == len(state.legal_action_ids())
    for option in options:
        assert len(option.wins) == 4
        assert sum(option.wins) == pytest.approx(1.0)
        assert option.win == pytest.approx(option.wins[state.current_player])
