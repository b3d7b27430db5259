"""Interval arithmetic on known inputs."""

from __future__ import annotations

import math
import random

import pytest

from piepmatz.sim.stats import confidence_sequence, mean_interval, t_quantile, wilson


@pytest.mark.parametrize(
    ("wins", "n", "low", "high"),
    [
        (50, 100, 0.4038, 0.5962),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (1, 3, 0.0615, 0.7923),
        (7.5, 20, 0.1998, 0.5905),  # fractional: three shared wins count 1/2 each
    ],
)
def test_wilson_known_values(wins: float, n: int, low: float, high: float) -> None:
    lo, hi = wilson(wins, n)
    assert lo == pytest.approx(low, abs=1e-4)
    assert hi == pytest.approx(high, abs=1e-4)


def test_wilson_without_games_is_uninformative_and_checks_range() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson(11, 10)


@pytest.mark.parametrize(
    ("df", "value"),
    [(1, 12.706), (2, 4.303), (3, 3.182), (5, 2.571), (10, 2.228), (30, 2.042), (120, 1.980)],
)
def test_t_quantile_matches_the_table(df: int, value: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(value, abs=0.005)
    assert t_quantile(0.025, df) == pytest.approx(-value, abs=0.005)


def test_t_quantile_tends_to_the_normal() -> None:
    assert t_quantile(0.975, 10**7) == pytest.approx(1.959964, abs=1e-6)


def test_mean_interval_known_values() -> None:
    m = mean_interval([2, 4, 4, 4, 5, 5, 7, 9])
    assert m.mean == 5
    assert m.sd == pytest.approx(2.13809, abs=1e-5)
    half = 2.364624 * 2.13809 / math.sqrt(8)  # t(0.975, 7)
    assert (m.low, m.high) == (pytest.approx(5 - half, abs=1e-3), pytest.approx(5 + half, abs=1e-3))


def test_mean_interval_edge_cases() -> None:
    assert math.isnan(mean_interval([]).mean)
    one = mean_interval([3])
    assert one.mean == 3 and one.low == -math.inf and one.high == math.inf
    flat = mean_interval([4, 4, 4])
    assert (flat.low, flat.high, flat.sd) == (4, 4, 0)


def _deals(rng: random.Random, n: int, rate: float = 0.4) -> list[float]:
    """Per-deal means of four games, each won with probability ``rate``."""
    return [sum(rng.random() < rate for _ in range(4)) / 4 for _ in range(n)]


def test_confidence_sequence_holds_at_every_look_where_the_t_interval_does_not() -> None:
    # 200 runs of 400 deals at a true 40 %, looked at after every 25 deals (16 looks, as a
    # figure is pooled again after each run): the t interval misses 40 % at some look in about
    # a fifth of them; the confidence sequence, valid at every look at once, at most in 5 %.
    rng = random.Random(20261202)
    runs = [_deals(rng, 400) for _ in range(200)]
    missed_t = sum(
        any(not m.low <= 0.4 <= m.high for m in (mean_interval(r[:n]) for n in range(25, 401, 25)))
        for r in runs
    )
    missed_cs = 0
    for r in runs:
        lo, hi = confidence_sequence(r)
        missed_cs += not lo <= 0.4 <= hi
    assert missed_t / len(runs) > 0.1
    assert missed_cs / len(runs) <= 0.05


def test_confidence_sequence_narrows_with_more_values_and_stays_wider_than_one_look() -> None:
    rng = random.Random(7)
    values = _deals(rng, 4000)
    widths = []
    for n in (100, 1000, 4000):
        lo, hi = confidence_sequence(values[:n])
        once = mean_interval(values[:n])
        assert lo <= once.mean <= hi
        assert hi - lo > once.high - once.low  # the price of looking at every n
        assert hi - lo < 2.5 * (once.high - once.low)  # adapts to the variance, unlike Hoeffding
        widths.append(hi - lo)
    assert widths[0] > widths[1] > widths[2]
    # A constant has no variance: the interval closes in on it.
    lo, hi = confidence_sequence([1.0] * 500)
    assert 0.98 < lo <= 1.0 == hi


def test_confidence_sequence_refuses_values_outside_zero_one() -> None:
    assert confidence_sequence([]) == (0.0, 1.0)
    with pytest.raises(ValueError, match=r"values must lie in \[0, 1\], not 1.5"):
        confidence_sequence([0.5, 1.5])
    with pytest.raises(ValueError, match="confidence must lie strictly between 0 and 1"):
        confidence_sequence([0.5], confidence=1.0)
