"""Property-based fuzzing of every client message and HTTP body against the real server.

Hypothesis writes malformed JSON, wrong types, unknown fields, oversized texts, binary frames,
out-of-turn and replayed move numbers, and tokens of other tables, and sends them from a seat, a
spectator and a connection that has not said hello. Invariants: the server never fails (no
``error`` it logs, no traceback text in any reply, the connection still answers afterwards), and
no game changes except by an action that was legal for its seat at its move (then acknowledged).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from websockets.sync.client import ClientConnection, connect

from piepmatz.core.cards import BIRD_NAMES, FEEDER_NAMES
from piepmatz.server.limits import Limits
from piepmatz.server.messages import MAX_MESSAGE
from serverplay import running_server

#: Fuzzing sends far more messages than a person: the limits (tested elsewhere) stay off here.
NO_LIMITS = Limits(message_rate=0, refused_rate=0, connections_per_address=0, tables_per_minute=0)
#: A preview for a move no game reaches: its refusal marks the end of one example's answers.
MARKER_MOVE = 10**9
TIMEOUT = 10.0
FUZZ = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


class Errors(logging.Handler):
    """Every record of level ERROR or worse that the server (or uvicorn) logs."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@dataclass
class Tables:
    address: str
    table: str
    tokens: list[str]  # seat 0, seat 1
    spectator: str
    other_table: str
    other_token: str  # a seat's token at the other table
    errors: Errors
    http: httpx.Client


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tables]:
    database = tmp_path_factory.mktemp("fuzz") / "server.db"
    errors = Errors()
    loggers = [logging.getLogger(n) for n in ("", "uvicorn", "uvicorn.error", "piepmatz")]
    for logger in loggers:
        logger.addHandler(errors)
    try:
        with (
            running_server(f"sqlite+aiosqlite:///{database}", limits=NO_LIMITS) as address,
            httpx.Client(base_url=f"http://{address}", timeout=TIMEOUT) as http,
        ):
            made = http.post("/api/tables", json={"seats": ["human", "human"], "name": "A"}).json()
            joined = http.post(
                f"/api/tables/{made['table']}/join",
                json={"name": "B", "token": made["invites"][0]["token"]},
            ).json()
            other = http.post("/api/tables", json={"seats": ["human", "human"], "name": "C"}).json()
            yield Tables(
                address,
                made["table"],
                [made["token"], joined["token"]],
                made["spectator_token"],
                other["table"],
                other["token"],
                errors,
                http,
            )
    finally:
        for logger in loggers:
            logger.removeHandler(errors)


# ---------------------------------------------------------------------- what to send

#: Tokens: a seat's or the spectator's here, another table's, or made up. Resolved per example.
TOKENS = st.one_of(
    st.sampled_from(["<seat0>", "<seat1>", "<spectator>", "<other>"]),
    st.text(max_size=200),
)
CARDS = st.sampled_from([*BIRD_NAMES, *FEEDER_NAMES])
ACTION_TEXTS = st.one_of(
    st.just("<legal>"),  # the seat's legal action now, when it has one
    st.builds(lambda c, n: f"play {c} {n}", CARDS, st.integers(-2, 9)),
    st.builds(lambda c: f"collect {c}", CARDS),
    st.builds(lambda c: f"crow {c}", CARDS),
    st.builds(lambda a, b: f"keep {a} {b}", CARDS, CARDS),
    st.sampled_from(["pass", "draw deck", "draw display 1", "draw display 4"]),
    st.text(max_size=80),
)
MOVES = st.one_of(st.sampled_from(["<now>", "<before>", "<after>"]), st.integers(-5, 2**70))
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner),
    max_leaves=8,
)
KNOWN = st.one_of(
    st.fixed_dictionaries({"type": st.just("hello"), "token": TOKENS}),
    st.fixed_dictionaries({"type": st.just("action"), "move": MOVES, "action": ACTION_TEXTS}),
    st.fixed_dictionaries({"type": st.just("chat"), "text": st.text(max_size=600)}),
    st.fixed_dictionaries({"type": st.just("sync")}),
    st.fixed_dictionaries({"type": st.just("preview"), "move": MOVES}),
)
#: Well-formed messages with a field of the wrong type, a field missing or an unknown field.
BENT = st.builds(
    lambda message, key, value, drop: (
        {k: v for k, v in message.items() if k != drop} | ({key: value} if key else {})
    ),
    KNOWN,
    st.sampled_from(["", "type", "move", "action", "token", "text", "seat", "player", "id"]),
    JSON_VALUES,
    st.sampled_from(["", "move", "action", "token", "text"]),
)
FRAMES = st.one_of(
    KNOWN,
    BENT,
    st.dictionaries(st.text(max_size=10), JSON_VALUES, max_size=4),
    JSON_VALUES,
    st.text(max_size=300),  # mostly not JSON at all
    st.binary(max_size=100),  # a binary frame
    st.builds(
        lambda n: json.dumps({"type": "chat", "text": "x" * n}), st.integers(0, 3 * MAX_MESSAGE)
    ),
)
ROLES = st.sampled_from(["seat0", "seat1", "spectator", "nobody"])


