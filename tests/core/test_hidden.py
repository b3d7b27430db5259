"""What players may know (T2.1d, T2.2): views never depend on which copy of alike cards is where,
and sampled worlds respect everything a view shows."""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from piepmatz.core import (
    Game,
    InvalidRecordError,
    State,
    determinise,
    state_from_json,
    state_to_json,
    view_of,
    view_to_json,
)
from piepmatz.core.cards import BIRD_NAMES, BIRD_VALUE, FEEDER_EGGS, FEEDER_NAMES
from piepmatz.core.chance import Chance
from piepmatz.core.game import RECORD_VERSION
from piepmatz.core.hands import allows
from piepmatz.core.view import Sampler, filter_event

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


def alike(state: State, player: int) -> Any:
    """The JSON view of ``player`` with seeds by value only, and piles of seeds as sorted
    values: the copies of a seed seen taken are all known to the player, so which of them left
    is no secret."""

    def by_value(value: Any) -> Any:
        if isinstance(value, str) and re.fullmatch(r"S[123][a-j]", value):
            return value[:2]
        if isinstance(value, dict):
            return {k: by_value(v) for k, v in value.items()}
        if isinstance(value, list):
            items = [by_value(v) for v in value]
            seeds = all(isinstance(v, str) and re.fullmatch(r"S[123]", v) for v in items)
            return sorted(items) if items and seeds else items
        return value

    return by_value(json.loads(seen_by(state, player)[1]))


def test_T2_1d_squirrel_tells_the_others_values_never_copies() -> None:
    """Issue 23 A: player 0 (seen S2a; blind S2b, S1e) loses a 2 and a 1 to the squirrel. Which
    2 it was is not player 1's to know: their view is the same whichever copy was picked."""
    outcomes: dict[tuple[int, ...], list[State]] = defaultdict(list)
    for rng in range(60):
        state = issue_state(rng)
        state.apply("play BL6m 1")  # d = 5: the feeder deck's top, the squirrel
        squirrel = next(e for e in state.events or () if e.kind == "squirrel")
        outcomes[tuple(sorted(FEEDER_EGGS[s] for s in squirrel.seeds))].append(state)
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


@settings(max_examples=20, deadline=None)
@given(games)
def test_T2_1d_outcomes_a_player_cannot_tell_apart_give_the_same_view(
    game: tuple[int, int, str, int],
) -> None:
    """The class of issue 23 A: chance outcomes that look alike to a player (the squirrel taking
    one copy or another of alike seeds) leave that player's view, JSON view and events equal,
    up to which copy of a seed they saw taken left."""
    seed, players, preset, policy = game
    state = State.new_game(players=players, rules=preset, seed=seed)
    rng = random.Random(policy)
    while not state.is_over():
        choice = rng.choice(state.legal_action_ids())
        actor = state.current_player
        looks: dict[tuple[int, ...], list[State]] = defaultdict(list)
        drawn = False
        for k in range(8):
            world = state.copy()
            world.rng = generator = k * 0x9E3779B97F4A7C15 % 2**64
            before = len(world.events or ())
            world.apply_id(choice)
            drawn |= world.rng != generator
            lost = [e.seeds for e in (world.events or [])[before:] if e.kind == "squirrel"]
            looks[tuple(tuple(sorted(FEEDER_EGGS[s] for s in seeds)) for seeds in lost)].append(
                world
            )
        if not drawn:  # the generator was not used: the worlds are one and the same
            state.apply_id(choice)
            continue
        for worlds in looks.values():
            for q in range(players):
                if q != actor:
                    first = alike(worlds[0], q)
                    assert all(alike(w, q) == first for w in worlds[1:])
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
        seen: dict[int, Any] = {}  # each player's view of the state itself, read once a step
        for p in range(players):
            for i, mine in enumerate(state.seeds_blind[p]):
                for j, other in enumerate(state.feeder_deck):
                    if other != mine and FEEDER_EGGS[other] == FEEDER_EGGS[mine]:
                        twin = state.copy()
                        twin.seeds_blind[p][i], twin.feeder_deck[j] = other, mine
                        for q in range(players):
                            if q != p:
                                if q not in seen:
                                    seen[q] = seen_by(state, q)
                                assert seen_by(twin, q) == seen[q]
                        break
        state.apply_id(rng.choice(state.legal_action_ids()))


