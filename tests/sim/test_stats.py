"""Interval arithmetic on known inputs."""

from __future__ import annotations

import math

import pytest

from piepmatz.sim.stats import mean_interval, t_quantile, wilson


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


def test_wilson_bounds_at_zero_and_at_every_game_are_exact() -> None:
    # Printed as they are: 0.0, not 1.39e-17, for no wins; 1.0 for all of them.
    for n in (1, 3, 10, 40, 1000):
        assert wilson(0, n)[0] == 0.0 and repr(wilson(0, n)[0]) == "0.0"
        assert wilson(n, n)[1] == 1.0
        assert wilson(n, n)[0] > 0.0 and wilson(0, n)[1] < 1.0


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
    # Clipped to the values' possible range, one value or several.
    assert (mean_interval([3], lowest=0).low, mean_interval([3], lowest=0).high) == (0, math.inf)
    clipped = mean_interval([2, 60], lowest=0, highest=100)
    free = mean_interval([2, 60])
    assert free.low < 0 and free.high > 100
    assert (clipped.mean, clipped.low, clipped.high) == (31, 0, 100)
    flat = mean_interval([4, 4, 4])
    assert (flat.low, flat.high, flat.sd) == (4, 4, 0)
