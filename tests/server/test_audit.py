"""The hidden-information audit: whole games through the real server, every byte checked.

Each game runs on uvicorn on loopback with real WebSockets: people's seats played by this test
(random legal moves, with probes of illegal ones), bots in other seats, a spectator listening.
Every frame each connection receives and every HTTP answer (errors included, the record and
replay of the unfinished game, the page and every static file) is kept. Afterwards the game is
replayed from its record to the true state after each move, and every frame is checked against
what its receiver may know at the moment it was sent:

- no card notation (``BL5m``, ``S2c``, ``CRa``: the only notation the protocol and the JSON
  formats use; the log's sentences are told from the filtered events) of a card hidden from the
  receiver: another player's
  hand, either deck, someone else's blind seed, a last-hand choice before it is revealed;
- each ``state`` is exactly the receiver's core view at its move and the receiver's filtered log
  (so no other field carries anything the view does not);
- each ``preview`` is what the seat's view alone gives;
- an illegal action naming a card the seat does not hold is refused in the same words wherever
  that card really is;
- HTTP answers during the game name no card at all, and the page and scripts are the shipped
  files byte for byte (nothing in them depends on a game).
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect

from leaks import hidden_names
from piepmatz.core import Game, GameOptions, view_of, view_to_json
from piepmatz.core.actions import Action
from piepmatz.core.cards import BIRD_NAMES, BIRD_VALUE, FEEDER_NAMES
from piepmatz.core.events import event_to_json
from piepmatz.core.state import row_strength
from piepmatz.core.view import filter_event, public_view
from piepmatz.i18n import LANGUAGES, use_language
from piepmatz.server.limits import Limits
from piepmatz.text.preview import preview
from piepmatz.text.words import bird_words, tell
from serverplay import PATIENCE, running_server

#: Every card notation there is: birds (species, value, sex) and feeder cards (seeds with their
#: egg count and copy letter, crows, squirrels). Bounded by anything but letters and digits.
CARD = re.compile(
    r"(?<![A-Za-z0-9])(?:(?:BL|BU|CH|GR|SP|YE)[1-6][mf]|S[1-3][a-j]|CR[a-c]|SQ[a-c])(?![A-Za-z0-9])"
)
#: The audit plays faster than any person and probes on purpose: no limit gets in its way.
NO_LIMITS = Limits(message_rate=0, refused_rate=0, connections_per_address=0, tables_per_minute=0)
#: Two seatings per number of players, one game each: people and bots in different seats.
SEATINGS = {
    2: (["human", "human"], ["greedy", "human"]),
    3: (["human", "random", "human"], ["random", "human", "human"]),
    4: (["human", "greedy", "human", "random"], ["random", "human", "greedy", "human"]),
}


#: Every bird in words as the sentences write it (in each language), and its code.
_IN_WORDS: dict[str, str] = {}
for _lang in LANGUAGES:
    with use_language(_lang):
        _IN_WORDS |= {bird_words(b): code for b, code in enumerate(BIRD_NAMES)}


def cards_named(text: str) -> set[str]:
    """The cards ``text`` names, by code or (a bird) in words in any language."""
    decoded = json.loads(text) if text.startswith(("{", "[")) else text
    plain = decoded if isinstance(decoded, str) else json.dumps(decoded, ensure_ascii=False)
    words = {code for said, code in _IN_WORDS.items() if said in plain}
    return set(CARD.findall(text)) | words


@dataclass
class Receiver:
    """One connection's frames, raw, in the order they arrived."""

    viewer: int | None
    frames: list[str] = field(default_factory=list)
    #: For each probe sent, the move it answered and the card it named (answers come back in
    #: the same order).
    probes: list[tuple[int, str]] = field(default_factory=list)


@pytest.fixture(scope="module")
def address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    database = tmp_path_factory.mktemp("audit") / "server.db"
    with running_server(f"sqlite+aiosqlite:///{database}", limits=NO_LIMITS) as where:
        yield where


async def _receive(ws: ClientConnection, receiver: Receiver) -> dict[str, Any]:
    text = await asyncio.wait_for(ws.recv(), PATIENCE)
    assert isinstance(text, str)
    receiver.frames.append(text)
    message: dict[str, Any] = json.loads(text)
    return message


