"""What players may know (T2.1d, T2.2): views never depend on which copy of alike cards is where,
and sampled worlds respect everything a view shows."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from piepmatz.core import State, state_from_json, view_of, view_to_json
from piepmatz.core.cards import BIRD_NAMES, FEEDER_EGGS, FEEDER_NAMES
from piepmatz.core.view import filter_event

ISSUE_STATE: dict[str, Any] = {
    "format": "piepmatz-state",
    "version": 1,
    "players": 2,
    "rules": {
        "no_chase_collect": True,
        "draw": "refill",
        "end_trigger": "feeder",
        "last_hand": True,
        "pairs": "mated",
    },
    "first_player": 0,
    "turn": 5,
    "turn_player": 0,
    "current_player": 0,
    "phase": "play",
    "removed_birds": [f"YE{v}{s}" for v in range(1, 7) for s in "mf"],
    "removed_feeder": ["S1j", "S2i", "S2j", "S3j", "CRc"],
    "display": ["SP1m", "SP2m", "SP3m"],
    "events": [],
    "hands": [["BL6m", "CH1m", "CH2m", "CH3m"], ["GR1m", "GR2m", "GR3m", "GR4m"]],
    "column": [{"seed": f"S1{c}", "pest": None} for c in "abcd"],
    "rows": [["BL1m"], ["CH6f"]],
    "seeds_seen": [["S2a"], []],
    "seeds_blind": [["S2b", "S1e"], []],
}


def issue_state(rng: int) -> State:
    """Issue 23's position: both decks in card order, the feeder deck's top the squirrel SQa."""
    doc = dict(ISSUE_STATE, rng=rng)
    used = set(doc["removed_birds"] + doc["display"] + doc["rows"][0] + doc["rows"][1])
    used.update(doc["hands"][0] + doc["hands"][1])
    feeder_used = set(doc["removed_feeder"]) | {c["seed"] for c in doc["column"]}
    feeder_used |= {"S2a", "S2b", "S1e", "SQa"}
    doc["bird_deck"] = [b for b in BIRD_NAMES if b not in used]
    doc["feeder_deck"] = ["SQa"] + [f for f in FEEDER_NAMES if f not in feeder_used]
    return state_from_json(doc)


def seen_by(state: State, player: int) -> tuple[Any, str, list[Any]]:
    """Everything ``player`` is shown: the view, its JSON and the filtered events."""
    view = view_of(state, player)
    events = [filter_event(e, player) for e in state.events or ()]
    return view, json.dumps(view_to_json(view)), events


def test_T2_1d_squirrel_tells_the_others_values_never_copies() -> None:
    """Issue 23 A: player 0 (seen S2a; blind S2b, S1e) loses a 2 and a 1 to the squirrel. Which
    2 it was is not player 1's to know: their view is the same whichever copy was picked."""
    outcomes: dict[tuple[int, ...], list[State]] = defaultdict(list)
    for rng in range(60):
        state = issue_state(rng)
        state.apply("play BL6m 1")  # d = 5: the feeder deck's top, the squirrel
        squirrel = next(e for e in state.events or () if e[0] == "squirrel")
        outcomes[tuple(sorted(FEEDER_EGGS[s] for s in squirrel[2:]))].append(state)
    a_two_and_a_one = outcomes[(1, 2)]
    assert len(a_two_and_a_one) > 5, "both copies of the 2 get picked over 60 generators"
    first = seen_by(a_two_and_a_one[0], 1)
    for state in a_two_and_a_one[1:]:
        assert seen_by(state, 1) == first
    # Player 0 keeps one seed, a 2; the public record shows it as one blind seed.
    state = a_two_and_a_one[0]
    assert [FEEDER_EGGS[s] for s in state.seed_pile(0)] == [2]
    assert view_of(state, 1).seeds_seen[0] == () and view_of(state, 1).blind_counts[0] == 1


games = st.tuples(
    st.integers(min_value=0, max_value=2**63),
    st.sampled_from([2, 3, 4]),
    st.sampled_from(["standard", "overview"]),
    st.integers(min_value=0, max_value=2**32),
)


@settings(max_examples=30, deadline=None)
@given(games)
def test_T2_1d_outcomes_a_player_cannot_tell_apart_give_the_same_view(
    game: tuple[int, int, str, int],
) -> None:
    """The class of issue 23 A: chance outcomes that look alike to a player (the squirrel taking
    one copy or another of alike seeds) leave that player's view, JSON view and events equal."""
    seed, players, preset, policy = game
    state = State.new_game(players=players, rules=preset, seed=seed)
    rng = random.Random(policy)
    while not state.is_over():
        choice = rng.choice(state.legal_action_ids())
        actor = state.current_player
        looks: dict[tuple[int, ...], list[State]] = defaultdict(list)
        for k in range(8):
            world = state.copy()
            world.rng = k * 0x9E3779B97F4A7C15 % 2**64
            before = len(world.events or ())
            world.apply_id(choice)
            lost = [e[2:] for e in (world.events or [])[before:] if e[0] == "squirrel"]
            looks[tuple(tuple(sorted(FEEDER_EGGS[s] for s in seeds)) for seeds in lost)].append(
                world
            )
        for worlds in looks.values():
            for q in range(players):
                if q != actor:
                    first = seen_by(worlds[0], q)
                    assert all(seen_by(w, q) == first for w in worlds[1:])
        state.apply_id(choice)


@settings(max_examples=60, deadline=None)
@given(games)
def test_T2_1d_which_copy_lies_face_down_where_is_nobody_elses_knowledge(
    game: tuple[int, int, str, int],
) -> None:
    """Two states that differ only in which copies of alike face-down seeds lie where (a
    player's blind seeds, the feeder deck) give every player who sees neither place the same
    view, JSON view and events."""
    seed, players, preset, policy = game
    state = State.new_game(players=players, rules=preset, seed=seed)
    rng = random.Random(policy)
    while not state.is_over():
        for p in range(players):
            for i, mine in enumerate(state.seeds_blind[p]):
                for j, other in enumerate(state.feeder_deck):
                    if other != mine and FEEDER_EGGS[other] == FEEDER_EGGS[mine]:
                        twin = state.copy()
                        twin.seeds_blind[p][i], twin.feeder_deck[j] = other, mine
                        for q in range(players):
                            if q != p:
                                assert seen_by(twin, q) == seen_by(state, q)
                        break
        state.apply_id(rng.choice(state.legal_action_ids()))
