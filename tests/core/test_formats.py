"""State and record formats: schemas, validation messages, bad input changes nothing."""

from __future__ import annotations

import copy
import json
import random
from importlib import resources
from typing import Any

import jsonschema
import pytest

from piepmatz.core import (
    Action,
    Game,
    IllegalActionError,
    InvalidActionError,
    InvalidRecordError,
    InvalidStateError,
    State,
    state_from_json,
    state_to_json,
)
from piepmatz.core.errors import GameOverError
from piepmatz.core.state import DRAW, LAST_HAND
from scenarios import played


def schema(name: str) -> dict[str, Any]:
    text = resources.files("piepmatz.core").joinpath(f"schema/{name}.schema.json").read_text()
    data: dict[str, Any] = json.loads(text)
    return data


@pytest.mark.parametrize("players", [2, 3, 4])
def test_states_and_records_match_their_schemas(players: int) -> None:
    state_schema, record_schema = schema("state"), schema("record")
    for seed in range(15):
        for steps in (0, 20, 60, 500):
            jsonschema.validate(state_to_json(played(players, seed, steps)), state_schema)
        game = Game.new(players=players, seed=seed)
        while not game.state.is_over():
            game.apply(game.state.legal_action_ids()[-1])
        jsonschema.validate(game.record(), record_schema)


def base_doc() -> dict[str, Any]:
    return state_to_json(played(3, 4, 10))


BROKEN: list[tuple[str, Any, str]] = [
    ("not an object", lambda d: [1, 2], "must be a JSON object"),
    ("format", lambda d: d.update(format="chess"), "state format: must be 'piepmatz-state'"),
    ("version", lambda d: d.update(version=2), "version 2 is not supported"),
    ("players", lambda d: d.update(players=5), "players: must be an integer 2-4"),
    (
        "card name",
        lambda d: d["hands"][0].__setitem__(0, "BL7m"),
        r"hands\[0\]\[0\]: 'BL7m' is not a bird",
    ),
    (
        "seed in the bird lists",
        lambda d: d["collections"][1].append("S1a"),
        r"collections\[1\]\[0\]: 'S1a' is not a bird",
    ),
    (
        "duplicate",
        lambda d: d["collections"][0].append(d["bird_deck"][0]),
        r"two places: [A-Z]{2}\d[mf] lies both in bird deck and in collection 0",
    ),
    ("missing", lambda d: d["bird_deck"].pop(), "missing: "),
    (
        "hand of five",
        lambda d: d["hands"][1].extend(d["bird_deck"][: 5 - len(d["hands"][1])]),
        "holds 5 cards",
    ),
    (
        "pest as seed",
        lambda d: d["column"][0].update(seed="CRa"),
        r"column\[0\].seed: CRa is a pest",
    ),
    (
        "seed as pest",
        lambda d: d["column"][0].update(pest="S1a"),
        r"column\[0\].pest: S1a is a seed",
    ),
    (
        "pest in the seed pile",
        lambda d: d["seeds_seen"][0].append("SQa"),
        r"seeds_seen\[0\]: SQa is a pest",
    ),
    (
        "removed with three",
        lambda d: d["removed_birds"].append(d["bird_deck"].pop()),
        "nothing is removed",
    ),
    ("phase", lambda d: d.update(phase="dance"), "phase: must be one of"),
    (
        "column card",
        lambda d: d["column"][0].update(seed="S9z"),
        r"state column\[0\]\.seed: 'S9z' is not",
    ),
    ("display card", lambda d: d["display"].__setitem__(0, 7), r"state display\[0\]: 7 is not"),
    (
        "feeder removed with three",
        lambda d: d["removed_feeder"].append(d["feeder_deck"].pop()),
        "removed_feeder: nothing is removed",
    ),
    (
        "current player",
        lambda d: d.update(current_player=(d["turn_player"] + 1) % 3),
        "the player whose turn it is",
    ),
    ("rules flag", lambda d: d["rules"].pop("draw"), "rules: rules lack the flags draw"),
    ("rules value", lambda d: d["rules"].update(draw="two"), "cannot be 'two'"),
    ("display", lambda d: d.update(display=d["display"][:2]), "display: must be a list of 3 slots"),
    (
        "empty row",
        lambda d: d["bird_deck"].extend(d["rows"][0]) or d["rows"].__setitem__(0, []),
        r"rows\[0\]: is empty",
    ),
    ("rows", lambda d: d["rows"].append(["BL1m"]), "must be a list of 2 rows"),
    ("rng", lambda d: d.update(rng=-1), "rng: must be an integer"),
    ("version", lambda d: d.update(version=True), "state version: version True is not supported"),
    (
        "end by birds",
        lambda d: d.update(end_triggered="birds"),
        "end_triggered: an empty bird deck ends the game only under 'overview'",
    ),
    (
        "kept outside the last hand",
        lambda d: d.update(kept=[[], None, None]),
        "only in the last-hand phase",
    ),
    ("event", lambda d: d["events"].append({"kind": "explode"}), r"events\[\d+\]: not an event"),
    ("event kind", lambda d: d["events"].append({"kind": ["turn"]}), r"events\[\d+\]: not an"),
    (
        "event card",
        lambda d: d["events"].append({"kind": "play", "player": 0, "bird": ["BL1m"], "perch": 1}),
        "'bird' must name a card",
    ),
    (
        "event seat",
        lambda d: d["events"].append({"kind": "skip", "player": 3}),
        r"events\[\d+\]: names player 3 of a 3-player game",
    ),
    (
        "event slot",
        lambda d: d["events"].append({"kind": "refill_display", "slot": 9, "bird": "BL1m"}),
        "'slot' must be 1-3, not 9",
    ),
    (
        "event reason",
        lambda d: d["events"].append({"kind": "end_triggered", "player": 0, "reason": [1]}),
        "unknown reason",
    ),
    ("missing key", lambda d: d.pop("rows"), "state rows: missing: every state document has"),
    (
        "shown but not held",
        lambda d: d["shown"][0].append(d["bird_deck"][0]),
        r"shown\[0\]: \w+ must be a bird of hands\[0\], once",
    ),
    (
        "shown twice",
        lambda d: d["shown"][1].extend([d["hands"][1][0]] * 2),
        r"shown\[1\]: \w+ must be a bird of hands\[1\], once",
    ),
]