async def _person(url: str, token: str, receiver: Receiver, rng: random.Random) -> None:
    """Play a seat to the end: random legal moves, and on some turns first a preview request,
    a sync, out-of-turn and stale actions and illegal plays of cards the seat does not hold."""
    async with connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        await ws.send(json.dumps({"type": "chat", "text": f"seat {receiver.viewer} here"}))
        answered = -1  # the last move this seat answered (a sync repeats its state)
        while True:
            message = await _receive(ws, receiver)
            if message["type"] != "state":
                continue
            if message["result"] is not None:
                return
            move = message["move"]
            if move <= answered:
                continue
            if not message["legal"]:
                if rng.random() < 0.1:  # out of turn: refused with an error
                    await ws.send(json.dumps({"type": "action", "move": move, "action": "pass"}))
                continue
            if rng.random() < 0.3:
                await ws.send(json.dumps({"type": "preview", "move": move}))
                await ws.send(json.dumps({"type": "sync"}))
            if message["view"]["phase"] == "play" and rng.random() < 0.5:
                view = message["view"]
                public = set(view["hand"]) | {c for row in view["rows"] for c in row}
                for bird in rng.sample([b for b in BIRD_NAMES if b not in public], 3):
                    receiver.probes.append((move, bird))
                    probe = {"type": "action", "move": move, "action": f"play {bird} 1"}
                    await ws.send(json.dumps(probe))
            if move > 0 and rng.random() < 0.2:  # an earlier move's answer: stale
                await ws.send(
                    json.dumps({"type": "action", "move": move - 1, "action": message["legal"][0]})
                )
            choice = rng.choice(message["legal"])
            answered = move
            await ws.send(json.dumps({"type": "action", "move": move, "action": choice}))


async def _spectator(url: str, token: str, receiver: Receiver) -> None:
    async with connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        # A spectator that tries to act or chat is refused; the refusals are audited too.
        await ws.send(json.dumps({"type": "action", "move": 0, "action": "draw deck"}))
        await ws.send(json.dumps({"type": "chat", "text": "hello"}))
        while True:
            message = await _receive(ws, receiver)
            if message["type"] == "state" and message["result"] is not None:
                return


@dataclass
class Http:
    """Every HTTP answer of the game, by request."""

    answers: list[tuple[str, int, str]] = field(default_factory=list)

    async def call(
        self, http: httpx.AsyncClient, method: str, path: str, body: Any = None
    ) -> httpx.Response:
        response = await http.request(method, path, json=body)
        self.answers.append((f"{method} {path}", response.status_code, response.text))
        return response


async def _probe_http(http: httpx.AsyncClient, log: Http, table: str, invite: str) -> None:
    """What anyone may ask over HTTP while the game runs, wrong requests included."""
    for path in (
        f"/api/tables/{table}",
        "/api/tables",
        f"/api/tables/{table}/record",
        f"/api/tables/{table}/replay",
        "/api/tables/nosuchtable/record",
    ):
        await log.call(http, "GET", path)
    await log.call(http, "POST", f"/api/tables/{table}/join", {"name": "Eve", "token": "x" * 43})
    await log.call(http, "POST", f"/api/tables/{table}/join", {"name": "Eve"})
    await log.call(http, "POST", f"/api/tables/{table}/join", {"name": "Eve", "token": invite})
    await log.call(http, "POST", f"/api/tables/{table}/join", {"name": 7, "token": invite})
    # What a stranger may not name: a file, a bot of unbounded cost, a person as a quick game's
    # bot, the deal of a table where others sit. Each is refused alike, and nothing is opened.
    refusals = set()
    for bot in ("ppo:/proc/self/fd/5", "ppo:/etc/hostname", "ismcts:time=100000", "human"):
        asked = [("/api/quick", {"name": "Eve", "bot": bot})]
        if bot != "human":
            asked.append(("/api/tables", {"seats": ["human", bot], "name": "Eve"}))
        for path, body in asked:
            answer = await log.call(http, "POST", path, body)
            assert answer.status_code == 422, answer.text
            refusals.add(answer.json()["detail"].partition(": ")[2])
    assert len(refusals) == 1, refusals
    chosen = {"seats": ["human", "human"], "name": "Eve", "seed": 424242}
    assert (await log.call(http, "POST", "/api/tables", chosen)).status_code == 422


