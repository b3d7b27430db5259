"""Load on the game server: concurrent three-seat games over real WebSockets on loopback.

    python benchmarks/load.py --pace 2 --games 1000 --seats 3          # (a) people's pace
    python benchmarks/load.py --flat-out                               # (b) as fast as it goes
    python benchmarks/load.py --pace 2 --games 1000 --servers 2        # two processes
    python benchmarks/load.py --pace 2 --games 1000 --profile load.prof.txt

Real ``piepmatz serve`` processes hold the games (one with an SQLite file in a temporary
directory; ``--servers 2`` shares a fresh PostgreSQL database, made on the local PostgreSQL at
127.0.0.1:5432 and dropped afterwards unless ``--database-url`` names one, and the local Redis
unless ``--redis`` names another; the seats of a game are spread over the processes, so most
moves cross from one to the other). Client processes
(``--clients``) play every seat as a random player: they send an action, wait for its ``ack``
(sent once the move is committed) and the new state, as a browser would (and, like a browser,
send no keepalive pings of their own). The server's CPU is
read from ``/proc/PID/stat`` over the measured window, so the clients' own work is not counted.

Every table is ``live`` unless ``--table-pace`` says otherwise: the server keeps a clock for
each person, stores it with every move and sets a timer for the one whose clock runs.

(a) ``--pace P``: every game makes one move each P seconds (the games' clocks are spread over
the first P seconds). Reports games held, connections, moves per second, p50/p99 from an action
sent to its ``ack``, and the server's CPU seconds per move. The target: 1,000 games, p99 under
50 ms.

(b) ``--flat-out``: games move as fast as their clients answer, with more games in each step
(``--start`` games, doubled each step) until p99 passes 100 ms; reports the moves per second of
the busiest step that stayed under it.

``--profile FILE`` samples the server with py-spy over the measured window and writes where its
time goes (own time and time inside, per function) to FILE.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import multiprocessing
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from _common import (
    NO_LIMITS,
    SRC,
    cpu_seconds,
    free_port,
    fresh_database,
    open_table,
    play_seat,
    serve_process,
)

from piepmatz.server.client import SeatClient

LOCAL_POSTGRES = "postgresql+asyncpg://postgres@127.0.0.1:5432/"
LOCAL_REDIS = "redis://127.0.0.1:6379/0"


# ---------------------------------------------------------------------- the players


@dataclass
class GamePlan:
    table: str
    #: For each seat: the server's address and the seat's token.
    seats: list[tuple[str, str]]


@dataclass
class Figures:
    latencies: list[float] = field(default_factory=list)
    connections: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    finished: int = 0
    #: The client process's own CPU seconds over the window: near its wall time means the
    #: clients, not the server, set the pace.
    cpu: float = 0.0


async def _seat(
    client: SeatClient,
    game: dict[str, float],
    pace: float,
    stop: float,
    figures: Figures,
) -> None:
    async def clock() -> None:
        # The game's clock: one move per ``pace`` seconds, whoever's turn it is.
        await asyncio.sleep(max(0.0, game["next"] - time.time()))
        game["next"] = max(game["next"] + pace, time.time())

    rng = random.Random()
    before_move = clock if pace else None
    latencies, errors = figures.latencies, figures.errors
    if await play_seat(client, rng, latencies, before_move=before_move, stop=stop, errors=errors):
        figures.finished += 1


async def _connect(stack: contextlib.AsyncExitStack, plan: GamePlan) -> list[SeatClient]:
    clients = []
    for address, token in plan.seats:
        client = await stack.enter_async_context(
            # No pings of its own, as a browser: the server's pings are part of its load.
            SeatClient.connect(f"ws://{address}/ws/{plan.table}", token, keep=False, ping=False)
        )
        await client.until("state")
        clients.append(client)
    return clients


async def _game(
    clients: list[SeatClient], pace: float, start: float, stop: float, figures: Figures
) -> None:
    game = {"next": start + (random.uniform(0, pace) if pace else 0.0)}
    await asyncio.gather(*(_seat(c, game, pace, stop, figures) for c in clients))


async def _games_in_turn(
    share: Share,
    clients: list[SeatClient],
    seed: int,
    start: float,
    stop: float,
    figures: Figures,
) -> None:
    """Play a game; when it ends before the time is up, open the next one (held games stay as
    many all along)."""
    pace = share.pace
    await _game(clients, pace, start, stop, figures)
    while time.time() < stop:
        seed += 1_000
        (plan,) = await open_games(share.addresses, 1, share.seats, seed, share.table_pace)
        async with contextlib.AsyncExitStack() as stack:
            await _game(await _connect(stack, plan), pace, time.time(), stop, figures)


@dataclass(frozen=True)
class Share:
    """One client process's part of a measurement."""

    addresses: list[str]
    games: int
    seats: int
    seed: int
    pace: float
    duration: float
    #: Seconds played before the measured window, whose moves are not counted.
    warmup: float = 0.0
    #: The tables' pace (``live``: the server keeps a clock per person).
    table_pace: str = "live"


