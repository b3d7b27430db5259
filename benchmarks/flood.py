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
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from piepmatz.server.client import SeatClient, free_port, serve_process

SRC = Path(__file__).resolve().parents[1] / "src"


async def open_game(http: httpx.AsyncClient, seed: int) -> dict[str, Any]:
    table: dict[str, Any] = (
        await http.post(
            "/api/tables", json={"seats": ["human", "human"], "name": "A", "seed": seed}
        )
    ).json()
    joined = await http.post(
        f"/api/tables/{table['table']}/join",
        json={"name": "B", "token": table["invites"][0]["token"]},
    )
    table["second_token"] = joined.json()["token"]
    return table


async def person(
    url: str, token: str, rng: random.Random, think: float, stop: float, latencies: list[float]
) -> None:
    """Play one seat at a person's pace until the game ends or the time is up."""
    async with SeatClient.connect(url, token, keep=False) as client:
        state = await client.until("state")
        while time.monotonic() < stop and state["result"] is None:
            if state["legal"]:
                await asyncio.sleep(rng.uniform(0, 2 * think))
                sent = time.perf_counter()
                await client.act(rng.choice(state["legal"]), state["move"])
                answer = await client.receive()
                while answer["type"] not in ("ack", "error"):
                    answer = await client.receive()
                if answer["type"] == "error":
                    raise RuntimeError(f"a person's move was refused: {answer['message']}")
                latencies.append(time.perf_counter() - sent)
            state = await client.until("state")


async def flooder(url: str, token: str, stop: float, tally: dict[str, int]) -> None:
    """Flood as a spectator, half syncs and half garbage; connect again when cut off."""
    flood = [json.dumps({"type": "sync"}), "{garbage"] * 2500
    while time.monotonic() < stop:
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


def cpu_seconds(pid: int) -> float:
    """The user and system CPU time of process ``pid`` so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def half(
    address: str, args: argparse.Namespace, flooders: int, seed: int, server: int
) -> tuple[list[float], dict[str, int], float]:
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=f"http://{address}", timeout=60) as http:
        tables = await asyncio.gather(*(open_game(http, seed + i) for i in range(args.games)))
    stop = time.monotonic() + args.seconds
    cpu = cpu_seconds(server)
    latencies: list[float] = []
    tasks = []
    for table in tables:
        url = f"ws://{address}/ws/{table['table']}"
        for token in (table["token"], table["second_token"]):
            tasks.append(
                person(url, token, random.Random(rng.random()), args.think, stop, latencies)
            )
    targets = [
        (tables[i % len(tables)]["table"], tables[i % len(tables)]["spectator_token"])
        for i in range(flooders)
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
    cuts = statistics.quantiles(latencies, n=100)
    print(
        f"{name}: {len(latencies)} moves in {seconds:.0f} s; move sent to ack: "
        f"p50 {cuts[49] * 1000:.1f} ms, p99 {cuts[98] * 1000:.1f} ms, "
        f"max {max(latencies) * 1000:.1f} ms; server CPU {cpu:.1f} s"
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
        options += ["--connections-per-address", "0"]
        with serve_process(port, *options, pythonpath=str(SRC)) as server:
            asyncio.run(run(args, f"127.0.0.1:{port}", server.pid))


if __name__ == "__main__":
    main()
