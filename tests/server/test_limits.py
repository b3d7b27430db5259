"""The limits on one client: message rate, refused messages, connections per address."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from piepmatz.cli import main
from piepmatz.server.client import SeatClient
from piepmatz.server.limits import (
    MESSAGE_BURST,
    POLICY_CLOSE,
    REFUSED_BURST,
    UNCOUNTED_ERRORS,
    ConnectionGuard,
    Limits,
    TokenBucket,
)
from serverplay import PATIENCE, get, open_table, running_server, until, ws_url


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_token_bucket_allows_a_burst_then_its_rate() -> None:
    clock = Clock()
    bucket = TokenBucket(rate=20, burst=40, clock=clock)
    assert all(bucket.take() for _ in range(40))
    assert not bucket.take()
    clock.now += 0.5  # ten more tokens
    assert [bucket.take() for _ in range(11)] == [True] * 10 + [False]
    clock.now += 3600  # refilled to the burst, no further
    assert sum(bucket.take() for _ in range(100)) == 40
    unlimited = TokenBucket(rate=0, burst=0)
    assert all(unlimited.take() for _ in range(1000))


def test_stale_actions_are_answered_but_not_held_against_a_connection() -> None:
    assert "stale" in UNCOUNTED_ERRORS
    clock = Clock()
    guard = ConnectionGuard(Limits(), clock=clock)
    assert not any(guard.refused("stale") for _ in range(10 * REFUSED_BURST))
    cut_off = [guard.refused("malformed") for _ in range(REFUSED_BURST + 1)]
    assert cut_off == [False] * REFUSED_BURST + [True]
    assert guard.refused("stale") is False  # still answered, even past the burst
    clock.now += 1.0  # one refusal refilled
    assert [guard.refused("not_your_turn") for _ in range(2)] == [False, True]


def test_limits_are_checked_where_they_are_set(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="message_rate"):
        Limits(message_rate=-1)
    assert main(["serve", "--connections-per-address", "-2"]) == 2
    said = capsys.readouterr().err
    assert "--connections-per-address must be 0 (no limit) or more, not -2" in said


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[str]:
    """A server with the default limits, but only three connections per address."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'server.db'}"
    with running_server(url, limits=Limits(connections_per_address=3)) as address:
        yield address


async def _cut_off(ws: ClientConnection, flood: list[str]) -> tuple[list[dict[str, Any]], Any]:
    """Send ``flood`` as fast as possible, then read until the server closes; returns what was
    received and the close frame."""
    try:
        for text in flood:
            await ws.send(text)
    except ConnectionClosed:
        pass
    received = []
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            received.append(json.loads(await asyncio.wait_for(ws.recv(), PATIENCE)))
    return received, closed.value.rcvd


async def _play_at_a_persons_pace(client: SeatClient, rng: random.Random) -> int:
    """Play every decision, at most some sixteen messages a second (well within the
    limits); every action must be acknowledged. Returns the moves played."""
    played = 0
    while True:
        state = await until(client, "state")
        if state["result"] is not None:
            return played
        if state["legal"]:
            await asyncio.sleep(0.06)
            action = rng.choice(state["legal"])
            await client.act(action, state["move"])
            ack = await until(client, "ack")
            assert ack == {"type": "ack", "move": state["move"], "action": action}
            played += 1


def test_flooding_clients_are_cut_off_and_the_table_plays_on(server: str) -> None:
    """On a server with the default limits, two clients flood one table while two people
    play it: the flooders are answered with errors, then cut off; the people notice nothing."""
    limited = server

    async def run() -> None:
        table = await open_table(limited, ["human", "human", "random"])
        url = ws_url(limited, table["table"])
        async with (
            SeatClient.connect(url, table["token"]) as anna,
            SeatClient.connect(url, table["second_token"]) as ben,
            connect(url) as spammer,  # valid messages, far too many: the spectator's syncs
            connect(url) as babbler,  # garbage
        ):
            await spammer.send(json.dumps({"type": "hello", "token": table["spectator_token"]}))
            honest = asyncio.gather(
                _play_at_a_persons_pace(anna, random.Random(1)),
                _play_at_a_persons_pace(ben, random.Random(2)),
            )
            (spam, spam_close), (babble, babble_close) = await asyncio.gather(
                _cut_off(spammer, [json.dumps({"type": "sync"})] * 2000),
                _cut_off(babbler, ["{not json"] * 2000),
            )
            moves = await asyncio.wait_for(honest, 4 * PATIENCE)
            assert sum(moves) > 20
            for client in (anna, ben):
                assert not [m for m in client.received if m["type"] == "error"]
                assert client.state is not None and client.state["result"] is not None
        # The flooders were answered first, then cut off with a reason.
        assert spam_close.code == POLICY_CLOSE and "refused" in spam_close.reason
        assert babble_close.code == POLICY_CLOSE
        # Its burst was served (full states: hello's and the syncs'), then it was refused.
        served = sum(m["type"] == "state" and m["events_from"] == 0 for m in spam)
        assert MESSAGE_BURST <= served <= MESSAGE_BURST + 20
        refusals = [m["code"] for m in spam if m["type"] == "error"]
        assert set(refusals) == {"rate_limited"} and REFUSED_BURST < len(refusals) <= 25
        assert {m["code"] for m in babble} == {"malformed"}
        assert REFUSED_BURST < len(babble) <= 25
        info = await get(limited, f"/api/tables/{table['table']}")
        assert info["status"] == "over"

    asyncio.run(run())


def test_connections_per_address_are_limited(limited: str) -> None:
    async def run() -> None:
        table = await open_table(limited, ["human", "human"])
        url = ws_url(limited, table["table"])
        async with connect(url) as one, connect(url) as two, connect(url) as three:
            async with connect(url) as four:
                refused = json.loads(await asyncio.wait_for(four.recv(), PATIENCE))
                assert refused["code"] == "too_many_connections"
                assert "at most 3" in refused["message"]
                with pytest.raises(ConnectionClosed) as closed:
                    await asyncio.wait_for(four.recv(), PATIENCE)
                assert closed.value.rcvd is not None
                assert closed.value.rcvd.code == POLICY_CLOSE
            await one.close()
            # A place is free again; the other connections were never disturbed.
            async with SeatClient.connect(url, table["token"]) as anna:
                assert (await until(anna, "welcome"))["seat"] == 0
            for ws in (two, three):
                await ws.send(json.dumps({"type": "sync"}))
                answer = json.loads(await asyncio.wait_for(ws.recv(), PATIENCE))
                assert answer["code"] == "hello_first"

    asyncio.run(run())
