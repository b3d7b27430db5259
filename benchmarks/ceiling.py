"""How much hidden information is worth to the search: a ceiling for fair play.

Plays an ISMCTS bot against copies of another bot, as ``bots.py match`` does (the same deals,
seat rotations, bot seeds and ``--save`` records), but tells the search what no fair player
knows: every world it samples is the true state with only some cards dealt again at random::

    python benchmarks/ceiling.py hands ismcts:iterations=1440 --players 4 --games 200 \\
        --first-deal 6000 --processes 2 --save told.jsonl
    python benchmarks/bots.py match ismcts:iterations=1440 heuristic --players 4 --games 200 \\
        --first-deal 6000 --processes 2 --save fair.jsonl
    python benchmarks/bots.py pool --paired told.jsonl fair.jsonl

``hands``: the search knows the other players' hands, kept and discarded birds and blind seeds;
the bird and feeder decks are shuffled again for each world. ``all``: it knows the decks' order
too, so every world is the true state (the search still models the others by its rollouts).
A search told the hands that wins no more than the fair one leaves nothing for inferring hands
from the others' play (docs/bot-strength.md, "Where the ceiling lies").
"""

from __future__ import annotations

import argparse
import functools
import random
from collections.abc import Sequence

import bots as bench  # benchmarks/bots.py, beside this script
from piepmatz.args import positive, unwritable
from piepmatz.bots import ISMCTSBot, make_bot
from piepmatz.bots.base import Bot
from piepmatz.bots.evaluate import Resampler, shuffled
from piepmatz.core.state import State
from piepmatz.core.view import PlayerView

TOLD = ("hands", "all")


class TrueWorlds(Resampler):
    """Worlds dealt from the true state: ``hands`` reshuffles both decks, ``all`` nothing."""

    __slots__ = ("_decks", "_truth")

    def __init__(self, truth: State, decks: bool) -> None:
        # No view and no determinisation: the worlds come from the truth.
        self._truth = truth
        self._decks = decks

    def sample(self, rng: random.Random) -> State:
        world = self._truth.copy(events=False)
        if self._decks:
            world.bird_deck = shuffled(world.bird_deck, rng)
            world.feeder_deck = shuffled(world.feeder_deck, rng)
            world.rng = rng.getrandbits(64)
        return world


def tell(bot: Bot, told: str, truth: State) -> None:
    """Make ``bot``'s searches sample from :class:`TrueWorlds` of ``truth`` (the live state)."""
    if not isinstance(bot, ISMCTSBot):
        raise SystemExit(f"ceiling.py: {bot.name!r} is not an ISMCTS bot")

    def sampler(view: PlayerView, rng: random.Random) -> Resampler:
        assert truth.current_player == view.player
        return TrueWorlds(truth, decks=told == "hands")

    bot.sampler = sampler  # type: ignore[method-assign]


def play_told(
    told: str, specs: Sequence[str], seat: int, deal: int, players: int, bot_seed: int
) -> tuple[int, ...]:
    """One game of ``bots.py match``, the search in ``seat`` told the hidden cards."""
    return bench.play_game(
        specs, deal, players, bot_seed, prepare=lambda bots, state: tell(bots[seat], told, state)
    )


def run(
    told: str,
    first: str,
    second: str,
    players: int,
    games: int,
    processes: int,
    first_deal: int,
    save: str | None,
) -> float:
    """``bots.py match`` with the search told: the same deals, seats, bot seeds and records."""
    rate, _, _, _ = bench.match(
        first,
        second,
        players,
        games,
        processes,
        first_deal,
        save,
        play=functools.partial(play_told, told),
        label=f"told-{told}:{first}",
    )
    return rate


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("told", choices=TOLD, help="what the search is told")
    parser.add_argument("first", help="the ISMCTS bot, e.g. ismcts:iterations=1440")
    parser.add_argument("second", nargs="?", default="heuristic", help="its opponents' bot")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=4)
    parser.add_argument(
        "--games", type=positive("--games"), default=100, help="deals (x players seats)"
    )
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--processes", type=positive("--processes"), default=1)
    parser.add_argument("--save", metavar="FILE", help="write one JSON line per game to FILE")
    args = parser.parse_args(argv)
    try:
        first = make_bot(args.first)
        make_bot(args.second)
    except ValueError as exc:
        parser.error(str(exc))
    if not isinstance(first, ISMCTSBot):
        parser.error(f"{args.first!r} is not an ISMCTS bot: only a search can be told anything")
    if args.save and (why := unwritable(args.save)):
        parser.error(f"--save: {why}")
    run(
        args.told,
        args.first,
        args.second,
        args.players,
        args.games,
        args.processes,
        args.first_deal,
        args.save,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
