"""``benchmarks/bots.py``: matches saved game by game, pooled and compared."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from benchfiles import load_benchmark
from botfiles import plugin_file

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bots.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_benchmark("bots")


def _write(path: Path, results: dict[tuple[int, int], float], first: str = "a") -> str:
    with path.open("w") as f:
        for (deal, seat), r in results.items():
            record = {"first": first, "second": "b", "players": 4, "deal": deal, "seat": seat}
            f.write(json.dumps(record | {"result": r, "seconds": 0.1}) + "\n")
    return str(path)


def test_match_saves_one_record_per_game(bench: ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    rate, n, _, _ = bench.match("random", "random", 2, 3, 1, first_deal=5, save=str(out))
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert n == len(records) == 6
    assert {(r["deal"], r["seat"]) for r in records} == {(d, s) for d in (5, 6, 7) for s in (0, 1)}
    assert {r["first"] for r in records} == {"random"} and records[0]["players"] == 2
    assert sum(r["result"] for r in records) / n == pytest.approx(rate)
    assert bench.load_runs([str(out)]) == {(r["deal"], r["seat"]): r["result"] for r in records}


def test_match_replays_exactly(bench: ModuleType, tmp_path: Path) -> None:
    # The bots' generators come from the deal and the seat: the same run gives the same games.
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    bench.match("easy", "random", 2, 3, 1, first_deal=9, save=str(a))
    bench.match("easy", "random", 2, 3, 1, first_deal=9, save=str(b))
    assert bench.load_runs([str(a)]) == bench.load_runs([str(b)])


def test_pooled_counts_every_game_of_every_run(bench: ModuleType) -> None:
    results = {(d, s): 1.0 if s == d % 4 else 0.0 for d in range(8) for s in range(4)}
    assert bench.pooled(results) == "8/32 = 25.0%, 95% Wilson [13.3%, 42.1%]"


def test_paired_difference_on_common_games(bench: ModuleType) -> None:
    old = {(d, s): 0.0 for d in range(4) for s in range(4)}
    new = dict(old) | {(0, 0): 1.0, (1, 1): 1.0}
    new[(9, 0)] = 1.0  # not in the old run: left out of the comparison
    text = bench.paired(new, old)
    assert text.startswith("16 paired games: 12.5% against 0.0%, difference +12.5%")
    with pytest.raises(SystemExit, match="only 0 games in common"):
        bench.paired({(1, 0): 1.0}, {(2, 0): 0.0})


def test_load_runs_refuses_mixed_or_broken_files(bench: ModuleType, tmp_path: Path) -> None:
    a = _write(tmp_path / "a.jsonl", {(0, 0): 1.0})
    other = _write(tmp_path / "c.jsonl", {(1, 0): 0.0}, first="c")
    with pytest.raises(SystemExit, match="differs from"):
        bench.load_runs([a, other])
    with pytest.raises(SystemExit, match="deal 0 seat 0 twice"):
        bench.load_runs([a, a])
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"first": "a"}\n')
    with pytest.raises(SystemExit, match=r"broken.jsonl:1: not a match --save record"):
        bench.load_runs([str(broken)])
    with pytest.raises(SystemExit, match=r"gone.jsonl: cannot read \(No such file"):
        bench.load_runs([a, str(tmp_path / "gone.jsonl")])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["match", "random", "random", "--games", "0"], "--games must be at least 1, not 0"),
        (["match", "random", "random", "--processes", "x"], "--processes must be a whole number"),
        (["match", "random", "random", "--players", "5"], "invalid choice: 5"),
        (["match", "random", "nosuch"], "unknown bot 'nosuch'"),
        (["match", "random", "random", "--save", "/nonexistent/r.jsonl"], "not writable"),
        (["speed", "--positions", "0"], "--positions must be at least 1"),
    ],
)
def test_bad_arguments_are_refused_before_any_game(
    bench: ModuleType, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        bench.main(args)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""


def test_match_measures_a_plugin_bot(tmp_path: Path) -> None:
    plugin = plugin_file(tmp_path / "variant.py", "first")
    out = tmp_path / "run.jsonl"
    args = ["match", "--plugin", str(plugin), "first", "random", "--games", "2"]
    args += ["--processes", "2", "--save", str(out)]
    run = subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("first vs 1x random, 2 players:")
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted((r["deal"], r["seat"]) for r in records) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert {r["first"] for r in records} == {"first"}
