"""ISMCTS: reproducible for a seed and an iteration budget, budgets respected, plays well."""

from __future__ import annotations

import random
import time

import pytest

from piepmatz.bots import HeuristicBot, ISMCTSBot, make_bot
from piepmatz.bots import ismcts as ismcts_module
from piepmatz.core.scoring import score
from piepmatz.core.state import DRAW, LAST_HAND, PLAY, State
from piepmatz.core.view import view_of


def _midgame(players: int, seed: int, decisions: int = 25) -> State:
    state = State.new_game(players, seed=seed)
    rng = random.Random(seed)
    bot = make_bot("heuristic")
    for _ in range(decisions):
        legal = state.legal_action_ids()
        state.apply_id(bot.choose(view_of(state, state.current_player), legal, rng))
    while len(state.legal_action_ids()) < 2:
        state.apply_id(state.legal_action_ids()[0])
    return state


@pytest.mark.parametrize("players", [2, 4])
def test_same_seed_and_iterations_give_the_same_search(players: int) -> None:
    state = _midgame(players, seed=11)
    view = view_of(state, state.current_player)
    legal = state.legal_action_ids()
    runs = []
    for _ in range(2):
        bot = ISMCTSBot(iterations=300)
        root = bot.search(view, random.Random(42))
        stats = {a: (c.visits, round(c.wins, 9)) for a, c in root.children.items()}
        runs.append((bot.choose(view, legal, random.Random(42)), stats))
    assert runs[0] == runs[1]
    assert sum(v for v, _ in runs[0][1].values()) == 300


def test_iteration_budget_is_exact() -> None:
    state = _midgame(2, seed=3)
    view = view_of(state, state.current_player)
    bot = ISMCTSBot(iterations=123, time_limit=60.0, stop="full")  # the iterations end first
    bot.choose(view, state.legal_action_ids(), random.Random(0))
    assert bot.last_iterations == 123


def test_time_budget_stops_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a clock that advances 10 ms per reading, a 0.1 s budget stops after 10 readings."""
    clock = iter(x * 0.01 for x in range(10_000))
    fake_time = type(time)("fake_time")
    fake_time.perf_counter = lambda: next(clock)  # type: ignore[attr-defined]
    monkeypatch.setattr(ismcts_module, "time", fake_time)
    state = _midgame(2, seed=4)
    bot = ISMCTSBot(time_limit=0.1, stop="full")
    bot.choose(view_of(state, state.current_player), state.legal_action_ids(), random.Random(0))
    # Readings: the start (t=0, deadline 0.1), then before iterations 0, 8, 16, …: the reading
    # before iteration 72 is the tenth, t=0.10, and ends the search.
    assert bot.last_iterations == 72


@pytest.mark.parametrize("players", [2, 4])
def test_early_stop_plays_the_move_of_the_full_budget(players: int) -> None:
    """The lead of the most visited child exceeds what is left: the full budget agrees."""
    saved = 0
    for seed in range(6):
        state = _at_phase(players, PLAY, seed=20 + seed)
        view, legal = view_of(state, state.current_player), state.legal_action_ids()
        early, full = ISMCTSBot(iterations=3000), ISMCTSBot(iterations=3000, stop="full")
        assert early.choose(view, legal, random.Random(seed)) == full.choose(
            view, legal, random.Random(seed)
        )
        assert full.last_iterations == 3000 and early.last_iterations <= 3000
        assert early.last_iterations % 64 == 0 or early.last_iterations == 3000
        saved += 3000 - early.last_iterations
    assert saved > 0  # some decisions were settled before the budget ran out


def test_early_stop_with_a_time_budget_estimates_what_is_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A clock of 1 ms per reading (one per 8 iterations): the iterations left are estimated from
    that rate, and a clear leader ends the search before the deadline."""
    fake_time = type(time)("fake_time")
    monkeypatch.setattr(ismcts_module, "time", fake_time)

    def restart_clock() -> None:
        # Each search starts at t=0, so that the deadline is the same reading every time.
        clock = iter(x * 0.001 for x in range(10_000_000))
        fake_time.perf_counter = lambda: next(clock)  # type: ignore[attr-defined]

    stopped = []
    for seed in range(6):
        state = _at_phase(2, PLAY, seed=30 + seed)
        view, legal = view_of(state, state.current_player), state.legal_action_ids()
        # Without the early stop: readings at the start (t=0) and before iterations 0, 8, 16, …;
        # the 200th of those, t=0.2, comes before iteration 1,592 and ends the search.
        full = ISMCTSBot(time_limit=0.2, stop="full")
        restart_clock()
        full.choose(view, legal, random.Random(seed))
        assert full.last_iterations == 1592
        early = ISMCTSBot(time_limit=0.2)
        restart_clock()
        early.choose(view, legal, random.Random(seed))
        assert early.last_iterations <= 1592
        stopped.append(early.last_iterations < 1592)
    assert any(stopped)


def test_single_option_needs_no_search() -> None:
    state = _midgame(2, seed=5)
    view = view_of(state, state.current_player)
    bot = ISMCTSBot(iterations=50)
    legal = state.legal_action_ids()[:1]
    assert bot.choose(view, legal, random.Random(0)) == legal[0]
    assert bot.last_iterations == 0


def test_tree_holds_no_other_players_secret_choice() -> None:
    """At the last hand the searching player's tree never branches on another's keep (E3)."""
    for seed in range(50):
        state = State.new_game(2, seed=seed, events=False)
        rng = random.Random(seed)
        while not state.is_over() and state.phase != LAST_HAND:
            legal = state.legal_action_ids()
            state.apply_id(legal[rng.randrange(len(legal))])
        if state.phase == LAST_HAND and state.current_player == state.first_player:
            break
    else:
        raise AssertionError("no last hand with a choice for the first player")
    bot = ISMCTSBot(iterations=200)
    root = bot.search(view_of(state, state.current_player), random.Random(1))
    assert root.children
    assert all(not child.children for child in root.children.values())