def test_shown_birds_survive_a_round_trip_and_older_files_load() -> None:
    state = played(4, 2, 40)
    assert any(state.shown), "this game has a bird drawn face up and still held"
    again = state_from_json(json.loads(json.dumps(state_to_json(state))))
    assert again.shown == state.shown
    doc = state_to_json(state)
    del doc["shown"]  # a file written before the field existed
    assert state_from_json(doc).shown == [[], [], [], []]


@pytest.mark.parametrize(("name", "breaks", "message"), BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_states_are_refused_with_a_precise_message(
    name: str, breaks: Any, message: str
) -> None:
    doc = base_doc()
    result = breaks(doc)
    if name == "not an object":
        doc = result
    with pytest.raises(InvalidStateError, match=message):
        state_from_json(doc)


def test_an_end_by_the_bird_deck_loads_under_its_flag() -> None:
    doc = state_to_json(played(3, 4, 0))
    doc["end_triggered"] = "birds"
    with pytest.raises(InvalidStateError, match="only under 'overview'"):
        state_from_json(doc)
    doc["rules"]["end_trigger"] = "feeder_or_birds"
    assert state_from_json(doc).end_triggered == "birds"


def test_two_player_removals_are_checked() -> None:
    doc = state_to_json(played(2, 1, 5))
    doc["removed_feeder"] = doc["removed_feeder"][:-1]
    doc["feeder_deck"].append("CRc")
    with pytest.raises(InvalidStateError, match=r"without the five 3\+ cards"):
        state_from_json(doc)


def test_impossible_phases_are_refused() -> None:
    doc = state_to_json(played(2, 1, 0))
    doc["phase"] = "crow"
    with pytest.raises(InvalidStateError, match="chase_perch"):
        state_from_json(doc)
    doc["phase"] = "draw"
    with pytest.raises(InvalidStateError, match="draws_left"):
        state_from_json(doc)
    doc["phase"] = "last hand"
    with pytest.raises(InvalidStateError, match="end_triggered: the last hand comes only after"):
        state_from_json(doc)
    doc["phase"] = "game over"
    doc["current_player"] = -1
    with pytest.raises(InvalidStateError, match="end_triggered: the game ends only after"):
        state_from_json(doc)


# ------------------------------------------------------------------------------ actions


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty action"),
        ("fly BL5m", "cannot read action 'fly BL5m'"),
        ("play BL7m 1", "'BL7m' is not a bird card"),
        ("play BL5m 4", "perch must be a number 1-3"),
        ("play BL5m", "expected one of"),
        ("draw display 0", "display slot must be a number 1-3"),
        ("keep BL5m BL5m", "names BL5m twice"),
        ("crow", "expected one of"),
        ("play BL5m ²", "perch must be a number 1-3, not '²'"),
        ("draw display \u0663", "display slot must be a number 1-3"),
        ("play BL5m " + "9" * 5000, "an action of 5010 characters is none"),
    ],
)
def test_malformed_actions_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(InvalidActionError, match=message):
        Action.parse(text)


