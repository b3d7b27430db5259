"""``piepmatz tournament`` and ``piepmatz compare`` end to end."""

from __future__ import annotations

import csv
import errno
import json
import re
import sys
from pathlib import Path

import pytest

import piepmatz.bots
import piepmatz.bots.plugins
from piepmatz.cli import main
from piepmatz.core import Game

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _is_png(path: Path) -> bool:
    return path.read_bytes()[:8] == PNG_MAGIC and path.stat().st_size > 5000


def test_tournament_writes_table_json_csv_plots_and_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["tournament", "--players", "3", "--bots", "random", "random", "--games", "12"]
    args += ["--seed", "7", "--backend", "inline", "--quiet"]
    args += ["--json", str(tmp_path / "r.json"), "--csv", str(tmp_path / "r.csv")]
    args += ["--plots", str(tmp_path / "plots"), "--records", str(tmp_path / "games.jsonl")]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "seed 7\n12 games: 4 deals x 3 lineups" in out
    assert "random#2" in out and "win rate by turn order" in out

    data = json.loads((tmp_path / "r.json").read_text())
    assert data["config"]["total_games"] == 12
    bots = {b["bot"]: b for b in data["bots"]}
    assert set(bots) == {"random", "random#2"}
    # "random" fills two of the three seats of every game (A B A rotated).
    assert bots["random"]["win"]["games"] == 24 and bots["random#2"]["win"]["games"] == 12
    assert bots["random"]["win"]["wins"] + bots["random#2"]["win"]["wins"] == pytest.approx(12)

    rows = list(csv.DictReader((tmp_path / "r.csv").open()))
    assert [r["bot"] for r in rows] == ["random", "random#2"]
    assert float(rows[0]["win_rate"]) == pytest.approx(bots["random"]["win"]["rate"])

    plots = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert plots == ["positions.png", "scores.png", "win_rates.png"]
    assert all(_is_png(tmp_path / "plots" / name) for name in plots)

    lines = (tmp_path / "games.jsonl").read_text().splitlines()
    assert len(lines) == 12
    totals = {"random": 0, "random#2": 0}
    for i, line in enumerate(lines):
        record = json.loads(line)
        assert record["tournament"]["index"] == i and record["tournament"]["seed"] == 7
        game = Game.from_record(record)  # replays, and checks the stored result
        for seat, bot in enumerate(record["tournament"]["seats"]):
            totals[bot] += game.score().players[seat].total
    assert totals["random"] / 24 == pytest.approx(bots["random"]["score"]["mean"])
    assert totals["random#2"] / 12 == pytest.approx(bots["random#2"]["score"]["mean"])


def test_same_seed_same_output_across_backends(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["tournament", "--players", "2", "--bots", "random", "random", "--games", "10"]
    base += ["--seed", "3", "--quiet"]
    assert main([*base, "--backend", "inline", "--json", str(tmp_path / "a.json")]) == 0
    assert main([*base, "--backend", "process", "--workers", "2", "--batch-size", "3",
                 "--json", str(tmp_path / "b.json")]) == 0  # fmt: skip
    out = capsys.readouterr().out.split("Piepmatz tournament")
    assert out[1] == out[2]
    assert (tmp_path / "a.json").read_text() == (tmp_path / "b.json").read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "nosuch"], "unknown bot 'nosuch'"),
        (["--bots", "random", "--players", "5"], "invalid choice: 5"),
        (["--bots", "random", "--players", "1"], "invalid choice: 1"),
        (["--bots", "random", "--games", "0"], "--games must be at least 1"),
        (["--bots", "random", "--games", "ten"], "--games must be a whole number"),
        (["--bots", "random", "--rules", "standard:nope=1"], "unknown rule flag 'nope'"),
        (["--bots", "random", "--backend", "threads"], "invalid choice: 'threads'"),
        (["--bots", "random", "--address", "auto"], "add --backend ray"),
        (["--bots", "random", "--json", "/nonexistent/dir/r.json"], "not a writable directory"),
        (["--bots", "random", "--move-limit", "0"], "--move-limit: must be more than 0 seconds"),
        (["--bots", "random", "--move-limit", "soon"], "'soon' is not a number of seconds"),
        (["--players", "3"], "--bots"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    full = ["tournament", *args, "--quiet", "--csv", str(tmp_path / "r.csv")]
    try:
        code = main(full)
    except SystemExit as exc:
        code = exc.code  # type: ignore[assignment]
    assert code == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert captured.out == ""
    assert list(tmp_path.iterdir()) == []


def test_plots_where_no_directory_can_be_made_are_refused_before_playing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "f").write_text("a file")
    args = ["tournament", "--bots", "random", "--quiet", "--plots", str(tmp_path / "f" / "p")]
    assert main(args) == 2
    captured = capsys.readouterr()
    assert f"{tmp_path / 'f'} is not a writable directory" in captured.err
    assert captured.out == ""
    assert [q.name for q in tmp_path.iterdir()] == ["f"]


