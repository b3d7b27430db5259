"""How strong a checkpoint plays: win rates against bots on fixed deals, and the learning curve.

No JAX here: a checkpoint plays as the ``ppo:PATH`` bot through the tournament code
(:func:`piepmatz.sim.play_batch`, duplicate deals with the seats rotated, every move through
:func:`piepmatz.bots.base.decide`), so what is measured is exactly what a tournament plays.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from piepmatz.core.rules import Rules
from piepmatz.sim import GameResult, MatchConfig, play_batch
from piepmatz.sim.stats import wilson
from piepmatz.sim.tournament import win_shares


@dataclass(frozen=True)
class WinRate:
    opponent: str
    wins: float
    games: int

    @property
    def rate(self) -> float:
        return self.wins / self.games

    @property
    def interval(self) -> tuple[float, float]:
        """95 % Wilson interval (a shared win counts 1/k, as in tournaments)."""
        return wilson(self.wins, self.games)

    def to_json(self) -> dict[str, Any]:
        low, high = self.interval
        return {
            "opponent": self.opponent,
            "wins": self.wins,
            "games": self.games,
            "rate": self.rate,
            "low": low,
            "high": high,
        }


def play_checkpoint(
    path: str | Path,
    opponent: str,
    games: int,
    seed: int,
    players: int = 2,
    rules: str = "standard",
) -> list[GameResult]:
    """``games`` games (rounded up to whole deals) of the checkpoint in one seat against
    ``opponent`` in every other seat (so that a fair share is ``1 / players``); the deals and
    the bots' generators follow ``seed`` alone."""
    config = MatchConfig(
        players=players,
        # One entry per seat: with fewer, the lineups cycle the list, and at three or four
        # players the checkpoint would sit in two seats.
        bots=(f"ppo:{path}", *[opponent] * (players - 1)),
        games=games,
        seed=seed,
        rules=Rules.parse(rules),
    )
    return play_batch(config, 0, config.total_games)


def shares(results: Sequence[GameResult]) -> list[float]:
    """The checkpoint's (entry 0's) share of the win in each game."""
    out = []
    for result in results:
        split = win_shares(result)
        out.append(sum(s for seat, s in enumerate(split) if result.lineup[seat] == 0))
    return out


def win_rate(opponent: str, results: Sequence[GameResult]) -> WinRate:
    """The checkpoint's win rate in ``results`` (games of :func:`play_checkpoint`)."""
    return WinRate(opponent, sum(shares(results)), len(results))


def plot_curve(
    points: Sequence[dict[str, Any]], path: str | Path, title: str = "", players: int = 2
) -> Path:
    """A PNG of the win rate against each opponent over training steps, with 95 % bands, and
    a dotted line at a fair share of the wins (``1 / players``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    opponents = [rate["opponent"] for rate in points[0]["rates"]] if points else []
    for k, opponent in enumerate(opponents):
        steps = [p["steps"] for p in points]
        rates = [p["rates"][k] for p in points]
        line = ax.plot(steps, [r["rate"] for r in rates], marker="o", label=f"vs {opponent}")
        ax.fill_between(
            steps,
            [r["low"] for r in rates],
            [r["high"] for r in rates],
            alpha=0.2,
            color=line[0].get_color(),
        )
    ax.axhline(1 / players, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlabel("learner steps")
    ax.set_ylabel("win rate (95 % Wilson interval)")
    ax.set_ylim(0, 1)
    ax.set_title(title or "PPO learning curve")
    ax.legend(loc="best")
    fig.tight_layout()
    target = Path(path)
    fig.savefig(target, dpi=100)
    plt.close(fig)
    return target


def write_curve(points: Sequence[dict[str, Any]], path: str | Path) -> None:
    Path(path).write_text(json.dumps(list(points), indent=1) + "\n", encoding="utf-8")
