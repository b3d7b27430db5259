"""One test (or more) per rule id of RULES.md, each from an explicit scenario."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from piepmatz.core import Game, IllegalActionError, InvalidOptionsError, Rules, State, view_of
from piepmatz.core.cards import (
    BIRD_EGGS,
    BIRD_VALUE,
    FEEDER_EGGS,
    FEEDER_KIND,
    FEEDER_NAMES,
    THREE_PLUS,
    parse_bird,
    parse_feeder,
)
from piepmatz.core.scoring import score
from piepmatz.core.state import COLLECT, CROW_VICTIM, DRAW, GAME_OVER, LAST_HAND, PLAY
from piepmatz.core.view import Sampler, determinise
from scenarios import kinds, names, scenario

B = parse_bird
F = parse_feeder


def play_out(state: State, pick: int = 0) -> None:
    """Play to the end choosing the ``pick``-th legal action (clamped)."""
    while not state.is_over():
        ids = state.legal_action_ids()
        state.apply_id(ids[min(pick, len(ids) - 1)])


def finish_draws(state: State) -> None:
    while state.phase == DRAW:
        state.apply_id(state.legal_action_ids()[0])


# ---------------------------------------------------------------------------------- C. Cards


def test_C1_seventy_two_birds_one_per_species_value_sex() -> None:
    state = State.new_game(players=3, seed=1)
    birds, _ = state.card_places()
    assert len(birds) == 72
    assert len({(b // 12, BIRD_VALUE[b], b & 1) for b in birds}) == 72
    assert Counter(BIRD_VALUE[b] for b in birds) == {v: 12 for v in range(1, 7)}
    assert B("BL5m") != B("BL5f") and names([B("CH1f")]) == ["CH1f"]


def test_C2_eggs_are_half_the_value_rounded_up() -> None:
    assert [BIRD_EGGS[B(f"SP{v}m")] for v in range(1, 7)] == [1, 1, 2, 2, 3, 3]


def test_C3_feeder_cards_thirty_seeds_three_crows_three_squirrels() -> None:
    kinds_ = Counter(FEEDER_KIND)
    assert kinds_ == {0: 30, 1: 3, 2: 3}
    assert Counter(FEEDER_EGGS[f] for f in range(30)) == {1: 10, 2: 10, 3: 10}
    assert all(FEEDER_EGGS[f] == 0 for f in range(30, 36))


def test_C4_three_plus_cards_are_four_seeds_and_a_crow() -> None:
    assert sorted(FEEDER_NAMES[f] for f in THREE_PLUS) == ["CRc", "S1j", "S2i", "S2j", "S3j"]
    assert sorted(FEEDER_EGGS[f] for f in THREE_PLUS) == [0, 1, 2, 2, 3]


@pytest.mark.parametrize(("players", "perches"), [(2, 2), (3, 2), (4, 3)])
def test_C5_perch_count(players: int, perches: int) -> None:
    state = State.new_game(players=players, seed=3)
    assert state.num_perches == perches == len(state.rows)
    legal = state.legal_actions()
    assert {a.index for a in legal} == set(range(1, perches + 1))
    with (
        pytest.raises(IllegalActionError, match=r"no perch 3 .*\(C5\)")
        if perches == 2
        else _nothing()
    ):
        state.apply(f"play {names([state.hands[state.current_player][0]])[0]} 3")


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: object) -> None:
        return None


def test_C6_first_player_never_changes() -> None:
    game = Game.new(players=4, seed=5)
    first = game.state.first_player
    while not game.state.is_over():
        assert game.state.first_player == first
        game.apply(game.state.legal_action_ids()[-1])
    assert game.state.first_player == first


# ---------------------------------------------------------------------------------- S. Setup


@pytest.mark.parametrize("players", [0, 1, 5, "3"])
def test_S1_two_to_four_players(players: object) -> None:
    with pytest.raises(ValueError, match=r"2, 3 or 4 players"):
        State.new_game(players=players)  # type: ignore[arg-type]


def test_S2_two_players_remove_three_plus_cards_and_one_species() -> None:
    state = State.new_game(players=2, seed=9, removed_species="GR")
    birds, feeder = state.card_places()
    assert sorted(state.removed_birds) == list(range(36, 48))
    assert set(state.removed_feeder) == THREE_PLUS
    assert sum(1 for p in birds.values() if p != "removed") == 60
    assert sum(1 for p in feeder.values() if p != "removed") == 31
    chosen = {State.new_game(players=2, seed=s).removed_birds[0] // 12 for s in range(40)}
    assert len(chosen) > 3, "the species is chosen at random when the options name none"
    with pytest.raises(ValueError, match="only in two-player"):
        State.new_game(players=3, removed_species="GR")


@pytest.mark.parametrize("seed", range(30))
def test_S3_column_holds_four_seeds_and_pests_go_back(seed: int) -> None:
    state = State.new_game(players=3, seed=seed)
    assert len(state.column) == 4
    assert all(FEEDER_KIND[c] == 0 for c in state.column)
    assert state.column_pests == [-1] * 4
    assert len(state.feeder_deck) == 32
    assert sum(1 for c in state.feeder_deck if c >= 30) == 6


def test_S4_deal() -> None:
    state = State.new_game(players=4, seed=2)
    assert [len(r) for r in state.rows] == [1, 1, 1]
    assert [len(h) for h in state.hands] == [4, 4, 4, 4]
    assert len([c for c in state.display if c >= 0]) == 3
    assert len(state.bird_deck) == 72 - 3 - 16 - 3
    assert all(h == sorted(h) for h in state.hands)


def test_S5_first_player_random_or_named_and_seeded_deal() -> None:
    firsts = {State.new_game(players=4, seed=s).first_player for s in range(40)}
    assert firsts == {0, 1, 2, 3}
    assert State.new_game(players=4, seed=1, first_player=2).current_player == 2
    a = State.new_game(players=3, seed=77)
    b = State.new_game(players=3, seed=77)
    c = State.new_game(players=3, seed=78)
    assert (a.hands, a.bird_deck, a.feeder_deck) == (b.hands, b.bird_deck, b.feeder_deck)
    assert (a.hands, a.bird_deck) != (c.hands, c.bird_deck)


# ---------------------------------------------------------------------------------- T1


def test_T1_1_bird_goes_to_the_end_of_the_row() -> None:
    state = scenario(rows=[["BL6m", "CH1m", "BU2f"], ["SP3m"]], hands=[["GR1f", "GR2m"], ["CH5m"]])
    state.apply("play GR1f 1")
    assert names(state.rows[0]) == ["BL6m", "CH1m", "BU2f", "GR1f"]
    # GR2m (2) is higher than the bird played (1): no collect; the hand is refilled from the deck.
    assert B("GR2m") in state.hands[0] and B("GR1f") not in state.hands[0]
    assert len(state.hands[0]) == 4 and state.turn_player == 1
    with pytest.raises(IllegalActionError, match=r"not in player 0's hand \(T1.1\)"):
        scenario(rows=[["BL6m"], ["SP3m"]], hands=[["GR1f"], []]).apply("play GR2m 1")


def test_T1_2_first_bird_is_at_the_perch_the_rest_on_the_ground() -> None:
    state = scenario(rows=[["BL5m", "CH1m", "BU2f"], ["SP3m"]], hands=[["GR1f"], ["CH5m"]])
    assert state.row_strengths(0) == (5, 3)
    assert state.row_strengths(1) == (3, 0)


def test_T1_3_player_without_cards_skips_and_triggers_the_end() -> None:
    # Player 0 plays their last card; the bird deck and display are empty; player 1 holds nothing.
    state = scenario(
        players=3,
        rows=[["BL6m"], ["SP6m"]],
        hands=[["GR1f"], [], ["CH2m", "CH3m"]],
        fill_birds="gone",
        first_player=0,
    )
    state.apply("play GR1f 2")
    assert state.phase == COLLECT or state.turn_player == 2
    if state.phase == COLLECT:
        state.apply("pass")
    assert kinds(state)[-4:] == ["turn", "skip", "end_triggered", "turn"]
    assert state.end_triggered == "skip"
    assert state.turn_player == 2 and state.phase == PLAY
    state.apply("play CH2m 1")
    # Player 2 is the last seat before the first player: the game ends (last hand auto: 1 card).
    assert state.is_over()
    assert names(state.collections[2]) == ["CH3m"]


# ---------------------------------------------------------------------------------- T2.1


def chase_state(**kw: object) -> State:
    base: dict[str, object] = {
        "rows": [["BL4m", "CH3m", "BU1f"], ["SP6m"]],
        "column": ["S1a", "S2a", "S3a", "S1b"],
        "hands": [["SP3f", "GR1m"], ["CH6f"]],
        "feeder_deck": ["S2b", "S3b", "S1c"],
    }
    base.update(kw)
    return scenario(**base)  # type: ignore[arg-type]


def test_T2_1a_seed_position_is_the_difference() -> None:
    state = scenario(
        rows=[["BL3m"], ["SP6m"]],
        hands=[["CH5m", "GR1m"], ["CH6f"]],
        feeder_deck=["S2b", "S3b"],
    )
    state.apply("play CH5m 1")  # G 5 - P 3 = 2: the second seed from the feeder base
    assert names(state.seeds_seen[0], True) == ["S1b"]
    # S2a and S3a slid down; the refill put the next deck card on top.
    assert names(state.column, True) == ["S1a", "S2a", "S3a", "S2b"]


def test_T2_1a_difference_beyond_the_column_takes_from_the_deck() -> None:
    state = scenario(
        rows=[["BL1m"], ["SP6m"]],
        hands=[["CH6m", "GR1m"], ["CH6f"]],
        feeder_deck=["S3c", "S2b", "S1c"],
    )
    state.apply("play CH6m 1")  # d = 5 > 4
    assert names(state.seeds_blind[0], True) == ["S3c"]
    assert state.seeds_seen[0] == []
    assert names(state.column, True) == ["S1a", "S1b", "S2a", "S3a"]
    # A blind seed is known to its taker only.
    assert view_of(state, 0).own_blind == (F("S3c"),)
    assert view_of(state, 1).blind_counts == (1, 0)
    assert all(e.seed is None for e in view_of(state, 1).events or () if e.kind == "take_blind")


def test_T2_1a_short_column_d_larger_than_column() -> None:
    state = scenario(
        rows=[["BL2m"], ["SP6m"]],
        column=["S1a", "S2a"],
        hands=[["CH5m", "GR1m"], ["CH6f"]],
        feeder_deck=["SQa", "S3c"],
    )
    state.apply("play CH5m 1")  # d = 3 > 2 cards in the column: top of the feeder deck
    assert names(state.pests[0], True) == ["SQa"]  # a pest from the deck is taken face up
    assert state.seeds_blind[0] == [] and state.seeds_seen[0] == []


def test_T2_1a_empty_feeder_deck_in_a_chase_triggers_the_end_and_the_chase_goes_on() -> None:
    state = scenario(
        rows=[["BL4m", "CH3m", "BU1f"], ["SP6m"]],
        column=[],
        hands=[["SP3f", "GR1m"], ["CH6f"]],
        fill_feeder="gone",
    )
    state.apply("play SP3f 1")
    assert state.end_triggered == "feeder"
    # Both chases of the chain still happened: two birds collected, no seed.
    assert names(state.collections[0]) == ["BL4m", "CH3m"]
    assert state.seeds_seen[0] == [] and state.seeds_blind[0] == []
    assert kinds(state).count("feeder_empty") == 2


def test_T2_1b_seed_face_down_pest_face_up() -> None:
    state = chase_state(
        column=["S1a", ("S2a", "CRa"), "S3a", "S1b"],
        rows=[["BL3m"], ["SP6m"]],
        hands=[["CH5m", "GR1m"], ["CH6f"]],
    )
    state.apply("play CH5m 1")
    assert names(state.seeds_seen[0], True) == ["S2a"]
    assert names(state.pests[0], True) == ["CRa"]
    assert view_of(state, 1).pests[0] == (F("CRa"),)


def test_T2_1c_perch_bird_joins_the_collection() -> None:
    state = chase_state()
    state.apply("play SP3f 1")
    assert names(state.collections[0])[:2] == ["BL4m", "CH3m"]


def test_T2_1d_crow_victim_from_the_most_numerous_species_with_ties() -> None:
    state = chase_state(
        rows=[["BL3m"], ["SP6m"]],
        column=[("S1a", "CRa"), "S2a", "S3a", "S1b"],
        hands=[["CH4m", "GR1m"], ["CH6f"]],
        collections=[["BU1m", "BU2m", "SP1m"], []],
    )
    state.apply("play CH4m 1")  # d = 1: S1a with the crow; BL3m collected: BU 2, BL 1, SP 1
    assert state.phase == CROW_VICTIM
    assert [str(a) for a in state.legal_actions()] == ["crow BU1m", "crow BU2m"]
    # Only one species is the most numerous, but it has two birds: a real choice.
    state2 = chase_state(
        rows=[["BL3m"], ["SP6m"]],
        column=[("S1a", "CRa"), "S2a", "S3a", "S1b"],
        hands=[["CH4m", "GR1m"], ["CH6f"]],
        collections=[["BL1m", "BU2m", "SP1m"], []],
    )
    state2.apply("play CH4m 1")  # BL3m collected: BL 2 (BL1m, BL3m); BU 1; SP 1
    assert state2.phase == CROW_VICTIM and state2.current_player == 0
    assert [str(a) for a in state2.legal_actions()] == ["crow BL1m", "crow BL3m"]
    with pytest.raises(IllegalActionError, match=r"most birds \(T2.1d\)"):
        state2.apply("crow BU2m")
    state2.apply("crow BL3m")
    assert names(state2.collections[0]) == ["BL1m", "BU2m", "SP1m"]
    assert names(state2.gone_birds) == ["BL3m"]
    # Tied species: every bird of each tied species is a candidate.
    state3 = chase_state(
        rows=[["BL3m"], ["SP6m"]],
        column=[("S1a", "CRa"), "S2a", "S3a", "S1b"],
        hands=[["CH4m", "GR1m"], ["CH6f"]],
        collections=[["BL1m", "BU2m", "BU5f", "SP1m"], []],
    )
    state3.apply("play CH4m 1")
    assert [str(a) for a in state3.legal_actions()] == [
        "crow BL1m",
        "crow BL3m",
        "crow BU2m",
        "crow BU5f",
    ]


def test_T2_1d_crow_phase_row_holds_only_ground_birds_until_the_promotion() -> None:
    """docs/state-format.md: during the crow decision the paused row is between T2.1c and T2.1e:
    the perch bird is collected, the ground birds wait in arrival order, the promotion follows."""
    state = chase_state(
        rows=[["BL4m", "CH1f"], ["SP6m"]],
        column=["S1a", ("S2a", "CRa"), "S3a", "S1b"],
        hands=[["CH5m", "GR1m"], ["CH6f"]],
        collections=[["BU1m", "BU2m", "SP1m"], []],
    )
    state.apply("play CH5m 1")  # G = 6 > P = 4, d = 2: S2a with the crow; BL4m collected
    assert state.phase == CROW_VICTIM and state.chase_perch == 0
    assert names(state.rows[0]) == ["CH1f", "CH5m"]
    state.apply("crow BU1m")
    assert names(state.rows[0]) == ["CH5m", "CH1f"]


def test_T2_1d_crow_with_a_single_candidate_takes_it_and_the_new_bird_counts() -> None:
    state = chase_state(
        rows=[["BL3m"], ["SP6m"]],
        column=[("S1a", "CRa"), "S2a", "S3a", "S1b"],
        hands=[["CH4m", "GR1m"], ["CH6f"]],
    )
    state.apply("play CH4m 1")  # the collection is just BL3m: the crow takes it
    assert state.collections[0] == [] and names(state.gone_birds) == ["BL3m"]
    assert "crow" in kinds(state)


def squirrel_state(rng: int = 0) -> State:
    return chase_state(
        rows=[["BL3m"], ["SP6m"]],
        column=[("S1a", "SQa"), "S2a", "S3a", "S1b"],
        hands=[["CH4m", "GR1m"], ["CH6f"]],
        seeds_seen=[["S3c", "S3d"], []],
        seeds_blind=[["S2c"], []],
        rng=rng,
    )


def test_T2_1d_squirrel_takes_two_random_seeds_face_up() -> None:
    state = squirrel_state()
    state.apply("play CH4m 1")  # takes S1a (pile of 4 with it), the squirrel takes two
    pile = state.seed_pile(0)
    assert len(pile) == 2
    lost = [f for f in state.gone_feeder if f < 30]
    assert len(lost) == 2 and not set(lost) & set(pile)
    assert sorted(pile + lost) == sorted(F(x) for x in ("S1a", "S3c", "S3d", "S2c"))
    event = next(e for e in state.events or () if e.kind == "squirrel")
    assert sorted(event.seeds) == sorted(lost)
    # The pick comes from the game's generator: the same state always picks the same seeds,
    # and other generator states pick others.
    again = squirrel_state()
    again.apply("play CH4m 1")
    assert again.gone_feeder == state.gone_feeder
    picks = set()
    for rng in range(30):
        s = squirrel_state(rng)
        s.apply("play CH4m 1")
        picks.add(frozenset(s.gone_feeder))
    assert len(picks) >= 4, "the squirrel's picks vary with the generator"


def test_T2_1d_squirrel_with_fewer_than_two_seeds_takes_all() -> None:
    state = chase_state(
        rows=[["BL3m"], ["SP6m"]],
        column=[("S1a", "SQa"), "S2a", "S3a", "S1b"],
        hands=[["CH4m", "GR1m"], ["CH6f"]],
    )
    state.apply("play CH4m 1")  # the seed just taken is the only one: it is lost too
    assert state.seed_pile(0) == []
    assert names(state.gone_feeder, True) == ["S1a"]
    assert names(state.pests[0], True) == ["SQa"]


def test_T2_1e_promotion_highest_then_nearest_the_perch() -> None:
    state = chase_state()  # BL4m | CH3m BU1f, play SP3f: G 7 > 4
    state.apply("play SP3f 1")
    # CH3m and SP3f tie at 3: CH3m (earlier) is promoted, then chased again (G 4 > 3);
    # SP3f is promoted and BU1f stays on the ground.
    assert names(state.rows[0]) == ["SP3f", "BU1f"]
    promotes = [names([e.bird])[0] for e in state.events or () if e.kind == "promote"]
    assert promotes == ["CH3m", "SP3f"]


def test_T2_1f_chain_of_chases() -> None:
    state = chase_state()
    state.apply("play SP3f 1")
    chases = [e for e in state.events or () if e.kind == "chase"]
    assert [e.difference for e in chases] == [3, 1]  # d = 7 - 4, then 4 - 3
    assert names(state.seeds_seen[0], True) == ["S3a", "S1a"]
    assert names(state.collections[0]) == ["BL4m", "CH3m"]


def test_T2_1_pests_slide_down_with_their_seeds() -> None:
    state = scenario(
        rows=[["BL3m"], ["SP6m"]],
        column=["S1a", ("S2a", "CRa"), "S3a", ("S1b", "SQa")],
        hands=[["CH4m", "GR1m"], ["CH6f"]],
        feeder_deck=["S2b"],
    )
    state.apply("play CH4m 1")  # d = 1: S1a, no pest
    assert names(state.column, True) == ["S2a", "S3a", "S1b", "S2b"]
    assert [FEEDER_NAMES[p] if p >= 0 else None for p in state.column_pests] == [
        "CRa",
        None,
        "SQa",
        None,
    ]


# ---------------------------------------------------------------------------------- T2.2


def test_T2_2_no_chase_collect_up_to_the_played_value() -> None:
    state = scenario(
        rows=[["BL6m"], ["SP6m"]],
        hands=[["BU3m", "CH2f", "GR5m", "SP1f"], ["CH6f"]],
        bird_deck=["GR1m", "GR2m"],
        display=["BL1f", "BL2f", "BL3f"],
    )
    state.apply("play BU3m 1")  # G 3 <= P 6: no chase
    assert state.phase == COLLECT
    assert [str(a) for a in state.legal_actions()] == ["collect CH2f", "collect SP1f", "pass"]
    with pytest.raises(
        IllegalActionError, match=r"value 5, higher than the bird just played \(3\) \(T2.2\)"
    ):
        state.apply("collect GR5m")
    state.apply("collect CH2f")
    assert names(state.collections[0]) == ["CH2f"]
    assert state.phase == DRAW and state.draws_left == 2


def test_T2_2_no_eligible_bird_means_no_decision() -> None:
    state = scenario(
        rows=[["BL6m"], ["SP6m"]],
        hands=[["BU1m", "CH2f"], ["CH6f"]],
        display=["BL1f", "BL2f", "BL3f"],
    )
    state.apply("play BU1m 1")
    assert state.phase == DRAW


def test_T2_2_a_chase_forbids_the_collect() -> None:
    state = scenario(
        rows=[["BL1m"], ["SP6m"]],
        hands=[["BU3m", "CH1f"], ["CH6f"]],
        display=["BL1f", "BL2f", "BL3f"],
    )
    state.apply("play BU3m 1")
    assert state.chased and state.phase == DRAW


# ---------------------------------------------------------------------------------- T3


def test_T3_1_refill_one_card_at_a_time_display_refilled_at_once() -> None:
    state = scenario(
        rows=[["BL6m"], ["SP6m"]],
        hands=[["BU1m", "CH2f", "GR3m", "SP2f"], ["CH6f"]],
        bird_deck=["GR4m", "GR5m", "GR6m"],
        display=["BL1f", "BL2f", "BL3f"],
    )
    state.apply("play GR3m 1")
    state.apply("collect CH2f")
    assert state.phase == DRAW and state.draws_left == 2
    assert [str(a) for a in state.legal_actions()] == [
        "draw display 1",
        "draw display 2",
        "draw display 3",
        "draw deck",
    ]
    state.apply("draw display 2")
    assert names(state.display) == ["BL1f", "GR4m", "BL3f"]
    state.apply("draw deck")
    assert names(state.hands[0]) == ["BL2f", "BU1m", "GR5m", "SP2f"]
    assert state.turn_player == 1


def test_T3_1_display_draws_are_seen_by_everybody() -> None:
    state = scenario(
        rows=[["BL6m"], ["SP6m"]],
        hands=[["BU1m", "CH2f", "GR3m", "SP2f"], ["CH6f", "CH1m"]],
        bird_deck=["BU2m", "BU3m", "GR4m", "GR5m", "GR6m"],
        display=["BL1f", "BL2f", "BL3f"],
    )
    state.apply("play GR3m 1")
    state.apply("collect CH2f")
    state.apply("draw display 2")  # face up: everybody saw BL2f go into player 0's hand
    state.apply("draw deck")  # face down: BU3m stays secret
    assert names(state.shown[0]) == ["BL2f"]
    other = view_of(state, 1)
    assert names(other.shown[0]) == ["BL2f"] and other.shown[1] == ()
    # Every world player 1 can imagine has BL2f in player 0's hand; BU3m is only a guess.
    rng = random.Random(3)
    worlds = [determinise(other, rng) for _ in range(30)]
    assert all(B("BL2f") in w.hands[0] for w in worlds)
    assert not all(B("BU3m") in w.hands[0] for w in worlds)
    # Playing the bird makes it an ordinary, visible card again.
    state.apply("play CH1m 2")
    if state.phase == COLLECT:
        state.apply("pass")
    finish_draws(state)
    state.apply("play BL2f 2")
    assert state.shown[0] == [] and view_of(state, 1).shown[0] == ()


def test_T3_1_short_hand_when_everything_is_drawn() -> None:
    state = scenario(
        rows=[["BL6m"], ["SP6m"]],
        hands=[["BU1m", "GR3m"], ["CH6f"]],
        display=[None, "BL2f", None],
        fill_birds="gone",
    )
    state.apply("play GR3m 1")
    state.apply("pass")
    # Only one place to draw from: the engine takes it; then nothing is left.
    assert names(state.hands[0]) == ["BL2f", "BU1m"]
    assert state.display == [-1, -1, -1]
    assert state.turn_player == 1


def test_T3_2_refill_column_pests_beside_lowest_free_seed() -> None:
    state = scenario(
        rows=[["BL1m"], ["SP6m"]],
        column=["S1a", "S2a", "S3a", "S1b"],
        hands=[["CH3m", "GR1m"], ["CH6f"]],
        feeder_deck=["CRa", "S2b", "SQa"],
        display=["BL1f", "BL2f", "BL3f"],
    )
    state.apply("play CH3m 1")  # d = 2: takes S2a
    finish_draws(state)
    assert names(state.column, True) == ["S1a", "S3a", "S1b", "S2b"]
    assert [FEEDER_NAMES[p] if p >= 0 else None for p in state.column_pests] == [
        "CRa",
        None,
        None,
        None,
    ]
    assert names(state.feeder_deck[-1:], True) == ["SQa"]  # not revealed: the column was full


def test_T3_2_more_pests_than_free_seeds_leave_the_game() -> None:
    state = scenario(
        rows=[["BL1m"], ["SP6m"]],
        column=[("S1a", "CRa"), ("S2a", "SQa"), ("S3a", "CRb"), "S1b"],
        hands=[["CH2m", "GR1m"], ["CH6f"]],
        feeder_deck=["SQb", "SQc", "S2b"],
        display=["BL1f", "BL2f", "BL3f"],
    )
    state.apply("play CH2m 1")  # d = 1: takes S1a with its crow; the crow takes BL1m
    finish_draws(state)
    assert names(state.column, True) == ["S2a", "S3a", "S1b", "S2b"]
    assert [FEEDER_NAMES[p] if p >= 0 else None for p in state.column_pests] == [
        "SQa",
        "CRb",
        "SQb",
        "SQc",
    ]
    state2 = scenario(
        rows=[["BL1m"], ["SP6m"]],
        column=["S1a", ("S2a", "SQa"), ("S3a", "CRb"), ("S1b", "SQb")],
        hands=[["CH2m", "GR1m"], ["CH6f"]],
        feeder_deck=["SQc", "CRa", "S2b"],
        display=["BL1f", "BL2f", "BL3f"],
    )
    state2.apply("play CH2m 1")
    finish_draws(state2)
    # SQc takes the one free seed (S2b); then every seed has a pest: CRa leaves [house rule].
    assert names(state2.gone_feeder, True) == ["CRa"]
    assert FEEDER_NAMES[state2.column_pests[3]] == "SQc"
    assert "pest_out" in kinds(state2)


def test_T3_2_empty_feeder_deck_in_the_refill_triggers_the_end() -> None:
    state = scenario(
        rows=[["BL1m"], ["SP6m"]],
        column=["S1a", "S2a", "S3a", "S1b"],
        hands=[["CH2m", "GR1m"], ["CH6f"]],
        feeder_deck=["CRa"],
        fill_feeder="gone",
        display=["BL1f", "BL2f", "BL3f"],
    )
    state.apply("play CH2m 1")  # d = 1
    finish_draws(state)
    assert state.end_triggered == "feeder"
    assert names(state.column, True) == ["S2a", "S3a", "S1b"]
    assert [FEEDER_NAMES[p] if p >= 0 else None for p in state.column_pests[:3]] == [
        "CRa",
        None,
        None,
    ]


# ---------------------------------------------------------------------------------- E


def _trigger_in_turn_of(seat: int, players: int = 3) -> State:
    """A position where seat ``seat`` empties the feeder deck in its refill."""
    hands = [["GR1m", "GR2m", "GR3m", "GR4m"] if p == seat else [] for p in range(players)]
    pool = [
        "BU1m",
        "BU2m",
        "BU3m",
        "BU4m",
        "BU5m",
        "BU6m",
        "SP1m",
        "SP2m",
        "SP3m",
        "SP4m",
        "SP5m",
        "SP6m",
    ]
    for p in range(players):
        if p != seat:
            hands[p] = [pool.pop(), pool.pop(), pool.pop(), pool.pop()]
    return scenario(
        players=players,
        rows=[["BL1m"], ["CH6m"]] + ([["CH6f"]] if players == 4 else []),
        column=["S1a", "S2a", "S3a", "S1b"],
        hands=hands,
        feeder_deck=[],
        fill_feeder="gone",
        display=["BL1f", "BL2f", "BL3f"],
        turn_player=seat,
        first_player=0,
    )


@pytest.mark.parametrize(
    ("players", "seat"), [(3, 0), (3, 1), (3, 2), (4, 0), (4, 3), (2, 0), (2, 1)]
)
def test_E1_E2_last_round_for_every_triggering_seat(players: int, seat: int) -> None:
    state = _trigger_in_turn_of(seat, players)
    state.apply("play GR2m 1")  # G 2 > P 1: d = 1, the column is refilled from an empty deck
    while state.phase == DRAW:
        state.apply_id(state.legal_action_ids()[0])
    assert state.end_triggered == "feeder"
    seats = []
    while state.phase not in (LAST_HAND, GAME_OVER):
        seats.append(state.turn_player)
        state.apply_id(state.legal_action_ids()[-1])
    # E2: play goes on up to and including the seat before the first player (seat n-1).
    expected = list(range(seat + 1, players))
    assert sorted(set(seats)) == expected
    assert state.turn == 1 + len(expected)


def test_E1_end_trigger_only_once() -> None:
    state = _trigger_in_turn_of(0)
    state.apply("play GR2m 1")
    state.apply("draw display 1")
    count = kinds(state).count("end_triggered")
    play_out(state)
    assert kinds(state).count("end_triggered") == count == 1


def _last_turn_before_last_hands() -> State:
    """Three players, the end triggered by the feeder; player 2 takes the last turn (GR1m on
    row 2 chases nothing and collects nothing), then players 0 and 1 choose their last hands."""
    return scenario(
        players=3,
        rows=[["BL1m"], ["CH6m"]],
        column=["S1a", "S2a", "S3a", "S1b"],
        hands=[
            ["BU1m", "BU2m", "BU3m", "BU4m"],
            ["SP1m", "SP2m", "SP3m", "SP4m"],
            ["GR1m", "GR2m"],
        ],
        feeder_deck=[],
        fill_feeder="gone",
        display=["BL1f", "BL2f", "BL3f"],
        turn_player=2,
        first_player=0,
        end_triggered="feeder",
    )


def test_E3_last_hand_two_cards_join_secretly() -> None:
    state = _last_turn_before_last_hands()
    state.apply("play GR1m 2")  # G 1 <= 6: no chase; GR2m is higher than GR1m: no collect
    finish_draws(state)
    assert state.phase == LAST_HAND and state.current_player == 0
    assert len(state.legal_action_ids()) == 6  # 4 choose 2
    with pytest.raises(IllegalActionError, match=r"\(E3\)"):
        state.apply("keep SP1m SP2m")
    state.apply("keep BU1m BU4m")
    # Player 1 cannot see player 0's choice yet.
    v1 = view_of(state, 1)
    assert v1.chosen[0] and v1.own_kept == ()
    keeps = [e for e in v1.events or () if e.kind == "keep" and e.player == 0]
    assert keeps and all(bird is None for e in keeps for bird in e.birds)
    assert BIRD_VALUE[B("BU4m")] == 4 and B("BU4m") not in state.collections[0]
    state.apply("keep SP3m SP4m")
    assert state.current_player == 2 and len(state.hands[2]) == 4
    state.apply_id(state.legal_action_ids()[0])
    assert state.is_over()
    assert names(state.collections[0]) == ["BU1m", "BU4m"]
    assert names(state.collections[1]) == ["SP3m", "SP4m"]
    assert sorted(names(state.discards[0])) == ["BU2m", "BU3m"]
    assert kinds(state)[-4:] == ["reveal", "reveal", "reveal", "game_over"]


def test_E3_a_bird_seen_drawn_stays_known_among_kept_and_discarded() -> None:
    """T3.1 + E3: everybody saw player 0 draw BU4m face up; after its secret choice the others
    still know it is kept or discarded — never in the deck or another hand — but not which."""
    state = _last_turn_before_last_hands()
    state.shown[0] = [B("BU4m")]  # drawn face up from the display earlier
    state.apply("play GR1m 2")
    finish_draws(state)
    state.apply("keep BU1m BU4m")
    view = view_of(state, 1)
    assert view.chosen[0] and view.shown[0] == (B("BU4m"),)
    places = Counter()
    rng = random.Random(5)
    sampler = Sampler(view)
    for i in range(200):
        world = determinise(view, rng) if i % 2 else sampler.sample(rng)
        assert len(world.kept[0] or ()) == 2 and len(world.discards[0]) == 2
        places["kept" if B("BU4m") in (world.kept[0] or ()) else "discards"] += 1
        assert B("BU4m") in (world.kept[0] or []) + world.discards[0]
    assert places["kept"] > 50 and places["discards"] > 50  # which of the two stays secret
    state.apply("keep SP3m SP4m")
    state.apply_id(state.legal_action_ids()[0])
    assert state.is_over() and state.shown == [[], [], []]  # revealed: nothing left to infer


def test_E3_fewer_than_two_cards_all_join() -> None:
    state = scenario(
        rows=[["BL1m"], ["CH6m"]],
        hands=[["BU1m", "BU2m"], ["SP1m", "SP2m"]],
        fill_birds="gone",
        turn_player=1,
        first_player=0,
        end_triggered="feeder",
    )
    state.apply("play SP1m 2")  # no chase; SP2m is higher than SP1m; nothing left to draw
    # Player 1 is the last seat: the last hand needs no decision (two cards and one card).
    assert state.is_over()
    assert names(state.collections[0]) == ["BU1m", "BU2m"]
    assert names(state.collections[1]) == ["SP2m"]
    assert state.discards == [[], []]


def test_E4_seeds_pairs_and_majority_singles() -> None:
    rules = Rules.preset("standard")
    sheet = score(
        rules,
        [
            [B("BL5m"), B("BL5f"), B("BL1m"), B("CH2m")],  # BL pair; BL1m single; CH2m
            [B("BL2m"), B("CH3f"), B("CH4f")],
        ],
        [[F("S3a"), F("S1a")], [F("S2a")]],
    )
    p0, p1 = sheet.players
    assert (p0.seeds, p0.pairs, p0.pair_points) == (4, 1, 5)
    # BL: player 0 has 3 (pairs count), player 1 has 1 → singles BL1m: 1 egg.
    assert p0.singles == {"BL": 1}
    # CH: player 1 has 2 > 1: CH3f + CH4f = 2 + 2 eggs.
    assert p1.singles == {"CH": 4}
    assert (p0.total, p1.total) == (10, 6)
    assert sheet.majority == {"BL": 0, "CH": 1}


def test_E4_majority_tie_scores_nobody() -> None:
    sheet = score(Rules(), [[B("SP6m"), B("SP5m")], [B("SP6f"), B("SP1f")]], [[], []])
    assert sheet.majority["SP"] is None
    # SP6m/SP6f are different players' birds: no pair for anybody, and nobody scores singles.
    assert [p.total for p in sheet.players] == [0, 0]


def test_E5_tiebreak_most_birds_then_shared() -> None:
    sheet = score(
        Rules(), [[B("BL1m")], [B("CH1m"), B("CH1f")]], [[F("S3a"), F("S1a")], [F("S1b")]]
    )
    # 1 + 4 = 5 against 5 (pair) + 1 = 6: no tie
    assert sheet.winners == (1,) and not sheet.tiebreak
    sheet = score(
        Rules(), [[B("BL2m"), B("SP1m")], [B("CH1m")]], [[F("S1a")], [F("S2a"), F("S1b")]]
    )
    # 1 + BL 1 + SP 1 = 3 against 3 + CH 1 = 4
    assert sheet.winners == (1,)
    sheet = score(Rules(), [[B("BL2m"), B("SP1m")], [B("CH1m")]], [[], [F("S1b")]])
    # 2 against 2: player 0 holds more birds
    assert sheet.winners == (0,) and sheet.tiebreak
    sheet = score(Rules(), [[B("BL2m")], [B("CH1m")]], [[], []])
    assert sheet.winners == (0, 1) and sheet.tiebreak


# ---------------------------------------------------------------------------------- V. flags


def test_V_no_chase_collect_off_in_overview() -> None:
    state = scenario(
        rules="overview",
        rows=[["BL6m"], ["SP6m"]],
        hands=[["BU3m", "CH2f", "GR5m", "SP1f"], ["CH6f"]],
        display=["BL1f", "BL2f", "BL3f"],
    )
    state.apply("play BU3m 1")
    assert state.phase == DRAW and state.draws_left == 1


def test_V_draw_exactly_one_in_overview() -> None:
    state = scenario(
        rules="overview",
        rows=[["BL6m"], ["SP6m"]],
        hands=[["BU3m", "CH2f"], ["CH6f"]],
        display=["BL1f", "BL2f", "BL3f"],
    )
    state.apply("play BU3m 1")
    state.apply("draw display 1")
    assert names(state.hands[0]) == ["BL1f", "CH2f"]
    assert state.turn_player == 1


def test_V_end_trigger_on_empty_bird_deck_in_overview() -> None:
    kw = dict(
        rows=[["BL6m"], ["SP6m"]],
        hands=[["BU3m", "CH2f"], ["CH6f"]],
        bird_deck=["GR1m"],
        display=[None, None, None],
        fill_birds="gone",
    )
    over = scenario(rules="overview", **kw)  # type: ignore[arg-type]
    over.apply("play BU3m 1")  # forced draw of the last deck card
    assert over.end_triggered == "birds"
    std = scenario(rules="standard", **kw)  # type: ignore[arg-type]
    std.apply("play BU3m 1")
    std.apply("pass")
    assert std.end_triggered is None


def test_V_no_last_hand_in_overview() -> None:
    state = scenario(
        rules="overview",
        players=2,
        rows=[["BL1m"], ["CH6m"]],
        column=["S1a", "S2a", "S3a", "S1b"],
        hands=[["BU1m", "BU2m", "BU3m"], ["SP1m", "SP2m", "SP3m", "SP4m"]],
        feeder_deck=[],
        fill_feeder="gone",
        display=["BL1f", "BL2f", "BL3f"],
        turn_player=1,
        first_player=0,
        end_triggered="feeder",
    )
    state.apply("play SP1m 2")
    state.apply("draw display 1")
    assert state.is_over()
    assert state.collections[1] == [] and len(state.hands[1]) == 4


def test_V_species_pairs_scoring_in_overview() -> None:
    rules = Rules.preset("overview")
    sheet = score(
        rules,
        [[B("BL5m"), B("BL1f"), B("BL2m"), B("CH2m")], [B("CH3m"), B("CH4m"), B("SP1f")]],
        [[], []],
    )
    p0, p1 = sheet.players
    # BL has both sexes: every BL bird scores its eggs (3 + 1 + 1), whatever the majority.
    assert (p0.pairs, p0.pair_points) == (1, 5)
    # CH: player 1 has 2 (one sex) > 1: singles 2 + 2; player 0's CH2m scores nothing.
    assert p1.singles == {"CH": 4, "SP": 1}
    assert p0.singles == {}
    assert (p0.total, p1.total) == (5, 5)
    assert sheet.winners == (0,) and sheet.tiebreak


def test_V_flags_can_be_overridden_singly() -> None:
    rules = Rules.preset("standard", draw="one")
    assert rules.draw == "one" and rules.last_hand and rules.name == "custom"
    with pytest.raises(ValueError, match="unknown rule flag"):
        Rules.preset("standard", foo=1)
    with pytest.raises(ValueError, match="cannot be"):
        Rules.preset("standard", draw="two")
    with pytest.raises(ValueError, match="unknown rules preset"):
        Rules.preset("chess")
    for name in (None, 5, ["standard"]):
        with pytest.raises(ValueError, match="unknown rules preset"):
            Rules.preset(name)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="unknown rules preset"):
            State.new_game(2, name, 1)  # type: ignore[arg-type]


def test_V_a_rule_set_reads_from_one_text_form() -> None:
    assert Rules.parse("standard") == Rules()
    assert Rules.parse("overview:draw=refill, pairs=mated") == Rules.preset(
        "overview", draw="refill", pairs="mated"
    )
    assert Rules.parse("standard:last_hand=no").last_hand is False
    for bad, message in [
        ("nosuch", "unknown rules preset"),
        ("standard:last_hand", "needs a value"),
        ("standard:last_hand=maybe", "true or false"),
        ("standard:draw=two", "cannot be 'two'"),
        ("standard:colour=red", "unknown rule flag 'colour'"),
    ]:
        with pytest.raises(InvalidOptionsError, match=message):
            Rules.parse(bad)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"players": 5}, r"2, 3 or 4 players, not 5 \(S1\)"),
        ({"players": 2, "seed": "x"}, "the seed must be an integer"),
        ({"players": 3, "first_player": 3}, "first player must be a seat 0-2"),
        ({"players": 3, "removed_species": "BL"}, r"only in two-player games \(S2\)"),
        ({"players": 2, "removed_species": "XX"}, "unknown species 'XX'"),
        ({"players": 2, "rules": "nosuch"}, "unknown rules preset"),
    ],
)
def test_S1_bad_options_raise_a_typed_error(options: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidOptionsError, match=message):
        State.new_game(**options)  # type: ignore[arg-type]
