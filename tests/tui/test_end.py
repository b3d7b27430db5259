"""The end of a game in the terminal game: Enter pressed through the last hand lands on the score
sheet, which a key brings back after Escape or the replay; the table then agrees with the sheet,
every blind seed shown; the log is readable at 80 columns."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from textual.widgets import RichLog, Static

from piepmatz.core.cards import BIRD_NAMES
from piepmatz.core.state import PLAY
from piepmatz.text.words import birds_as, feeder
from piepmatz.tui.app import PiepmatzApp
from piepmatz.tui.render import TILES, action_text
from piepmatz.tui.screens import ChoiceList, EndScreen, NewGameScreen, ReplayScreen, TableScreen
from piepmatz.tui.screens.widgets import event_line

from .conftest import advanced

SIZE = (80, 24)


@pytest.mark.usefixtures("quick_idle")
def test_the_end_of_a_game_keeps_its_score_sheet_at_hand(tui: Any) -> None:
    # Seed 8: the person's move with three feeder cards left; at the end two of the three bots
    # hold blind seeds.
    session = advanced(
        4, 8, lambda s: len(s.feeder_deck) <= 3 and s.phase == PLAY and s.current_player == 0
    )

    async def scenario() -> None:
        app = PiepmatzApp(session=session, bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await tui.settle(pilot)
            await pilot.press("l", "l")  # the log looked at, and hidden again while play goes on
            # Enter through the last hand, and on: the sheet stays (no new game started).
            await tui.until_screen(app, pilot, EndScreen, press="enter", tries=30)
            await pilot.press("enter", "enter", "enter")
            await tui.settle(pilot)
            assert isinstance(app.screen, EndScreen)
            assert any(e.kind == "keep" for e in session.game.state.events or ())  # E3 went by
            state = session.game.state
            assert state.is_over() and sum(map(bool, state.seeds_blind[1:])) >= 2
            sheet = session.game.score()
            # The sheet's own keys at the bottom, not the table's (which would not answer).
            footer = tui.rendered(app).splitlines()[-1]
            assert "n New game" in footer and "esc Look at the table" in footer
            assert "r Rules" not in footer

            # Escape: the table, its totals the sheet's, every blind seed by its value.
            await pilot.press("escape")
            await pilot.pause()
            table = app.screen
            assert isinstance(table, TableScreen)
            _status, drawn = table.drawn()
            scores = re.findall(r"score (\d+)", drawn.plain)
            assert [int(s) for s in scores] == [p.total for p in sheet.players]
            for pile in state.seeds_blind:
                if pile:
                    seeds = " ".join(feeder(c) for c in pile)
                    assert f"{len(pile)} blind: {seeds}" in drawn.plain
            footer = tui.rendered(app).splitlines()[-1]
            assert "e Score sheet" in footer and "h Hint" not in footer

            # The key brings the sheet back; so does Enter on the table's one choice.
            await pilot.press("e")
            await pilot.pause()
            assert isinstance(app.screen, EndScreen)
            await pilot.press("escape")
            await pilot.pause()
            choices = table.query_one(ChoiceList)
            assert str(choices.get_option_at_index(0).prompt).startswith("Show the score sheet")
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, EndScreen)

            # Closing the replay comes back to the sheet.
            await pilot.press("p")
            await pilot.pause()
            replay = app.screen
            assert isinstance(replay, ReplayScreen)
            # Its header on one line at 80 columns, the last move in words.
            await pilot.press("end")
            await pilot.pause()
            last = len(replay.states) - 1
            with birds_as("code"):
                move = TILES.words(action_text(session.game.actions[-1])).plain
            header = tui.rendered(app).splitlines()[0].strip()
            assert header.endswith(f"step {last}/{last} · {move}"), header
            await pilot.press("c")  # codes, on every screen: the table below too
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, EndScreen)
            await pilot.press("escape")
            await pilot.pause()
            shown = str(table.query_one("#table", Static).content)
            assert BIRD_NAMES[state.rows[0][0]] in shown
            await pilot.press("c", "e")
            await pilot.pause()
            assert isinstance(app.screen, EndScreen)

            # The log at 80 columns: as wide as the screen, its last sentence on one line.
            await pilot.press("escape")
            await pilot.pause()
            await pilot.press("l")
            await tui.settle(pilot)
            await pilot.pause()
            log = table.query_one(RichLog)
            assert log.size.width >= SIZE[0] - 4
            rows = tui.rendered(app).splitlines()
            for event in (state.events or ())[-5:]:
                line = event_line(event, TILES).plain.rstrip()
                assert any(line in row for row in rows), line
            # And n still leaves for a new game, without asking (the game is over).
            await pilot.press("n")
            await tui.settle(pilot)
            assert isinstance(app.screen, NewGameScreen)

    asyncio.run(scenario())
