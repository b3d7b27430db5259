"""Seats, bot levels, and the save file: bad input gets a clear error and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import piepmatz.tui.session as session_module
from piepmatz.core import BIRD_NAMES, Game
from piepmatz.records import GameFileError, load_game
from piepmatz.tui.session import (
    SaveFileError,
    SeatError,
    Session,
    available_bots,
    default_seats,
    parse_seats,
)


def test_parse_seats_reads_people_and_bots() -> None:
    assert parse_seats("human, random ,HUMAN") == ["human", "random", "human"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("human", "2, 3 or 4 seats"),
        ("human,random,random,random,random", "not 5"),
        ("human,wizard", "unknown bot 'wizard'"),
        ("", "not 0"),
    ],
)
def test_bad_seats_are_named(text: str, message: str) -> None:
    with pytest.raises(SeatError, match=message):
        parse_seats(text)


def test_levels_come_first_and_default_falls_back_to_random(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        session_module, "bot_names", lambda: ["hard", "heuristic", "random", "easy", "zeta"]
    )
    # A menu for people offers levels, not the engine's names the levels stand for.
    assert available_bots() == ["easy", "hard", "random", "zeta"]
    assert default_seats(3) == ["human", "random", "random"]
    monkeypatch.setattr(session_module, "bot_names", lambda: ["medium", "random"])
    assert default_seats(2) == ["human", "medium"]


def test_bots_play_from_their_own_view_reproducibly() -> None:
    def finish(seed: int) -> list[str]:
        session = Session.new(["random", "random", "random"], seed=seed)
        while not session.state_over:
            session.bot_move()
        return [str(a) for a in session.game.actions]

    assert finish(5) == finish(5)


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    session = Session(Game.new(players=3, seed=2), ["human", "random", "human"])
    for _ in range(10):
        session.apply(session.game.state.legal_action_ids()[0])
    path = tmp_path / "s.json"
    session.save(path)
    again = Session.load(path)
    assert again.seats == session.seats
    assert again.game.actions == session.game.actions
    assert again.view(0) == session.view(0)
    with pytest.raises(SaveFileError, match="replace"):
        session.save(path)  # an existing file is replaced only when asked
    session.save(path, replace=True)


def test_replay_takes_a_finished_save_or_record_and_refuses_a_game_in_progress(
    tmp_path: Path,
) -> None:
    session = Session(Game.new(players=3, seed=2), ["human", "random", "human"])
    for _ in range(10):
        session.apply(session.game.state.legal_action_ids()[0])
    path = tmp_path / "s.json"
    session.save(path)
    # Replaying a game in progress would show every hand: a peek in a hot-seat game.
    with pytest.raises(GameFileError, match="not over, and its replay would show every hand"):
        load_game(path, finished=True)
    while not session.state_over:
        session.apply(session.game.state.legal_action_ids()[0])
    session.save(path, replace=True)
    loaded = load_game(path, finished=True)
    assert loaded.seats == session.seats and loaded.game.actions == session.game.actions
    # A bare engine record works for the replay viewer too.
    bare = tmp_path / "r.json"
    bare.write_text(json.dumps(session.game.record()))
    loaded = load_game(bare, finished=True)
    assert loaded.seats is None and loaded.game.actions == session.game.actions


def _doc(**change: object) -> dict[str, object]:
    session = Session(Game.new(players=2, seed=2), ["human", "random"])
    session.apply(session.game.state.legal_action_ids()[0])
    doc = session.save_doc()
    doc.update(change)
    return doc


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ([], "not a Piepmatz save file"),
        (_doc(format="chess"), "not a Piepmatz save file"),
        (_doc(version=9), "version 9 is not supported"),
        (_doc(seats=["human"]), "1 seats for a 2-player game"),
        (_doc(seats=["human", "oracle"]), "unknown bot 'oracle'"),
        (_doc(seats="human,random"), "list of seat names"),
        (
            _doc(
                record={
                    "format": "piepmatz-record",
                    "version": 1,
                    "options": {"players": 2},
                    "actions": ["fly away"],
                }
            ),
            "record action 1",
        ),
    ],
)
def test_bad_save_documents_are_refused(doc: object, message: str) -> None:
    with pytest.raises(GameFileError, match=message):
        Session.from_doc(doc)


def test_bad_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(GameFileError, match="cannot read"):
        Session.load(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_bytes(b"\xff\xfe not json")
    with pytest.raises(GameFileError, match="not JSON"):
        Session.load(tmp_path / "bad.json")
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(GameFileError, match=r"list\.json: not a game record"):
        load_game(tmp_path / "list.json")
    record = tmp_path / "record.json"
    record.write_text(json.dumps(Game.new(players=2, seed=1).record()))
    with pytest.raises(GameFileError, match=r"record.json: not a Piepmatz save .* with --replay"):
        Session.load(record)
    save = tmp_path / "old.json"
    save.write_text(json.dumps({"format": "piepmatz-tui-save", "version": 9}))
    for read in (Session.load, load_game):
        with pytest.raises(GameFileError, match=r"old.json: save version 9 is not supported"):
            read(save)


def test_failed_save_leaves_the_old_file(tmp_path: Path) -> None:
    session = Session(Game.new(players=2, seed=2), ["human", "random"])
    with pytest.raises(SaveFileError, match="cannot write"):
        session.save(tmp_path / "no-such-dir" / "s.json")
    assert not (tmp_path / "no-such-dir").exists()


def test_illegal_action_changes_nothing() -> None:
    session = Session(Game.new(players=2, seed=2, first_player=0), ["human", "random"])
    before = session.view(0)
    absent = next(b for b in range(72) if b not in before.hand)
    with pytest.raises(ValueError, match=BIRD_NAMES[absent]):
        session.apply(f"play {BIRD_NAMES[absent]} 1", 0)
    with pytest.raises(ValueError, match="not player 1's turn"):
        session.apply(session.game.state.legal_action_ids()[0], 1)
    with pytest.raises(ValueError, match="cannot read action"):
        session.apply("anything", 0)
    assert session.view(0) == before and session.game.actions == []


def test_a_kept_file_is_named_as_a_shell_takes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from piepmatz.tui.session import data_dir, shown_path

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    save = data_dir() / "saves" / "g.json"
    assert shown_path(save) == "~/.local/share/piepmatz/saves/g.json"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert shown_path(data_dir() / "saves" / "g.json") == "$XDG_DATA_HOME/piepmatz/saves/g.json"
    assert shown_path(tmp_path / "elsewhere.json") == str(tmp_path / "elsewhere.json")