async def _play(share: Share, ready: Any, go: Any) -> Figures:
    addresses, seats, seed = share.addresses, share.seats, share.seed
    figures = Figures()
    plans = await open_games(addresses, share.games, seats, seed, share.table_pace)
    async with contextlib.AsyncExitStack() as stack:
        limit = asyncio.Semaphore(50)

        async def connect(plan: GamePlan) -> list[SeatClient]:
            async with limit:
                return await _connect(stack, plan)

        clients = list(await asyncio.gather(*(connect(plan) for plan in plans)))
        figures.connections = sum(len(c) for c in clients)
        # The client's long-lived objects stay out of its collector's full passes, so that its
        # pauses are not counted as the server's latency.
        gc.collect()
        gc.freeze()
        await asyncio.to_thread(ready.wait)
        start = await asyncio.to_thread(go.get)
        measured = start + share.warmup
        stop = measured + share.duration
        tasks = [
            asyncio.create_task(_games_in_turn(share, c, seed + g, start, stop, figures))
            for g, c in enumerate(clients)
        ]
        await asyncio.sleep(max(0.0, measured - time.time()))
        figures.latencies.clear()  # the warm-up's
        cpu = time.process_time()
        await asyncio.sleep(max(0.0, stop - time.time()))
        figures.cpu = time.process_time() - cpu
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return figures


def _client_process(share: Share, ready: Any, go: Any, out: Any) -> None:
    _raise_open_files()
    out.put(asyncio.run(_play(share, ready, go)))


# ---------------------------------------------------------------------- the servers


