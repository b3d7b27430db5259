"""A learned final-score estimate at the ISMCTS leaf: fitted here, screened as a plugin.

Two uses of one file::

    python benchmarks/learned.py fit --games 20000     # self-play, fit, write the weights
    python benchmarks/bots.py match learned:iterations=1440 heuristic --plugin \
        benchmarks/learned.py --players 4 --games 200 --processes 1 --first-deal 6000

``fit`` plays four-player games of heuristic bots, keeps a quarter of the positions, and fits by
least squares each player's *final* E4 total from features of the position: seed eggs, pair
points, the eggs of unpaired birds in species where the player leads, ties or trails, hand birds
that mate the collection, collection size, unpaired birds whose mate is still to be seen, the
eggs in hand and the seats until the player's turn, each also multiplied by the share of the
feeder cards left (so a lead early in the game can weigh less than the same lead late). It
prints how well the estimate's margin (lead over the best other player) predicts the final
margin and the winner on held-out games, against the search's own estimate
(:func:`~piepmatz.bots.evaluate.standings`, the score as it stands), and writes the weights to
``benchmarks/runs/value-4p.json``.

As a plugin, ``learned:…`` is the shipped search (any ``ismcts`` options) whose leaf reward is a
sigmoid of the learned margin instead. Measured on 2026-12-01 (README, Bots): the estimate
predicts slightly better (margin correlation 0.47 against 0.43, winner 44.9 % against 43.3 %),
and the search plays no better: +0.2 points [-4.4, +4.9] over 800 paired games.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
from collections.abc import Sequence
from pathlib import Path

from piepmatz.bots import ISMCTSBot, make_bot, register
from piepmatz.bots.evaluate import final_values, margins, sigmoid, standings
from piepmatz.core.cards import BIRD_EGGS, BIRD_SPECIES, FEEDER_EGGS, NUM_SPECIES
from piepmatz.core.scoring import PAIR_POINTS, score
from piepmatz.core.state import GAME_OVER, State
from piepmatz.core.view import view_of

WEIGHTS = Path(__file__).parent / "runs" / "value-4p.json"
#: Feeder cards of a four-player game (C3): the share left measures how far the game has gone.
FEEDER_CARDS = 36.0


def features(world: State) -> list[list[float]]:
    """One design row per player: a constant, the share of feeder cards left, the base
    features and each base feature times that share."""
    n = world.num_players
    cols = world.collections
    if any(k for k in world.kept):
        cols = [c + (world.kept[p] or []) for p, c in enumerate(cols)]
    counts = [[0] * NUM_SPECIES for _ in range(n)]
    for p in range(n):
        for b in cols[p]:
            counts[p][BIRD_SPECIES[b]] += 1
    placed = set(world.gone_birds)
    for c in cols:
        placed.update(c)
    left = (len(world.feeder_deck) + len(world.column)) / FEEDER_CARDS
    cur = world.current_player
    rows = []
    for p in range(n):
        owned = set(cols[p])
        seeds = sum(FEEDER_EGGS[s] for s in world.seed_pile(p))
        paired = held = tied = behind = live = 0
        for b in owned:
            if b ^ 1 in owned:
                paired += 1
                continue
            sp = BIRD_SPECIES[b]
            mine = counts[p][sp]
            best_other = max(counts[q][sp] for q in range(n) if q != p)
            if mine > best_other:
                held += BIRD_EGGS[b]
            elif mine == best_other:
                tied += BIRD_EGGS[b]
            else:
                behind += BIRD_EGGS[b]
            if b ^ 1 not in placed:
                live += 1
        hand = world.hands[p]
        base = [
            float(seeds),
            float(paired // 2 * PAIR_POINTS),
            float(held),
            float(tied),
            float(behind),
            float(min(2, sum(1 for b in hand if b ^ 1 in owned))),
            float(len(cols[p])),
            float(live),
            float(sum(BIRD_EGGS[b] for b in hand)),
            ((p - cur) % n) / n if cur >= 0 else 0.0,
        ]
        rows.append([1.0, left, *base, *(x * left for x in base)])
    return rows


def _self_play(deal: int) -> tuple[list[list[list[float]]], list[list[float]], list[int]]:
    """Design rows and :func:`standings` of a quarter of the positions, and the final totals."""
    players = 4
    bots = [make_bot("heuristic") for _ in range(players)]
    state = State.new_game(players, seed=deal, events=False)
    rng = random.Random(deal + 1)
    designs, estimates = [], []
    while not state.is_over():
        if rng.random() < 0.25:
            designs.append(features(state))
            estimates.append(standings(state))
        p = state.current_player
        state.apply_id(bots[p].choose(view_of(state, p), state.legal_action_ids(), rng))
    sheet = score(state.rules, state.collections, [state.seed_pile(q) for q in range(players)])
    return designs, estimates, [s.total for s in sheet.players]


def fit(games: int, first_deal: int, processes: int) -> list[float]:
    import numpy as np  # only the fit needs it

    deals = range(first_deal, first_deal + games)
    if processes > 1:
        with multiprocessing.Pool(processes) as pool:
            played = pool.map(_self_play, deals, chunksize=20)
    else:
        played = [_self_play(deal) for deal in deals]
    x, y, est, game = [], [], [], []
    for g, (designs, estimates, finals) in enumerate(played):
        for rows, values in zip(designs, estimates, strict=True):
            x += rows
            y += finals
            est += values
            game += [g] * len(rows)
    xa, ya, ea = np.array(x), np.array(y, dtype=float), np.array(est)
    held_out = np.array(game) % 5 == 0
    w = np.linalg.lstsq(xa[~held_out], ya[~held_out], rcond=None)[0]

    def lead(v: np.ndarray) -> np.ndarray:
        v = v.reshape(-1, 4)
        return np.stack([v[:, p] - np.delete(v, p, axis=1).max(axis=1) for p in range(4)], 1)

    final = lead(ya[held_out])
    for name, guess in (("standings", ea), ("learned", xa @ w)):
        m = lead(guess[held_out])
        corr = np.corrcoef(m.ravel(), final.ravel())[0, 1]
        winner = (m.argmax(1) == final.argmax(1)).mean()
        print(f"{name}: final-margin correlation {corr:.3f}, winner named {winner:.1%}")
    print(f"{held_out.sum() // 4} held-out positions of {games // 5} games")
    return [float(v) for v in w]


def learned_values(world: State, weights: Sequence[float]) -> list[float]:
    if world.phase == GAME_OVER:
        return final_values(world)
    return [sum(w * v for w, v in zip(weights, row, strict=True)) for row in features(world)]


class Learned(ISMCTSBot):
    weights: Sequence[float] = ()

    def evaluate(self, world: State) -> list[float]:  # type: ignore[override]
        return [sigmoid(m) for m in margins(learned_values(world, self.weights))]


def _build(arg: str) -> ISMCTSBot:
    bot = make_bot(f"ismcts:{arg}" if arg else "ismcts")
    assert isinstance(bot, ISMCTSBot)
    bot.__class__ = Learned  # the product's factory checked every option
    bot.weights = json.loads(WEIGHTS.read_text())["weights"]  # type: ignore[attr-defined]
    bot.name = f"learned:{arg}" if arg else "learned"
    return bot


register("learned", _build)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fit", help="self-play, fit and write the weights")
    f.add_argument("--games", type=int, default=20000)
    f.add_argument("--first-deal", type=int, default=1000)
    f.add_argument("--processes", type=int, default=2)
    args = parser.parse_args(argv)
    weights = fit(args.games, args.first_deal, args.processes)
    WEIGHTS.write_text(json.dumps({"games": args.games, "weights": weights}, indent=1) + "\n")
    print(f"weights written to {WEIGHTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