def test_T2_2_worlds_sampled_in_the_collect_phase_let_the_player_collect() -> None:
    """Issue 23 B: player 0 is asked to collect after a calm play, so every world sampled for
    player 1 gives player 0 a bird worth at most the one played (and is a valid state)."""
    doc = json.loads(json.dumps(state_to_json(issue_state(0))))
    doc["hands"][0] = ["BL1f", "CH1m", "CH4m", "CH5m"]
    doc["rows"] = [["BL6m"], ["CH6f"]]
    doc["bird_deck"] = [b for b in doc["bird_deck"] if b not in ("BL1f", "CH4m", "CH5m")]
    doc["bird_deck"] += ["BL1m", "CH2m", "CH3m"]
    state = state_from_json(doc)
    state.apply("play BL1f 1")
    assert state.phase_name == "collect"
    assert [str(a) for a in state.legal_actions()] == ["collect CH1m", "pass"]
    for k in range(100):
        world = determinise(view_of(state, 1), random.Random(k))
        again = state_from_json(state_to_json(world))
        assert [str(a) for a in again.legal_actions()][-1] == "pass"
        assert len(again.legal_action_ids()) >= 2


def test_T2_2_worlds_sampled_in_the_issues_game_are_valid() -> None:
    game = Game.new(players=2, preset="standard", seed=0)
    for text in ("play BU4f 1", "collect BU1f", "draw display 2", "draw display 3"):
        game.apply(text)
    for text in ("play SP4f 1", "draw display 1", "play SP3f 2"):
        game.apply(text)
    assert game.state.phase_name == "collect"
    sampler = Sampler(game.view(1))
    for k in range(100):
        world = sampler.sample(random.Random(k), events=True)
        state_from_json(state_to_json(world))  # raises for a world with nothing to collect
        assert view_of(world, 1) == game.view(1)


def calm_play_state(hand: list[str]) -> State:
    """Issue 23's position with another hand for player 0, BL6m at perch 1 (a calm play for
    any bird) and an empty display, so that every draw is a blind one."""
    doc = json.loads(json.dumps(state_to_json(issue_state(0))))
    doc["hands"][0] = hand
    doc["rows"] = [["BL6m"], ["CH6f"]]
    doc["display"] = [None, None, None]
    doc["bird_deck"] = [b for b in BIRD_NAMES if b[:2] != "YE" and b not in hand]
    doc["bird_deck"] = [b for b in doc["bird_deck"] if b not in ("BL6m", "CH6f")]
    doc["bird_deck"] = [b for b in doc["bird_deck"] if b not in doc["hands"][1]]
    return state_from_json(doc)


def test_T2_2_being_asked_bounds_the_hand_in_every_world() -> None:
    """A player asked to collect holds a bird worth at most the one played; after a pass the
    others still know it, and every world sampled for them agrees until it leaves the hand."""
    state = calm_play_state(["BL1f", "CH4m", "CH5m", "BU6m"])
    state.apply("play CH4m 1")  # BL1f is worth less: player 0 is asked
    state.apply("pass")  # draws one blind bird; player 1's turn
    assert state.current_player == 1 and state.hand_facts[0] is not None
    view = view_of(state, 1)
    worlds = [determinise(view, random.Random(k)) for k in range(400)]
    assert all(any(BIRD_VALUE[b] <= 4 for b in w.hands[0]) for w in worlds)
    # Without that knowledge some worlds give player 0 no such bird.
    blank = view._replace(hand_facts=(None, None))
    loose = [determinise(blank, random.Random(k)) for k in range(400)]
    assert any(all(BIRD_VALUE[b] > 4 for b in w.hands[0]) for w in loose)


def test_T2_2_moving_on_unasked_bounds_the_hand_in_every_world() -> None:
    """A player who moves on unasked holds no bird worth at most the one played: in every world
    sampled for the others the birds that player held then are worth more."""
    state = calm_play_state(["BL2f", "CH5m", "CH6m", "BU6m"])
    state.apply("play BL2f 1")  # nothing worth 2 or less: player 0 moves on at once
    assert state.current_player == 1
    view = view_of(state, 1)
    worlds = [determinise(view, random.Random(k)) for k in range(200)]
    # Three of the four birds date from before the draw: at least three are worth more than 2.
    assert all(sum(BIRD_VALUE[b] > 2 for b in w.hands[0]) >= 3 for w in worlds)
    blank = view._replace(hand_facts=(None, None))
    loose = [determinise(blank, random.Random(k)) for k in range(200)]
    assert any(sum(BIRD_VALUE[b] > 2 for b in w.hands[0]) < 3 for w in loose)
    # Once player 0 plays a bird worth more than 2, one of the bound birds may be gone.
    state.apply_id(state.legal_action_ids()[0])  # player 1 plays
    while state.current_player == 1:
        state.apply_id(state.legal_action_ids()[0])
    high = next(b for b in state.hands[0] if BIRD_VALUE[b] > 2)
    state.apply(f"play {BIRD_NAMES[high]} 2")
    facts = state.hand_facts[0]
    assert facts is not None and facts[2] == 2


