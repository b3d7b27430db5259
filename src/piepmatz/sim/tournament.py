"""Tournament statistics: win rates, scores, score sheets, turn-order effects and ratings.

Conventions (also in ``piepmatz tournament --help``):

- Statistics are per *seat-game*: a bot filling two seats of one game counts two seat-games.
- A shared win (E5: still tied after the most-birds tiebreak) between ``w`` players counts as
  ``1/w`` of a win for each of them, so the win rates of one game add up to 1.
- Win-rate intervals are Wilson 95 % intervals; score intervals are Student *t* 95 % intervals
  (see :mod:`piepmatz.sim.stats`).
- *Position* is the turn order: position 1 is the first player (S5), then clockwise. The win rate
  by position shows the first-player advantage.
- Ratings: OpenSkill's Plackett–Luce model, one update per game in game-index order, ranking the
  seats by total and then by birds (E5's order). A bot filling several seats of one game takes the
  mean of its seats' updated ratings.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from piepmatz.text.lines import wrapped

from .play import GameResult, MatchConfig
from .stats import MeanInterval, mean_interval, wilson

REPORT_FORMAT: Final = "piepmatz-tournament"
REPORT_VERSION: Final = 1


@dataclass(frozen=True, slots=True)
class Rate:
    """A (fractional) win count out of ``games`` with its Wilson interval."""

    wins: float
    games: int

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else math.nan

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    def to_json(self) -> dict[str, Any]:
        low, high = self.interval
        return {"wins": self.wins, "games": self.games, "rate": self.rate, "low": low, "high": high}


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """A conservative skill estimate: ``mu - 3 sigma``."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class BotSummary:
    label: str
    spec: str
    win: Rate
    score: MeanInterval
    #: Mean score sheet per seat-game: seeds, pairs, pair_points, singles, birds.
    sheet: dict[str, float]
    #: Win rate by turn-order position (index 0 = first player).
    positions: tuple[Rate, ...]
    rating: Rating
    #: Every final total, in game order (for score distributions).
    totals: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.label,
            "spec": self.spec,
            "win": self.win.to_json(),
            "score": {
                "mean": self.score.mean,
                "sd": self.score.sd,
                "low": self.score.low,
                "high": self.score.high,
            },
            "sheet": dict(self.sheet),
            "positions": [r.to_json() for r in self.positions],
            "rating": {
                "mu": self.rating.mu,
                "sigma": self.rating.sigma,
                "ordinal": self.rating.ordinal,
            },
        }


