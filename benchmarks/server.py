"""The game server under load: N concurrent two-seat games over real WebSockets on loopback.

    .venv/bin/python benchmarks/server.py --games 200
    .venv/bin/python benchmarks/server.py --games 200 --think 0.5 --database-url postgresql+asyncpg://...

A real ``piepmatz serve`` process (uvicorn, an SQLite file in a temporary directory unless
``--database-url`` says otherwise) holds the games; this process plays both seats of every game
as random bots on the client side, so the server does what it does for people: check the move
number and the action, store the move, acknowledge it and send each seat its new view. Every
game is opened and both seats connected before the first move, so all N are held at once. The
latency is from an action sent to its ``ack`` (which the server sends only once the move is
committed). ``--think`` waits that many seconds before each move, as a person would; with 0 the
clients answer at once and the server runs flat out (latency is then mostly queueing: with N
moves always in flight it is about N / throughput). The client shares the machine's cores with
the server.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import random
import tempfile
import time

import httpx
from _common import (
    NO_LIMITS,
    SRC,
    free_port,
    latency_figures,
    open_table,
    play_seat,
    serve_process,
    thinking,
)

from piepmatz.server.client import SeatClient


async def seat(
    client: SeatClient,
    rng: random.Random,
    think: float,
    start: asyncio.Event,
    latencies: list[float],
) -> None:
    await start.wait()
    await play_seat(client, rng, latencies, before_move=thinking(rng, think))


async def run(address: str, games: int, think: float, seed: int) -> None:
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=f"http://{address}", timeout=60) as http:
        tables = await asyncio.gather(*(open_table(http, 2) for i in range(games)))
    latencies: list[float] = []
    start = asyncio.Event()
    tasks = []
    clients = []
    async with contextlib.AsyncExitStack() as stack:
        for table, tokens in tables:
            for token in tokens:
                client = await stack.enter_async_context(
                    SeatClient.connect(f"ws://{address}/ws/{table['table']}", token, keep=False)
                )
                clients.append(client)
        for client in clients:
            await client.until("state")
        # The client's own long-lived objects stay out of its collector's full passes, as the
        # server's do, so that its pauses are not counted as the server's latency.
        gc.collect()
        gc.freeze()
        held = len(tables)
        for client in clients:
            tasks.append(
                asyncio.create_task(
                    seat(client, random.Random(rng.random()), think, start, latencies)
                )
            )
        began = time.perf_counter()
        start.set()
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - began
    moves = len(latencies)
    print(f"games held at once: {held} (two WebSocket seats each, random moves, think {think} s)")
    print(f"moves: {moves} in {elapsed:.1f} s = {moves / elapsed:,.0f} moves/s")
    print(f"move sent to ack: {latency_figures(latencies)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--think", type=float, default=0.0, help="mean seconds before a move")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database-url", default=None, help="default: SQLite in a temp dir")
    parser.add_argument("--address", help="host:port of a running server to use instead")
    args = parser.parse_args()
    if args.address:
        asyncio.run(run(args.address, args.games, args.think, args.seed))
        return
    with tempfile.TemporaryDirectory() as folder:
        url = args.database_url or f"sqlite+aiosqlite:///{folder}/server.db"
        port = free_port()
        # Every seat connects from loopback and answers at once: the per-address and message
        # rate limits are for people, not for this (benchmarks/flood.py measures them at work).
        options = ["--database-url", url, "--bot-workers", "0", "--log-level", "warning"]
        options += NO_LIMITS
        with serve_process(port, *options, pythonpath=str(SRC)):
            asyncio.run(run(f"127.0.0.1:{port}", args.games, args.think, args.seed))


if __name__ == "__main__":
    main()