@settings(max_examples=200, deadline=None)
@given(games)
# Two bounded hands in one deal, where the first could take the birds the second needs.
@example((12232, 4, "standard", 12232))
def test_T2_2_every_sampled_world_is_a_valid_state_with_the_same_view(
    game: tuple[int, int, str, int],
) -> None:
    """Issue 23 B's property, through the one sampler the bots use: every world passes the
    state validator (a JSON round trip), gives the same view back, and the same legal actions
    when the viewer is the player to move; the real hands always agree with what the others
    know of them."""
    seed, players, preset, policy = game
    state = State.new_game(players=players, rules=preset, seed=seed)
    rng = random.Random(policy)
    while not state.is_over():
        for q, facts in enumerate(state.hand_facts):
            assert facts is None or allows(facts, [BIRD_VALUE[b] for b in state.hands[q]])
        if rng.random() < 0.2:
            for p in range(players):
                view = view_of(state, p)
                sampler = Sampler(view)
                for events in (True, False):
                    world = sampler.sample(random.Random(rng.random()), events)
                    doc = json.loads(json.dumps(state_to_json(world)))
                    assert state_to_json(state_from_json(doc)) == doc
                    assert view_of(world, p) == (view if events else view._replace(events=None))
                    for q, facts in enumerate(world.hand_facts):
                        assert facts is None or allows(
                            facts, [BIRD_VALUE[b] for b in world.hands[q]]
                        )
                    if state.current_player == p:
                        assert world.legal_action_ids() == state.legal_action_ids()
        state.apply_id(rng.choice(state.legal_action_ids()))


class Counting(Chance):
    """Draws from the bottom of each deck and counts what the engine asked for."""

    __slots__ = ("asked",)

    def __init__(self) -> None:
        self.asked = {"bird": 0, "feeder": 0, "squirrel": 0}

    def bird(self, state: State) -> int:
        self.asked["bird"] += 1
        return state.bird_deck.pop(0)

    def feeder(self, state: State) -> int:
        self.asked["feeder"] += 1
        return state.feeder_deck.pop(0)

    def squirrel(self, state: State, player: int, pile: list[int]) -> int:
        self.asked["squirrel"] += 1
        return pile[0]


class Supplied(State):
    __slots__ = ("chance",)


def test_T2_1d_T3_every_random_event_after_the_deal_comes_from_the_chance_interface() -> None:
    """core.chance: the engine never reads a deck or its generator itself, so a caller's chance
    decides every draw and pick (here: the bottom card, the first seed)."""
    for seed in range(20):
        base = State.new_game(players=3, seed=seed)
        state = Supplied.__new__(Supplied)
        for name in State.__slots__:
            setattr(state, name, getattr(base, name))
        chance = state.chance = Counting()
        bottom = state.bird_deck[0]
        rng = random.Random(seed)
        while not state.is_over():
            state.apply_id(rng.choice(state.legal_action_ids()))
        events = state.events or []
        drawn = [e for e in events if e.kind in ("draw_deck", "refill_display")]
        assert chance.asked["bird"] == len(drawn)
        squirrels = [e for e in events if e.kind == "squirrel"]
        assert chance.asked["squirrel"] == sum(len(e.seeds) for e in squirrels)
        revealed = ("take_blind", "refill_column", "pest_beside", "pest_out")
        taken = [
            e for e in events if e.kind in revealed or (e.kind == "take_pest" and e.position == 0)
        ]
        assert chance.asked["feeder"] == len(taken) > 0
        assert drawn[0].bird == bottom  # the bottom card came first: the caller's choice


def test_T2_1d_version_1_records_replay_with_the_strike_of_the_pick() -> None:
    """Records of version 1 were played when the squirrel's pick itself left: they replay so,
    to their stored result; the same actions under version 2 end otherwise."""
    path = Path(__file__).parent / "records" / "v1-squirrel-strikes-the-pick.json"
    record = json.loads(path.read_text())
    assert record["version"] == 1 < RECORD_VERSION
    replayed = Game.from_record(record)
    assert replayed.score().to_json() == record["result"]
    assert replayed.record() == record  # it goes on, and is written, as version 1
    now = Game.from_record({**record, "version": RECORD_VERSION, "result": None})
    assert now.state.is_over() and now.score().to_json() != record["result"]
    with pytest.raises(InvalidRecordError, match="result differs"):
        Game.from_record({**record, "version": RECORD_VERSION})
    assert Game.new(players=3, seed=14).record()["version"] == RECORD_VERSION
