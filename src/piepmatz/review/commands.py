"""``piepmatz review``: light argument parsing; the search, tqdm and matplotlib are imported only
when the command runs."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from piepmatz.args import add_language, positive, unwritable

NOTES = """\
Every decision of the player is valued from that player's view at the time: for each legal
option the search samples the hidden cards again and again and plays on, and the option's
estimate is the mean over the sampled worlds (with its spread) of the player's final lead over
the best other player, in points, and of the win chance. The move played is graded by the
points of lead it lost against the best option: best, good (< 1), inaccuracy (< 2), mistake
(< 4), blunder (4 or more). Accuracy is the share of decisions graded best or good.

A record is a game record (piepmatz demo --record, piepmatz replay), a terminal-game save, or
a tournament's --records file (one record per line: choose one with --game). An unfinished game
is reviewed up to where it stands."""


def register(subparsers: Any) -> None:
    from piepmatz.bots.analysis import DEFAULT_ITERATIONS

    r = subparsers.add_parser(
        "review",
        help="review a game: grade every decision of a player against the search",
        description="Review one player's decisions in a recorded game.",
        epilog=NOTES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("file", help="a game record, a terminal-game save or a JSON-lines file")
    r.add_argument(
        "--player",
        type=int,
        default=None,
        help="the player to review, counted from 1 (1 plays the first seat); a game with one "
        "person among bots reviews that person unless told",
    )
    r.add_argument(
        "--game",
        type=int,
        default=None,
        metavar="N",
        help="game N of a records file (its tournament index)",
    )
    r.add_argument(
        "--iterations",
        type=positive("--iterations"),
        default=DEFAULT_ITERATIONS,
        help=f"search iterations per option (default {DEFAULT_ITERATIONS})",
    )
    r.add_argument("--seed", type=int, default=1, help="the search's seed (default 1)")
    r.add_argument(
        "--processes",
        type=positive("--processes"),
        default=os.cpu_count() or 1,
        help="worker processes (default: every core)",
    )
    r.add_argument("--json", action="store_true", help="print the review as JSON instead")
    r.add_argument("--plot", metavar="FILE.png", help="draw the win chances over the game")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    add_language(r)
    r.set_defaults(func=run_review, extra="review")


def _fail(message: str) -> int:
    sys.stderr.write(f"piepmatz review: error: {message}\n")
    return 2


def run_review(args: argparse.Namespace) -> int:
    if args.plot:
        problem = unwritable(args.plot)
        if problem:
            return _fail(f"argument --plot: {problem}")
    from piepmatz.records import HUMAN, GameFileError, load_game

    from .run import run

    try:
        loaded = load_game(args.file, args.game)
    except GameFileError as exc:
        return _fail(str(exc))
    game = loaded.game
    players = game.options.players
    if args.player is None:
        people = [p for p, kind in enumerate(loaded.seats or []) if kind == HUMAN]
        if len(people) != 1:
            who = "its seats are not named" if loaded.seats is None else f"{len(people)} people"
            return _fail(
                f"argument --player: say which player to review, 1-{players} ({who} in this game)"
            )
        args.player = people[0] + 1
    if not 1 <= args.player <= players:
        return _fail(
            f"argument --player: no player {args.player} in this {players}-player game "
            f"(players are 1-{players})"
        )
    return run(args, game, loaded.where, args.player - 1, loaded.names)