def _raise_open_files() -> int:
    """Raise the soft limit of open files to the hard one (3,000 connections need it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


@contextlib.contextmanager
def servers(args: argparse.Namespace) -> Iterator[list[tuple[str, int]]]:
    """The server processes, as (address, pid)."""
    with contextlib.ExitStack() as stack:
        folder = stack.enter_context(tempfile.TemporaryDirectory())
        # Every client connects from loopback and moves at once: the per-address and rate
        # limits, made for people, are off.
        options = ["--bot-workers", "0", "--log-level", "warning"]
        options += NO_LIMITS
        url = args.database_url
        if args.servers > 1:
            if url is None:
                # A fresh database on the local PostgreSQL, dropped afterwards.
                url = stack.enter_context(fresh_database(LOCAL_POSTGRES, "piepmatz_load"))
            options += ["--redis", args.redis]
        options += ["--database-url", url or f"sqlite+aiosqlite:///{folder}/server.db"]
        started = []
        for _ in range(args.servers):
            port = free_port()
            process = stack.enter_context(serve_process(port, *options, pythonpath=str(SRC)))
            started.append((f"127.0.0.1:{port}", process.pid))
        yield started


async def open_games(
    addresses: list[str], games: int, seats: int, seed: int, pace: str = "live"
) -> list[GamePlan]:
    """Open ``games`` tables of ``seats`` people at ``pace`` (each person's clock kept by the
    server); seat ``i`` of game ``g`` plays at server ``(g + i) % servers``."""
    clients = [httpx.AsyncClient(base_url=f"http://{a}", timeout=120) for a in addresses]
    limit = asyncio.Semaphore(50)

    async def one(g: int) -> GamePlan:
        async with limit:
            table, tokens = await open_table(clients[g % len(clients)], seats, pace)
            return GamePlan(
                table["table"],
                [(addresses[(g + i) % len(addresses)], t) for i, t in enumerate(tokens)],
            )

    try:
        return list(await asyncio.gather(*(one(g) for g in range(games))))
    finally:
        for http in clients:
            await http.aclose()


# ---------------------------------------------------------------------- one measurement


@dataclass
class Result:
    games: int
    connections: int
    moves: int
    seconds: float
    p50: float
    p99: float
    cpu: float
    errors: Counter[str]
    client_cpu: float
    clients: int

    @property
    def rate(self) -> float:
        return self.moves / self.seconds

    def lines(self, pace: float) -> list[str]:
        how = f"one move every {pace:g} s each" if pace else "flat out"
        return [
            f"games held: {self.games} ({how}), WebSocket connections: {self.connections}",
            f"moves: {self.moves} in {self.seconds:.1f} s = {self.rate:,.0f} moves/s",
            f"move sent to ack: p50 {self.p50 * 1000:.1f} ms, p99 {self.p99 * 1000:.1f} ms",
            f"server CPU: {self.cpu:.1f} s = {self.cpu / max(1, self.moves) * 1000:.2f} ms "
            f"per move ({self.cpu / self.seconds:.0%} of one core)",
            f"client CPU: {self.client_cpu:.1f} s in {self.clients} processes "
            f"({self.client_cpu / self.seconds / self.clients:.0%} of a core each)",
        ] + ([f"errors: {dict(self.errors)}"] if self.errors else [])


def measure(
    started: list[tuple[str, int]],
    games: int,
    args: argparse.Namespace,
    pace: float,
    seed: int,
    profile: Path | None = None,
) -> Result:
    addresses = [a for a, _ in started]
    context = multiprocessing.get_context("spawn")
    workers = max(1, min(args.clients, games))
    ready = context.Barrier(workers + 1)
    go = context.Queue()
    out = context.Queue()
    games_of = [games // workers + (w < games % workers) for w in range(workers)]
    processes = [
        context.Process(
            target=_client_process,
            args=(
                Share(
                    addresses,
                    games_of[w],
                    args.seats,
                    seed + w * 10**6,
                    pace,
                    args.duration,
                    args.warmup,
                    args.table_pace,
                ),
                ready,
                go,
                out,
            ),
        )
        for w in range(workers)
    ]
    for process in processes:
        process.start()
    ready.wait(timeout=900)  # every seat connected and shown its state
    start = time.time() + 0.5
    for _ in processes:
        go.put(start)
    time.sleep(max(0.0, start + args.warmup - time.time()))
    before = sum(cpu_seconds(pid) for _, pid in started)
    spy = _profile_start(started, args.duration, profile)
    figures: list[Figures] = [out.get(timeout=args.warmup + args.duration + 600) for _ in processes]
    after = sum(cpu_seconds(pid) for _, pid in started)
    for process in processes:
        process.join(60)
    if spy is not None and profile is not None:
        _profile_finish(spy, profile)
    latencies = sorted(x for f in figures for x in f.latencies)
    cuts = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [0.0] * 99
    errors: Counter[str] = Counter()
    for f in figures:
        errors.update(f.errors)
    return Result(
        games,
        sum(f.connections for f in figures),
        len(latencies),
        args.duration,
        cuts[49],
        cuts[98],
        after - before,
        errors,
        sum(f.cpu for f in figures),
        len(figures),
    )


# ---------------------------------------------------------------------- profile


def _profile_start(
    started: list[tuple[str, int]], duration: float, profile: Path | None
) -> list[tuple[subprocess.Popen[bytes], Path]] | None:
    if profile is None:
        return None
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(spy).exists():
        sys.exit("--profile needs py-spy (pip install py-spy; make test installs it)")
    out = []
    for i, (_, pid) in enumerate(started):
        raw = profile.with_suffix(f".{i}.raw")
        command = [spy, "record", "--pid", str(pid), "--duration", str(int(duration))]
        command += ["--format", "raw", "--output", str(raw), "--nonblocking"]
        out.append((subprocess.Popen(command, stdout=subprocess.DEVNULL), raw))
    return out


def _profile_finish(spy: list[tuple[subprocess.Popen[bytes], Path]], profile: Path) -> None:
    own: Counter[str] = Counter()
    inside: Counter[str] = Counter()
    total = 0
    for process, raw in spy:
        process.wait(120)
        for line in raw.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            frames = [_function(f) for f in stack.split(";")[1:]]  # the first names the process
            if not frames:
                continue
            n = int(count)
            total += n
            own[frames[-1]] += n
            for frame in set(frames):
                inside[frame] += n
        raw.unlink()
    lines = [f"py-spy samples of the server: {total}", "", "own time (the function itself):"]
    lines += [f"  {n / total:6.1%}  {f}" for f, n in own.most_common(30)]
    lines += ["", "time inside (the function and what it calls):"]
    lines += [f"  {n / total:6.1%}  {f}" for f, n in inside.most_common(40)]
    profile.write_text("\n".join(lines) + "\n")
    print(f"profile: {profile}")
    print("\n".join(lines[:14]))


def _function(frame: str) -> str:
    """``name (path/to/file.py:123)`` → ``name (file.py)``: lines of one function together."""
    name, _, where = frame.partition(" (")
    path = where.rstrip(")").rsplit(":", 1)[0]
    return f"{name} ({'/'.join(Path(path).parts[-2:])})"


# ---------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games at once (pace mode)")
    parser.add_argument("--seats", type=int, default=3, choices=(2, 3, 4))
    parser.add_argument("--pace", type=float, default=2.0, help="seconds between a game's moves")
    parser.add_argument("--flat-out", action="store_true", help="find the most moves/s")
    parser.add_argument("--start", type=int, default=10, help="games in the first flat-out step")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds measured (a step)")
    parser.add_argument(
        "--warmup", type=float, default=0.0, help="seconds played before measuring (a step)"
    )
    parser.add_argument("--servers", type=int, default=1, help="server processes")
    parser.add_argument("--clients", type=int, default=2, help="client processes")
    parser.add_argument("--database-url", default=None, help="default: SQLite, or PostgreSQL")
    parser.add_argument("--redis", default=LOCAL_REDIS, help="with --servers 2 (local Redis)")
    parser.add_argument("--profile", type=Path, default=None, help="write a py-spy summary")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--table-pace",
        default="live",
        help="the tables' pace (live: a clock per person, 5 min + 5 s a move; turn-based)",
    )
    args = parser.parse_args()
    limit = _raise_open_files()  # the servers inherit it
    print(
        f"servers: {args.servers}, client processes: {args.clients}, open files: {limit}, "
        f"cores: {os.cpu_count()}"
    )
    with servers(args) as started:
        if not args.flat_out:
            result = measure(started, args.games, args, args.pace, args.seed, args.profile)
            print("\n".join(result.lines(args.pace)))
            return
        best: Result | None = None
        games, seed = args.start, args.seed
        while True:
            # A profile of each step; the last one written is of the step that passed 100 ms.
            result = measure(started, games, args, 0.0, seed, args.profile)
            print(
                f"{games:5d} games: {result.rate:7,.0f} moves/s, p50 {result.p50 * 1000:6.1f} "
                f"ms, p99 {result.p99 * 1000:6.1f} ms, "
                f"CPU {result.cpu / max(1, result.moves) * 1000:.2f} ms/move"
            )
            if result.p99 > 0.100:
                break
            best = result
            games, seed = games * 2, seed + 10_000_000
        if best is None:
            print("p99 was over 100 ms at the first step already: try a smaller --start")
        else:
            print("sustained with p99 under 100 ms:")
            print("\n".join(best.lines(0.0)))


if __name__ == "__main__":
    main()
