"""A real ``piepmatz serve`` process killed with SIGKILL mid-game loses no acknowledged move."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from websockets.exceptions import ConnectionClosed

from piepmatz.core import Game, GameOptions, view_of, view_to_json
from piepmatz.server.client import SeatClient
from serverplay import free_port, open_two_person_table, play_randomly, until, ws_url

SRC = Path(__file__).resolve().parents[2] / "src"


@contextmanager
def serve_process(database_url: str, port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    env = os.environ | {"PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "piepmatz.cli", "serve", "--port", str(port)]
    command += ["--database-url", database_url, "--bot-workers", "1"]
    output = log.open("ab")
    process = subprocess.Popen(command, env=env, stdout=output, stderr=output)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/api/tables", timeout=1)
                break
            except httpx.TransportError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"piepmatz serve did not start: {log.read_text()}") from None
                time.sleep(0.1)
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(30)
        output.close()


async def _play_until_killed(
    address: str, process: subprocess.Popen[bytes]
) -> tuple[dict[str, object], list[tuple[int, str]]]:
    """Two people play; the server is killed right after the acknowledgement of move 20 or so."""
    table = await open_two_person_table(address, bot="random", seed=21)
    url = ws_url(address, table["table"])
    acked: list[tuple[int, str]] = []

    async def seat(client: SeatClient, rng: random.Random) -> None:
        try:
            while True:
                message = await client.receive()
                if message["type"] == "ack":
                    acked.append((message["move"], message["action"]))
                    if message["move"] >= 20 and process.poll() is None:
                        process.send_signal(signal.SIGKILL)
                        process.wait(30)
                elif message["type"] == "state" and message["legal"]:
                    await client.act(rng.choice(message["legal"]), message["move"])
        except ConnectionClosed:
            return

    async with (
        SeatClient.connect(url, table["token"]) as anna,
        SeatClient.connect(url, table["second_token"]) as ben,
    ):
        await asyncio.wait_for(
            asyncio.gather(seat(anna, random.Random(1)), seat(ben, random.Random(2))), 60
        )
    return table, acked


async def _resume(address: str, table: dict[str, object], acked: list[tuple[int, str]]) -> None:
    url = ws_url(address, str(table["table"]))
    async with SeatClient.connect(url, str(table["token"])) as anna:
        state = await until(anna, "state")
        assert state["move"] > acked[-1][0], "every acknowledged move is still there"
        if state["legal"]:
            await anna.act(state["legal"][0], state["move"])
        async with SeatClient.connect(url, str(table["second_token"])) as ben:
            ends = await asyncio.gather(
                play_randomly(anna, random.Random(1)), play_randomly(ben, random.Random(2))
            )
    record = httpx.get(f"http://{address}/api/tables/{table['table']}/record").json()
    for move, action in acked:
        assert record["actions"][move] == action
    assert ends[0]["result"] == ends[1]["result"] == record["result"]
    # What Anna saw on reconnecting is her view of the record replayed to that move.
    replayed = Game(GameOptions.from_json(record["options"]))
    for action in record["actions"][: state["move"]]:
        replayed.apply(action)
    expected = view_to_json(view_of(replayed.state, 0)._replace(events=None))
    expected.pop("events")
    assert state["view"] == expected


def test_a_killed_server_resumes_every_game_with_every_acknowledged_move(tmp_path: Path) -> None:
    database_url = f"sqlite+aiosqlite:///{tmp_path / 'server.db'}"
    port = free_port()
    address = f"127.0.0.1:{port}"
    with serve_process(database_url, port, tmp_path / "serve.log") as process:
        table, acked = asyncio.run(_play_until_killed(address, process))
        assert process.returncode == -signal.SIGKILL
    assert len(acked) >= 8
    with serve_process(database_url, port, tmp_path / "serve.log"):
        asyncio.run(_resume(address, table, acked))
