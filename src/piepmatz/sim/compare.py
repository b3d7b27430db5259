"""Rule presets and flags compared on the same deals.

Every rule set plays the same games: the same deal seeds, the same lineups and the same bot
random seeds (none of them depends on the rules), so differences come from the rules, not the
cards. Reported per rule set: game length (turns and decisions), the score spread (winner's total
minus the lowest total), the mean score, and the first player's win rate (a shared win counts
``1/w``; Wilson 95 % interval).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from .play import GameResult, MatchConfig
from .stats import MeanInterval, mean_interval
from .tournament import Rate, _columns, plugins_line, prose, win_shares

COMPARE_FORMAT: Final = "piepmatz-compare"
COMPARE_VERSION: Final = 1


def _interval_json(m: MeanInterval) -> dict[str, float]:
    return {"mean": m.mean, "sd": m.sd, "low": m.low, "high": m.high}


@dataclass(frozen=True)
class RulesSummary:
    label: str
    config: MatchConfig
    games: int
    turns: MeanInterval
    decisions: MeanInterval
    #: The winner's total minus the lowest total, per game.
    margin: MeanInterval
    score: MeanInterval
    first_player: Rate
    shared_wins: int
    margins: tuple[int, ...]
    lengths: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.label,
            "preset": self.config.rules.name,
            "flags": self.config.rules.to_json(),
            "games": self.games,
            "turns": _interval_json(self.turns),
            "decisions": _interval_json(self.decisions),
            "margin": _interval_json(self.margin),
            "score": _interval_json(self.score),
            "first_player": self.first_player.to_json(),
            "shared_wins": self.shared_wins,
        }


def summarise_rules(label: str, config: MatchConfig, results: Sequence[GameResult]) -> RulesSummary:
    first_wins = 0.0
    margins: list[int] = []
    shared = 0
    for result in results:
        first_wins += win_shares(result)[result.first_player]
        totals = result.totals
        margins.append(max(totals) - min(totals))
        shared += len(result.winners) > 1
    return RulesSummary(
        label=label,
        config=config,
        games=len(results),
        turns=mean_interval([r.turns for r in results]),
        decisions=mean_interval([r.decisions for r in results]),
        margin=mean_interval(margins, lowest=0.0),  # the spread of one game's scores
        score=mean_interval([t for r in results for t in r.totals], lowest=0.0),
        first_player=Rate(first_wins, len(results)),
        shared_wins=shared,
        margins=tuple(margins),
        lengths=tuple(r.turns for r in results),
    )


@dataclass(frozen=True)
class ComparisonReport:
    rules: tuple[RulesSummary, ...]

    def to_json(self) -> dict[str, Any]:
        base = self.rules[0].config
        return {
            "format": COMPARE_FORMAT,
            "version": COMPARE_VERSION,
            "players": base.players,
            "bots": list(base.bots),
            "seed": base.seed,
            "seating": base.seating,
            "games": self.rules[0].games,
            "rules": [r.to_json() for r in self.rules],
        }

    def csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([
            "rules", "games", "turns_mean", "turns_low", "turns_high", "decisions_mean",
            "margin_mean", "margin_sd", "score_mean", "first_player_win_rate",
            "first_player_low", "first_player_high", "shared_wins",
        ])  # fmt: skip
        for r in self.rules:
            low, high = r.first_player.interval
            writer.writerow([
                r.label, r.games, r.turns.mean, r.turns.low, r.turns.high, r.decisions.mean,
                r.margin.mean, r.margin.sd, r.score.mean, r.first_player.rate, low, high,
                r.shared_wins,
            ])  # fmt: skip
        return out.getvalue()

    def table(self) -> str:
        """The comparison as plain text for a terminal, 80 columns wide for the usual rule
        sets: the games' length and spread, then the first player's advantage."""
        base = self.rules[0].config
        n = base.players
        lines = [
            *prose(
                f"Piepmatz rules compared: {n} players, bots {' '.join(base.bots)}, "
                f"seed {base.seed}"
            ),
            f"{self.rules[0].games} games per rule set, on the same deals",
            *plugins_line(base),
            "",
        ]
        rows = [["rules", "turns [95% CI]", "decisions", "margin (sd)", "score"]]
        for r in self.rules:
            rows.append([
                r.label,
                f"{r.turns.mean:.1f} [{r.turns.low:.1f}, {r.turns.high:.1f}]",
                f"{r.decisions.mean:.1f}",
                f"{r.margin.mean:.1f} ({r.margin.sd:.1f})",
                f"{r.score.mean:.1f}",
            ])  # fmt: skip
        lines.extend(_columns(rows))
        lines += ["", f"The first player's win rate (fair: {1 / n:.1%}), and shared wins:", ""]
        rows = [["rules", "win rate [95% CI]", "shared wins"]]
        for r in self.rules:
            low, high = r.first_player.interval
            rate = f"{r.first_player.rate:.1%} [{low:.1%}, {high:.1%}]"
            rows.append([r.label, rate, f"{r.shared_wins} of {r.games}"])
        lines.extend(_columns(rows))
        lines.append("")
        lines += prose(
            "turns count every player's turns; margin: the winner's total minus the lowest, "
            "mean (sd); score = the mean total; a shared win counts 1/w"
        )
        return "\n".join(lines)
