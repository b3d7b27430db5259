"""Hints and the review screen in the real app, driven by Textual's pilot."""

from __future__ import annotations

import asyncio
import io
from typing import Any

import pytest
from textual.widgets import Select, Static

import piepmatz.tui.screens.review as review_module
from piepmatz.bots.analysis import decisions, hint
from piepmatz.core import Action, Game
from piepmatz.core.cards import BIRD_NAMES
from piepmatz.core.state import LAST_HAND, PLAY
from piepmatz.records import GameFileError
from piepmatz.text.words import birds_as
from piepmatz.tui.app import PiepmatzApp
from piepmatz.tui.hints import hint_seed
from piepmatz.tui.render import CODES, TILES, action_text, table_text, tile_text
from piepmatz.tui.screens import ChoiceDialog, ChoiceList, EndScreen, TableScreen
from piepmatz.tui.screens.review import ReviewScreen
from piepmatz.tui.screens.widgets import preview_text
from piepmatz.tui.session import Session
from piepmatz.tui.textmode import TextGame

SIZE = (100, 30)
#: A seeded search instead of the hard bot's one second, so that a hint is reproducible.
HINT_BOT = "ismcts:iterations=300"


def table_of(app: PiepmatzApp) -> TableScreen:
    return next(s for s in app.screen_stack if isinstance(s, TableScreen))


def _session(swap_hidden: bool, hints: bool = True) -> Session:
    game = Game.new(players=2, seed=5, first_player=0)
    state = game.state
    if swap_hidden:
        # A bird of the opponent's hand trades places with one deep in the bird deck: hidden
        # from player 0 either way.
        state.hands[1][0], state.bird_deck[0] = state.bird_deck[0], state.hands[1][0]
        state.hands[1].sort()
    return Session(game, ["human", "random"], hints=hints)


