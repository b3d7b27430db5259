"""Who may do what: seat tokens open one seat at one table, spectators only watch, nobody acts
for another seat, and no token is ever written to a log."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import random
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from piepmatz.server import seats as seats_module
from piepmatz.server.client import SeatClient
from piepmatz.server.messages import MAX_MESSAGE
from piepmatz.server.room import Room
from piepmatz.server.seats import Seat, new_token, token_hash
from serverplay import PATIENCE, get, open_table, play_randomly, post, until, ws_url
from serverprocs import free_port, serve_process

SRC = Path(__file__).resolve().parents[2] / "src"


def test_seat_tokens_are_random_hashed_and_compared_in_constant_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tokens = [new_token() for _ in range(500)]
    assert len(set(tokens)) == len(tokens)
    for token in tokens[:20]:
        assert len(base64.urlsafe_b64decode(token + "=")) * 8 >= 128
        assert token_hash(token) == hashlib.sha256(token.encode()).hexdigest() != token
    compared: list[tuple[str, str]] = []
    constant_time = hmac.compare_digest

    def counting(a: str, b: str) -> bool:
        compared.append((a, b))
        return constant_time(a, b)

    monkeypatch.setattr(seats_module.hmac, "compare_digest", counting)
    seats = [Seat("human", "A", token_hash(tokens[0])), Seat("random"), Seat("human", None, None)]
    seats.append(Seat("human", "B", token_hash(tokens[1])))
    table: Any = type("T", (), {"seats": seats})()
    # Every seat's hash is compared, whichever matches: the time says nothing about which.
    for token, seat in ((tokens[0], 0), (tokens[1], 3), (tokens[2], None)):
        compared.clear()
        assert Room.seat_for(table, token) == seat
        assert [b for _, b in compared] == [token_hash(tokens[0]), token_hash(tokens[1])]


def test_a_token_opens_only_its_own_table(server: str) -> None:
    async def run() -> None:
        a = await open_table(server, ["human", "human"])
        b = await open_table(server, ["human", "human", "human"])
        for token in (a["token"], a["second_token"], a["spectator_token"]):
            async with SeatClient.connect(ws_url(server, b["table"]), token) as client:
                assert (await until(client, "error"))["code"] == "bad_token"
                await client.act("draw deck", 0)
                assert (await until(client, "error"))["code"] == "hello_first"
        # B's free seat cannot be taken with A's credentials either.
        join = f"/api/tables/{b['table']}/join"
        for token in (a["token"], a["invites"][0]["token"], a["spectator_token"]):
            refused = await post(server, join, {"name": "Eve", "token": token}, status=403)
            assert "not for a seat at this table" in refused["detail"]
        info = await get(server, f"/api/tables/{b['table']}")
        assert info["move"] == 0
        assert [s["name"] for s in info["seats"]] == ["Anna", "Ben", None]

    asyncio.run(run())


def test_a_spectator_cannot_act_chat_or_preview(server: str) -> None:
    async def run() -> None:
        table = await open_table(server, ["human", "human"])
        url = ws_url(server, table["table"])
        async with (
            SeatClient.connect(url, table["token"]) as anna,
            SeatClient.connect(url, table["spectator_token"]) as watcher,
        ):
            state = await until(anna, "state")
            seen = await until(watcher, "state")
            assert seen["legal"] == [] and seen["view"]["hand"] == []
            mover_legal = state["legal"] or ["draw deck"]
            for message in (
                {"type": "action", "move": 0, "action": mover_legal[0]},
                {"type": "chat", "text": "psst"},
                {"type": "preview", "move": 0},
            ):
                await watcher.send(message)
                assert (await until(watcher, "error"))["code"] == "spectator"
            await anna.send({"type": "sync"})
            again = await until(anna, "state")
            assert again["move"] == 0
            assert not [m for m in anna.received if m["type"] == "chat"]
        assert (await get(server, f"/api/tables/{table['table']}"))["move"] == 0

    asyncio.run(run())


def test_no_one_acts_for_another_seat(server: str) -> None:
    """An action carries no seat: the connection's token is the seat. Naming another seat in
    the message is refused, and the other seat's move played by someone else is illegal."""

    async def run() -> None:
        table = await open_table(server, ["human", "human"])
        url = ws_url(server, table["table"])
        async with (
            SeatClient.connect(url, table["token"]) as anna,
            SeatClient.connect(url, table["second_token"]) as ben,
        ):
            first, second = await until(anna, "state"), await until(ben, "state")
            mover, waiter = (anna, ben) if first["legal"] else (ben, anna)
            legal = (first if mover is anna else second)["legal"]
            seat = 0 if mover is anna else 1
            for extra in ({"seat": seat}, {"player": seat}, {"token": table["token"]}):
                await waiter.send({"type": "action", "move": 0, "action": legal[0], **extra})
                assert (await until(waiter, "error"))["code"] == "malformed"
            await waiter.act(legal[0], 0)
            error = await until(waiter, "error")
            assert error["code"] == "illegal" and "turn" in error["message"]
        assert (await get(server, f"/api/tables/{table['table']}"))["move"] == 0

    asyncio.run(run())


def test_tokens_never_reach_the_logs_and_frames_too_big_are_cut_off(tmp_path: Path) -> None:
    """``piepmatz serve`` at its most talkative (debug, every request logged) through a game's
    requests, good and bad: no token appears in what it writes."""
    port = free_port()
    address = f"127.0.0.1:{port}"
    log_path = tmp_path / "serve.log"
    options = ["--database-url", f"sqlite+aiosqlite:///{tmp_path / 'server.db'}"]
    options += ["--bot-workers", "0", "--log-level", "debug"]

    async def run() -> list[str]:
        table = await open_table(address, ["human", "human", "random"])
        tokens = [table["token"], table["second_token"], table["spectator_token"]]
        tokens += [i["token"] for i in table["invites"]]
        await get(address, f"/api/tables/{table['table']}/record", status=409)
        await post(
            address, f"/api/tables/{table['table']}/join", {"name": "Eve", "token": tokens[0]}, 409
        )
        url = ws_url(address, table["table"])
        async with SeatClient.connect(url, tokens[2] + "x") as stranger:
            assert (await until(stranger, "error"))["code"] == "bad_token"
        async with connect(url) as big:
            await big.send(json.dumps({"type": "hello", "token": tokens[0], "pad": "x" * 70_000}))
            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(big.recv(), PATIENCE)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        async with (
            SeatClient.connect(url, tokens[0]) as anna,
            SeatClient.connect(url, tokens[1]) as ben,
        ):
            await anna.send({"type": "hello", "token": tokens[0], "x": "y" * MAX_MESSAGE})
            assert (await until(anna, "error"))["code"] == "too_long"
            rng = random.Random(8)
            await asyncio.gather(play_randomly(anna, rng, 12), play_randomly(ben, rng, 12))
        async with SeatClient.connect(url, tokens[2]) as watcher:
            await watcher.send({"type": "sync"})
            assert (await until(watcher, "state"))["move"] >= 12
        return tokens

    with (
        log_path.open("wb") as output,
        serve_process(port, *options, pythonpath=str(SRC), output=output),
    ):
        tokens = asyncio.run(run())
    written = log_path.read_text()
    assert "POST /api/tables" in written, "the access log was captured"
    assert "/ws/" in written, "WebSocket connections were logged"
    for token in tokens:
        assert token not in written
        assert token[:16] not in written, "not even a part of a token"
