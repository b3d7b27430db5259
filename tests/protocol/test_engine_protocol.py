"""The JSON-lines engine protocol, in process and through a real pipe."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from typing import Any

import pytest

from piepmatz.core import NUM_ACTIONS, Game, state_to_json
from piepmatz.core.actions import Action
from piepmatz.core.cards import BIRD_NAMES, FEEDER_NAMES
from piepmatz.engine.protocol import MAX_LINE, Engine, serve


def ok(response: dict[str, Any]) -> dict[str, Any]:
    assert response["type"] == "ok", response
    return response


def test_a_whole_game_through_the_engine() -> None:
    engine = Engine()
    info = ok(engine.handle({"type": "info"}))
    assert info["num_actions"] == 2921 and "standard" in info["presets"]
    start = ok(engine.handle({"type": "new", "players": 3, "seed": 42, "id": 1}))
    assert start["id"] == 1 and start["phase"] == "play"
    reference = Game.new(players=3, seed=42)
    while True:
        legal = ok(engine.handle({"type": "legal"}))
        texts = [a["text"] for a in legal["actions"]]
        assert texts == [str(a) for a in reference.state.legal_actions()]
        if not texts:
            break
        response = ok(
            engine.handle({"type": "apply", "action": texts[-1], "player": legal["current_player"]})
        )
        reference.apply(texts[-1])
        assert response["action"] == texts[-1]
        assert all("kind" in e for e in response["events"])
    score = ok(engine.handle({"type": "score"}))["score"]
    assert score == reference.score().to_json() and score["final"]
    record = ok(engine.handle({"type": "record"}))["record"]
    assert record == reference.record()
    assert ok(engine.handle({"type": "state"}))["state"] == state_to_json(reference.state)


def test_views_hide_other_hands() -> None:
    engine = Engine()
    ok(engine.handle({"type": "new", "players": 2, "seed": 3}))
    state = ok(engine.handle({"type": "state"}))["state"]
    view = ok(engine.handle({"type": "view", "player": 0}))["view"]
    assert view["hand"] == state["hands"][0]
    assert "hands" not in view and view["hand_sizes"] == [4, 4]
    assert not set(state["hands"][1]) & set(json.dumps(view).replace('"', " ").split())


def test_bad_requests_get_errors_and_change_nothing() -> None:
    engine = Engine()
    assert engine.handle({"type": "legal"})["message"].startswith("no game")
    ok(engine.handle({"type": "new", "players": 2, "seed": 9}))
    before = ok(engine.handle({"type": "state"}))["state"]
    bad: list[tuple[Any, str]] = [
        ([1, 2], "must be a JSON object"),
        ({"type": "fly"}, 'unknown request type "fly"'),
        ({"type": None}, "unknown request type null"),
        ({"cmd": "legal"}, "the request has no 'type': choose one of apply, "),
        ({"type": "apply"}, "needs an 'action'"),
        ({"type": "apply", "action": "play ZZ1m 1"}, "not a bird card"),
        ({"type": "apply", "action": "draw deck"}, r"not possible now"),
        ({"type": "apply", "action": 99999}, "not an action id"),
        ({"type": "apply", "action": True}, "must be a text or an integer"),
        ({"type": "view", "player": 5}, "must be a seat 0-1"),
        ({"type": "new", "players": 9}, "2, 3 or 4 players"),
        ({"type": "new", "flags": {"draw": "all"}}, "cannot be 'all'"),
        ({"type": "new", "flags": {"players": 3}}, "'players' is not a rule flag: give it beside"),
        (
            {"type": "new", "preset": ["standard"]},
            r"'preset' must be a preset name, not \[\"standard",
        ),
        # Values are spelled as JSON writes them, not as Python does.
        ({"type": "new", "players": True}, "'players' must be 2, 3 or 4, not true"),
        ({"type": "new", "seed": "x"}, "'seed' must be an integer, not \"x\""),
        ({"type": "apply", "action": "pass", "player": None, "viewer": True}, "not true"),
        ({"type": "view", "player": None}, "must be a seat 0-1, not null"),
        ({"type": "load", "state": None}, "a state must be a JSON object"),
        ({"type": "load"}, "'load' needs a 'state'"),
        ({"type": "replay"}, "'replay' needs a 'record'"),
        ({"type": "load", "state": {"format": "x"}}, "state format"),
        ({"type": "replay", "record": {}}, "record format"),
    ]
    for request, message in bad:
        response = engine.handle(request)
        assert response["type"] == "error", request
        assert re.search(message, response["message"]), response
        assert ok(engine.handle({"type": "state"}))["state"] == before
    current = before["current_player"]
    legal = ok(engine.handle({"type": "legal"}))["actions"]
    wrong = engine.handle({"type": "apply", "action": legal[0]["text"], "player": 1 - current})
    assert wrong["type"] == "error" and "not player" in wrong["message"]
    assert engine.handle_line("{not json")["message"].startswith("not JSON")


def test_load_a_state_and_play_on() -> None:
    engine = Engine()
    ok(engine.handle({"type": "new", "players": 4, "seed": 1}))
    state = ok(engine.handle({"type": "state"}))["state"]
    other = Engine()
    loaded = ok(other.handle({"type": "load", "state": state}))
    assert loaded["legal"] == [a["text"] for a in ok(engine.handle({"type": "legal"}))["actions"]]
    action = loaded["legal"][0]
    assert ok(other.handle({"type": "apply", "action": action}))["action"] == action
    assert "no record" in other.handle({"type": "record"})["message"]


def test_engine_command_over_a_pipe() -> None:
    lines = [
        {"type": "new", "players": 2, "seed": 5, "id": "a"},
        "garbage",
        {"type": "apply", "action": "pass"},
        {"type": "legal"},
        {"type": "quit", "id": 302},
        {"type": "info"},
    ]
    text = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n"
    proc = subprocess.run(
        [sys.executable, "-m", "piepmatz.cli", "engine"],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["type"] for r in replies] == ["ok", "error", "error", "ok", "ok"]
    assert replies[0]["id"] == "a"
    assert replies[3]["actions"] and replies[4]["request"] == "quit"  # nothing after quit
    assert replies[4]["id"] == 302


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"type": "info", "id": ' + "[" * 5000 + "]" * 5000 + "}", "nested too deeply"),
        ('{"type": "new", "seed": ' + "1" * 4400 + "}", "a number too long to read"),
        ('{"type": "nope", "id": NaN}', "NaN is not a number JSON allows"),
        ('{"type": "new", "players": -Infinity}', "-Infinity is not a number JSON allows"),
        ('{"type": "nope", "id": 1e400}', "the number 1e400 is out of range"),
        ('{"type": "info", "pad": "' + "x" * MAX_LINE + '"}', "request longer than"),
    ],
)
def test_hostile_lines_get_errors_and_the_engine_keeps_its_game(line: str, message: str) -> None:
    start = json.dumps({"type": "new", "players": 2, "seed": 3})
    state = json.dumps({"type": "state"})
    stdin = io.StringIO("\n".join([start, state, line, state, '{"type": "quit"}']) + "\n")
    stdout = io.StringIO()
    assert serve(stdin, stdout) == 0
    # Strict JSON out: a parser that refuses NaN and Infinity reads every line.
    replies = [json.loads(r, parse_constant=pytest.fail) for r in stdout.getvalue().splitlines()]
    assert [r["type"] for r in replies] == ["ok", "ok", "error", "ok", "ok"]
    assert message in replies[2]["message"] and "id" not in replies[2]
    assert replies[3]["state"] == replies[1]["state"]


def test_a_viewer_sees_events_filtered_and_no_state() -> None:
    engine = Engine()
    first = ok(engine.handle({"type": "new", "players": 2, "seed": 4, "first_player": 0}))
    assert "seed" in first["options"]
    hidden = Engine()
    start = ok(
        hidden.handle({"type": "new", "players": 2, "seed": 4, "first_player": 0, "viewer": 1})
    )
    assert "seed" not in start["options"] and start["legal"] == []  # seat 0 is to act
    refused = {"state", "record"}
    for kind in refused:
        message = hidden.handle({"type": kind, "viewer": 1})["message"]
        assert "shows the hidden cards: not for a request with a 'viewer'" in message
    assert (
        "its own view only" in hidden.handle({"type": "view", "player": 0, "viewer": 1})["message"]
    )
    assert ok(hidden.handle({"type": "view", "viewer": 1}))["view"]["player"] == 1
    state = engine.state
    assert state is not None
    # Play until a deck draw; seat 1 must not learn which bird seat 0 drew. Seat 1 applies its
    # own moves; seat 0's are the referee's, and seat 1 follows them in its view's events.
    drawn = None
    for _ in range(200):
        mover = state.current_player
        legal = ok(engine.handle({"type": "legal"}))["actions"]
        choice = next((a["text"] for a in legal if a["text"] == "draw deck"), legal[0]["text"])
        full = ok(engine.handle({"type": "apply", "action": choice}))
        if mover == 1:
            seen = ok(hidden.handle({"type": "apply", "action": choice, "viewer": 1}))
            assert [e["kind"] for e in seen["events"]] == [e["kind"] for e in full["events"]]
            continue
        ok(hidden.handle({"type": "apply", "action": choice}))
        seen = ok(hidden.handle({"type": "view", "viewer": 1}))["view"]
        draws = [e for e in full["events"] if e["kind"] == "draw_deck"]
        if draws:
            drawn = draws[0]["bird"]
            theirs = [e for e in seen["events"] if e["kind"] == "draw_deck" and e["player"] == 0]
            assert theirs[-1].get("bird") is None
            assert drawn not in json.dumps(seen)
            break
    assert drawn is not None
    # Seat 1's running score counts no seed it has not seen.
    score = ok(hidden.handle({"type": "score", "viewer": 1}))["score"]
    assert score["final"] is False


def test_a_viewer_acts_for_its_own_seat_only_and_learns_nothing_from_a_refusal() -> None:
    """While seat 0 is to act, every action id applied for viewer 1 is refused with the same
    message but for the action's own text, so no refusal tells what is in seat 0's hand; a
    'player' other than the viewer is refused; the game stays as it was."""
    engine = Engine()
    ok(engine.handle({"type": "new", "players": 2, "seed": 7, "first_player": 0, "viewer": 1}))
    state = engine.state
    assert state is not None and state.current_player == 0
    before = state_to_json(state)
    messages = set()
    for action_id in range(NUM_ACTIONS):
        text = str(Action.from_id(action_id))
        for action in (text, action_id):
            response = engine.handle({"type": "apply", "action": action, "viewer": 1})
            assert response["type"] == "error"
            messages.add(response["message"].replace(text, "<action>"))
    assert messages == {"<action>: it is not player 1's turn; turn 1, player 0 to play (T1.1)"}
    legal = state.legal_actions()[0]
    message = engine.handle({"type": "apply", "action": str(legal), "player": 0, "viewer": 1})[
        "message"
    ]
    assert message == "seat 1 may act for itself only, not seat 0"
    assert state_to_json(state) == before
    # Seat 0 acts for itself.
    played = ok(engine.handle({"type": "apply", "action": str(legal), "viewer": 0}))
    assert played["action"] == str(legal)


def test_errors_to_a_viewer_name_no_hidden_card() -> None:
    """Bad requests of every kind, for viewer 1, while seat 0 is to act and then while seat 1
    is: no error names a bird of seat 0's hand or the deck, nor a hidden seed, unless the
    request did."""
    engine = Engine()
    ok(engine.handle({"type": "new", "players": 2, "seed": 3, "first_player": 0, "viewer": 1}))
    state = engine.state
    assert state is not None
    requests: list[dict[str, Any]] = [
        {"type": kind, "player": player}
        for kind in ("legal", "view", "state", "score", "record", "apply")
        for player in (0, 1, 2, "x", None)
    ]
    requests.append({"type": "apply", "action": 5000})
    for mover in (0, 1):
        while state.current_player != mover:  # the referee plays seat 0's turn
            ok(engine.handle({"type": "apply", "action": state.legal_action_ids()[0]}))
        hidden = {BIRD_NAMES[b] for b in (*state.hands[0], *state.bird_deck)}
        hidden |= {FEEDER_NAMES[f] for f in (*state.feeder_deck, *state.seeds_blind[0])}
        assert hidden
        before = state_to_json(state)
        legal = set(state.legal_action_ids())
        illegal = [str(Action.from_id(i)) for i in range(NUM_ACTIONS) if i not in legal]
        for request in [*requests, *({"type": "apply", "action": a} for a in illegal)]:
            response = engine.handle({**request, "viewer": 1})
            if response["type"] == "error":
                named = set(re.findall(r"\w+", json.dumps(request)))
                said = set(re.findall(r"\w+", response["message"]))
                assert not (hidden - named) & said, (request, response)
        assert state_to_json(state) == before


def test_duplicate_keys_and_bytes_that_are_not_utf8_are_refused() -> None:
    engine = Engine()
    response = engine.handle_line('{"type": "info", "type": "legal"}')
    assert response == {"type": "error", "message": 'a key given twice in one object: "type"'}
    stdin = io.TextIOWrapper(
        io.BytesIO(b'{"type": "\xc3("}\n\n{"type": "info"}\n'),
        encoding="utf-8",
        errors="surrogateescape",
    )
    stdout = io.StringIO()
    assert serve(stdin, stdout) == 0
    replies = [json.loads(line) for line in stdout.getvalue().splitlines()]
    # The blank line gets no response (documented); the bad bytes are not echoed back.
    assert [r["type"] for r in replies] == ["error", "ok"]
    assert replies[0]["message"] == "not JSON: not UTF-8 text"


def test_the_engine_command_reads_bytes_that_are_not_utf8() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "piepmatz.cli", "engine"],
        input=b'{"type": "\xc3("}\n{"type": "info"}\n',
        capture_output=True,
        timeout=60,
        check=True,
    )
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["type"] for r in replies] == ["error", "ok"]