async def _play_audited_game(
    address: str, seats: list[str], rules: str, seed: int
) -> tuple[dict[str, Any], list[Receiver], Http, list[str]]:
    log = Http()
    async with httpx.AsyncClient(base_url=f"http://{address}", timeout=PATIENCE) as http:
        made = (
            await log.call(
                http,
                "POST",
                "/api/tables",
                # A seed is the creator's to choose only where nobody else sits.
                {"seats": seats, "name": "Anna", "rules": rules}
                | ({"seed": seed} if seats.count("human") == 1 else {}),
            )
        ).json()
        table = made["table"]
        tokens = {made["seat"]: made["token"]} | {i["seat"]: i["token"] for i in made["invites"]}
        secrets_ = [table, made["spectator_token"], *tokens.values()]
        receivers = [Receiver(seat) for seat in sorted(tokens)]
        spectator = Receiver(None)
        url = f"ws://{address}/ws/{table}"
        rng = random.Random(seed)
        tasks = [asyncio.create_task(_spectator(url, made["spectator_token"], spectator))]
        for receiver in receivers:
            if receiver.viewer != made["seat"]:
                joined = await log.call(
                    http,
                    "POST",
                    f"/api/tables/{table}/join",
                    {"name": f"P{receiver.viewer}", "token": tokens[receiver.viewer]},
                )
                assert joined.status_code == 200, joined.text
            token = tokens[receiver.viewer]
            tasks.append(
                asyncio.create_task(_person(url, token, receiver, random.Random(rng.random())))
            )
        await _probe_http(http, log, table, tokens[receivers[-1].viewer])
        await asyncio.wait_for(asyncio.gather(*tasks), 4 * PATIENCE)
        record = (await http.get(f"/api/tables/{table}/record")).json()
    return record, [*receivers, spectator], log, secrets_


class Truth:
    """The true state after each move, replayed from the game's record."""

    def __init__(self, record: dict[str, Any], viewers: list[int | None]) -> None:
        game = Game(GameOptions.from_json(record["options"]))
        self.hidden: list[dict[int | None, set[str]]] = []
        self.views: list[dict[int | None, dict[str, Any]]] = []
        self.logs: list[list[Any]] = []
        self.legal: list[set[str]] = []
        #: Each row's P and G (T2) and whether G > P, written here independently of the server.
        self.strengths: list[list[dict[str, Any]]] = []
        #: Each player's birds in mated pairs (E4): a male and a female of one species and value.
        self.mated: list[list[list[str]]] = []
        self.record = record
        #: Each seat as sentences name it (set by the test, which seated them).
        self.names: list[str] = []
        for move in range(len(record["actions"]) + 1):
            state = game.state
            self.hidden.append({v: set(hidden_names(state, v)) for v in viewers})
            self.views.append({v: _view_doc(state, v) for v in viewers})
            self.logs.append(list(state.events or []))
            self.legal.append(set() if state.is_over() else {str(a) for a in state.legal_actions()})
            weighed = [row_strength(row) for row in state.rows]
            self.strengths.append([{"perch": p, "ground": g, "chases": g > p} for p, g in weighed])
            if state.chase_perch >= 0:  # waiting for the crow's victim: its perch is empty
                ground = sum(BIRD_VALUE[b] for b in state.rows[state.chase_perch])
                self.strengths[-1][state.chase_perch] = {
                    "perch": None,
                    "ground": ground,
                    "chases": False,
                }
            pairs = state.rules.pairs == "mated"
            self.mated.append(
                [
                    [BIRD_NAMES[b] for b in sorted(c) if pairs and b ^ 1 in c]
                    for c in state.collections
                ]
            )
            if move < len(record["actions"]):
                game.apply(record["actions"][move])

    def previews(self, move: int) -> dict[str, dict[str, Any]]:
        """What the seat to decide at ``move`` is shown for each legal action, from its view."""
        game = Game(GameOptions.from_json(self.record["options"]))
        for action in self.record["actions"][:move]:
            game.apply(action)
        view = view_of(game.state, game.state.current_player)
        return {str(a): _preview_doc(view, a, move, self.names) for a in game.state.legal_actions()}


