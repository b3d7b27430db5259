"""PNG plots of a tournament or a rules comparison (matplotlib, Agg backend, no display needed)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from .compare import ComparisonReport
from .tournament import TournamentReport


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _error_bars(rates: list[tuple[float, tuple[float, float]]]) -> list[list[float]]:
    return [[r - lo for r, (lo, _) in rates], [hi - r for r, (_, hi) in rates]]


def tournament_plots(report: TournamentReport, directory: str | Path) -> list[Path]:
    """Write ``win_rates.png``, ``scores.png`` and ``positions.png``; returns their paths."""
    plt = _pyplot()
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    labels = [b.label for b in report.bots]
    n = report.config.players
    paths = []

    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * len(labels)))
    rates = [(b.win.rate, b.win.interval) for b in report.bots]
    ax.barh(labels, [r for r, _ in rates], xerr=_error_bars(rates), capsize=4, color="tab:blue")
    ax.axvline(1 / n, color="grey", linestyle="--", linewidth=1, label=f"fair share 1/{n}")
    ax.invert_yaxis()
    ax.set_xlabel("win rate per seat-game (95 % Wilson interval)")
    ax.set_xlim(0, 1)
    ax.legend(loc="lower right")
    ax.set_title(f"Win rates — {report.games} games, seed {report.config.seed}")
    paths.append(_save(fig, out / "win_rates.png"))

    fig, ax = plt.subplots(figsize=(7, 4))
    totals = [b.totals for b in report.bots]
    ax.violinplot(totals, showmeans=True, showextrema=True)
    ax.set_xticks(range(1, len(labels) + 1), labels, rotation=20)
    ax.set_ylabel("final score")
    ax.set_title("Score distributions")
    paths.append(_save(fig, out / "scores.png"))

    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / max(1, len(labels))
    for i, b in enumerate(report.bots):
        rates = [(r.rate, r.interval) for r in b.positions]
        xs = [k + (i - (len(labels) - 1) / 2) * width for k in range(n)]
        heights = [0.0 if math.isnan(r) else r for r, _ in rates]
        ax.bar(xs, heights, width, yerr=_error_bars(rates), capsize=3, label=b.label)
    ax.axhline(1 / n, color="grey", linestyle="--", linewidth=1)
    ax.set_xticks(range(n), [f"{k + 1}. to play" for k in range(n)])
    ax.set_ylabel("win rate (95 % Wilson interval)")
    ax.set_title("Win rate by turn order")
    ax.legend()
    paths.append(_save(fig, out / "positions.png"))
    return paths


def comparison_plots(report: ComparisonReport, directory: str | Path) -> list[Path]:
    """Write ``rules_margins.png`` and ``rules_first_player.png``; returns their paths."""
    plt = _pyplot()
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    labels = [r.label for r in report.rules]
    n = report.rules[0].config.players
    paths = []

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.violinplot([r.margins for r in report.rules], showmeans=True)
    ax.set_xticks(range(1, len(labels) + 1), labels, rotation=15)
    ax.set_ylabel("winner's total minus lowest total")
    ax.set_title("Score spread")
    paths.append(_save(fig, out / "rules_margins.png"))

    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * len(labels)))
    rates = [(r.first_player.rate, r.first_player.interval) for r in report.rules]
    ax.barh(labels, [r for r, _ in rates], xerr=_error_bars(rates), capsize=4, color="tab:green")
    ax.axvline(1 / n, color="grey", linestyle="--", linewidth=1, label=f"fair share 1/{n}")
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("first player's win rate (95 % Wilson interval)")
    ax.legend(loc="lower right")
    paths.append(_save(fig, out / "rules_first_player.png"))
    return paths


def _save(fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    fig.clear()
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path