def test_a_failed_write_after_the_games_is_reported_and_keeps_the_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def full_disk(report: object, out: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(Path(out) / "scores.png"))

    monkeypatch.setattr("piepmatz.sim.plots.tournament_plots", full_disk)
    records = tmp_path / "games.jsonl"
    args = ["tournament", "--players", "2", "--bots", "random", "random", "--games", "4",
            "--seed", "1", "--backend", "inline", "--quiet", "--records", str(records),
            "--plots", str(tmp_path / "p")]  # fmt: skip
    assert main(args) == 1
    captured = capsys.readouterr()
    assert "Piepmatz tournament" in captured.out
    assert f"cannot write {tmp_path / 'p' / 'scores.png'}: No space left on device" in captured.err
    assert len(records.read_text().splitlines()) == 4


def test_a_four_player_tournament_report_fits_80_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Four bots at four seats: each bot's results, and its win rate in each turn order under
    headings that say so, with every line within an 80-column terminal."""
    args = ["tournament", "--players", "4", "--bots", "greedy", "random", "easy", "random",
            "--games", "8", "--seed", "3", "--backend", "inline", "--quiet",
            "--json", str(tmp_path / "r.json")]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) <= 80, out
    lines = out.splitlines()
    order = lines.index("The mean score sheet, and the win rate in each turn order:")
    assert lines[order + 2].split() == ["bot", "seeds", "pairs", "singles", "birds",
                                        "1st", "2nd", "3rd", "4th"]  # fmt: skip
    for b in json.loads((tmp_path / "r.json").read_text())["bots"]:
        rates = [f"{p['rate']:.1%}" for p in b["positions"]]
        assert any(line.split()[:1] == [b["bot"]] and line.split()[5:] == rates
                   for line in lines[order:]), (b["bot"], rates, out)  # fmt: skip
        win = b["win"]
        assert any(line.startswith(f"{b['bot']} ") and f"{win['rate']:.1%} [" in line
                   for line in lines[:order]), out  # fmt: skip
    assert re.search(r"^win rate by turn order \(fair: 25\.0%\): 1st ", out, re.MULTILINE)


def test_compare_rules_on_the_same_deals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["compare", "--players", "3", "--rules", "standard", "overview",
            "standard:last_hand=false", "--bots", "random", "--games", "12", "--seed", "1",
            "--backend", "inline", "--quiet", "--json", str(tmp_path / "c.json"),
            "--csv", str(tmp_path / "c.csv"), "--plots", str(tmp_path / "p")]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    data = json.loads((tmp_path / "c.json").read_text())
    # The report fits an 80-column terminal, and the first player's rate is each rule set's.
    assert max(map(len, out.splitlines())) <= 80, out
    for r in data["rules"]:
        first = r["first_player"]
        assert re.search(
            rf"^{re.escape(r['rules'])} +{first['rate']:.1%} \[{first['low']:.1%}, "
            rf"{first['high']:.1%}\] +{r['shared_wins']} of 12$",
            out,
            re.MULTILINE,
        ), out
    assert [r["rules"] for r in data["rules"]] == [
        "standard",
        "overview",
        "standard:last_hand=false",
    ]
    standard, overview, no_last_hand = data["rules"]
    assert standard["flags"]["last_hand"] is True and no_last_hand["flags"]["last_hand"] is False
    assert overview["preset"] == "overview"
    for r in data["rules"]:
        assert r["games"] == 12
        assert (
            0 <= r["first_player"]["low"] <= r["first_player"]["rate"] <= r["first_player"]["high"]
        )
        assert r["turns"]["low"] <= r["turns"]["mean"] <= r["turns"]["high"]
        assert r["margin"]["mean"] >= 0
    # E3 adds two hand birds per player: without it, fewer decisions and lower scores.
    assert no_last_hand["decisions"]["mean"] < standard["decisions"]["mean"]
    assert no_last_hand["score"]["mean"] < standard["score"]["mean"]
    rows = list(csv.DictReader((tmp_path / "c.csv").open()))
    assert [r["rules"] for r in rows] == [r["rules"] for r in data["rules"]]
    assert float(rows[1]["margin_mean"]) == pytest.approx(overview["margin"]["mean"])
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == [
        "rules_first_player.png",
        "rules_margins.png",
    ]
    assert all(_is_png(p) for p in (tmp_path / "p").iterdir())


def test_compare_refuses_bad_rules(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--rules", "standard", "chess", "--games", "5"])
    assert exc.value.code == 2
    assert "unknown rules preset 'chess'" in capsys.readouterr().err


def _reject(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def test_one_game_gives_strict_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # One game: the t interval of game length is undefined and must be written as null.
    path = tmp_path / "c.json"
    args = ["compare", "--rules", "standard", "--bots", "random", "--players", "2"]
    args += ["--games", "1", "--seed", "1", "--backend", "inline", "--quiet", "--json", str(path)]
    assert main(args) == 0
    data = json.loads(path.read_text(), parse_constant=_reject)
    assert data["rules"][0]["games"] == 1  # a single bot needs a single lineup per deal
    assert data["rules"][0]["turns"]["low"] is None
    assert data["rules"][0]["turns"]["mean"] > 0


def test_only_replays_one_game_of_the_tournament(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["tournament", "--players", "3", "--bots", "random", "random", "random"]
    base += ["--games", "9", "--seed", "5", "--backend", "inline"]
    # Without --quiet: stderr is no terminal here, so the progress bar stays silent.
    assert main([*base, "--records", str(tmp_path / "all.jsonl")]) == 0
    assert capsys.readouterr().err == ""
    assert main([*base, "--only", "4", "--records", str(tmp_path / "one.jsonl")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("game 4 of tournament seed 5 (deal 1;")
    full = (tmp_path / "all.jsonl").read_text().splitlines()
    assert (tmp_path / "one.jsonl").read_text().splitlines() == [full[4]]
    totals = [p["total"] for p in json.loads(full[4])["result"]["players"]]
    total_line = next(line for line in out.splitlines() if line.startswith("total"))
    assert [int(x) for x in total_line.split()[1:]] == totals
    for bad, message in [("9", "games are 0-8"), ("-1", "games are 0-8")]:
        assert main([*base, "--only", bad]) == 2
        assert message in capsys.readouterr().err
    assert main([*base, "--only", "1", "--json", str(tmp_path / "x.json")]) == 2
    assert "--only plays one game" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()
    unseeded = [a for a in base if a not in ("--seed", "5")]
    assert main([*unseeded, "--only", "1"]) == 2
    assert "--only replays a game of a seeded tournament: add its --seed" in capsys.readouterr().err


def test_json_or_csv_to_stdout_replaces_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["tournament", "--players", "2", "--bots", "random", "greedy", "--games", "4"]
    base += ["--seed", "2", "--backend", "inline", "--quiet"]
    assert main([*base, "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)  # nothing but the JSON
    assert [b["spec"] for b in data["bots"]] == ["random", "greedy"]
    assert main([*base, "--csv", "-"]) == 0
    rows = list(csv.DictReader(capsys.readouterr().out.splitlines()))
    assert [r["bot"] for r in rows] == ["random", "greedy"]
    assert main([*base, "--json", "-", "--csv", "-"]) == 2
    assert "both want stdout" in capsys.readouterr().err


RARE_CRASH = """
from piepmatz.bots import register