def _view_doc(state: Any, viewer: int | None) -> dict[str, Any]:
    view = view_of(state, viewer) if viewer is not None else public_view(state)
    doc = view_to_json(view._replace(events=None))
    doc.pop("events", None)
    if viewer is None:
        doc["player"] = None
        doc["own_seeds"] = []
    if state.is_over():  # the end shows every pile, as the record does
        doc["blind_seeds"] = [[FEEDER_NAMES[f] for f in seeds] for seeds in state.seeds_blind]
    return doc


def _preview_doc(view: Any, action: Action, move: int, names: list[str]) -> dict[str, Any]:
    shown = preview(view, action.id, seed=move, names=names)
    return {"action": str(action), "headline": shown.headline, "steps": list(shown.steps)}


def _scrubbed(text: str, secrets_: list[str]) -> str:
    """The text without the table id and tokens: random strings that may spell a card."""
    for secret in secrets_:
        text = text.replace(secret, "")
    return text


def audit(receiver: Receiver, truth: Truth, secrets_: list[str]) -> int:
    """Check every frame ``receiver`` got; returns how many were checked."""
    viewer = receiver.viewer
    who = "the spectator" if viewer is None else f"seat {viewer}"
    moves = [json.loads(f)["move"] for f in receiver.frames if json.loads(f)["type"] == "state"]
    assert moves, f"{who} got no state"
    assert moves == sorted(moves), f"{who} got states out of order: {moves}"
    answered = 0  # probes answered so far
    probe_answers: dict[int, set[str]] = {}
    at = 0  # index in ``moves`` of the next state frame
    for text in receiver.frames:
        message = json.loads(text)
        kind = message["type"]
        if kind == "state":
            move = moves[at]
            at += 1
            hidden = truth.hidden[move][viewer]
            _check_state(message, truth, move, viewer, who)
        else:
            # Sent while the game was at the last state's move, or (an ack) just after the next
            # one: what was hidden at both is what it must not name.
            before = moves[at - 1] if at > 0 else moves[0]
            after = moves[at] if at < len(moves) else before
            hidden = truth.hidden[before][viewer] & truth.hidden[after][viewer]
        if kind == "preview":
            assert viewer is not None, "a spectator got a preview"
            previews = truth.previews(message["move"])
            expected = [previews[p["action"]] for p in message["previews"]]
            assert message["previews"] == expected, f"{who}: a preview is not its view's alone"
            assert {p["action"] for p in message["previews"]} == set(previews)
            continue
        waiting = receiver.probes[answered : answered + 1]  # the next probe's answer, if any
        if kind == "error" and waiting and message["code"] == "illegal" and waiting[0][1] in text:
            probed, bird = waiting[0]
            answered += 1
            probe_answers.setdefault(probed, set()).add(message["message"].replace(bird, "CARD"))
            # The probed card is the sender's own word; the rest may name nothing hidden.
            text = text.replace(bird, "")
        named = cards_named(_scrubbed(text, secrets_)) & hidden
        assert not named, f"{who} was sent hidden {sorted(named)} in {text[:300]}"
    assert at == len(moves)
    assert answered == len(receiver.probes), f"{who}: a probe went unanswered"
    # Wherever the probed cards were (another's hand, a deck, the discards), the same words.
    for answers in probe_answers.values():
        assert len(answers) == 1, f"{who}: illegal plays answered differently: {answers}"
    return len(receiver.frames)


