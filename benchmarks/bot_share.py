"""The bot workers shared fairly: cheap tables' bots beside tables whose bot thinks to the ceiling.

    .venv/bin/python benchmarks/bot_share.py --tables 10 --slow 1 --seconds 20

The server's bot pool (``piepmatz.server.pool.BotPool``, its fair share of ``--workers``
processes) is asked, as the server asks it, by ``--slow`` tables whose bot is a search that
thinks until just below the ceiling (``--slow-bot``, ``--timeout``) and by ``--tables`` tables of
``random`` bots, each of which asks for a move now and then (``--pause``), as a table of people
and bots does. Printed: the random bots' decision times (asked to answered) and how many
decisions each kind made. The fair share is meant to keep the cheap bots' p99 under 100 ms
while one table at the ceiling holds a worker.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from _common import latency_figures

from piepmatz.core import Game
from piepmatz.server.pool import BotPool


async def run(args: argparse.Namespace) -> tuple[list[float], int]:
    pool = BotPool(args.workers, timeout=args.timeout)
    game = Game.new(3, seed=4)
    view = game.view(game.state.current_player)
    legal = game.state.legal_action_ids()
    took: list[float] = []
    slow_moves = 0
    await pool.choose("random", view, legal, 0, owner="warm-up")  # the workers have started
    stop = time.monotonic() + args.seconds

    async def slow_table(n: int) -> None:
        nonlocal slow_moves
        while time.monotonic() < stop:
            await pool.choose(args.slow_bot, view, legal, n, owner=f"slow{n}")
            slow_moves += 1

    async def random_table(n: int) -> None:
        while time.monotonic() < stop:
            started = time.monotonic()
            await pool.choose("random", view, legal, n, owner=f"table{n}")
            took.append(time.monotonic() - started)
            await asyncio.sleep(args.pause)

    try:
        await asyncio.gather(
            *(slow_table(n) for n in range(args.slow)),
            *(random_table(n) for n in range(args.tables)),
        )
    finally:
        pool.close()
    return took, slow_moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=10, help="tables of random bots (10)")
    parser.add_argument("--slow", type=int, default=1, help="tables at the ceiling (1)")
    parser.add_argument("--slow-bot", default="ismcts:time=0.9", help="their bot (ismcts:time=0.9)")
    parser.add_argument("--timeout", type=float, default=1.0, help="the ceiling, seconds (1.0)")
    parser.add_argument("--workers", type=int, default=2, help="bot worker processes (2)")
    parser.add_argument("--pause", type=float, default=0.02, help="seconds between moves (0.02)")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long (20)")
    args = parser.parse_args()
    took, slow_moves = asyncio.run(run(args))
    print(
        f"{args.tables} random tables, {args.slow} at the ceiling ({args.slow_bot}, "
        f"--bot-timeout {args.timeout:g}), {args.workers} workers, {args.seconds:g} s"
    )
    print(f"random bots: {len(took)} decisions; asked to answered: {latency_figures(took)}")
    print(f"tables at the ceiling: {slow_moves} decisions")


if __name__ == "__main__":
    main()