# ---------------------------------------------------------------------- sending


class Fuzzer:
    def __init__(self, tables: Tables, role: str, ws: ClientConnection) -> None:
        self.tables = tables
        self.role = role
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None
        self.acks = 0
        self.legal_sent = 0
        if role != "nobody":
            token = self.resolve_token(f"<{role}>")
            self.ws.send(json.dumps({"type": "hello", "token": token}))
            self.read_until(lambda m: m["type"] == "state")

    def resolve_token(self, token: str) -> str:
        t = self.tables
        named = {"<seat0>": t.tokens[0], "<seat1>": t.tokens[1], "<spectator>": t.spectator}
        return named.get(token, t.other_token if token == "<other>" else token)

    def resolve(self, frame: Any) -> Any:
        """Fill in the placeholders from what this connection knows now."""
        if not isinstance(frame, dict):
            return frame
        frame = dict(frame)
        now = self.state["move"] if self.state else 0
        if isinstance(frame.get("token"), str):
            frame["token"] = self.resolve_token(frame["token"])
        move = frame.get("move")
        if isinstance(move, str) and move in ("<now>", "<before>", "<after>"):
            frame["move"] = {"<now>": now, "<before>": max(now - 1, 0), "<after>": now + 1}[move]
        if frame.get("action") == "<legal>":
            legal = self.state["legal"] if self.state else []
            frame["action"] = legal[0] if legal else "pass"
        return frame

    def receive(self) -> dict[str, Any]:
        text = self.ws.recv(timeout=TIMEOUT)
        assert isinstance(text, str), "the server sends text frames only"
        assert "Traceback" not in text and 'File "' not in text, text
        message: dict[str, Any] = json.loads(text)
        self.frames.append(message)
        if message["type"] == "state":
            self.state = message
        elif message["type"] == "ack":
            self.acks += 1
        return message

    def read_until(self, done: Any) -> None:
        while not done(self.receive()):
            pass

    def send(self, frame: Any) -> None:
        frame = self.resolve(frame)
        if (
            isinstance(frame, dict)
            and frame.get("type") == "action"
            and set(frame) == {"type", "move", "action"}
            and self.state is not None
            and frame["move"] == self.state["move"]
            and frame["action"] in self.state["legal"]
        ):
            self.legal_sent += 1
        if isinstance(frame, bytes | str):
            self.ws.send(frame)
        else:
            self.ws.send(json.dumps(frame))

    def finish(self) -> None:
        """Send the marker and read every answer up to its refusal: the connection is alive."""
        self.ws.send(json.dumps({"type": "preview", "move": MARKER_MOVE}))
        self.read_until(
            lambda m: (
                m["type"] == "error"
                and (str(MARKER_MOVE) in m["message"] or m["code"] in ("spectator", "hello_first"))
            )
        )


def _moves(tables: Tables) -> int:
    info = tables.http.get(f"/api/tables/{tables.table}")
    assert info.status_code == 200
    move: int = info.json()["move"]
    return move


