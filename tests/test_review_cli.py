"""``piepmatz review`` on real records: text, JSON, the plot, and clear errors for bad input."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from piepmatz.bots.analysis import GRADE_NAMES, decisions
from piepmatz.cli import main
from piepmatz.core import Action, Game, read_json
from piepmatz.text.words import action_words
from piepmatz.tui.session import Session

FAST = ["--iterations", "12", "--processes", "1", "--quiet"]


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("review") / "game.json"
    argv = ["demo", "--players", "2", "--seed", "7", "--bots", "heuristic", "--record", str(path)]
    assert main(argv) == 0
    return path


def _game(path: Path) -> Game:
    return Game.from_record(read_json(path))


def test_json_review_of_a_record(record: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["review", str(record), "--player", "2", "--json", *FAST]) == 0
    doc = json.loads(capsys.readouterr().out)
    game = _game(record)
    expected = list(decisions(game, 1))
    assert doc["player"] == 1 and doc["iterations"] == 12
    assert [d["index"] for d in doc["decisions"]] == [d.index for d in expected]
    for d in doc["decisions"]:
        assert d["played"] == str(game.actions[d["index"]])
        assert d["grade"] in GRADE_NAMES
        leads = [o["lead"] for o in d["options"]]
        assert leads == sorted(leads, reverse=True)
        assert d["best"] == d["options"][0]["action"]
        assert d["played"] in [o["action"] for o in d["options"]]
        assert (d["grade"] == "best") == (d["played"] == d["best"])
        assert all(o["worlds"] == 12 and o["lead_spread"] >= 0 for o in d["options"])
    summary = doc["summary"]
    assert summary["decisions"] == len(expected)
    assert sum(summary["grades"].values()) == len(expected)
    plays = sum(d["phase"] == "play" for d in doc["decisions"])
    assert summary["categories"]["play"]["decisions"] == plays > 0


def test_text_review_and_plot(
    record: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plot = tmp_path / "wins.png"
    capsys.readouterr()
    assert main(["review", str(record), "--player", "1", "--plot", str(plot), *FAST]) == 0
    out = capsys.readouterr().out
    found = list(decisions(_game(record), 0))
    assert out.startswith("Review of Player 1 — ")
    assert "2 players, standard rules, seed 7 (finished)" in " ".join(out.split())
    lines = out.splitlines()
    rows = [k for k, line in enumerate(lines) if re.match(r" *\d+  ", line)]
    assert all(lines[k].endswith(GRADE_NAMES) for k in rows)
    # Under each decision's figures, the moves in words, as the terminal lists them; the kind
    # of decision in words too.
    moves = [lines[k + 1] for k in rows]
    assert all(re.match(r" {6}played .+(; best .+| \(the best\))$", line) for line in moves)
    assert not any(re.search(r"\b[A-Z]{2}[1-6][mf]\b|\bdraw display\b", line) for line in moves)
    assert any("→ perch" in line for line in moves)
    assert any("  draw  " in lines[k] for k in rows)
    # A draw from the display names the bird that lay there at that decision.
    flat = " ".join(out.split())
    drawn = [d for d in found if Action.from_id(d.played).kind == "draw display"]
    assert drawn
    for d in drawn:
        said = action_words(Action.from_id(d.played), short=True, display=d.view.display)
        assert f"played {said}" in flat and "(display slot " in said
    assert len(rows) == len(found)
    assert max(map(len, lines)) <= 80, out
    assert f"of {len(found)} decisions best or good" in out
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for lang in ("cs", "de"):  # their words are longer: still within 80 columns
        assert main(["review", str(record), "--player", "1", "--lang", lang, *FAST]) == 0
        assert max(map(len, capsys.readouterr().out.splitlines())) <= 80


def test_an_online_games_player_is_reviewed_by_name(
    record: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    online = tmp_path / "online.json"
    seats = [{"kind": "easy", "name": None}, {"kind": "human", "name": "Anna"}]
    online.write_text(json.dumps(read_json(record) | {"seats": seats}))
    capsys.readouterr()
    assert main(["review", str(online), "--player", "2", *FAST]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Review of Anna —")
    assert "from the view of Anna only" in " ".join(out.split())


def test_a_tournament_records_file_needs_and_takes_a_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "games.jsonl"
    argv = ["tournament", "--players", "2", "--bots", "random", "--games", "2", "--seed", "3"]
    assert main([*argv, "--backend", "inline", "--quiet", "--records", str(records)]) == 0
    capsys.readouterr()
    assert main(["review", str(records), "--player", "1", *FAST]) == 2
    err = capsys.readouterr().err
    assert "--game N" in err and "0 to 1" in err  # the option to choose with, and the numbers
    assert main(["review", str(records), "--player", "1", "--game", "1", "--json", *FAST]) == 0
    doc = json.loads(capsys.readouterr().out)
    second = Game.from_record(json.loads(records.read_text().splitlines()[1]))
    assert doc["game"].startswith(f"{records} line 2:")
    assert [d["index"] for d in doc["decisions"]] == [d.index for d in decisions(second, 0)]
    assert main(["review", str(records), "--player", "1", "--game", "5", *FAST]) == 2
    err = capsys.readouterr().err
    assert "no game 5" in err and "0 to 1" in err


def test_an_unfinished_saved_game_is_reviewed_up_to_where_it_stands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = Session.new(["human", "random"], seed=4)
    while len(session.game.actions) < 9:
        if session.is_human(session.to_act):
            session.apply(session.game.state.legal_action_ids()[0])
        else:
            session.bot_move()
    save = tmp_path / "save.json"
    session.save(save)
    capsys.readouterr()
    assert main(["review", str(save), "--player", "1", "--json", *FAST]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "(unfinished, 9 actions)" in doc["game"]
    assert doc["decisions"] and all(d["index"] < 9 for d in doc["decisions"])
    # One person among bots: reviewed without being named.
    assert main(["review", str(save), "--json", *FAST]) == 0
    assert json.loads(capsys.readouterr().out)["decisions"] == doc["decisions"]


def test_without_player_a_game_of_several_people_or_unnamed_seats_asks_which(
    record: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["review", str(record), *FAST]) == 2
    assert capsys.readouterr().err == (
        "piepmatz review: error: argument --player: say which player to review, 1-2 (its "
        "seats are not named in this game)\n"
    )
    save = tmp_path / "two.json"
    Session.new(["human", "human"], seed=4).save(save)
    assert main(["review", str(save), *FAST]) == 2
    assert "1-2 (2 people in this game)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "argv", "message"),
    [
        ('{"format": "piepmatz-record"', [], "bad.json: not JSON: Expecting"),
        ('{"hello": 1}', [], "bad.json: not a game record"),
        (None, ["--player", "3"], "no player 3 in this 2-player game (players are 1-2)"),
        (None, ["--player", "0"], "no player 0 in this 2-player game (players are 1-2)"),
        (None, ["--player", "1", "--plot", "/nonexistent/dir/x.png"], "argument --plot"),
    ],
)
def test_bad_input_gets_a_clear_error(
    record: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: str | None,
    argv: list[str],
    message: str,
) -> None:
    path = record
    if content is not None:
        path = tmp_path / "bad.json"
        path.write_text(content)
    capsys.readouterr()
    assert main(["review", str(path), *(argv or ["--player", "1"]), *FAST]) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert captured.err.startswith("piepmatz review: error:") and "Traceback" not in captured.err
    assert captured.out == ""


def test_a_missing_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", str(tmp_path / "nope.json"), "--player", "1", *FAST]) == 2
    assert f"cannot read {tmp_path / 'nope.json'}" in capsys.readouterr().err


@pytest.mark.parametrize(("blocked", "argv"), [("tqdm", []), ("matplotlib", ["--plot", "x.png"])])
def test_a_missing_extra_is_named_in_one_line(
    record: Path,
    blocked: str,
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.chdir(tmp_path)
    # ``None`` in sys.modules makes the import fail as if the package were not installed.
    for name in [m for m in sys.modules if m == blocked or m.startswith(blocked + ".")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, blocked, None)
    capsys.readouterr()
    assert main(["review", str(record), "--player", "1", *argv, *FAST]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert f"needs the 'review' extra ({blocked} is not installed)" in err
    assert "pip install 'piepmatz[review]'" in err and "make review" in err


def test_a_review_with_no_decisions_claims_no_accuracy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = Game.new(players=2, seed=3).record()  # not a move made yet
    path = tmp_path / "start.json"
    path.write_text(json.dumps(record))
    assert main(["review", str(path), "--player", "1", *FAST]) == 0
    out = capsys.readouterr().out
    assert "No decision of this player to review yet." in out and "Accuracy" not in out


@pytest.mark.parametrize(
    ("lang", "change", "said"),
    [("en", -0.004, "0%"), ("en", -0.02, "-2%"), ("en", 0.03, "+3%"), ("de", -0.004, "0 %")],
)
def test_a_win_chance_that_rounds_to_nothing_is_no_negative_zero(
    lang: str, change: float, said: str
) -> None:
    from piepmatz.i18n import use_language
    from piepmatz.text.numbers import percent

    with use_language(lang):
        assert percent(change, signed=True).replace("\xa0", " ") == said
