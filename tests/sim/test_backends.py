"""Every backend, batch size and worker count gives the same games."""

from __future__ import annotations

import pytest

from piepmatz.sim import MatchConfig, run_games
from piepmatz.sim.backends import auto_batch_size, batches

CONFIG = MatchConfig(3, ("random", "random"), 24, seed=9)


def test_inline_results_do_not_depend_on_batch_size() -> None:
    one = run_games(CONFIG, backend="inline", batch_size=1)
    assert [r.index for r in one] == list(range(24))
    assert run_games(CONFIG, backend="inline", batch_size=7) == one
    assert run_games(CONFIG, backend="inline") == one


def test_process_pool_matches_inline_and_reports_progress() -> None:
    inline = run_games(CONFIG, backend="inline")
    seen: list[int] = []
    pooled = run_games(CONFIG, backend="process", workers=2, batch_size=5, progress=seen.append)
    assert pooled == inline
    assert seen and sum(seen) == 24 and max(seen) <= 5
    assert run_games(CONFIG, backend="process", workers=1, batch_size=24) == inline


def test_batching_helpers() -> None:
    assert list(batches(0, 10, 4)) == [(0, 4), (4, 8), (8, 10)]
    assert auto_batch_size(1, 8) == 1
    assert auto_batch_size(1600, 2) == 50
    with pytest.raises(ValueError):
        list(batches(0, 3, 0))


def test_bad_backend_arguments() -> None:
    with pytest.raises(ValueError, match="unknown backend"):
        run_games(CONFIG, backend="threads")
    with pytest.raises(ValueError, match="workers"):
        run_games(CONFIG, backend="process", workers=0)