@FUZZ
@given(role=ROLES, frames=st.lists(FRAMES, min_size=1, max_size=4))
@example(role="seat0", frames=[b"\x00binary"])  # once a KeyError in the server
@example(role="seat1", frames=[{"type": "action", "move": "<now>", "action": "<legal>"}] * 2)
def test_no_client_message_breaks_the_server_or_changes_a_game_unlawfully(
    tables: Tables, role: str, frames: list[Any]
) -> None:
    before = _moves(tables)
    url = f"ws://{tables.address}/ws/{tables.table}"
    with connect(url, max_size=None, open_timeout=TIMEOUT) as ws:
        fuzzer = Fuzzer(tables, role, ws)
        for frame in frames:
            fuzzer.send(frame)
        fuzzer.finish()
    after = _moves(tables)
    # Only a legal action of the seat at its move is played, and each one played is acked.
    assert after - before == fuzzer.acks <= fuzzer.legal_sent
    if role in ("spectator", "nobody"):
        assert fuzzer.acks == 0
    for message in fuzzer.frames:
        if message["type"] == "error":
            assert message["code"] and message["message"], message
    assert not tables.errors.records, tables.errors.records[0].getMessage()


# ---------------------------------------------------------------------- HTTP

NEW_TABLE = st.fixed_dictionaries(
    {},
    optional={
        "seats": st.one_of(
            st.lists(st.sampled_from(["human", "random", "nobody", ""]), max_size=6),
            JSON_VALUES,
        ),
        "name": st.one_of(st.text(max_size=40), JSON_VALUES),
        "seat": st.one_of(st.integers(-3, 6), JSON_VALUES),
        "rules": st.one_of(
            st.sampled_from(["standard", "overview", "standard:draw=one", "standard:x=1"]),
            st.text(max_size=40),
            JSON_VALUES,
        ),
        "public": JSON_VALUES,
        "seed": st.one_of(st.integers(), JSON_VALUES),
        "players": st.one_of(st.integers(-1, 6), JSON_VALUES),
        "bot": st.one_of(st.sampled_from(["random", "greedy", "nobody"]), st.text(max_size=20)),
        "token": st.one_of(TOKENS, JSON_VALUES),
        "colour": JSON_VALUES,
    },
)
BODIES = st.one_of(
    NEW_TABLE, JSON_VALUES, st.text(max_size=100), st.binary(max_size=100).map(bytes.hex)
)
PATHS = st.sampled_from(["/api/tables", "/api/quick", "<join>", "<join-other>", "<join-none>"])


@FUZZ
@given(path=PATHS, body=BODIES, raw=st.booleans(), spec=st.text(max_size=40))
# A NaN in a refused body once made FastAPI's own error answer fail to encode: a 500.
@example(path="/api/tables", body={"seats": [], "colour": float("inf")}, raw=False, spec="")
def test_no_http_body_gets_a_server_error(
    tables: Tables, path: str, body: Any, raw: bool, spec: str
) -> None:
    path = {
        "<join>": f"/api/tables/{tables.table}/join",
        "<join-other>": f"/api/tables/{tables.other_table}/join",
        "<join-none>": "/api/tables/nosuchtable/join",
    }.get(path, path)
    if isinstance(body, dict):
        if isinstance(body.get("token"), str):
            named = {"<seat0>": tables.tokens[0], "<seat1>": tables.tokens[1]}
            named |= {"<spectator>": tables.spectator, "<other>": tables.other_token}
            body["token"] = named.get(body["token"], body["token"])
        if path == "/api/quick":
            body.setdefault("bot", "random")  # a game started here is played by quick bots
    before = _moves(tables)
    http = tables.http
    # JSON as Python writes it (NaN and Infinity included), declared as JSON or, raw, not.
    content = body if isinstance(body, str) else json.dumps(body)
    headers = {"content-type": "text/plain" if raw else "application/json"}
    response = http.post(path, content=content, headers=headers)
    rules = http.get("/api/rules", params={"spec": spec})
    table = http.get(f"/api/tables/{spec}") if spec.isprintable() and "/" not in spec else None
    for answer in (response, rules, table):
        if answer is None:
            continue
        assert answer.status_code < 500, (answer.request.url, answer.text)
        assert "Traceback" not in answer.text
        if answer.status_code >= 400:
            detail = answer.json()["detail"]
            assert detail, answer.text
    assert _moves(tables) == before, "no HTTP call plays a move"
    assert not tables.errors.records, tables.errors.records[0].getMessage()
