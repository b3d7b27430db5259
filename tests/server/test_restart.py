"""A real ``piepmatz serve`` process killed with SIGKILL mid-game loses no acknowledged move."""

from __future__ import annotations

import asyncio
import random
import signal
import subprocess
from pathlib import Path

import httpx

from piepmatz.core import Game, GameOptions, view_of, view_to_json
from piepmatz.server.client import SeatClient
from serverplay import open_two_person_table, play_and_kill, play_randomly, until, ws_url
from serverprocs import free_port, serve_process

SRC = Path(__file__).resolve().parents[2] / "src"


async def _play_until_killed(
    address: str, process: subprocess.Popen[bytes]
) -> tuple[dict[str, object], list[tuple[int, str]]]:
    """Two people play; the server is killed right after the acknowledgement of move 20 or so."""
    table = await open_two_person_table(address, bot="random")
    url = ws_url(address, table["table"])
    acked: list[tuple[int, str]] = []
    async with (
        SeatClient.connect(url, table["token"]) as anna,
        SeatClient.connect(url, table["second_token"]) as ben,
    ):
        await asyncio.wait_for(
            asyncio.gather(
                play_and_kill(anna, random.Random(1), process, 20, acked),
                play_and_kill(ben, random.Random(2), process, 20, acked),
            ),
            60,
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
    options = ("--database-url", f"sqlite+aiosqlite:///{tmp_path / 'server.db'}")
    options += ("--bot-workers", "1")  # the bot thinks in a worker process, as in production
    port = free_port()
    address = f"127.0.0.1:{port}"
    with (
        (tmp_path / "serve.log").open("ab") as log,
        serve_process(port, *options, pythonpath=str(SRC), output=log) as process,
    ):
        table, acked = asyncio.run(_play_until_killed(address, process))
        assert process.returncode == -signal.SIGKILL
    assert len(acked) >= 8
    with (
        (tmp_path / "serve.log").open("ab") as log,
        serve_process(port, *options, pythonpath=str(SRC), output=log),
    ):
        asyncio.run(_resume(address, table, acked))