def test_ismcts_beats_random() -> None:
    wins = 0.0
    for deal in range(5):
        for seat in range(2):
            bots = [make_bot("random"), make_bot("ismcts:iterations=60")]
            if seat:
                bots.reverse()
            state = State.new_game(2, seed=deal, events=False)
            rng = random.Random(deal)
            while not state.is_over():
                p = state.current_player
                legal = state.legal_action_ids()
                state.apply_id(bots[p].choose(view_of(state, p), legal, rng))
            piles = [state.seed_pile(q) for q in range(2)]
            winners = score(state.rules, state.collections, piles).winners
            ismcts_seat = 1 - seat
            if ismcts_seat in winners:
                wins += 1 / len(winners)
    assert wins >= 9  # of 10: it won every one when this test was written


def test_bad_budgets_are_refused() -> None:
    with pytest.raises(ValueError, match="budget"):
        ISMCTSBot()
    with pytest.raises(ValueError, match="iterations"):
        ISMCTSBot(iterations=0)
    with pytest.raises(ValueError, match="time limit"):
        ISMCTSBot(time_limit=-1.0)
    with pytest.raises(ValueError, match="search mode 'everything'"):
        ISMCTSBot(iterations=10, search="everything")
    with pytest.raises(ValueError, match="unknown stop 'never'"):
        ISMCTSBot(iterations=10, stop="never")
    with pytest.raises(ValueError, match="bad bot spec"):
        make_bot("ismcts:tree=plays")  # an option measured and dropped is refused, not ignored


def _at_phase(players: int, phase: int, seed: int) -> State:
    """A position of a heuristic game where the current player has a real choice in ``phase``."""
    state = State.new_game(players, seed=seed, events=False)
    rng = random.Random(seed)
    bot = make_bot("heuristic")
    turns = 0
    while not state.is_over():
        legal = state.legal_action_ids()
        if state.phase == phase and len(legal) > 1 and turns > 4 * players:
            return state
        state.apply_id(bot.choose(view_of(state, state.current_player), legal, rng))
        turns += 1
    raise AssertionError(f"no choice in phase {phase} in deal {seed}")


@pytest.mark.parametrize(
    ("phase", "players", "mode", "searched"),
    [
        (DRAW, 2, "auto", True),
        (DRAW, 3, "auto", False),
        (DRAW, 4, "auto", False),
        (DRAW, 4, "all", True),
        (DRAW, 2, "plays", False),
        (LAST_HAND, 2, "auto", True),
        (LAST_HAND, 3, "auto", True),
        (LAST_HAND, 4, "auto", True),
        (LAST_HAND, 4, "plays", False),
        (LAST_HAND, 3, "all", True),
    ],
)
def test_which_decisions_are_searched(phase: int, players: int, mode: str, searched: bool) -> None:
    """``search``: a draw or a last hand (E3) is searched or left to the heuristic; a play is
    always searched. ``auto`` searches the last hand with any number of players."""
    state = _at_phase(players, phase, seed=players)
    view, legal = view_of(state, state.current_player), state.legal_action_ids()
    bot = ISMCTSBot(iterations=40, search=mode, stop="full")
    choice = bot.choose(view, legal, random.Random(9))
    assert choice in legal
    assert bot.last_iterations == (40 if searched else 0)
    if not searched:
        assert choice == HeuristicBot().choose(view, legal, random.Random(9))
    play = _at_phase(players, PLAY, seed=players)
    bot.choose(view_of(play, play.current_player), play.legal_action_ids(), random.Random(9))
    assert bot.last_iterations == 40


def test_exploration_constant_by_number_of_players() -> None:
    """``c=auto``: 0.7 with two players, 0.3 with more (measured, see DEFAULT_C_MANY)."""
    auto = ISMCTSBot(iterations=10)
    assert [auto.exploration(n) for n in (2, 3, 4)] == [0.7, 0.3, 0.3]
    assert "c='auto'" in repr(auto)
    fixed = make_bot("ismcts:iterations=10,c=0.5")
    assert isinstance(fixed, ISMCTSBot)
    assert [fixed.exploration(n) for n in (2, 4)] == [0.5, 0.5] and "c=0.5" in repr(fixed)
    # The constant steers the search: the same seed visits the moves differently.
    state = _at_phase(4, PLAY, seed=3)
    view = view_of(state, state.current_player)
    visits = []
    for c in (None, 0.3, 0.7):
        root = ISMCTSBot(iterations=400, c=c).search(view, random.Random(1))
        visits.append(sorted(child.visits for child in root.children.values()))
    assert visits[0] == visits[1] != visits[2]


def _movers(node: ismcts_module.Node) -> list[tuple[int, int]]:
    """(the parent's mover, the child's mover) of every edge below the root's children."""
    out = []
    for child in node.children.values():
        out += [(child.mover, grandchild.mover) for grandchild in child.children.values()]
        out += _movers(child)
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_the_tree_holds_every_decision(players: int) -> None:
    """Below the root, a node for every decision: a player's play is followed by their own
    draws in the tree, and the next player's turn follows."""
    bot = ISMCTSBot(iterations=600)
    state = _at_phase(players, PLAY, seed=players + 20)
    root = bot.search(view_of(state, state.current_player), random.Random(4))
    edges = _movers(root)
    assert len(edges) > 20
    assert any(child == parent for parent, child in edges)
    assert any(child == (parent + 1) % players for parent, child in edges)