def _check_state(
    message: dict[str, Any], truth: Truth, move: int, viewer: int | None, who: str
) -> None:
    assert message["view"] == truth.views[move][viewer], f"{who}: state {move} is not its view"
    log = truth.logs[move]
    start = message["events_from"]
    seen = [filter_event(e, viewer) for e in log[start:]]
    assert message["events"] == [event_to_json(e) for e in seen], f"{who}: log at {move}"
    # The sentences are the terminal game's, in the connection's language (English here), with
    # the seats' names; their parts spell the same sentences, marking seats and birds.
    assert message["log"] == [tell(e, truth.names) for e in seen], f"{who}: sentences at {move}"
    said = ["".join(p["text"] for p in parts) for parts in message["log_parts"]]
    assert said == message["log"], f"{who}: sentence parts at {move}"
    for parts in message["log_parts"]:
        for part in parts:
            if "bird" in part:
                assert part["text"] == bird_words(BIRD_NAMES.index(part["bird"])), who
            if "seat" in part:
                assert part["text"] == truth.names[part["seat"]], who
    if message["legal"]:
        assert viewer is not None and truth.views[move][viewer]["current_player"] == viewer
        assert set(message["legal"]) == truth.legal[move], f"{who}: legal at {move}"
    assert message["strengths"] == truth.strengths[move], f"{who}: strengths at {move}"
    assert message["mated"] == truth.mated[move], f"{who}: mated pairs at {move}"
    # The same actions as fields, one for one, for a client that reads no notation.
    assert message["choices"] == [Action.parse(a).to_json() for a in message["legal"]], who


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rules", ["standard", "overview"])
def test_no_byte_sent_names_what_its_receiver_cannot_know(
    address: str, players: int, rules: str
) -> None:
    checked = 0
    for seed, seats in enumerate(SEATINGS[players], start=players * 10 + len(rules)):
        record, receivers, http, secrets_ = asyncio.run(
            _play_audited_game(address, seats, rules, seed)
        )
        assert record["result"] is not None
        truth = Truth(record, [r.viewer for r in receivers])
        # The seats as the sentences name them: the creator (the first person) is Anna, the
        # others joined as P1, P2…, and a bot is "Bot N" (N counted from 1).
        creator = seats.index("human")
        truth.names = [
            ("Anna" if i == creator else f"P{i}") if kind == "human" else f"Bot {i + 1}"
            for i, kind in enumerate(seats)
        ]
        for receiver in receivers:
            checked += audit(receiver, truth, secrets_)
        for request, status, body in http.answers:
            assert status < 500, f"{request}: {status} {body}"
            assert not cards_named(_scrubbed(body, secrets_)), f"{request} names a card: {body}"
        statuses = {request: status for request, status, _ in http.answers}
        table = record_table(http)
        assert statuses[f"GET /api/tables/{table}/record"] == 409
        assert statuses[f"GET /api/tables/{table}/replay"] == 409
    assert checked > 100


def record_table(http: Http) -> str:
    created = json.loads(http.answers[0][2])
    table: str = created["table"]
    return table


def test_the_page_and_its_scripts_are_the_shipped_files(address: str) -> None:
    """Nothing served as the page or a static file depends on a game: each is the file in the
    package, byte for byte, before and after a game was opened, on every page address."""
    static = Path(str(resources.files("piepmatz.server").joinpath("static")))
    shipped = {p.name: p.read_bytes() for p in static.iterdir() if p.is_file()}
    assert {"index.html", "app.js", "table.js"} <= set(shipped)

    def fetch_all(http: httpx.Client, table: str) -> dict[str, bytes]:
        out = {f"/static/{name}": http.get(f"/static/{name}").content for name in shipped}
        for page in ("/", "/rules", "/play/", "/replay/"):
            out[page] = http.get(page + (table if page.endswith("y/") else "")).content
        return out

    with httpx.Client(base_url=f"http://{address}", timeout=PATIENCE) as http:
        before = fetch_all(http, "none")
        made = http.post(
            "/api/tables", json={"seats": ["human", "random"], "name": "Anna", "seed": 3}
        ).json()
        after = fetch_all(http, made["table"])
    assert before == after
    for name, content in shipped.items():
        assert after[f"/static/{name}"] == content, name
    for page in ("/", "/rules", "/play/", "/replay/"):
        assert after[page] == shipped["index.html"], page
    # The scripts the page loads are all among the files checked.
    scripts = b"".join(v for k, v in shipped.items() if k.endswith((".js", ".html")))
    imported = set(re.findall(r'from "\./([\w.]+)"', scripts.decode()))
    imported |= set(re.findall(r'src="/static/([\w.]+)"', shipped["index.html"].decode()))
    assert imported and imported <= set(shipped), imported - set(shipped)
