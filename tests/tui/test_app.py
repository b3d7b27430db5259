"""The real Textual app, driven headless by Textual's pilot: whole games, hot-seat, mouse,
save/resume, replay, rules — and snapshots of the main screens at 100 × 30."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Button, Markdown

import piepmatz.bots
from piepmatz.core import Game, Rules, event_to_json
from piepmatz.core.cards import BIRD_NAMES, FEEDER_EGGS
from piepmatz.core.state import LAST_HAND
from piepmatz.core.view import unknown_cards
from piepmatz.records import Loaded, load_game
from piepmatz.text.rulebook import flag_key, full_rules, rules_markdown, screen_texts
from piepmatz.text.words import birds_as, feeder
from piepmatz.tui.app import PiepmatzApp
from piepmatz.tui.render import TILES, action_text, tile_text
from piepmatz.tui.screens import (
    ChoiceDialog,
    ChoiceList,
    ConfirmDialog,
    EndScreen,
    HandoffScreen,
    NewGameScreen,
    PathDialog,
    ReplayScreen,
    RulesScreen,
    TableScreen,
)
from piepmatz.tui.session import Session

SIZE = (100, 30)


def table_of(app: PiepmatzApp) -> TableScreen:
    return next(s for s in app.screen_stack if isinstance(s, TableScreen))


def hidden_names(session: Session, viewer: int) -> list[str]:
    """Birds ``viewer`` has never seen: in another hand or the deck, never shown face up."""
    view = session.view(viewer)
    unknown, _ = unknown_cards(view)
    seen: set[str] = set()
    for event in view.events or ():
        fields = event_to_json(event)
        for key in ("bird", "birds"):
            value = fields.get(key)
            seen.update(v for v in (value if isinstance(value, list) else [value]) if v)
    # Each hidden bird by its code and by its tile: the table draws tiles unless codes are asked.
    return [
        name
        for b in unknown
        if BIRD_NAMES[b] not in seen
        for name in (BIRD_NAMES[b], tile_text(b).rstrip())
    ]


async def play_out(app: PiepmatzApp, tui: Any, check: Any = None) -> dict[str, Any]:
    """Answer every decision of a person with the highlighted (first) choice until the end."""
    seen: dict[str, Any] = {}
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(600):
            await tui.settle(pilot)
            screen = app.screen
            seen[type(screen).__name__] = seen.get(type(screen).__name__, 0) + 1
            if check is not None:
                check(app, screen)
            if isinstance(screen, EndScreen):
                seen["text"] = tui.text(app)
                seen["session"] = table_of(app).session
                return seen
            # The hand-off shows the next hand at that person's own key, their seat's number.
            await pilot.press(screen.key if isinstance(screen, HandoffScreen) else "enter")
    raise AssertionError("the game did not end")


@pytest.mark.usefixtures("quick_idle")
def test_game_against_bots_to_the_end(tui: Any) -> None:
    app = PiepmatzApp(seats=["human", "random", "easy"], seed=11, bot_delay=0)
    chases_logged = []

    def check(app: PiepmatzApp, screen: Any) -> None:
        table = table_of(app)
        session = table.session
        if isinstance(screen, TableScreen) and not session.state_over:
            # Only legal choices are offered, each with what it would do.
            choices = screen.query_one(ChoiceList)
            ids = [
                int(choices.get_option_at_index(i).id or -1) for i in range(choices.option_count)
            ]
            assert ids == session.game.state.legal_action_ids()
            prompts = [str(choices.get_option_at_index(i).prompt) for i in range(len(ids))]
            assert all("perch" in prompt for prompt in prompts)
        if isinstance(screen, ChoiceDialog):
            ids = [
                int(screen.query_one(ChoiceList).get_option_at_index(i).id or -1)
                for i in range(len(screen.legal))
            ]
            assert ids == session.game.state.legal_action_ids()
        text = tui.text(app)
        assert "YOUR HAND (Player 1)" in text or isinstance(screen, EndScreen)
        # Nothing the person cannot know is on the screen.
        if not session.state_over:
            leaked = [n for n in hidden_names(session, 0) if n in text]
            assert not leaked, [ln for ln in text.splitlines() if any(n in ln for n in leaked)]
        if "— a chase." in text:
            chases_logged.append(True)

    seen = asyncio.run(play_out(app, tui, check))
    session = seen["session"]
    assert session.state_over
    sheet = session.game.score()
    text = str(seen["text"])
    assert "birds (tiebreak)" in text
    for player in sheet.players:
        assert f"{player.total}" in text
    assert "wins" in text or "share the win" in text
    assert seen.get("ChoiceDialog", 0) > 0  # the draws at least came as dialogs
    assert chases_logged
    # Bots' moves are in the log, step by step.
    assert any(e.kind == "play" and e.player == 1 for e in session.game.state.events or ())


@pytest.mark.usefixtures("quick_idle")
def test_hot_seat_hides_the_hand_between_people(tui: Any) -> None:
    # Seed 103 is one of the shorter games (the test's time is mostly Textual drawing).
    app = PiepmatzApp(seats=["human", "human"], seed=103, bot_delay=0)
    handoffs: list[int] = []
    looks: list[int] = []

    def check(app: PiepmatzApp, screen: Any) -> None:
        table = table_of(app)
        session = table.session
        if isinstance(screen, HandoffScreen):
            text = tui.text(app)
            assert f"Pass the keyboard to Player {session.to_act + 1}" in text
            assert "YOUR HAND" not in text
            handoffs.append(session.to_act)
            return
        if session.state_over:
            return
        to_act = session.to_act
        text = tui.text(app)
        if "pass the keyboard to" in text:
            # The person who just moved looks at the result (the bird drawn) first.
            looks.append(table.viewer)
            assert table.viewer != to_act and not table.looked
        else:
            assert table.viewer == to_act
        seat = table.viewer
        assert f"YOUR HAND (Player {seat + 1})" in text
        for bird in session.view(seat).hand:
            assert tile_text(bird) in text
        # The other person's hand and deck draws are nowhere on screen, log included.
        leaked = [n for n in hidden_names(session, seat) if n in text]
        assert not leaked, leaked

    seen = asyncio.run(play_out(app, tui, check))
    session = seen["session"]
    assert session.state_over
    turns = session.game.state.turn
    # One hand-off per turn (each turn changes the person), plus the last hands.
    assert len(handoffs) >= turns
    assert all(a != b for a, b in itertools.pairwise(handoffs))
    assert len(looks) >= turns - 1  # each turn's end shown to its person before the hand-off
    assert "birds (tiebreak)" in str(seen["text"])


def test_the_hand_off_needs_the_next_persons_key_and_may_be_left(tui: Any) -> None:
    """Enter, pressed on through the turn's last steps, never shows the next hand; another
    seat's number neither; ``q`` asks to leave, and staying keeps the hand hidden. The next
    person's number shows it."""
    session = Session(Game.new(players=3, seed=42, first_player=0), ["human"] * 3)

    async def scenario() -> None:
        app = PiepmatzApp(session=session, bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await tui.settle(pilot)
            assert isinstance(app.screen, HandoffScreen)  # the first person's, at the start
            await pilot.press("1")
            await tui.settle(pilot)
            for _ in range(12):  # Player 1's whole turn, and Enter again and again
                if isinstance(app.screen, HandoffScreen):
                    break
                await pilot.press("enter")
                await tui.settle(pilot)
            handoff = app.screen
            assert isinstance(handoff, HandoffScreen)
            nxt = session.to_act
            assert nxt != 0 and handoff.key == str(nxt + 1)
            for key in ("enter", "enter", "enter", "1", "3" if nxt == 1 else "2"):
                await pilot.press(key)
                await tui.settle(pilot)
                assert app.screen is handoff, key
            text = tui.text(app)
            assert f"Player {nxt + 1}: press {nxt + 1} to see your hand." in text
            assert "YOUR HAND" not in text
            await pilot.press("q")
            await tui.settle(pilot)
            assert isinstance(app.screen, ConfirmDialog)
            await pilot.press("escape")  # stay
            await tui.settle(pilot)
            assert app.screen is handoff and "YOUR HAND" not in tui.text(app)
            await pilot.press(handoff.key)
            await tui.settle(pilot)
            assert f"YOUR HAND (Player {nxt + 1})" in tui.text(app)

    asyncio.run(scenario())


def test_mouse_click_shows_the_preview_and_a_second_click_plays(tui: Any) -> None:
    session = Session(Game.new(players=2, seed=8, first_player=0), ["human", "random"])

    async def scenario() -> None:
        app = PiepmatzApp(session=session, bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await tui.settle(pilot)
            choices = app.screen.query_one(ChoiceList)
            second = choices.get_option_at_index(1)
            await pilot.click(ChoiceList, offset=(3, 1))
            await pilot.pause()
            assert session.game.actions == []  # looked, not played
            assert choices.highlighted == 1
            preview = str(app.screen.query_one("#preview").content)  # type: ignore[attr-defined]
            action = session.game.state.legal_actions()[1]  # its bird drawn as a tile
            # The action in words (no engine notation), its bird drawn as a tile.
            bird = tile_text(action.cards[0]).rstrip()
            assert preview.startswith(f"{bird} → perch {action.index} — ")
            await pilot.click(ChoiceList, offset=(3, 1))
            await tui.settle(pilot)
            assert [a.id for a in session.game.actions[:1]] == [int(second.id or -1)]

    asyncio.run(scenario())


def test_save_resume_and_a_broken_file_changes_nothing(tui: Any, tmp_path: Path) -> None:
    session = Session(Game.new(players=2, seed=9, first_player=0), ["human", "random"])
    save = tmp_path / "game.json"
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "piepmatz-tui-save", "version": 1, "seats": ["human"]')

    async def enter_path(pilot: Any, app: PiepmatzApp, key: str, path: Path) -> None:
        await pilot.press(key)
        await pilot.pause()
        if key == "o":  # resuming another file leaves this game: asked first
            assert isinstance(app.screen, ConfirmDialog)
            await pilot.press("y")
            await pilot.pause()
        assert isinstance(app.screen, PathDialog)
        app.screen.query_one("Input").value = str(path)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await tui.settle(pilot)

    async def scenario() -> None:
        app = PiepmatzApp(session=session, bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(6):
                await tui.settle(pilot)
                await pilot.press("enter")
            await tui.settle(pilot)
            while not isinstance(app.screen, TableScreen):
                await pilot.press("enter")
                await tui.settle(pilot)
            played = list(session.game.actions)
            await enter_path(pilot, app, "s", save)
            doc = json.loads(save.read_text())
            assert doc["record"]["actions"] == [str(a) for a in played]
            assert doc["seats"] == ["human", "random"]
            # A broken file: a clear message, the game goes on unchanged.
            await enter_path(pilot, app, "o", broken)
            assert table_of(app).session is session
            assert session.game.actions == played
            assert any("not JSON" in n.message for n in app._notifications)
            # The good file resumes the same position.
            await enter_path(pilot, app, "o", save)
            resumed = table_of(app).session
            assert resumed is not session
            assert [str(a) for a in resumed.game.actions] == [str(a) for a in played]
            assert resumed.view(0) == session.view(0)

    asyncio.run(scenario())


class _Broken:
    name = "broken"

    def choose(self, view: Any, legal: Any, rng: Any) -> int:
        raise RuntimeError("lost its feathers")


def test_a_bot_that_fails_is_named_and_the_game_can_still_be_saved(
    tui: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(piepmatz.bots._FACTORIES, "broken", lambda arg: _Broken())
    session = Session(Game.new(players=2, seed=9, first_player=1), ["human", "broken"])

    async def scenario() -> None:
        app = PiepmatzApp(session=session, bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(20):
                await tui.settle(pilot)
                if app._notifications:
                    break
            messages = [n.message for n in app._notifications]
            assert any(
                "Player 2 (broken bot) raised RuntimeError('lost its feathers')" in m
                for m in messages
            ), messages
            assert session.game.actions == [] and session.to_act == 1
            await pilot.press("s")
            await pilot.pause()
            app.screen.query_one("Input").value = str(tmp_path / "kept.json")  # type: ignore[attr-defined]
            await pilot.press("enter")
            await tui.settle(pilot)
            assert Session.load(tmp_path / "kept.json").seats == ["human", "broken"]

    asyncio.run(scenario())


def test_replay_viewer_steps_forwards_and_backwards(tui: Any) -> None:
    game = Game.new(players=3, seed=21)
    while not game.state.is_over():
        game.apply(game.state.legal_action_ids()[-1])

    async def scenario() -> None:
        app = PiepmatzApp.for_replay(Loaded(game, None, "a record"))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            last = len(game.actions)
            assert f"step 0/{last}" in tui.text(app)
            # The header is whole: what is replayed, then the table's status line.
            rendered = tui.rendered(app).splitlines()
            assert rendered[0].startswith(" REPLAY · every hand and blind seed shown · step 0/")
            assert (
                "standard rules · seed 21 · turn 1 · Player 1: play a bird to a perch"
                in (rendered[1])
            )
            assert "every hand and blind seed shown" in tui.text(app)
            await pilot.press("right", "right", "right")
            assert screen.index == 3
            text = tui.text(app)
            with birds_as("code"):
                said = action_text(game.actions[2])
            # The move in words, its birds as tiles, as on the table; `c` shows the codes.
            assert f"step 3/{last} · {TILES.words(said).plain}" in text
            state = screen.states[3]
            for p in range(3):  # every hand is shown
                assert all(tile_text(b).rstrip() in text for b in state.hands[p])
            await pilot.press("c")
            text = tui.text(app)
            assert f"step 3/{last} · {said}" in text
            for p in range(3):
                assert all(BIRD_NAMES[b] in text for b in state.hands[p])
            assert not any(tile_text(b).rstrip() in text for b in state.hands[0])
            await pilot.press("c")
            await pilot.press("left")
            assert screen.index == 2
            # Blind seeds are shown as the cards they are, not counted.
            blind = next(i for i, st in enumerate(screen.states) if any(st.seeds_blind))
            await pilot.press(*["right"] * (blind - 2))
            state = screen.states[blind]
            pile = next(p for p in state.seeds_blind if p)
            assert f"blind seeds: {' '.join(feeder(c) for c in pile)}" in tui.text(app)
            await pilot.press("end")
            assert screen.index == last
            assert "wins" in tui.text(app) or "share the win" in tui.text(app)
            await pilot.press("home")
            assert screen.index == 0

    asyncio.run(scenario())


def test_replay_of_an_online_game_names_its_people_and_bots(tui: Any, tmp_path: Path) -> None:
    game = Game.new(players=3, seed=21)
    while not game.state.is_over():
        game.apply(game.state.legal_action_ids()[-1])
    # The server's record says who sat where; a name is shown, never obeyed (an escape).
    seats = [{"kind": "human", "name": "Anna"}, {"kind": "easy", "name": None}]
    seats.append({"kind": "human", "name": "Ben\x1b[2J"})
    path = tmp_path / "online.json"
    path.write_text(json.dumps(game.record() | {"seats": seats}))

    async def scenario() -> None:
        app = PiepmatzApp.for_replay(load_game(path, finished=True))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert "turn 1 · Anna: play a bird to a perch" in tui.text(app)
            await pilot.press("right")
            assert re.search(r"^ *Anna plays ", tui.text(app), re.MULTILINE)
            await pilot.press("end")
            text = tui.text(app)
            assert "Bot 2 (easy)" in text and "Ben[2J" in text
            assert "Player 1" not in text and "\x1b" not in text

    asyncio.run(scenario())


def test_new_game_screen_enter_starts_and_bad_seed_is_refused(tui: Any, plain_bots: None) -> None:
    async def scenario() -> None:
        app = PiepmatzApp(bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, NewGameScreen)
            # The button ignores presses while it shows the last one, for a time of Textual's:
            # none here, so that the second press counts however soon it comes.
            screen.query_one("#start", Button).active_effect_duration = 0
            screen.query_one("#seed").value = "twelve"  # type: ignore[attr-defined]
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, NewGameScreen)
            assert "whole number" in tui.text(app)
            screen.query_one("#seed").value = "12"  # type: ignore[attr-defined]
            await pilot.press("enter")
            await tui.settle(pilot)
            table = table_of(app)
            assert table.session.seats == ["human", "random", "random"]
            assert table.session.game.options.seed == 12
            assert table.session.game.state.rules.name == "standard"

    asyncio.run(scenario())


def flag_notes(rules: Rules) -> dict[str, str]:
    """What the rules screen says, for each rule flag, applies in a game under ``rules``."""
    flags = screen_texts("en")["flags"]
    return {flag: about["notes"][flag_key(getattr(rules, flag))] for flag, about in flags.items()}


async def document_shown(pilot: Any, document: Markdown, source: str) -> None:
    """Wait until ``document`` shows ``source``: it parses off the event loop and holds its
    lock until every block is mounted."""
    async with asyncio.timeout(30):
        while document.source != source:
            await pilot.pause()
        async with document.lock:
            pass
    await pilot.pause()


def test_rules_screen_marks_the_rules_in_play(tui: Any) -> None:
    async def scenario() -> None:
        app = PiepmatzApp(seats=["human", "random"], rules="overview", seed=2, bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await tui.settle(pilot)
            while not isinstance(app.screen, TableScreen):
                await pilot.press("enter")
                await tui.settle(pilot)
            rules = table_of(app).session.game.state.rules
            await pilot.press("r")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, RulesScreen)
            assert screen.markdown == rules_markdown(rules)
            document = screen.query_one("#rules-text", Markdown)
            await document_shown(pilot, document, screen.markdown)
            # The guide comes first; below it the flag table has room: the draw flag's note on
            # one line.
            screen.query_one(VerticalScroll).scroll_to_widget(document, animate=False, top=True)
            await pilot.pause()
            shown = tui.rendered(app)
            assert flag_notes(rules)["draw"].replace("**", "") in shown
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, TableScreen)

    asyncio.run(scenario())


# ---------------------------------------------------------------------- snapshots
# At 80 × 24 (a common default) and 100 × 30: birds as tiles, the log behind the choices at 80.

SIZES = [(80, 24), (100, 30)]


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_new_game(snap_compare: Any, plain_bots: None, size: tuple[int, int]) -> None:
    assert snap_compare(PiepmatzApp(seed=7, bot_delay=0), terminal_size=size)


def _table_app(players: int = 3) -> PiepmatzApp:
    seats = ["human"] + ["random"] * (players - 1)
    session = Session(Game.new(players=players, seed=7, first_player=0), seats)
    return PiepmatzApp(session=session, bot_delay=0)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_table(snap_compare: Any, tui: Any, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await tui.settle(pilot)
        await pilot.press("down")

    assert snap_compare(_table_app(4), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_dialog(snap_compare: Any, tui: Any, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await tui.settle(pilot)
        await pilot.press("enter")  # the first play leads to a dialog (collect or draw)
        await tui.settle(pilot)
        assert isinstance(pilot.app.screen, ChoiceDialog)

    assert snap_compare(_table_app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_end(snap_compare: Any, tui: Any, size: tuple[int, int]) -> None:
    # The moves before the end are made in-process (quick); the app plays the last ones.
    seats = ["human", "random", "random", "random"]
    session = Session(Game.new(players=4, seed=7, first_player=0), seats)
    while session.game.state.phase != LAST_HAND:
        if session.is_human(session.to_act):
            session.apply(session.game.state.legal_action_ids()[0])
        else:
            session.bot_move()
    app = PiepmatzApp(session=session, bot_delay=0)

    async def run_before(pilot: Any) -> None:
        for _ in range(600):
            await tui.settle(pilot)
            if isinstance(pilot.app.screen, EndScreen):
                return
            await pilot.press("enter")
        raise AssertionError("no end")

    assert snap_compare(app, terminal_size=size, run_before=run_before)


# ---------------------------------------------------------------------- the table's parts


def test_at_80_columns_the_log_is_toggled_and_a_small_terminal_is_told(tui: Any) -> None:
    async def scenario() -> None:
        app = _table_app(4)
        async with app.run_test(size=(80, 24)) as pilot:
            await tui.settle(pilot)
            screen = app.screen
            shown = tui.rendered(app)
            assert "Turn 1: Player 1." not in shown  # the log is behind the choices
            assert "Your move" in shown and "YOUR HAND (Player 1)" in shown
            # The status line is whole, and every perch row fits.
            assert "standard rules · seed 7 · turn 1 · Player 1 (you)" in shown
            await pilot.press("l")
            await pilot.pause()
            shown = tui.rendered(app)
            assert "Turn 1: Player 1." in shown and "Your move" not in shown
            await pilot.press("l")
            await pilot.pause()
            assert "Your move" in tui.rendered(app)
            await pilot.resize_terminal(70, 20)
            await pilot.pause()
            assert "The terminal is 70 × 20: Piepmatz needs at least 80 × 24" in (tui.rendered(app))
            await pilot.resize_terminal(100, 30)
            await pilot.pause()
            shown = tui.rendered(app)
            assert "Turn 1: Player 1." in shown and "Your move" in shown
            assert screen is app.screen

    asyncio.run(scenario())


def test_tiles_show_sex_and_eggs_and_codes_are_a_key_away(tui: Any) -> None:
    async def scenario() -> None:
        app = _table_app(3)
        async with app.run_test(size=SIZE) as pilot:
            await tui.settle(pilot)
            session = table_of(app).session
            hand = session.view(0).hand
            line = next(ln for ln in tui.rendered(app).splitlines() if "YOUR HAND" in ln)
            for bird in hand:
                assert tile_text(bird) in line and BIRD_NAMES[bird] not in line
            await pilot.press("c")
            await pilot.pause()
            line = next(ln for ln in tui.rendered(app).splitlines() if "YOUR HAND" in ln)
            for bird in hand:
                assert BIRD_NAMES[bird] in line and tile_text(bird) not in line

    asyncio.run(scenario())


def test_the_table_shows_running_scores_and_the_removed_species(tui: Any) -> None:
    from piepmatz.core import score_view

    def position(seed: int) -> Session | None:
        """A game where the bot holds a blind seed and the person is to act."""
        session = Session(Game.new(players=2, seed=seed, first_player=0), ["human", "random"])
        while not session.state_over:
            if session.is_human(session.to_act):
                if session.game.state.seeds_blind[1]:
                    return session
                session.apply(session.game.state.legal_action_ids()[0])
            else:
                session.bot_move()
        return None

    session = next(s for seed in range(40) if (s := position(seed)) is not None)

    async def scenario() -> None:
        app = PiepmatzApp(session=session, bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await tui.settle(pilot)
            text = tui.text(app)
            view = session.view(0)
            removed = {b // 12 for b in view.removed_birds}
            code = ["BL", "BU", "CH", "GR", "SP", "YE"][removed.pop()]
            # As the tiles name it (Ye); the codes, a key away, by its code (YE).
            assert f"bird deck {view.bird_deck_size} · {code.capitalize()} set aside" in text
            await pilot.press("c")
            await tui.settle(pilot)
            assert f"bird deck {view.bird_deck_size} · {code} set aside" in tui.text(app)
            await pilot.press("c")
            await tui.settle(pilot)
            sheet = score_view(view)
            assert any(p.total for p in sheet.players)
            # Another player's blind seeds never count in what this seat is shown.
            full = session.game.score()
            eggs = [sum(FEEDER_EGGS[c] for c in seen) for seen in view.seeds_seen]
            assert sheet.players[1].seeds == eggs[1]
            assert sheet.players[0].seeds == eggs[0] + sum(FEEDER_EGGS[c] for c in view.own_blind)
            assert session.game.state.seeds_blind[1] and full.players[1].seeds > eggs[1]
            lines = [ln for ln in text.splitlines() if ln[2:9] == "Player " and " · score " in ln]
            assert len(lines) == 2
            for p, line in enumerate(lines):
                assert f" · score {sheet.players[p].total} · " in line

    asyncio.run(scenario())


def test_a_dialog_repeats_the_turn_so_far_that_it_covers(tui: Any) -> None:
    async def scenario() -> None:
        app = _table_app(3)
        async with app.run_test(size=(80, 24)) as pilot:
            await tui.settle(pilot)
            await pilot.press("enter")
            await tui.settle(pilot)
            assert isinstance(app.screen, ChoiceDialog)
            played = table_of(app).session.game.actions[-1]
            shown = tui.rendered(app)
            assert f"Player 1 plays {tile_text(played.cards[0]).rstrip()} to perch" in shown

    asyncio.run(scenario())


#: A rule's definition in the rules text: its id in bold (``**T2.2 No chase.**``, ``**C6.**``).
RULE_ID = re.compile(r"\*\*([CSTEV]\d+(?:\.\d+)*)[.* ]", re.MULTILINE)
#: A section named by the letter of its rules (``## T. A turn``).
LETTERED = re.compile(r"^## [A-Z]\. ")


@pytest.mark.parametrize("preset", ["standard", "overview"])
def test_rules_text_for_each_preset(preset: str) -> None:
    rules = Rules.preset(preset)
    texts = screen_texts("en")
    text = rules_markdown(rules, "en")
    lines = text.splitlines()
    # The preset is named in words (``standard rules``), never by its id alone.
    assert lines[0] == "# " + texts["title"].format(name=f"{preset} rules")
    # Every rule of the rules text is there, in the lettered sections only (no appendix).
    assert set(RULE_ID.findall(text)) == set(RULE_ID.findall(full_rules("en")))
    assert all(LETTERED.match(line) for line in lines if line.startswith("## "))
    # The flags in play: each flag's note for this game, in the table and once before the rule
    # it changes; the notes for the other values nowhere.
    notes = flag_notes(rules)
    marks = [i for i, line in enumerate(lines) if line.startswith("> ")]
    assert len(marks) == len(notes)
    for flag, about in texts["flags"].items():
        note = notes[flag]
        assert f"| {about['title']} | {note} |" in lines
        (i,) = [i for i in marks if note in lines[i]]
        assert lines[i] == "> " + texts["note"].format(name=f"{preset} rules", note=note)
        assert lines[i + 2].startswith(about["line"])
        others = [n for n in about["notes"].values() if n != note]
        assert others and not any(n in text for n in others)


# ---------------------------------------------------------------------- leaving, autosave


def test_quit_asks_first_and_the_kept_game_is_offered_next_time(tui: Any, data_home: Path) -> None:
    session = Session(Game.new(players=2, seed=9, first_player=0), ["human", "random"])

    async def first_run() -> None:
        app = PiepmatzApp(session=session, bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await tui.settle(pilot)
            await pilot.press("enter")  # a move or two: the game is kept after each
            await tui.settle(pilot)
            while not isinstance(app.screen, TableScreen):
                await pilot.press("enter")
                await tui.settle(pilot)
            for key in ("q", "n", "ctrl+q"):
                await pilot.press(key)
                await pilot.pause()
                assert isinstance(app.screen, ConfirmDialog), key
                assert "Leave this game? It is kept" in tui.text(app)
                await pilot.press("escape")  # stay
                await pilot.pause()
                assert isinstance(app.screen, TableScreen) and app.is_running
            await pilot.press("q", "y")
            await pilot.pause()
            assert not app.is_running

    asyncio.run(first_run())
    kept = data_home / "autosave.json"
    assert Session.load(kept).game.actions == session.game.actions != []

    async def second_run() -> None:
        app = PiepmatzApp(bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, NewGameScreen)
            assert "Your last game is kept: 2 players" in tui.text(app)
            await pilot.press("enter")  # the offer has the focus
            await tui.settle(pilot)
            resumed = table_of(app).session
            assert resumed.game.actions[: len(session.game.actions)] == session.game.actions

    asyncio.run(second_run())


def test_a_finished_game_is_kept_among_the_saves_and_quits_without_asking(
    tui: Any, data_home: Path
) -> None:
    session = Session(Game.new(players=2, seed=9, first_player=0), ["random", "random"])
    while session.game.state.phase != LAST_HAND:
        session.bot_move()
    data_home.mkdir(parents=True, exist_ok=True)
    session.save(data_home / "autosave.json")

    async def scenario() -> None:
        app = PiepmatzApp(session=session, bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await tui.until_screen(app, pilot, EndScreen)
            assert not (data_home / "autosave.json").exists()
            # The finished game left the autosave for the saves, to be replayed another day.
            (kept,) = (data_home / "saves").iterdir()
            assert Session.load(kept).game.actions == session.game.actions
            # The sheet names the file as a shell takes it (`piepmatz review`, `replay`).
            said = f"$XDG_DATA_HOME/piepmatz/saves/{kept.name}"
            assert said in " ".join(tui.text(app).split())
            await pilot.press("escape", "q")
            await pilot.pause()
            assert not app.is_running

    asyncio.run(scenario())


def test_save_never_replaces_a_file_without_asking(tui: Any, tmp_path: Path) -> None:
    session = Session(Game.new(players=2, seed=9, first_player=0), ["human", "random"])
    older = tmp_path / "older.json"
    older.write_text("someone's notes")

    async def scenario() -> None:
        app = PiepmatzApp(session=session, bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await tui.settle(pilot)
            await pilot.press("s")
            await pilot.pause()
            assert isinstance(app.screen, PathDialog)
            # The suggestion names the game, in the user's data directory, not the cwd.
            suggested = app.screen.query_one("Input").value  # type: ignore[attr-defined]
            assert "/piepmatz/saves/piepmatz-seed9-turn1" in suggested
            app.screen.query_one("Input").value = str(older)  # type: ignore[attr-defined]
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmDialog)
            await pilot.press("n")
            await pilot.pause()
            assert older.read_text() == "someone's notes"
            await pilot.press("s")
            await pilot.pause()
            app.screen.query_one("Input").value = str(older)  # type: ignore[attr-defined]
            await pilot.press("enter")
            await pilot.pause()
            await pilot.press("y")
            await pilot.pause()
            assert Session.load(older).seats == ["human", "random"]

    asyncio.run(scenario())


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("size", [(80, 24), (100, 30), (200, 50)])
def test_the_score_sheet_fits_every_player_count(
    tui: Any, players: int, size: tuple[int, int]
) -> None:
    session = Session(Game.new(players=players, seed=5), ["random"] * players)
    while not session.state_over:
        session.bot_move()
    sheet = session.game.score()

    async def scenario() -> None:
        app = PiepmatzApp(session=session, bot_delay=0)
        async with app.run_test(size=size) as pilot:
            await tui.settle(pilot)
            assert isinstance(app.screen, EndScreen)
            shown = tui.rendered(app)
            total = next(line for line in shown.splitlines() if " total " in line)
            for p in sheet.players:  # every column of the total row on one line
                assert f" {p.total}" in total
            assert f"Player {players}" in shown

    asyncio.run(scenario())


def test_the_new_game_screen_keeps_a_rules_spec_with_flags(tui: Any, plain_bots: None) -> None:
    async def scenario() -> None:
        app = PiepmatzApp(rules="overview:last_hand=true", seed=3, bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("enter")
            await tui.settle(pilot)
            rules = table_of(app).session.game.state.rules
            assert rules.draw == "one" and rules.last_hand is True  # overview, one flag changed

    asyncio.run(scenario())


def test_the_log_scrolls_without_focus_and_stays_at_the_bottom_after_a_resize(tui: Any) -> None:
    from textual.widgets import RichLog

    session = Session(Game.new(players=4, seed=3, first_player=1), ["human"] + ["random"] * 3)
    while session.game.state.turn < 6 or not session.is_human(session.to_act):
        if session.is_human(session.to_act):
            session.apply(session.game.state.legal_action_ids()[0])
        else:
            session.bot_move()

    async def scenario() -> None:
        app = PiepmatzApp(session=session, bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await tui.settle(pilot)
            log = app.screen.query_one(RichLog)
            assert not log.has_focus and log.max_scroll_y > 0
            assert log.scroll_y == log.max_scroll_y
            for attempt in range(200):  # the scroll is animated: slower on a loaded machine
                # Pressed again each second: the screen's first resize, handled late on a
                # loaded machine, brings the log back to its end (as after any resize).
                if attempt % 20 == 0:
                    await pilot.press("pageup")
                await pilot.pause(0.05)
                if log.scroll_y < log.max_scroll_y:
                    break
            assert log.scroll_y < log.max_scroll_y
            await pilot.resize_terminal(110, 34)
            for _ in range(200):
                await pilot.pause(0.05)
                if log.scroll_y == log.max_scroll_y:
                    break
            assert log.scroll_y == log.max_scroll_y

    asyncio.run(scenario())


def test_replay_from_the_new_game_screen_refuses_a_game_in_progress(
    tui: Any, tmp_path: Path, plain_bots: None
) -> None:
    unfinished = Session(Game.new(players=2, seed=9), ["human", "random"])
    unfinished.apply(unfinished.game.state.legal_action_ids()[0])
    unfinished.save(tmp_path / "unfinished.json")
    finished = Session(Game.new(players=2, seed=9), ["random", "random"])
    while not finished.state_over:
        finished.bot_move()
    finished.save(tmp_path / "finished.json")

    async def open_replay(pilot: Any, app: PiepmatzApp, path: Path) -> None:
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, PathDialog)
        app.screen.query_one("Input").value = str(path)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()

    async def scenario() -> None:
        app = PiepmatzApp(bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await open_replay(pilot, app, tmp_path / "unfinished.json")
            assert isinstance(app.screen, NewGameScreen)
            assert any("its replay would show every hand" in n.message for n in app._notifications)
            await open_replay(pilot, app, tmp_path / "finished.json")
            assert isinstance(app.screen, ReplayScreen)
            assert app.screen.game.actions == finished.game.actions

    asyncio.run(scenario())