def test_action_text_and_ids_round_trip() -> None:
    from piepmatz.core.actions import ACTION_NAMES, NUM_ACTIONS

    assert len(set(ACTION_NAMES)) == NUM_ACTIONS
    for i in range(NUM_ACTIONS):
        action = Action.from_id(i)
        assert action.id == i
        assert Action.parse(str(action)) == action
    for bad in (-1, NUM_ACTIONS, 2.5, True):
        with pytest.raises(InvalidActionError):
            Action.from_id(bad)  # type: ignore[arg-type]


def test_bad_actions_change_nothing() -> None:
    state = played(3, 8, 7)
    before = state_to_json(state)
    wrong_player = (state.current_player + 1) % 3
    legal = state.legal_actions()[0]
    attempts: list[tuple[Any, type[Exception], str]] = [
        ("play XX1m 1", InvalidActionError, "not a bird"),
        (10_000, InvalidActionError, "not an action id"),
        ("crow BL1m", IllegalActionError, "not possible now"),
        (object(), InvalidActionError, "is not an action"),
    ]
    for action, error, message in attempts:
        with pytest.raises(error, match=message):
            state.apply(action)
        assert state_to_json(state) == before
    with pytest.raises(IllegalActionError, match=f"not player {wrong_player}'s turn"):
        state.apply(legal, player=wrong_player)
    assert state_to_json(state) == before
    for seat in (str(state.current_player), 3, -1, True):
        with pytest.raises(InvalidActionError, match=f"player must be a seat 0-2, not {seat!r}"):
            state.apply(legal, player=seat)  # type: ignore[arg-type]
        assert state_to_json(state) == before
    state.apply(legal, player=state.current_player)
    assert state_to_json(state) != before


def test_no_action_after_the_game() -> None:
    state = played(2, 3, 10_000)
    assert state.is_over()
    with pytest.raises(GameOverError, match="the game is over"):
        state.apply("pass")


# ------------------------------------------------------------------------------ records


def finished_record(seed: int = 5) -> dict[str, Any]:
    game = Game.new(players=3, seed=seed)
    rng = random.Random(seed)
    while not game.state.is_over():
        ids = game.state.legal_action_ids()
        game.apply(ids[rng.randrange(len(ids))])
    return game.record()


def test_corrupted_record_is_refused_at_the_first_bad_action() -> None:
    record = finished_record()
    bad = copy.deepcopy(record)
    bad["actions"][11] = "play BL9m 1"
    with pytest.raises(InvalidRecordError, match=r"record action 12 \('play BL9m 1'\)"):
        Game.from_record(bad)
    bad = copy.deepcopy(record)
    bad["actions"][3], bad["actions"][4] = bad["actions"][4], bad["actions"][3]
    with pytest.raises(InvalidRecordError, match=r"record action (4|5) "):
        Game.from_record(bad)
    bad = copy.deepcopy(record)
    bad["result"]["players"][0]["total"] += 1
    with pytest.raises(InvalidRecordError, match="result differs"):
        Game.from_record(bad)
    bad = copy.deepcopy(record)
    bad["actions"] = bad["actions"][:-3]
    with pytest.raises(InvalidRecordError, match="do not finish the game"):
        Game.from_record(bad)
    for broken, message in (
        ([], "must be a JSON object"),
        ({**record, "format": "pgn"}, "format must be"),
        ({**record, "version": 9}, "version 9"),
        ({**record, "actions": "play"}, "must be a list"),
        ({**record, "options": {"players": 7}}, "record options"),
    ):
        with pytest.raises(InvalidRecordError, match=message):
            Game.from_record(broken)


