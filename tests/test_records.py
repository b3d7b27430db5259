"""Games in files: every command reads a save, a record and "game N of a records file" alike."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from piepmatz.cli import main
from piepmatz.core import Game
from piepmatz.records import GameFileError, load_game, save_doc
from piepmatz.text.lines import cells


def _finished(seed: int) -> Game:
    game = Game.new(players=2, seed=seed)
    while not game.state.is_over():
        game.apply(game.state.legal_action_ids()[0])
    return game


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A records file as a person may leave it: indexes out of order, a line without one, a
    blank line."""
    lines = [
        {**_finished(1).record(), "tournament": {"index": 7, "seats": ["random", "greedy"]}},
        _finished(2).record(),  # no tournament index: numbered by its place, 1
        {**_finished(3).record(), "tournament": {"index": 4}},
    ]
    path = tmp_path_factory.mktemp("records") / "games.jsonl"
    text = [json.dumps(lines[0]), "", json.dumps(lines[1]), json.dumps(lines[2])]
    path.write_text("\n".join(text) + "\n")
    return path


@pytest.mark.parametrize(("number", "seed", "line"), [(7, 1, 1), (1, 2, 3), (4, 3, 4)])
def test_a_game_of_a_records_file_is_found_by_one_rule(
    records: Path, number: int, seed: int, line: int, capsys: pytest.CaptureFixture[str]
) -> None:
    loaded = load_game(records, number)
    assert loaded.game.options.seed == seed
    assert loaded.where == f"{records} line {line}"  # the line in the file, blank lines counted
    assert main(["replay", str(records), "--game", str(number)]) == 0
    assert f"seed {seed} ·" in capsys.readouterr().out.splitlines()[0]
    argv = ["review", str(records), "--game", str(number), "--player", "1", "--json"]
    assert main([*argv, "--iterations", "4", "--processes", "1", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["game"].startswith(f"{records} line {line}:")
    listed = [entry.split()[0] for entry in _list(records, capsys)]
    assert listed == ["7", "1", "4"]


def _list(path: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["replay", str(path), "--list"]) == 0
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("command", ["replay", "review"])
def test_every_command_answers_a_file_the_same_way(
    records: Path, tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = ["--player", "1"] if command == "review" else []
    told = []
    for argv in ([str(records)], [str(records), "--game", "5"], [str(tmp_path / "gone.json")]):
        assert main([command, *argv, *extra]) == 2
        err = capsys.readouterr().err
        told.append(err.split(": ", 1)[1].removeprefix("error: "))
    with pytest.raises(GameFileError) as several:
        load_game(records)
    with pytest.raises(GameFileError) as missing:
        load_game(records, 5)
    with pytest.raises(GameFileError) as gone:
        load_game(tmp_path / "gone.json")
    assert told == [f"{several.value}\n", f"{missing.value}\n", f"{gone.value}\n"]


def test_a_save_replays_with_seats_whose_bots_are_not_installed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A replay shows who sat where; it builds no bot, so a plugin's seat needs no plugin."""
    path = tmp_path / "save.json"
    path.write_text(json.dumps(save_doc(_finished(5), ["human", "someones_plugin"], hints=True)))
    assert main(["replay", str(path)]) == 0
    assert "(someones_plugin bot)" in capsys.readouterr().out


def test_the_module_examples_hold() -> None:
    import doctest

    import piepmatz.records

    result = doctest.testmod(piepmatz.records)
    assert result.attempted and not result.failed


def _resigned(moves: int) -> dict[str, object]:
    """An online game's record, ended after ``moves`` moves by seat 0's resignation, a stand-in
    having played one of seat 1's moves."""
    game = Game.new(players=2, seed=5)
    for _ in range(moves):
        game.apply(game.state.legal_action_ids()[0])
    ending = {
        "how": "resigned",
        "move": moves,
        "seat": 0,
        "winners": [1],
        "resigned": [0],
        "stood_in": [0, 1],
    }
    return {
        **game.record(),
        "ending": ending,
        "stand_ins": [{"move": 1, "seat": 1, "bot": "medium"}],
    }


def test_a_game_ended_by_a_resignation_replays_and_says_how_it_ended(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "resigned.json"
    path.write_text(json.dumps(_resigned(6)))
    assert load_game(path, finished=True).ended
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Player 1 resigned after 6 moves: Player 2 wins." in out
    assert "A bot played 1 move for Player 2." in out
    assert main(["replay", "--list", str(path)]) == 0
    assert "resigned" in capsys.readouterr().out


@pytest.mark.parametrize(
    "broken",
    [
        {"how": "surrendered"},
        {"move": 99},
        {"seat": 7},
        {"winners": "1"},
        {"stood_in": [0]},
        {"how": "played_out"},  # the moves do not finish the game
    ],
)
def test_a_record_whose_ending_is_wrong_is_refused_saying_so(
    tmp_path: Path, broken: dict[str, object]
) -> None:
    record = _resigned(6)
    record["ending"] = {**record["ending"], **broken}  # type: ignore[dict-item]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(record))
    with pytest.raises(GameFileError, match="ending"):
        load_game(path, finished=True)


#: Who sat where, as an online game's record says it: a person, a bot, a person whose name
#: carries a right-to-left override (shown without it: it would reorder the line).
TABLE_SEATS = [
    {"kind": "human", "name": "Anna"},
    {"kind": "medium", "name": None},
    {"kind": "human", "name": "\u202eBen"},
]


def test_an_online_games_record_replays_with_the_names_its_table_showed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = Game.new(players=3, seed=4)
    while not game.state.is_over():
        game.apply(game.state.legal_action_ids()[0])
    path = tmp_path / "online.json"
    path.write_text(json.dumps(game.record() | {"seats": TABLE_SEATS}))
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith(" · Anna, Bot 2 (medium), Ben")
    assert re.search(r"^Turn 1: (Anna|Bot 2|Ben)\.$", out, re.MULTILINE)
    assert "Player " not in out and "\u202e" not in out
    assert main(["replay", "--list", str(path)]) == 0
    assert "Anna, Bot 2 (medium), Ben · " in capsys.readouterr().out


@pytest.mark.parametrize(
    "seats",
    [
        "Anna",
        TABLE_SEATS[:2],  # a seat short
        [*TABLE_SEATS[:2], {"name": "Ben"}],  # no kind
        [*TABLE_SEATS[:2], {"kind": "human", "name": 7}],
        [*TABLE_SEATS[:2], {"kind": "human", "name": "B" * 65}],
    ],
)
def test_a_record_whose_seats_are_wrong_is_refused_saying_so(tmp_path: Path, seats: object) -> None:
    game = Game.new(players=3, seed=4)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(game.record() | {"seats": seats}))
    with pytest.raises(GameFileError, match="the record's seats must be a list of its 3 seats"):
        load_game(path)


def test_names_of_any_script_line_up_in_the_replays_score_sheet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A CJK name and an emoji take two columns a character in a terminal: the sheet's columns
    are padded by the columns a name takes, not by its characters."""
    game = Game.new(players=3, seed=4)
    while not game.state.is_over():
        game.apply(game.state.legal_action_ids()[0])
    seats = [{"kind": "human", "name": "山田太郎"}, {"kind": "human", "name": "Émile 🐦"}]
    path = tmp_path / "online.json"
    path.write_text(json.dumps(game.record() | {"seats": [*seats, TABLE_SEATS[1]]}))
    assert main(["replay", str(path)]) == 0
    sheet = capsys.readouterr().out.split("\n\n")[-1].splitlines()
    rows = sheet[: sheet.index(next(line for line in sheet if line.startswith("birds"))) + 1]
    assert rows[0].split() == ["山田太郎", "Émile", "🐦", "Bot", "3"]
    # Every row right-aligned to the same column, counted as a terminal counts them.
    assert len({cells(row) for row in rows}) == 1, rows
