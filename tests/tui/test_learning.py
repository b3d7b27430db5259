"""Learning to play in the terminal: the guided first game completed by following its own
prompts (the marked, highlighted choice and the instruction above it), a refused move, a lesson
left and taken up again, the first screen's offer, "Why?" on the log, the explained score sheet
and the guide before the rules."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Markdown, OptionList, Static

from piepmatz.i18n import use_language
from piepmatz.tui.app import PiepmatzApp
from piepmatz.tui.screens import (
    ChoiceDialog,
    ChoiceList,
    EndScreen,
    LessonEndScreen,
    NewGameScreen,
    RulesScreen,
    TableScreen,
    TutorialScreen,
    WhyScreen,
)
from piepmatz.tui.screens.dialogs import ConfirmDialog
from piepmatz.tui.screens.widgets import MARKED

from .conftest import advanced

SHOTS = Path(os.environ.get("PIEPMATZ_SHOTS", "")) if os.environ.get("PIEPMATZ_SHOTS") else None


def the_choices(app: Any) -> ChoiceList:
    screen = app.screen
    return screen.query_one("#dialog-choices" if isinstance(screen, ChoiceDialog) else "#choices")


def instruction(app: Any) -> str:
    screen = app.screen
    hint = screen.query_one("#dialog-hint" if isinstance(screen, ChoiceDialog) else "#hint")
    assert isinstance(hint, Static)
    return str(hint.content)


def marked(choices: OptionList) -> list[int]:
    return [
        i
        for i in range(choices.option_count)
        if str(choices.get_option_at_index(i).prompt).startswith(MARKED)
    ]


async def follow_one(app: Any, pilot: Any, tui: Any) -> None:
    """One step as a learner takes it: read the instruction, press Enter on the marked choice."""
    screen = next(s for s in app.screen_stack if isinstance(s, TutorialScreen))
    lesson = screen.lesson
    # The step's instruction, its birds drawn as tiles.
    assert screen.cards.sentence(lesson.parts("do")).plain in instruction(app)
    choices = the_choices(app)
    assert marked(choices) == [choices.highlighted]
    done = lesson.done
    await pilot.press("enter")
    await tui.settle(pilot)
    assert lesson.done == done + 1


@pytest.mark.usefixtures("quick_idle")
@pytest.mark.parametrize(("lang", "size"), [("en", (80, 24)), ("cs", (120, 40)), ("de", (80, 24))])
def test_the_lesson_is_completed_by_following_its_prompts(
    tui: Any, data_home: Path, lang: str, size: tuple[int, int]
) -> None:
    async def scenario() -> None:
        with use_language(lang):
            app = PiepmatzApp(lesson=True)
            async with app.run_test(size=size) as pilot:
                await tui.settle(pilot)
                assert isinstance(app.screen, ConfirmDialog)  # the introduction
                await pilot.press("enter")
                await tui.settle(pilot)
                shots = 0
                for _step in range(30):
                    if isinstance(app.screen, LessonEndScreen):
                        break
                    if SHOTS is not None and lang == "en" and _step in (0, 2, 4):
                        SHOTS.mkdir(parents=True, exist_ok=True)
                        app.save_screenshot(f"lesson-step-{_step + 1}.svg", str(SHOTS))
                        shots += 1
                    if _step == 0:
                        # The lesson's deal is fixed: its seed would mean nothing to a learner.
                        status = str(app.screen.query_one("#status", Static).content)
                        assert "turn" in status or lang != "en", status
                        assert "seed" not in status and "0 ·" not in status, status
                    await follow_one(app, pilot, tui)
                screen = app.screen
                assert isinstance(screen, LessonEndScreen)
                text = tui.text(app)
                # The score sheet, each number told by its cards, and the offer of a real game.
                assert screen.session.game.state.is_over()
                sheet = screen.session.game.score()
                assert str(sheet.players[0].total) in text
                table = next(s for s in app.screen_stack if isinstance(s, TutorialScreen))
                assert table.lesson.over
                assert json.loads((data_home / "learning.json").read_text())["done"] == (
                    table.lesson.steps
                )
                await pilot.press("n")  # a first real game, against the easy bot
                await tui.settle(pilot)
                assert isinstance(app.screen, TableScreen)
                assert not isinstance(app.screen, TutorialScreen)
                assert app.screen.session.seats == ["human", "easy"]

    asyncio.run(scenario())


def test_a_refused_move_says_why_and_changes_nothing_then_resumes(
    tui: Any, data_home: Path
) -> None:
    async def scenario() -> None:
        app = PiepmatzApp(lesson=True)
        async with app.run_test(size=(100, 30)) as pilot:
            await tui.settle(pilot)
            await pilot.press("enter")  # begin
            await tui.settle(pilot)
            screen = app.screen
            assert isinstance(screen, TutorialScreen)
            lesson = screen.lesson
            refusal = screen.cards.sentence(lesson.parts("refuse")).plain
            events = len(lesson.state.events or ())
            hand = list(lesson.state.hands[0])
            await pilot.press("down", "enter")  # another choice than the marked one
            await tui.settle(pilot)
            assert refusal in instruction(app)
            assert lesson.done == 0 and len(lesson.state.events or ()) == events
            assert list(lesson.state.hands[0]) == hand
            for _ in range(4):  # to the next play on the table (the draws are dialogs)
                await follow_one(app, pilot, tui)
            await pilot.press("q")  # leave: back to the first screen, the steps kept
            await tui.settle(pilot)
            assert isinstance(app.screen, NewGameScreen)
        assert json.loads((data_home / "learning.json").read_text())["done"] == 4

        app = PiepmatzApp(lesson=True)
        async with app.run_test(size=(100, 30)) as pilot:
            await tui.settle(pilot)
            screen = app.screen
            assert isinstance(screen, TutorialScreen)  # no introduction the second time
            assert screen.lesson.done == 4
            await follow_one(app, pilot, tui)

    asyncio.run(scenario())


def test_the_first_screen_offers_the_lesson_to_a_newcomer_only(tui: Any, data_home: Path) -> None:
    async def scenario() -> None:
        app = PiepmatzApp(seed=3, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, NewGameScreen)
            offer = app.screen.query_one("VerticalScroll").border_subtitle
            assert offer and "five minutes" in str(offer)
            await pilot.press("f1")  # how to play, from the first screen
            await pilot.pause()
            assert isinstance(app.screen, RulesScreen)
            # It opens with how to read the table's tiles, then the guide.
            parts = [m.id for m in app.screen.query(Markdown)]
            assert parts[:2] == ["legend", "guide"]
            await pilot.press("escape", "ctrl+s")  # a real game
            await tui.settle(pilot)
            assert isinstance(app.screen, TableScreen)
        app = PiepmatzApp(seed=3, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert not app.screen.query_one("VerticalScroll").border_subtitle
            assert app.screen.query_one("#lesson")  # still one button away

    asyncio.run(scenario())


def test_why_tells_the_rule_behind_a_log_line(tui: Any) -> None:
    session = advanced(2, 4, lambda s: s.turn >= 3 and s.current_player == 0 and s.phase == 0)

    async def scenario() -> None:
        app = PiepmatzApp(session=session, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await tui.settle(pilot)
            await pilot.press("w")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, WhyScreen)
            lines = screen.query_one(OptionList)
            assert lines.highlighted == len(screen.events) - 1  # the last line first
            answer = str(screen.query_one("#answer", Static).content)
            from piepmatz.text.why import why

            last = why(screen.events[-1], session.game.state.rules)
            assert answer == f"Rule {last.rule}: {last.text}"
            turns = [i for i, e in enumerate(screen.events) if e.kind == "turn"]
            lines.highlighted = turns[-1]
            await pilot.pause()
            assert str(screen.query_one("#answer", Static).content).startswith("Rule S5: ")
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, TableScreen)

    asyncio.run(scenario())


def test_the_score_sheet_explains_each_number_on_request(tui: Any) -> None:
    session = advanced(3, 3, lambda s: s.is_over())

    async def scenario() -> None:
        app = PiepmatzApp(session=session, bot_delay=0)
        async with app.run_test(size=(100, 40)) as pilot:
            await tui.settle(pilot)
            assert isinstance(app.screen, EndScreen)
            assert "Total " not in tui.text(app)
            await pilot.press("x")
            await pilot.pause()
            text = tui.text(app)
            for p, line in enumerate(session.game.score().players):
                assert f"Total {line.total}" in text, p
            assert "Seeds " in text and "Pairs " in text

    asyncio.run(scenario())


def test_the_rules_screen_opens_with_the_legend_then_the_guide(tui: Any) -> None:
    session = advanced(2, 5, lambda s: s.turn >= 2 and s.current_player == 0 and s.phase == 0)

    async def scenario() -> None:
        app = PiepmatzApp(session=session, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await tui.settle(pilot)
            await pilot.press("r")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, RulesScreen)
            documents = list(screen.query(Markdown))
            assert [d.id for d in documents] == ["legend", "guide", "rules-text"]
            assert documents[0].source.startswith("## Reading the table")
            assert documents[1].source.startswith("# How to play")
            assert "T2.1" in documents[2].source

    asyncio.run(scenario())