def test_record_keeps_every_flag() -> None:
    game = Game.new(players=2, preset="overview", seed=1, last_hand=True)
    rules = game.record()["options"]["rules"]
    assert rules == {
        "no_chase_collect": False,
        "draw": "one",
        "end_trigger": "feeder_or_birds",
        "last_hand": True,
        "pairs": "species",
    }
    assert Game.from_record(game.record()).state.rules == game.state.rules


def test_shown_birds_after_the_last_hand_choice_are_kept_or_discarded() -> None:
    """E3: a chosen player's shown birds are listed among their kept and discarded cards."""
    for seed in range(400):
        state = State.new_game(players=3, seed=seed)
        rng = random.Random(seed)
        while not state.is_over():
            if state.phase == LAST_HAND and any(
                state.kept[q] is not None and state.shown[q] for q in range(3)
            ):
                break
            ids = state.legal_action_ids()
            state.apply_id(ids[rng.randrange(len(ids))])
        if not state.is_over():
            break
    else:
        raise AssertionError("no last hand with a shown bird kept or discarded")
    q = next(q for q in range(3) if state.kept[q] is not None and state.shown[q])
    doc = state_to_json(state)
    assert state_from_json(json.loads(json.dumps(doc))).shown == state.shown
    broken = copy.deepcopy(doc)
    broken["shown"][q].append(broken["bird_deck"][0])
    message = rf"shown\[{q}\]: \w+ must be a bird of kept\[{q}\] or discards\[{q}\], once"
    with pytest.raises(InvalidStateError, match=message):
        state_from_json(broken)


def _first(players: int, seed: int, found: Any) -> State:
    """The first position of a random game (seeded) for which ``found`` holds."""
    state = State.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    while not found(state):
        assert not state.is_over(), "no such position in this game"
        ids = state.legal_action_ids()
        state.apply_id(ids[rng.randrange(len(ids))])
    return state


def test_draws_left_must_fit_the_hand_and_the_draw_rule() -> None:
    state = _first(3, 4, lambda s: s.phase == DRAW and len(s.hands[s.current_player]) <= 2)
    doc = state_to_json(state)
    held = len(doc["hands"][state.current_player])
    assert doc["draws_left"] == 4 - held and state_from_json(doc).draws_left == 4 - held
    doc["draws_left"] = 4  # would let the hand grow past four cards
    with pytest.raises(InvalidStateError, match=f"4 draws left for a hand of {held}: the draw"):
        state_from_json(doc)
    doc["draws_left"] = 1  # too few for a refill to four
    with pytest.raises(InvalidStateError, match="is refilling to 4"):
        state_from_json(doc)
    doc["rules"]["draw"] = "one"  # one card a turn: exactly one draw left
    assert state_from_json(doc).draws_left == 1
    doc["draws_left"] = 2
    with pytest.raises(InvalidStateError, match="is one card a turn"):
        state_from_json(doc)


def test_a_last_hand_keeps_two_birds_and_only_it_discards() -> None:
    state = _first(3, 2, lambda s: s.phase == LAST_HAND and any(k for k in s.kept))
    q = next(p for p, k in enumerate(state.kept) if k)
    doc = state_to_json(state)
    assert len(doc["kept"][q]) == 2 and doc["discards"][q]
    assert state_from_json(doc).kept[q] == state.kept[q]
    greedy = copy.deepcopy(doc)
    greedy["kept"][q].append(greedy["discards"][q].pop())
    with pytest.raises(InvalidStateError, match=rf"kept\[{q}\]: 3 of a last hand of \d+ birds"):
        state_from_json(greedy)
    modest = copy.deepcopy(doc)
    modest["discards"][q].append(modest["kept"][q].pop())
    with pytest.raises(InvalidStateError, match=rf"kept\[{q}\]: 1 of a last hand"):
        state_from_json(modest)
    early = state_to_json(played(3, 2, 10))
    early["discards"][0].append(early["bird_deck"].pop())
    with pytest.raises(InvalidStateError, match=r"discards\[0\]: only the last-hand choice"):
        state_from_json(early)


