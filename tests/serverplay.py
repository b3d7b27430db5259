"""Shared steps of the server tests: open tables over HTTP, play seats over WebSockets."""

from __future__ import annotations

import asyncio
import random
import signal
import socket
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from websockets.exceptions import ConnectionClosed

from piepmatz.args import new_game
from piepmatz.core import Game, GameOptions
from piepmatz.core.scoring import PlayerScore, ScoreSheet
from piepmatz.server import archive, db
from piepmatz.server.app import create_app
from piepmatz.server.client import SeatClient
from piepmatz.server.clocks import Clock
from piepmatz.server.hub import Hub, new_table_id
from piepmatz.server.limits import Limits
from piepmatz.server.pace import PaceRoster
from piepmatz.server.pool import BotPool
from piepmatz.server.room import Room
from piepmatz.server.roster import BotRoster
from piepmatz.server.seats import Seat, new_token, token_hash
from piepmatz.server.store import Store


@contextmanager
def running_server(
    database_url: str, bot_workers: int = 0, log_level: str = "warning", **options: Any
) -> Iterator[str]:
    """The app on uvicorn in a thread of this process (``options`` go to ``create_app``);
    yields ``host:port``."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    # Tests open tables by the dozen from one address: the per-address limit is off unless a
    # test sets limits of its own.
    options.setdefault("limits", Limits(tables_per_minute=0, reviews_per_minute=0))
    app = create_app(database_url, bot_workers=bot_workers, **options)
    server = uvicorn.Server(uvicorn.Config(app, log_level=log_level, lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.01)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


#: No test waits longer than this for one message.
PATIENCE = 30.0


async def post(address: str, path: str, body: dict[str, Any], status: int = 201) -> Any:
    async with httpx.AsyncClient(base_url=f"http://{address}") as http:
        response = await http.post(path, json=body)
    assert response.status_code == status, response.text
    return response.json()


async def get(address: str, path: str, status: int = 200) -> Any:
    async with httpx.AsyncClient(base_url=f"http://{address}") as http:
        response = await http.get(path)
    assert response.status_code == status, response.text
    return response.json()


def ws_url(address: str, table: str) -> str:
    return f"ws://{address}/ws/{table}"


async def until(client: SeatClient, kind: str) -> dict[str, Any]:
    return await asyncio.wait_for(client.until(kind), PATIENCE)


async def play_randomly(
    client: SeatClient, rng: random.Random, stop_at_move: int | None = None
) -> dict[str, Any]:
    """Answer every decision of this seat with a random legal action until the game ends (or
    the game reaches ``stop_at_move``); returns the last state. Starts from the last state the
    client received, unless it was answered: a caller that waited for something else (a chat
    line, its first state) may have taken the state that asks this seat to move."""
    state = client.state or await until(client, "state")
    while True:
        if state["result"] is not None or (
            stop_at_move is not None and state["move"] >= stop_at_move
        ):
            return state
        if state["legal"] and client.answered != state["move"]:
            await client.act(rng.choice(state["legal"]), state["move"])
        message = await _state_or_refusal(client)
        if message["type"] == "state":
            state = message
        else:
            # Answering at once, a fast machine can pass the server's 20 messages a second
            # against a random bot: the answer was not read, so it is sent again in a moment.
            await asyncio.sleep(1 / 20)
            client.answered = None


async def _state_or_refusal(client: SeatClient) -> dict[str, Any]:
    """The next ``state``, or a ``rate_limited`` refusal (other messages are passed over)."""
    while True:
        message = await asyncio.wait_for(client.receive(), PATIENCE)
        if message["type"] == "state" or message.get("code") == "rate_limited":
            return message


async def play_and_kill(
    client: SeatClient,
    rng: random.Random,
    process: subprocess.Popen[bytes],
    after_move: int,
    acked: list[tuple[int, str]],
) -> None:
    """Answer this seat's decisions at random, noting every acknowledged ``(move, action)`` in
    ``acked``, and kill ``process`` (SIGKILL) right after the acknowledgement of move
    ``after_move`` or a later one; returns when the connection is gone."""
    try:
        while True:
            message = await client.receive()
            if message["type"] == "ack":
                acked.append((message["move"], message["action"]))
                if message["move"] >= after_move and process.poll() is None:
                    process.send_signal(signal.SIGKILL)
                    process.wait(30)
            elif message["type"] == "state" and message["legal"]:
                await client.act(rng.choice(message["legal"]), message["move"])
    except ConnectionClosed:
        return


async def open_table(address: str, seats: list[str], public: bool = False) -> dict[str, Any]:
    """A table opened by Anna in the first seat (the deal is the server's); unless it is
    public, Ben takes the first invite (his token is ``second_token``)."""
    table: dict[str, Any] = await post(
        address, "/api/tables", {"seats": seats, "name": "Anna", "public": public}
    )
    if not public:
        joined = await post(
            address,
            f"/api/tables/{table['table']}/join",
            {"name": "Ben", "token": table["invites"][0]["token"]},
            status=200,
        )
        table["second_token"] = joined["token"]
    return table


async def open_two_person_table(address: str, bot: str = "random") -> dict[str, Any]:
    """A three-seat table (two people, one bot) with both people seated."""
    return await open_table(address, ["human", "human", bot])


def sheet_from_json(data: dict[str, Any]) -> ScoreSheet:
    return ScoreSheet(
        players=tuple(PlayerScore(**p) for p in data["players"]),
        majority=dict(data["majority"]),
        winners=tuple(data["winners"]),
        tiebreak=data["tiebreak"],
        final=data["final"],
    )


def game_at(record: dict[str, Any], moves: int) -> Game:
    """The game of ``record`` after its first ``moves`` actions."""
    game = Game(GameOptions.from_json(record["options"]))
    for action in record["actions"][:moves]:
        game.apply(action)
    return game


async def open_room(
    at: Hub,
    kinds: list[str],
    seed: int,
    free: tuple[int, ...] = (),
    public: bool = False,
    rules: str = "standard",
) -> Room:
    """A table held by ``at`` with people (named) and bots in ``kinds``: playing, or waiting
    while the people's seats in ``free`` are not taken."""
    room = Room(
        new_table_id(),  # as the server draws one: never a leading "-"
        new_game(len(kinds), rules, seed),
        [
            Seat(k, f"P{i}" if k == "human" and i not in free else None, token_hash(new_token()))
            for i, k in enumerate(kinds)
        ],
        rules_spec=rules,
        public=public,
        spectator_hash=token_hash(new_token()),
        status="waiting" if free else "playing",
        store=at.store,
        bots=at.bots,
    )
    await at.store.create(archive.to_stored(room))
    await at.hold(room)
    return room


@asynccontextmanager
async def local_hub(
    database: Path | str,
    clock: Clock | None = None,
    paces: PaceRoster | None = None,
    roster: BotRoster | None = None,
) -> AsyncIterator[Hub]:
    """A server's hub on its own SQLite file (or any database's URL), without a network: for
    tests that drive it; bots think in threads."""
    url = database if isinstance(database, str) else f"sqlite+aiosqlite:///{database}"
    engine = db.make_engine(url)
    await db.upgrade(engine)
    hub = Hub(Store(engine), BotPool(0, roster=roster), paces, clock)
    try:
        yield hub
    finally:
        for room in hub.rooms.values():
            room.clocks.stop()
            if room.botseats.task is not None:
                room.botseats.task.cancel()
        await hub.store.close()
        await engine.dispose()


class ManualClock:
    """The tables' time, moved on by the test (``advance``): timers ring in order as it passes
    them, and the tasks they start run before ``advance`` returns."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.time = start
        self._timers: list[ManualTimer] = []

    def now(self) -> float:
        return self.time

    def call_at(self, when: float, callback: Callable[[], None]) -> ManualTimer:
        timer = ManualTimer(when, callback)
        self._timers.append(timer)
        return timer

    async def advance(self, seconds: float) -> None:
        end = self.time + seconds
        while due := sorted(
            (t for t in self._timers if not t.cancelled and t.when <= end), key=lambda t: t.when
        ):
            timer = due[0]
            self._timers.remove(timer)
            self.time = max(self.time, timer.when)
            timer.callback()
            await settle()
        self.time = end
        self._timers = [t for t in self._timers if not t.cancelled]
        await settle()


class ManualTimer:
    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when, self.callback, self.cancelled = when, callback, False

    def cancel(self) -> None:
        self.cancelled = True


async def settle() -> None:
    """Let every task that can run, run (the database's thread answering in between)."""
    for _ in range(20):
        await asyncio.sleep(0.005)


@asynccontextmanager
async def playing_room(database: Path, players: int, rules: str, seed: int) -> AsyncIterator[Room]:
    """A Room of people only, already playing, on its own SQLite file (for tests that drive
    the room directly, without the network)."""
    async with local_hub(database) as hub:
        yield await open_room(hub, ["human"] * players, seed, rules=rules)


class Listener:
    """A connection double that keeps what it is sent."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send(self, text: str) -> None:
        self.sent.append(text)

    async def close(self) -> None:
        pass
