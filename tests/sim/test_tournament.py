"""Tournament statistics on hand-made results with known answers, and on real games."""

from __future__ import annotations

import csv
import io
import json

import pytest

from piepmatz.core.scoring import PlayerScore, ScoreSheet
from piepmatz.sim import GameResult, MatchConfig, run_games, summarise
from piepmatz.sim.stats import mean_interval
from piepmatz.sim.tournament import ranks, win_shares


def _player(
    seat: int, total: int, birds: int, singles: dict[str, int] | None = None
) -> PlayerScore:
    singles = singles or {}
    pairs = 1 if total >= 20 else 0
    seeds = total - 5 * pairs - sum(singles.values())
    return PlayerScore(seat, seeds, pairs, 5 * pairs, singles, birds, total)


def _game(
    index: int, lineup: tuple[int, ...], first: int, players: list[PlayerScore]
) -> GameResult:
    keys = [(p.total, p.birds) for p in players]
    winners = tuple(p.player for p, k in zip(players, keys, strict=True) if k == max(keys))
    sheet = ScoreSheet(tuple(players), {}, winners, tiebreak=False, final=True)
    return GameResult(index, index // 2, lineup, first, (0,) * (30 + index), 30 + index, sheet)


CONFIG = MatchConfig(2, ("random", "random"), 4, seed=0)  # lineups (0, 1) and (1, 0)
GAMES = [
    _game(0, (0, 1), 0, [_player(0, 30, 10, {"BL": 3, "SP": 2}), _player(1, 20, 10)]),
    _game(1, (1, 0), 0, [_player(0, 25, 12), _player(1, 25, 12)]),  # shared win
    _game(2, (0, 1), 1, [_player(0, 10, 8), _player(1, 40, 11)]),
    _game(3, (1, 0), 1, [_player(0, 5, 7), _player(1, 50, 13)]),
]


def test_shares_and_ranks() -> None:
    assert win_shares(GAMES[1]) == [0.5, 0.5]
    assert win_shares(GAMES[2]) == [0.0, 1.0]
    assert ranks(GAMES[0]) == [1, 2]
    assert ranks(GAMES[1]) == [1, 1]


def test_summary_arithmetic_on_known_games() -> None:
    report = summarise(CONFIG, list(reversed(GAMES)))  # order of arrival does not matter
    a, b = report.bots
    assert (a.win.wins, a.win.games, a.win.rate) == (2.5, 4, 0.625)
    assert (b.win.wins, b.win.games) == (1.5, 4)
    assert a.totals == (30, 25, 10, 50)
    assert a.score.mean == pytest.approx(28.75)
    assert a.sheet["singles"] == pytest.approx(5 / 4)
    assert a.sheet["pair_points"] == pytest.approx(15 / 4)
    assert a.sheet["birds"] == pytest.approx((10 + 12 + 8 + 13) / 4)
    # Position 0 is the first player: bot 0 went first in games 0 and 3 and won both.
    assert [(r.wins, r.games) for r in a.positions] == [(2.0, 2), (0.5, 2)]
    assert [(r.wins, r.games) for r in report.positions] == [(3.5, 4), (0.5, 4)]
    assert report.shared_wins == 1
    assert report.turns.mean == pytest.approx(31.5)
    # Two wins, a tie and a loss against one win: bot 0 rates higher.
    assert a.rating.mu > 25 > b.rating.mu
    assert a.rating.sigma < 25 / 3


def test_a_score_interval_stays_within_the_possible_scores() -> None:
    """Two games far apart: the t interval alone goes below 0; no score is negative."""
    report = summarise(CONFIG, GAMES[2:])  # bot 0 scored 10 and 5, bot 1 40 and 50
    for bot in report.bots:
        assert mean_interval(bot.totals).low < 0.0
        assert bot.score.low == 0.0 < bot.score.mean < bot.score.high
        assert bot.score.high == mean_interval(bot.totals).high
    rows = list(csv.DictReader(io.StringIO(report.csv())))
    assert [float(row["score_low"]) for row in rows] == [0.0, 0.0]
    # An interval inside the range is left as it is.
    wide = summarise(CONFIG, GAMES).bots[0]
    assert wide.score.low == mean_interval(wide.totals).low > 0.0


def test_json_and_csv_carry_the_report() -> None:
    report = summarise(CONFIG, GAMES)
    data = json.loads(json.dumps(report.to_json()))
    assert data["format"] == "piepmatz-tournament"
    assert data["config"]["seed"] == 0 and data["games"] == 4
    assert data["lineups"] == [["random", "random#2"], ["random#2", "random"]]
    first = data["bots"][0]
    assert first["bot"] == "random"
    assert first["win"]["rate"] == 0.625
    assert first["win"]["low"] < 0.625 < first["win"]["high"]
    assert [p["rate"] for p in first["positions"]] == [1.0, 0.25]
    rows = list(csv.DictReader(io.StringIO(report.csv())))
    assert [r["bot"] for r in rows] == ["random", "random#2"]
    assert float(rows[0]["win_rate"]) == 0.625
    assert float(rows[1]["wins"]) == 1.5
    assert float(rows[0]["score_mean"]) == pytest.approx(28.75)
    assert float(rows[0]["win_rate_position_1"]) == 1.0
    assert float(rows[0]["mu"]) == pytest.approx(first["rating"]["mu"])
    table = report.table()
    assert "62.5%" in table and "random#2" in table and "shared wins: 1 of 4" in table


def test_real_tournament_accounts_for_every_seat() -> None:
    config = MatchConfig(3, ("random", "random", "random"), 30, seed=2)
    report = summarise(config, run_games(config, backend="inline"))
    assert report.games == 30
    assert [b.win.games for b in report.bots] == [30, 30, 30]
    assert sum(b.win.wins for b in report.bots) == pytest.approx(30)
    for b in report.bots:
        assert [r.games for r in b.positions] == [10, 10, 10]  # every bot in every turn position
        sheet = b.sheet
        assert sheet["seeds"] + sheet["pair_points"] + sheet["singles"] == pytest.approx(
            b.score.mean
        )