async def _hint(session: Session, tui: Any, follow: bool = True) -> tuple[Any, Any, str]:
    """The hint for the first decision; with ``follow``, what becomes of it on screen."""
    app = PiepmatzApp(session=session, bot_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await tui.settle(pilot)
        table = table_of(app)
        assert session.game.state.phase == PLAY and session.to_act == 0
        table.hints.bot = HINT_BOT
        await pilot.press("h")
        await tui.settle(pilot)
        await pilot.pause()
        assert table.hints.last is not None
        view, found = table.hints.last
        # Beside the choices, not in a notice over them; the cursor on the suggested move.
        assert not app._notifications
        choices = table.query_one(ChoiceList)
        assert choices.get_option_at_index(choices.highlighted or 0).id == str(found.action)
        hint_line = str(table.query_one("#hint", Static).content)
        assert table.query_one("#hint", Static).display
        if not follow:
            return view, found, hint_line
        # The move's bird as a tile, as in the list; `c` shows its code, and back.
        bird = Action.from_id(found.action).cards[0]
        assert tile_text(bird).rstrip() in hint_line and BIRD_NAMES[bird] not in hint_line
        await pilot.press("c")
        await pilot.pause()
        assert BIRD_NAMES[bird] in str(table.query_one("#hint", Static).content)
        await pilot.press("c")
        await pilot.pause()
        assert str(table.query_one("#hint", Static).content) == hint_line
        # The next decision starts without it.
        await pilot.press("enter")
        await tui.settle(pilot)
        assert not table.query_one("#hint", Static).display
        if isinstance(app.screen, ChoiceDialog):
            assert not app.screen.query_one("#dialog-hint", Static).display
        return view, found, hint_line


def test_a_hint_is_a_legal_move_computed_from_the_view_only(tui: Any) -> None:
    plain, swapped = _session(False), _session(True)
    assert plain.game.state.hands[1] != swapped.game.state.hands[1]
    start = plain.view(0)
    assert start == swapped.view(0)
    legal = plain.game.state.legal_action_ids()
    first = asyncio.run(_hint(plain, tui))
    second = asyncio.run(_hint(swapped, tui, follow=False))
    view, found, note = first
    assert view == start
    assert found.action in legal
    assert "expected lead" in note and "from your view" in note and "Hint (" in note
    # Other hidden cards, the same view: the same hint, estimate and all.
    assert second[1] == found and second[2] == note


def test_hints_can_be_turned_off_for_a_table(tui: Any) -> None:
    async def scenario() -> None:
        app = PiepmatzApp(session=_session(False, hints=False), bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await tui.settle(pilot)
            # No hint key in the footer (the key still says why nothing comes).
            assert "Hint" not in tui.rendered(app).splitlines()[-1]
            await pilot.press("h")
            await tui.settle(pilot)
            assert table_of(app).hints.last is None
            assert "Hints are turned off" in [n.message for n in app._notifications][-1]
            await pilot.press("enter")  # the first play leads to a dialog (collect or draw)
            await tui.settle(pilot)
            assert isinstance(app.screen, ChoiceDialog)
            assert "Hint" not in tui.rendered(app).splitlines()[-1]

    asyncio.run(scenario())


def test_the_new_game_screen_turns_hints_off(tui: Any) -> None:
    async def scenario() -> None:
        app = PiepmatzApp(seed=3, bot_delay=0, hints=False)
        async with app.run_test(size=SIZE) as pilot:
            await tui.settle(pilot)
            assert app.screen.query_one("#hints", Select).value is False  # from --no-hints
            await pilot.press("ctrl+s")
            await tui.settle(pilot)
            assert table_of(app).session.hints is False

    asyncio.run(scenario())


def test_a_save_keeps_the_tables_hint_setting() -> None:
    doc = _session(False, hints=False).save_doc()
    assert Session.from_doc(doc).hints is False
    with pytest.raises(GameFileError, match="hints must be true or false, not 'no'"):
        Session.from_doc({**doc, "hints": "no"})


def test_the_end_screen_reviews_the_game_move_by_move(
    tui: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(review_module, "ITERATIONS", 6)
    monkeypatch.setattr(review_module, "PROCESSES", 2)  # a pool, started under Textual
    session = Session(Game.new(players=2, seed=9, first_player=0), ["human", "random"])
    while session.game.state.phase != LAST_HAND:
        if session.is_human(session.to_act):
            session.apply(session.game.state.legal_action_ids()[0])
        else:
            session.bot_move()

    async def scenario() -> None:
        app = PiepmatzApp(session=session, bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await tui.until_screen(app, pilot, EndScreen, press="enter")
            expected = list(decisions(session.game, 0))  # the last hand included
            await pilot.press("v")
            await tui.settle(pilot)
            screen = app.screen
            assert isinstance(screen, ReviewScreen) and screen.done
            assert [r.index for r in screen.reviews] == [d.index for d in expected]
            labels = screen.labels
            board = screen.query_one("#review-table", Static)
            options = screen.query_one("#review-options", Static)
            width = SIZE[0] - 2
            for step in range(2):
                d = expected[step]
                # The board as player 0 saw it at that decision, birds as tiles.
                drawn = table_text(d.view, labels, cards=TILES, width=width)
                assert str(board.content) == str(drawn)
                text = str(options.content)
                assert "Played: " in text and screen.reviews[step].grade in text
                assert "Accuracy" in text
                played = Action.from_id(d.played)
                with birds_as("code"):  # a draw from the display names its bird
                    said = action_text(played, display=d.view.display)
                assert TILES.words(said).plain in text
                # `c`: the board and the options with the engine's codes, and back.
                await pilot.press("c")
                await pilot.pause()
                drawn = table_text(d.view, labels, cards=CODES, width=width)
                assert str(board.content) == str(drawn)
                assert said in str(options.content)
                await pilot.press("c")
                await pilot.pause()
                assert str(options.content) == text
                await pilot.press("right")
                await pilot.pause()
            await pilot.press("end")
            await pilot.pause()
            assert screen.index == len(expected) - 1
            # `m`: the next decision graded below good, round from the first after the last.
            worse = [i for i, r in enumerate(screen.reviews) if r.grade not in ("best", "good")]
            assert worse  # the first legal move each time: some are mistakes
            for want in [*worse, worse[0]]:
                await pilot.press("m")
                await pilot.pause()
                assert screen.index == want
            footer = tui.rendered(app).splitlines()[-1]
            assert "→ Next decision" in footer and "m Next mistake" in footer
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, EndScreen)

    asyncio.run(scenario())


def test_a_hint_in_a_decision_dialog_answers_that_decision(tui: Any) -> None:
    async def scenario() -> None:
        session = _session(False)
        app = PiepmatzApp(session=session, bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await tui.settle(pilot)
            table = table_of(app)
            table.hints.bot = HINT_BOT
            await pilot.press("enter")  # the first play leads to a dialog (collect or draw)
            await tui.settle(pilot)
            assert isinstance(app.screen, ChoiceDialog)
            await pilot.press("h")
            await tui.settle(pilot)
            assert table.hints.last is not None
            view, found = table.hints.last
            assert view == session.view(0) and view.phase != PLAY
            assert found.action in session.game.state.legal_action_ids()
            # In the dialog, above its choices, with the cursor on the suggested one; no
            # notice covers the preview column.
            dialog = app.screen
            assert isinstance(dialog, ChoiceDialog)
            assert not app._notifications
            hint_line = str(dialog.query_one("#dialog-hint", Static).content)
            assert "expected lead" in hint_line
            choices = dialog.query_one(ChoiceList)
            assert choices.get_option_at_index(choices.highlighted or 0).id == str(found.action)
            # The preview column tells what the suggested choice does.
            preview = str(dialog.query_one("#dialog-preview", Static).content)
            assert preview == preview_text(view, found.action, TILES).plain
            # `c`: the dialog's birds (its hand, choices, hint) as codes, on the same choice.
            hand = view.hand
            assert tile_text(hand[0]).rstrip() in tui.text(app)
            await pilot.press("c")
            await tui.settle(pilot)
            dialog = app.screen
            assert isinstance(dialog, ChoiceDialog)
            text = tui.text(app)
            assert all(BIRD_NAMES[b] in text for b in hand)
            assert not any(tile_text(b).rstrip() in text for b in hand)
            choices = dialog.query_one(ChoiceList)
            assert choices.get_option_at_index(choices.highlighted or 0).id == str(found.action)
            assert "expected lead" in str(dialog.query_one("#dialog-hint", Static).content)
            await pilot.press("c")
            await tui.settle(pilot)
            assert tile_text(hand[0]).rstrip() in tui.text(app)

    asyncio.run(scenario())


@pytest.mark.parametrize(("hints", "codes"), [(True, True), (True, False), (False, False)])
def test_text_mode_hint(hints: bool, codes: bool) -> None:
    session = Session(Game.new(players=2, seed=5, first_player=0), ["human", "random"], hints=hints)
    out = io.StringIO()
    game = TextGame(session, out, io.StringIO("help\nhint\nquit\n"), codes=codes)
    game.hint_bot = HINT_BOT
    assert game.run() == 0
    text = out.getvalue()
    commands = next(line for line in text.splitlines() if line.startswith("Other commands:"))
    assert ("hint" in commands) == hints  # help offers no hint at a table without hints
    if not hints:
        assert "Hints are turned off at this table." in text
        return
    line = next(line for line in text.splitlines() if "Hint (" in line)
    said = line.split("): ", 1)[1]
    expected = hint(session.view(0), hint_seed(session.game), HINT_BOT).action
    # The bot's choice as help listed it, with its number: typed as it is, or by the number.
    number = session.game.state.legal_action_ids().index(expected) + 1
    entry = next(
        listed.strip() for listed in text.splitlines() if listed.startswith(f"{number:>3}. ")
    )
    assert said.startswith(entry + " — expected lead ")
    notation = str(Action.from_id(expected))
    if codes:  # the notation first, as a script reads it
        assert entry.startswith(f"{number}. {notation} ")
    else:  # in words, the notation in brackets
        assert entry.startswith(f"{number}. {action_text(Action.from_id(expected), short=True)}")
        assert entry.endswith(f"({notation})")


def test_a_hot_seat_end_screen_reviews_each_person_in_turn(
    tui: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two people at one screen: the first Review grades Player 1, the next Player 2, then
    Player 1 again (the review at the end graded the first person only)."""
    monkeypatch.setattr(review_module, "ITERATIONS", 2)
    session = Session(Game.new(players=2, seed=9, first_player=0), ["human", "human"])
    while not session.state_over:
        session.apply(session.game.state.legal_action_ids()[0])

    async def scenario() -> None:
        app = PiepmatzApp(session=session, bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await tui.until_screen(app, pilot, EndScreen)
            reviewed = []
            for _ in range(3):
                await pilot.press("v")
                await tui.settle(pilot)
                assert isinstance(app.screen, ReviewScreen)
                reviewed.append(app.screen.player)
                await pilot.press("escape")
                await tui.settle(pilot)
            assert reviewed == [0, 1, 0]

    asyncio.run(scenario())
