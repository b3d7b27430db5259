"""People's latency while other clients flood the server: the limits at work.

    .venv/bin/python benchmarks/flood.py --games 100 --flooders 10 --seconds 20

A real ``piepmatz serve`` process with its default limits (only the per-address one is off: every
client here connects from loopback) holds ``--games`` two-seat games played at a person's pace
(``--think`` seconds on average before each move). The run has two halves of ``--seconds`` each:
quiet, then with ``--flooders`` clients that each connect as a spectator of some table and send
``sync`` messages (each answered, while the rate allows, with a whole view) and garbage as fast as
they can, connecting again each time they are cut off. It prints, for each half, the people's
moves and the p50/p99 from an action sent to its acknowledgement, and how the flooders fared.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import tempfile
import time
from typing import Any

import httpx
from _common import (
    SRC,
    cpu_seconds,
    free_port,
    latency_figures,
    open_table,
    play_seat,
    serve_process,
    thinking,
)
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from piepmatz.server.client import SeatClient


async def person(
    url: str, token: str, rng: random.Random, think: float, stop: float, latencies: list[float]
) -> None:
    """Play one seat at a person's pace until the game ends or the time is up."""
    async with SeatClient.connect(url, token, keep=False) as client:
        await play_seat(client, rng, latencies, before_move=thinking(rng, think), stop=stop)


async def flooder(url: str, token: str, stop: float, tally: dict[str, int]) -> None:
    """Flood as a spectator, half syncs and half garbage; connect again when cut off."""
    flood = [json.dumps({"type": "sync"}), "{garbage"] * 2500
    while time.time() < stop:
        try:
            async with connect(url, max_size=None) as ws:
                tally["connections"] += 1
                await ws.send(json.dumps({"type": "hello", "token": token}))

                async def drain(ws: Any = ws) -> None:
                    async for _ in ws:
                        tally["answers"] += 1

                reader = asyncio.create_task(drain())
                for text in flood:
                    await ws.send(text)
                    tally["sent"] += 1
                await reader
        except ConnectionClosed as exc:
            if exc.rcvd is not None and exc.rcvd.code == 1008:
                tally["cut off"] += 1
        await asyncio.sleep(0)


async def flood_all(address: str, targets: list[tuple[str, str]], stop: float) -> dict[str, int]:
    tally = {"connections": 0, "sent": 0, "answers": 0, "cut off": 0}
    await asyncio.gather(
        *(flooder(f"ws://{address}/ws/{table}", token, stop, tally) for table, token in targets)
    )
    return tally


def flood_process(address: str, targets: list[tuple[str, str]], stop: float, out: Any) -> None:
    """The flooders run in a process of their own at the lowest priority: an attacker would
    be on another machine, not share this one's cores or the people's event loop."""
    os.nice(19)
    out.put(asyncio.run(flood_all(address, targets, stop)))


async def half(
    address: str, args: argparse.Namespace, flooders: int, seed: int, server: int
) -> tuple[list[float], dict[str, int], float]:
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=f"http://{address}", timeout=60) as http:
        tables = await asyncio.gather(*(open_table(http, 2) for i in range(args.games)))
    stop = time.time() + args.seconds
    cpu = cpu_seconds(server)
    latencies: list[float] = []
    tasks = []
    for table, tokens in tables:
        url = f"ws://{address}/ws/{table['table']}"
        for token in tokens:
            tasks.append(
                person(url, token, random.Random(rng.random()), args.think, stop, latencies)
            )
    targets = [
        (table["table"], table["spectator_token"])
        for table, _ in (tables[i % len(tables)] for i in range(flooders))
    ]
    results: Any = multiprocessing.get_context("spawn").Queue()
    process = multiprocessing.get_context("spawn").Process(
        target=flood_process, args=(address, targets, stop, results)
    )
    if flooders:
        process.start()
    await asyncio.gather(*tasks)
    tally = {"connections": 0, "sent": 0, "answers": 0, "cut off": 0}
    if flooders:
        tally = results.get(timeout=120)
        process.join(60)
    return latencies, tally, cpu_seconds(server) - cpu


def report(name: str, latencies: list[float], seconds: float, cpu: float) -> None:
    print(
        f"{name}: {len(latencies)} moves in {seconds:.0f} s; move sent to ack: "
        f"{latency_figures(latencies)}; server CPU {cpu:.1f} s"
    )


async def run(args: argparse.Namespace, address: str, server: int) -> None:
    quiet, _, cpu = await half(address, args, 0, args.seed, server)
    report("quiet  ", quiet, args.seconds, cpu)
    flooded, tally, cpu = await half(address, args, args.flooders, args.seed + args.games, server)
    report("flooded", flooded, args.seconds, cpu)
    print(
        f"flooders: {args.flooders} (another process), {tally['connections']} connections, "
        f"{tally['sent']:,} messages sent, {tally['answers']:,} answered, "
        f"cut off {tally['cut off']} times"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--think", type=float, default=0.5, help="mean seconds before a move")
    parser.add_argument("--flooders", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each half")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        options = ["--database-url", f"sqlite+aiosqlite:///{folder}/server.db"]
        options += ["--bot-workers", "0", "--log-level", "warning"]
        # The tables are opened from loopback at once (the set-up, not the flood): no limit on
        # them; the flooders' connections are not limited per address either.
        options += ["--connections-per-address", "0", "--tables-per-minute", "0"]
        with serve_process(port, *options, pythonpath=str(SRC)) as server:
            asyncio.run(run(args, f"127.0.0.1:{port}", server.pid))


if __name__ == "__main__":
    main()
