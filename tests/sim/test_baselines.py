"""``piepmatz baselines``: the plan of pairs on shared deals, the head-to-head share paired by
deal, and the joint Plackett–Luce fit."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from piepmatz.cli import main
from piepmatz.sim.backends import run_games
from piepmatz.sim.baselines import fit_plackett_luce, head_to_head, plan


def plackett_luce_game(
    rng: random.Random, theta: list[float], entries: list[int]
) -> tuple[list[int], list[int]]:
    """A game drawn from the model: the winner among the seats left, chosen with probability
    proportional to exp(θ), place by place."""
    left = list(range(len(entries)))
    places = [0] * len(entries)
    for place in range(1, len(entries) + 1):
        weights = [math.exp(theta[entries[s]]) for s in left]
        seat = rng.choices(left, weights)[0]
        places[seat] = place
        left.remove(seat)
    return entries, places


def test_the_fit_finds_the_strengths_the_games_were_drawn_from() -> None:
    rng = random.Random(0)
    theta = [0.0, 1.0, 2.5]
    games = []
    for _ in range(3000):
        n = rng.choice([2, 3, 4])
        games.append(plackett_luce_game(rng, theta, [rng.randrange(3) for _ in range(n)]))
    fit = fit_plackett_luce(["random", "a", "b"], games)
    assert fit.theta[0] == 0 and fit.half[0] == 0
    for true, got, half in zip(theta[1:], fit.theta[1:], fit.half[1:], strict=True):
        assert abs(got - true) < half < 0.25


def test_the_interval_shrinks_as_the_square_root_of_the_games() -> None:
    rng = random.Random(6)
    games = [plackett_luce_game(rng, [0.0, 1.0], [0, 1]) for _ in range(4000)]
    few = fit_plackett_luce(["x", "y"], games[:1000]).half[1]
    many = fit_plackett_luce(["x", "y"], games).half[1]
    assert many / few == pytest.approx(0.5, rel=0.1)


def test_a_bot_that_never_loses_gets_a_finite_strength_and_a_wide_interval() -> None:
    games = [([0, 1], [2, 1]) for _ in range(20)]  # bot 1 wins every game
    fit = fit_plackett_luce(["random", "best"], games)
    assert 3 < fit.theta[1] < 30 and fit.half[1] > 5


def test_a_tie_for_the_last_place_says_nothing() -> None:
    decided = [([0, 1, 2], [1, 2, 3])] * 30 + [([0, 1, 2], [3, 2, 1])] * 10
    tied = [([0, 1, 2], [1, 2, 2])] * 7  # 0 first; 1 and 2 tied last
    alone = fit_plackett_luce(["a", "b", "c"], decided + [([0, 1], [1, 2])] * 7)
    with_ties = fit_plackett_luce(["a", "b", "c"], decided + [([0, 1, 2], [1, 3, 3])] * 7)
    # "0 first, then nothing" is the same evidence whoever shares the last place.
    assert fit_plackett_luce(["a", "b", "c"], decided + tied).theta == with_ties.theta
    assert with_ties.theta != alone.theta


def test_every_pair_plays_the_same_deals_each_bot_half_the_seats() -> None:
    pairings = plan(["random", "greedy", "hard"], [2, 3, 4], 6, seed=9, slow=["hard"], slow_deals=2)
    assert [(p.players, p.first, p.second) for p in pairings][:3] == [
        (2, "random", "greedy"),
        (2, "random", "hard"),
        (2, "greedy", "hard"),
    ]
    for p in pairings:
        seeds = {c.seed for q in pairings if q.players == p.players for c in q.configs}
        assert len(seeds) == 1  # one seed per player count: deal k is the same cards
        assert {c.deals for c in p.configs} == {2 if "hard" in (p.first, p.second) else 6}
        seats = {p.first: 0, p.second: 0}
        for c in p.configs:
            for lineup in c.lineups:
                for entry in lineup:
                    seats[c.bots[entry]] += 1
        assert seats[p.first] == seats[p.second]
        assert len(p.configs) == (2 if p.players == 3 else 1)
    with pytest.raises(ValueError, match="two different bots"):
        plan(["easy", "easy"], [2], 3, seed=1)


def test_head_to_head_is_paired_by_deal_and_symmetric() -> None:
    (forward,) = plan(["random", "greedy"], [3], 8, seed=4)
    (backward,) = plan(["greedy", "random"], [3], 8, seed=4)
    f = head_to_head(forward, [run_games(c, backend="inline") for c in forward.configs])
    b = head_to_head(backward, [run_games(c, backend="inline") for c in backward.configs])
    assert f.n == 8 and f.mean + b.mean == pytest.approx(1.0)
    assert f.high < 0.5 < b.low  # greedy takes most of the wins from random
    # A share's interval stays a share's: within 0 and 1 even where the t interval is not.
    assert 0.0 <= f.low <= f.mean <= f.high <= b.high <= 1.0


def test_the_command_writes_the_tables_and_the_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, data = tmp_path / "table.md", tmp_path / "figures.json"
    args = ["baselines", "--bots", "random", "greedy", "--players", "2", "--deals", "3"]
    assert (
        main([*args, "--workers", "1", "--quiet", "--markdown", str(out), "--json", str(data)]) == 0
    )
    table = out.read_text()
    assert table == capsys.readouterr().out
    figures = json.loads(data.read_text())
    (pair,) = figures["pairings"]
    assert (pair["first"], pair["second"], pair["deals"], pair["games"]) == (
        "random",
        "greedy",
        3,
        6,
    )
    assert f"{100 * pair['share']:.1f} %" in table
    assert figures["strengths"]["2"]["theta"]["random"] == 0
    assert main(["baselines", "--bots", "random", "nobody", "--quiet"]) == 2
    assert "nobody" in capsys.readouterr().err


def _run(tmp_path: Path, name: str, *args: str) -> dict[str, object]:
    data = tmp_path / f"{name}.json"
    common = ["--workers", "1", "--quiet", "--json", str(data)]
    assert main(["baselines", *args, *common]) == 0
    loaded: dict[str, object] = json.loads(data.read_text())
    return loaded


def test_a_table_extended_by_a_bot_is_the_table_played_with_it(tmp_path: Path) -> None:
    settings = ["--players", "2", "3", "--deals", "3", "--slow", "easy", "--slow-deals", "2"]
    whole = _run(tmp_path, "whole", "--bots", "random", "greedy", "easy", *settings)
    _run(tmp_path, "two", "--bots", "random", "greedy", *settings)
    extended = _run(
        tmp_path, "extended", "--extend", str(tmp_path / "two.json"), "--bots", "easy",
        "--slow", "easy",
    )  # fmt: skip
    # Only easy's pairs were played again, on the same deals: every figure is the same.
    for key in ("bots", "players", "deals", "seed", "slow", "slow_deals"):
        assert extended[key] == whole[key], key

    def by_pair(run: dict[str, object]) -> dict[tuple[int, str, str], object]:
        rows = run["pairings"]
        assert isinstance(rows, list)
        return {(r["players"], r["first"], r["second"]): r for r in rows}

    assert by_pair(extended) == by_pair(whole)
    assert by_pair(whole)[2, "random", "easy"]["deals"] == 2  # type: ignore[index]
    for n in ("2", "3"):
        a, b = extended["strengths"][n], whole["strengths"][n]  # type: ignore[index]
        assert a["games"] == b["games"]
        for bot in ("greedy", "easy"):
            assert a["theta"][bot] == pytest.approx(b["theta"][bot], abs=1e-9)
        assert sorted(extended["places"][n]) == sorted(whole["places"][n])  # type: ignore[index]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    folder = tmp_path_factory.mktemp("baselines")
    return _run(
        folder, "small", "--bots", "random", "greedy", "--players", "2", "3", "--deals", "2"
    )


@pytest.mark.parametrize(
    ("change", "told"),
    [
        (lambda d: "{not json", "not JSON (line 1, column 2)"),
        (lambda d: json.dumps(d | {"format": "other"}), "not a piepmatz-baselines file"),
        (lambda d: json.dumps(d | {"version": 1}), "version 1"),
        (lambda d: json.dumps(d | {"pairings": d["pairings"][:1]}), "did not finish"),
        (lambda d: json.dumps({k: v for k, v in d.items() if k != "seed"}), "no 'seed'"),
        (
            lambda d: json.dumps(d | {"places": d["places"] | {"2": ["0:1 7:2"]}}),
            "out of range",
        ),
        (lambda d: json.dumps(d | {"places": {"2": ["0:1 1:2 1:3"]}}), "2 seats"),
        (lambda d: json.dumps(d | {"places": []}), "a broken piepmatz-baselines file"),
    ],
)
def test_a_broken_file_to_extend_is_refused_and_nothing_is_written(
    small_run: dict[str, object],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    change: object,
    told: str,
) -> None:
    earlier = small_run
    broken, out = tmp_path / "broken.json", tmp_path / "out.json"
    broken.write_text(change(earlier))  # type: ignore[operator]
    capsys.readouterr()
    args = ["baselines", "--extend", str(broken), "--bots", "easy", "--json", str(out)]
    assert main([*args, "--quiet"]) == 2
    assert told in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(
    ("content", "told"),
    [(b"hello\n", "not JSON (line 1, column 1)"), (b"\xff\xfe\x00\x81", "not JSON but binary")],
)
def test_a_file_to_extend_that_is_not_json_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, told: str
) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    assert main(["baselines", "--extend", str(path), "--bots", "easy", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"--extend {path}: {told}" in err
    assert "a baselines run wrote with --json" in err


def test_extend_refuses_what_its_file_settles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(tmp_path, "earlier", "--bots", "random", "greedy", "--players", "2", "--deals", "2")
    earlier = str(tmp_path / "earlier.json")
    for args, told in [
        (["--bots", "easy", "--deals", "5"], "leave out --deals"),
        (["--bots", "greedy"], "greedy played in the earlier run already"),
        (["--bots", "easy", "--slow", "hard"], "not hard"),
        ([], "name the bots to add"),
    ]:
        assert main(["baselines", "--extend", earlier, *args, "--quiet"]) == 2
        assert told in capsys.readouterr().err
