"""What counting for ``/metrics`` costs the server, in instructions per move.

    .venv/bin/python benchmarks/metrics_cost.py --games 20 --rounds 2

A real ``piepmatz serve`` process runs under ``valgrind --tool=callgrind`` with its counting
switched off until every table is open and every seat connected; then this process plays every
seat of ``--games`` two-person games at random (as ``benchmarks/server.py`` does), and the
instructions the server executed while the games were played are read from callgrind's totals.
Instruction counts do not depend on what else runs on the machine, where timings on two shared
cores vary by a fifth from run to run. Rounds alternate ``--metrics on`` and ``--metrics off``;
the figure is instructions per move for each, and how much more ``on`` costs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import httpx
from _common import NO_LIMITS, SRC, free_port, open_table, play_seat

from piepmatz.server.client import SeatClient


async def play(address: str, games: int, seed: int, pid: int) -> int:
    """Open ``games`` tables, connect every seat, count the server's instructions while they are
    played to the end; returns the moves played."""
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=f"http://{address}", timeout=600) as http:
        tables = [await open_table(http, 2) for _ in range(games)]
    latencies: list[float] = []
    async with contextlib.AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(
                SeatClient.connect(f"ws://{address}/ws/{table['table']}", token, keep=False)
            )
            for table, tokens in tables
            for token in tokens
        ]
        for client in clients:
            await client.until("state")
        subprocess.run(
            ["callgrind_control", "--instr=on", str(pid)], check=True, capture_output=True
        )
        await asyncio.gather(
            *(play_seat(c, random.Random(rng.random()), latencies) for c in clients)
        )
        subprocess.run(
            ["callgrind_control", "--instr=off", str(pid)], check=True, capture_output=True
        )
    return len(latencies)


def one_round(metrics: str, games: int, seed: int) -> tuple[int, int]:
    """(instructions, moves) of one server with ``--metrics metrics``."""
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        out = Path(folder) / "callgrind.out"
        command = [
            *("valgrind", "--tool=callgrind", "--instr-atstart=no"),
            f"--callgrind-out-file={out}",
            *(sys.executable, "-m", "piepmatz.cli", "serve", "--port", str(port)),
            *("--database-url", f"sqlite+aiosqlite:///{folder}/server.db"),
            *("--bot-workers", "0", "--log-level", "warning", "--metrics", metrics),
            *NO_LIMITS,
        ]
        env = os.environ | {"PYTHONPATH": str(SRC)}
        process = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 900
            while True:
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5).close()
                    break
                except (urllib.error.URLError, OSError):
                    if process.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError("the server under valgrind did not start") from None
                    time.sleep(1)
            moves = asyncio.run(play(f"127.0.0.1:{port}", games, seed, process.pid))
        finally:
            process.terminate()
            process.wait(600)
        totals = re.search(r"^totals: (\d+)", out.read_text(), re.M)
        assert totals is not None, "callgrind wrote no totals"
        return int(totals.group(1)), moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="two-person games played at once")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of on and off")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    per_move: dict[str, list[float]] = {"on": [], "off": []}
    for i in range(args.rounds):
        for metrics in ("on", "off") if i % 2 == 0 else ("off", "on"):
            instructions, moves = one_round(metrics, args.games, args.seed + i)
            per_move[metrics].append(instructions / moves)
            print(
                f"metrics {metrics:3}: {instructions:,} instructions for {moves} moves = "
                f"{instructions / moves:,.0f} a move",
                flush=True,
            )
    on = sum(per_move["on"]) / len(per_move["on"])
    off = sum(per_move["off"]) / len(per_move["off"])
    print(f"mean a move: on {on:,.0f}, off {off:,.0f}: on costs {100 * (on / off - 1):+.1f} %")


if __name__ == "__main__":
    main()