class Rare:
    name = "rare"

    def choose(self, view, legal, rng):
        if rng.random() < 0.004:
            raise RuntimeError("rare crash")
        return legal[rng.randrange(len(legal))]


class Dies:
    name = "dies"

    def choose(self, view, legal, rng):
        import os

        os._exit(7)


register("rare", lambda arg: Rare())
register("dies", lambda arg: Dies())
"""


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's plugin registers its bots anew (names are taken once per process)."""
    monkeypatch.setattr(piepmatz.bots, "_FACTORIES", dict(piepmatz.bots._FACTORIES))
    monkeypatch.setattr(piepmatz.bots.plugins, "_LOADED", {})


@pytest.mark.usefixtures("fresh_registry")
@pytest.mark.parametrize("backend", ["inline", "process"])
def test_a_bot_failure_names_the_game_to_replay_and_keeps_the_finished_ones(
    backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plugin = tmp_path / "rare.py"
    plugin.write_text(RARE_CRASH)
    records = tmp_path / "games.jsonl"
    args = ["tournament", "--players", "2", "--bots", "rare", "random", "--games", "40"]
    args += ["--seed", "3", "--plugin", str(plugin), "--backend", backend, "--workers", "2"]
    assert main([*args, "--quiet", "--records", str(records)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    first, replay, kept = captured.err.splitlines()
    failed = int(re.search(r"tournament: game (\d+) of tournament seed 3: bot 'rare'", first)[1])
    assert "raised RuntimeError('rare crash')" in first
    assert replay == (
        f"  replay that game alone, with the bot's traceback: add --seed 3 --only {failed}"
    )
    saved = [json.loads(line)["tournament"]["index"] for line in records.read_text().splitlines()]
    assert kept == f"  the {len(saved)} games that had finished are in {records}"
    assert saved == sorted(saved) and failed not in saved and saved
    # The hint does replay the failure, alone, with where in the bot's code it was raised.
    assert main([*args, "--only", str(failed)]) == 1
    err = capsys.readouterr().err
    assert f"game {failed} of tournament seed 3" in err
    assert f'File "{plugin}", line 10, in choose' in err
    assert err.rstrip().endswith("RuntimeError: rare crash")


@pytest.mark.usefixtures("fresh_registry")
def test_a_worker_that_dies_is_reported_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plugin = tmp_path / "dies.py"
    plugin.write_text(RARE_CRASH)
    args = ["tournament", "--players", "2", "--bots", "dies", "random", "--games", "2"]
    args += ["--seed", "1", "--plugin", str(plugin), "--backend", "process", "--workers", "2"]
    assert main([*args, "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "piepmatz tournament: a worker process died while playing games" in err
    assert "Traceback" not in err


def test_the_ray_backend_without_ray_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    args = ["tournament", "--bots", "random", "--games", "2", "--seed", "1", "--backend", "ray"]
    assert main([*args, "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err == 'piepmatz tournament: the ray backend needs Ray: pip install "piepmatz[ray]"\n'
