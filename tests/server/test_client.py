"""The protocol client (:class:`piepmatz.server.client.SeatClient`) closing with messages it did
not read: a spectator leaving a busy table, a script that stops early."""

from __future__ import annotations

import asyncio
import json

import pytest
from websockets.asyncio.server import ServerConnection, serve

from piepmatz.server.client import SeatClient

#: More messages than ``websockets``' receive queue holds (16), so that it stops reading.
UNREAD = 200


@pytest.mark.parametrize("reconnect", [False, True])
def test_a_client_leaving_unread_messages_closes_with_the_handshake(reconnect: bool) -> None:
    async def run() -> None:
        codes: list[int | None] = []

        async def talkative(websocket: ServerConnection) -> None:
            for i in range(UNREAD):
                await websocket.send(json.dumps({"type": "chat", "i": i, "text": "x" * 1000}))
            await websocket.wait_closed()
            codes.append(websocket.close_code)

        async with serve(talkative, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            # A short close_timeout: without the handshake the close would end by timing out.
            url = f"ws://127.0.0.1:{port}/"
            connect = SeatClient.connect(url, None, reconnect=reconnect, close_timeout=2)
            async with connect as client:
                assert (await client.receive())["i"] == 0
                while len(client.websocket.recv_messages.frames) < 16:  # its queue is full
                    await asyncio.sleep(0.01)
            # Both closing frames were exchanged: the client did not give up waiting.
            closing = client.websocket.protocol.close_rcvd
            assert closing is not None and closing.code == 1000
            while not codes:
                await asyncio.sleep(0.01)
            assert codes == [1000]

    asyncio.run(asyncio.wait_for(run(), 30))


def test_a_client_with_a_gap_sends_in_order_and_no_faster() -> None:
    gap = 0.1

    async def run() -> list[tuple[float, int]]:
        arrived: list[tuple[float, int]] = []

        async def note(websocket: ServerConnection) -> None:
            async for text in websocket:
                arrived.append((asyncio.get_running_loop().time(), json.loads(text)["i"]))

        async with serve(note, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            async with SeatClient.connect(f"ws://127.0.0.1:{port}/", None, gap=gap) as client:
                # Twelve messages at once: a held key's answers and previews, or a script's.
                await asyncio.gather(*(client.send({"i": i}) for i in range(12)))
                while len(arrived) < 12:
                    await asyncio.sleep(0.01)
        return arrived

    arrived = asyncio.run(asyncio.wait_for(run(), 30))
    assert [i for _, i in arrived] == list(range(12))
    # None before its turn, the gap after the one before (a busy machine may make one late, and
    # the next then closer to it, never earlier): 20 a second is the server's sustained rate.
    first = arrived[0][0]
    assert all(t >= first + i * gap - 0.02 for t, i in arrived)