@pytest.mark.parametrize(
    ("kind", "cards", "index", "message"),
    [
        ("bogus", (), 0, "'bogus' is no kind of action"),
        ("play", (), 1, "takes 1 bird id"),
        ("play", (72,), 1, "takes 1 bird id"),
        ("play", (5,), 4, "takes a number 1-3"),
        ("pass", (), 2, "takes no number"),
        ("keep", (9, 3), 0, "in ascending order"),
        ("draw display", (), 0, "takes a number 1-3"),
    ],
)
def test_an_action_value_is_checked_when_built(
    kind: str, cards: tuple[int, ...], index: int, message: str
) -> None:
    with pytest.raises(InvalidActionError, match=message):
        Action(kind, cards, index).id  # type: ignore[arg-type]  # noqa: B018


def test_action_kinds_phases_and_events_are_named_once() -> None:
    from piepmatz.core.actions import ActionKind
    from piepmatz.core.events import EVENT_FIELDS, EventKind
    from piepmatz.core.state import PHASE_NAMES, Phase

    assert Action.parse("draw display 2").kind is ActionKind.DRAW_DISPLAY
    assert set(EVENT_FIELDS) == set(EventKind)
    assert len(PHASE_NAMES) == len(Phase)
    state = Game.new(players=2, seed=1).state
    assert state.phase is Phase.PLAY


def test_events_are_named_tuples_written_as_json_with_their_field_names() -> None:
    from piepmatz.core.cards import FEEDER_NAMES, parse_bird
    from piepmatz.core.events import (
        EVENT_FIELDS,
        EventKind,
        Keep,
        Squirrel,
        event_from_json,
        event_to_json,
    )
    from piepmatz.core.view import filter_event

    squirrel = Squirrel(player=2, seeds=(7, 12))
    assert (squirrel.kind, squirrel.player, squirrel.seeds) == ("squirrel", 2, (7, 12))
    assert event_to_json(squirrel) == {
        "kind": "squirrel",
        "player": 2,
        "seeds": [FEEDER_NAMES[7], FEEDER_NAMES[12]],
    }
    keep = Keep(1, (parse_bird("BL1m"), parse_bird("CH4m")))
    assert filter_event(keep, 1) == keep
    hidden = filter_event(keep, 0)
    assert hidden == Keep(1, (None, None))
    assert event_to_json(hidden) == {"kind": "keep", "player": 1, "birds": [None, None]}
    kinds = set()
    for players in (2, 4):
        state = played(players, seed=players, steps=10_000)
        for event in state.events or ():
            data = event_to_json(event)
            assert list(data) == ["kind", *EVENT_FIELDS[EventKind(data["kind"])]]
            assert event_from_json(data) == event
            kinds.add(event.kind)
    assert {"turn", "play", "draw_display", "draw_deck", "game_over"} <= kinds


def test_the_engines_event_builders_make_the_classes_own_events() -> None:
    import pickle

    from piepmatz.core import events
    from piepmatz.core.events import EVENT_TYPES, Play

    builders = [value for name, value in vars(events).items() if name.startswith("new_")]
    made = set()
    for build in builders:
        cls = build.__self__
        values = tuple(range(1, len(cls._fields)))
        event = build(*values)
        assert type(event) is cls
        assert event == cls(*values) and event.kind == cls._field_defaults["kind"]
        assert pickle.loads(pickle.dumps(event)) == event
        made.add(cls)
    assert made == set(EVENT_TYPES.values())
    state = played(3, seed=5, steps=10_000)
    for event in state.events or ():
        assert type(event) is EVENT_TYPES[event.kind]
        assert event == type(event)(*event[:-1])
    match events.new_play(1, 0, 2)._replace(perch=3):
        case Play(player=1, bird=0, perch=perch):
            assert perch == 3
        case _:
            raise AssertionError("a built event matches its class")
