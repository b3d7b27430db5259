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
import contextlib
import json
import multiprocessing
import random
import time
from collections.abc import Iterable, Sequence

from piepmatz.args import positive, unwritable
from piepmatz.bots import ISMCTSBot, make_bot
from piepmatz.bots.base import Bot, decide
from piepmatz.bots.evaluate import Resampler, shuffled
from piepmatz.core.scoring import score
from piepmatz.core.state import State
from piepmatz.core.view import PlayerView, view_of
from piepmatz.sim.stats import wilson

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


class ToldSearch:
    """Wraps an ISMCTS bot so that each of its searches samples from :class:`TrueWorlds`."""

    def __init__(self, bot: ISMCTSBot, told: str) -> None:
        self.bot = bot
        self.told = told
        self.truth: State | None = None
        bot.sampler = self._sampler  # type: ignore[method-assign]

    def _sampler(self, view: PlayerView, rng: random.Random) -> Resampler:
        assert self.truth is not None and self.truth.current_player == view.player
        return TrueWorlds(self.truth, decks=self.told == "hands")


def play_game(
    told: str, specs: Sequence[str], seat: int, deal: int, players: int, bot_seed: int
) -> tuple[int, ...]:
    """One game, seat i by ``specs[i]``, the search in ``seat`` told the hidden cards."""
    bots: list[Bot] = [make_bot(s) for s in specs]
    search = bots[seat]
    if not isinstance(search, ISMCTSBot):
        raise SystemExit(f"ceiling.py: {specs[seat]!r} is not an ISMCTS bot")
    told_search = ToldSearch(search, told)
    state = State.new_game(players, seed=deal, events=False)
    rng = random.Random(bot_seed)
    while not state.is_over():
        p = state.current_player
        told_search.truth = state
        state.apply_id(decide(bots[p], view_of(state, p), state.legal_action_ids(), rng))
    piles = [state.seed_pile(q) for q in range(players)]
    return score(state.rules, state.collections, piles).winners


Result = tuple[int, int, float, float]  # deal, seat, result, seconds


def _game_task(task: tuple[str, str, str, int, int, int]) -> Result:
    told, first, second, players, deal, seat = task
    specs = [second] * players
    specs[seat] = first
    start = time.perf_counter()
    # The same bot seed as bots.py match, so that `pool --paired` compares like with like.
    winners = play_game(told, specs, seat, deal, players, bot_seed=deal * 16 + seat)
    result = 1.0 / len(winners) if seat in winners else 0.0
    return deal, seat, result, time.perf_counter() - start


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
    tasks = [
        (told, first, second, players, deal, seat)
        for deal in range(first_deal, first_deal + games)
        for seat in range(players)
    ]
    wins = 0.0
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(open(save, "w", encoding="utf-8")) if save else None
        if processes > 1:
            pool = stack.enter_context(multiprocessing.Pool(processes))
            played: Iterable[Result] = pool.imap_unordered(_game_task, tasks)
        else:
            played = map(_game_task, tasks)
        pairing = {"first": f"told-{told}:{first}", "second": second, "players": players}
        for deal, seat, result, seconds in played:
            wins += result
            if out is not None:
                record = pairing | {"deal": deal, "seat": seat, "result": result}
                out.write(json.dumps(record | {"seconds": round(seconds, 3)}) + "\n")
                out.flush()
    n = len(tasks)
    lo, hi = wilson(wins, n)
    print(
        f"{first} told the {'hidden hands' if told == 'hands' else 'hands and decks'} vs "
        f"{players - 1}x {second}, {players} players: {wins:g}/{n} = {wins / n:.1%} won, "
        f"95% Wilson [{lo:.1%}, {hi:.1%}]",
        flush=True,
    )
    return wins / n


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