@dataclass(frozen=True)
class TournamentReport:
    config: MatchConfig
    bots: tuple[BotSummary, ...]
    #: Win rate by turn-order position over all seats of all games.
    positions: tuple[Rate, ...]
    games: int
    shared_wins: int
    turns: MeanInterval

    def to_json(self) -> dict[str, Any]:
        return {
            "format": REPORT_FORMAT,
            "version": REPORT_VERSION,
            "config": self.config.to_json(),
            "lineups": [[self.config.labels[e] for e in lineup] for lineup in self.config.lineups],
            "games": self.games,
            "shared_wins": self.shared_wins,
            "mean_turns": self.turns.mean,
            "positions": [r.to_json() for r in self.positions],
            "bots": [b.to_json() for b in self.bots],
        }

    def csv(self) -> str:
        """One row per bot."""
        n = self.config.players
        head = [
            "bot", "spec", "games", "wins", "win_rate", "win_low", "win_high",
            "score_mean", "score_sd", "score_low", "score_high",
            "seeds", "pairs", "pair_points", "singles", "birds",
            *(f"win_rate_position_{k + 1}" for k in range(n)),
            "mu", "sigma", "ordinal",
        ]  # fmt: skip
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(head)
        for b in self.bots:
            low, high = b.win.interval
            writer.writerow([
                b.label, b.spec, b.win.games, b.win.wins, b.win.rate, low, high,
                b.score.mean, b.score.sd, b.score.low, b.score.high,
                *(b.sheet[k] for k in ("seeds", "pairs", "pair_points", "singles", "birds")),
                *(r.rate for r in b.positions),
                b.rating.mu, b.rating.sigma, b.rating.ordinal,
            ])  # fmt: skip
        return out.getvalue()

    def table(self) -> str:
        """The report as plain text for a terminal, 80 columns wide for the usual bot names:
        the results, then the mean score sheet beside the win rate in each turn order."""
        c = self.config
        n = c.players
        lines = [
            *prose(
                f"Piepmatz tournament: {c.players} players, rules {c.rules.name}, seed {c.seed}"
            ),
            f"{self.games} games: {c.deals} deal{'s' * (c.deals != 1)} x {len(c.lineups)} "
            f"lineup{'s' * (len(c.lineups) != 1)}, {c.seating} seating",
            *plugins_line(c),
            "",
        ]
        rows = [["bot", "seat-games", "win rate [95% CI]", "score [95% CI]", "rating"]]
        for b in self.bots:
            low, high = b.win.interval
            rows.append([
                b.label, str(b.win.games),
                f"{b.win.rate:.1%} [{low:.1%}, {high:.1%}]",
                f"{b.score.mean:.1f} [{b.score.low:.1f}, {b.score.high:.1f}]",
                f"{b.rating.mu:.1f}±{b.rating.sigma:.1f}",
            ])  # fmt: skip
        lines.extend(_columns(rows))
        lines += ["", "The mean score sheet, and the win rate in each turn order:", ""]
        rows = [["bot", "seeds", "pairs", "singles", "birds", *(_ordinal(k) for k in range(n))]]
        for b in self.bots:
            rows.append([
                b.label, f"{b.sheet['seeds']:.1f}", f"{b.sheet['pair_points']:.1f}",
                f"{b.sheet['singles']:.1f}", f"{b.sheet['birds']:.1f}",
                *(f"{r.rate:.1%}" for r in b.positions),
            ])  # fmt: skip
        lines.extend(_columns(rows))
        lines.append("")
        parts = []
        for k, r in enumerate(self.positions):
            low, high = r.interval
            parts.append(f"{_ordinal(k)} {r.rate:.1%} [{low:.1%}, {high:.1%}]")
        lines += prose(f"win rate by turn order (fair: {1 / n:.1%}): ", *parts, sep=", ")
        lines += prose(
            f"shared wins: {self.shared_wins} of {self.games} games; "
            f"mean length {self.turns.mean:.1f} turns"
        )
        lines += prose(
            "win rates count a shared win as 1/w for each of w winners; seeds, pairs and singles "
            "are points, birds the birds collected; the rating is OpenSkill's mu±sigma"
        )
        return "\n".join(lines)


def prose(head: str, *parts: str, sep: str = "") -> list[str]:
    """``head`` and then ``parts`` (joined by ``sep``) wrapped to the terminal's width, the
    later lines indented; a line breaks at a space of ``head`` or between two parts, never
    inside a part (an interval stays whole).

    >>> prose("win rate: ", "1st 50.0% [40.1%, 59.9%]", "2nd 50.0% [40.1%, 59.9%]", sep=", ")
    ['win rate: 1st 50.0% [40.1%, 59.9%], 2nd 50.0% [40.1%, 59.9%]']
    """
    whole = sep.join(p.replace(" ", "\N{NO-BREAK SPACE}") for p in parts)
    return [line.replace("\N{NO-BREAK SPACE}", " ") for line in wrapped(head + whole, later="  ")]


def plugins_line(config: MatchConfig) -> list[str]:
    """The header line naming the plugins the bots came from, if any (so a report says so)."""
    return [f"plugins: {', '.join(config.plugins)}"] if config.plugins else []


