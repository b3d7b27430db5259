"""What the server benchmarks share: opening tables, playing a seat at random and timing its
moves, and reading a server process's CPU time."""

from __future__ import annotations

import asyncio
import math
import os
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

from piepmatz.server.client import SeatClient

#: The sources, for the server processes' PYTHONPATH: they run this checkout, not an install.
SRC = Path(__file__).resolve().parents[1] / "src"
# Real server processes are started by the tests' scaffolding, which the benchmarks share.
sys.path.insert(0, str(SRC.parent / "tests"))
from serverprocs import free_port, fresh_database, serve_process  # noqa: E402

__all__ = ["free_port", "fresh_database", "serve_process"]


#: Every benchmark client connects from loopback and moves at once: the per-address and rate
#: limits, made for people, are off (benchmarks/flood.py measures them at work).
NO_LIMITS = ["--connections-per-address", "0", "--message-rate", "0", "--tables-per-minute", "0"]


async def open_table(
    http: httpx.AsyncClient, seats: int, pace: str | None = None
) -> tuple[dict[str, Any], list[str]]:
    """A table of ``seats`` people with every invite taken (the deal is the server's) at
    ``pace`` (the server's default unless named): the table as opened (its id, the spectator
    token…) and the seats' tokens in seat order."""
    body: dict[str, Any] = {"seats": ["human"] * seats, "name": "P0"}
    if pace is not None:
        body["pace"] = pace
    table: dict[str, Any] = (await http.post("/api/tables", json=body)).json()
    tokens = [table["token"]]
    for i, invite in enumerate(table["invites"], start=1):
        joined = await http.post(
            f"/api/tables/{table['table']}/join", json={"name": f"P{i}", "token": invite["token"]}
        )
        tokens.append(joined.json()["token"])
    return table, tokens


def thinking(rng: random.Random, think: float) -> Callable[[], Awaitable[None]] | None:
    """A person's pause before a move: ``think`` seconds on average (none for 0)."""
    if not think:
        return None
    return lambda: asyncio.sleep(rng.uniform(0, 2 * think))


async def play_seat(
    client: SeatClient,
    rng: random.Random,
    latencies: list[float],
    *,
    before_move: Callable[[], Awaitable[object]] | None = None,
    stop: float = math.inf,
    errors: Counter[str] | None = None,
) -> bool:
    """Play random legal actions at one seat until the game ends (``True``) or the wall clock
    reaches ``stop`` (``False``, whatever the seat was waiting for), adding the time from each
    action sent to its ``ack`` to ``latencies``. A refused action is counted in ``errors``, or
    raised without them."""
    try:
        async with asyncio.timeout(None if stop == math.inf else stop - time.time()):
            state = client.state if client.state is not None else await client.until("state")
            while state["result"] is None:
                if state["legal"]:
                    if before_move is not None:
                        await before_move()
                    sent = time.perf_counter()
                    await client.act(rng.choice(state["legal"]), state["move"])
                    while (answer := await client.receive())["type"] not in ("ack", "error"):
                        pass
                    if answer["type"] == "ack":
                        latencies.append(time.perf_counter() - sent)
                    elif errors is not None:
                        errors[answer["code"]] += 1
                    else:
                        raise RuntimeError(f"a move was refused: {answer['message']}")
                state = await client.until("state")
            return True
    except TimeoutError:
        return False


def latency_figures(latencies: list[float]) -> str:
    """``p50 …, p99 …, max …`` in milliseconds."""
    cuts = statistics.quantiles(latencies, n=100)
    return (
        f"p50 {cuts[49] * 1000:.1f} ms, p99 {cuts[98] * 1000:.1f} ms, "
        f"max {max(latencies) * 1000:.1f} ms"
    )


def cpu_seconds(pid: int) -> float:
    """The user and system CPU time of process ``pid`` so far, from ``/proc/PID/stat``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