def json_safe(data: Any) -> Any:
    """``data`` with NaN and infinities (undefined intervals of tiny samples) as ``None``.

    >>> json_safe({"low": float("-inf"), "rates": [0.5, float("nan")]})
    {'low': None, 'rates': [0.5, None]}
    """
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: json_safe(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [json_safe(v) for v in data]
    return data


def _ordinal(k: int) -> str:
    return ("1st", "2nd", "3rd", "4th")[k]


def _columns(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    ]


def win_shares(result: GameResult) -> list[float]:
    """Each seat's share of the win: 1/w for each of the w winners, 0 otherwise."""
    winners = result.winners
    return [1 / len(winners) if seat in winners else 0.0 for seat in range(len(result.lineup))]


def ranks(result: GameResult) -> list[int]:
    """Each seat's place (1 = best) by total, then birds; equal places for a full tie."""
    return result.sheet.places()


def rate_games(config: MatchConfig, results: Sequence[GameResult]) -> list[Rating]:
    """OpenSkill Plackett–Luce ratings after every game, in game-index order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = [Rating(model.mu, model.sigma) for _ in config.bots]
    for result in sorted(results, key=lambda r: r.index):
        teams = [[model.rating(mu=current[e].mu, sigma=current[e].sigma)] for e in result.lineup]
        rated = model.rate(teams, ranks=[float(r) for r in ranks(result)])
        for entry in set(result.lineup):
            seats = [s for s, e in enumerate(result.lineup) if e == entry]
            mu = math.fsum(rated[s][0].mu for s in seats) / len(seats)
            sigma = math.fsum(rated[s][0].sigma for s in seats) / len(seats)
            current[entry] = Rating(mu, sigma)
    return current


SHEET_KEYS: Final = ("seeds", "pairs", "pair_points", "singles", "birds")


def summarise(config: MatchConfig, results: Sequence[GameResult]) -> TournamentReport:
    """The report of a finished tournament (results in any order)."""
    results = sorted(results, key=lambda r: r.index)
    k, n = len(config.bots), config.players
    wins = [0.0] * k
    games = [0] * k
    totals: list[list[int]] = [[] for _ in range(k)]
    sheet_sums = [dict.fromkeys(SHEET_KEYS, 0.0) for _ in range(k)]
    pos_wins = [[0.0] * n for _ in range(k)]
    pos_games = [[0] * n for _ in range(k)]
    all_pos_wins = [0.0] * n
    all_pos_games = [0] * n
    shared = 0
    for result in results:
        shares = win_shares(result)
        shared += len(result.winners) > 1
        for seat, entry in enumerate(result.lineup):
            player = result.sheet.players[seat]
            pos = result.position(seat)
            games[entry] += 1
            wins[entry] += shares[seat]
            totals[entry].append(player.total)
            sums = sheet_sums[entry]
            sums["seeds"] += player.seeds
            sums["pairs"] += player.pairs
            sums["pair_points"] += player.pair_points
            sums["singles"] += sum(player.singles.values())
            sums["birds"] += player.birds
            pos_wins[entry][pos] += shares[seat]
            pos_games[entry][pos] += 1
            all_pos_wins[pos] += shares[seat]
            all_pos_games[pos] += 1
    ratings = rate_games(config, results)
    bots = tuple(
        BotSummary(
            label=config.labels[e],
            spec=config.bots[e],
            win=Rate(wins[e], games[e]),
            score=mean_interval(totals[e], lowest=0.0),  # no score is negative
            sheet={key: v / games[e] if games[e] else math.nan for key, v in sheet_sums[e].items()},
            positions=tuple(Rate(pos_wins[e][p], pos_games[e][p]) for p in range(n)),
            rating=ratings[e],
            totals=tuple(totals[e]),
        )
        for e in range(k)
    )
    return TournamentReport(
        config=config,
        bots=bots,
        positions=tuple(Rate(all_pos_wins[p], all_pos_games[p]) for p in range(n)),
        games=len(results),
        shared_wins=shared,
        turns=mean_interval([r.turns for r in results]),
    )
