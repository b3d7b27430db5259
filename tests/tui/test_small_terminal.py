"""The terminal game at 80 × 24, the smallest it is laid out for, in English, Czech and German:
four players late in a game leave room for several moves, no line wraps or repeats itself, the
footer's keys are whole, the first screen shows every row; and snapshots of four players mid-game
and at the end in Czech and German."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from textual.widgets import Select

from piepmatz.core.cards import CROW, FEEDER_KIND, SQUIRREL
from piepmatz.i18n import _, set_language
from piepmatz.text.words import feeder, seat_name
from piepmatz.tui.app import PiepmatzApp
from piepmatz.tui.screens import ChoiceList, EndScreen, NewGameScreen, TableScreen
from piepmatz.tui.session import Session

from .conftest import advanced, late_in_the_game

SIZE = (80, 24)
LANGUAGES = ["en", "cs", "de"]


@pytest.fixture
def language() -> Iterator[None]:
    yield
    set_language("en")


def assert_footer_whole(app: Any, footer: str) -> None:
    """Every key the footer shows is there whole ("key description"), the palette's last."""
    for binding in app.screen.active_bindings.values():
        if binding.binding.show and binding.enabled:
            key = app.get_key_display(binding.binding)
            assert f"{key} {binding.binding.description}" in footer, (key, footer)
    assert footer.rstrip().endswith(_("palette")), footer


@pytest.mark.parametrize("lang", LANGUAGES)
def test_four_players_late_in_a_game_fit_80_by_24(tui: Any, language: None, lang: str) -> None:
    set_language(lang)
    session = advanced(4, 30, late_in_the_game)
    pests = session.game.state.pests
    assert any(
        sum(FEEDER_KIND[c] == kind for c in held) > 1 for held in pests for kind in (CROW, SQUIRREL)
    )

    async def scenario() -> None:
        app = PiepmatzApp(session=session, bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await tui.settle(pilot)
            table = app.screen
            assert isinstance(table, TableScreen)
            status, drawn = table.drawn()
            lines = [status.plain, *drawn.plain.splitlines()]
            for _attempt in range(20):  # the first frames may lag behind the widgets
                shown = tui.rendered(app).splitlines()
                whole = all(any(line.rstrip() in row for row in shown) for line in lines)
                if whole and shown[-1].strip():  # the footer drawn too
                    break
                await pilot.pause(0.05)
            for line in lines:
                assert len(line) <= SIZE[0] - 2, f"too wide: {line!r}"
                assert any(line.rstrip() in row for row in shown), f"not shown whole: {line!r}"
            # Pests are counted, never a name again and again.
            for card in range(len(FEEDER_KIND)):
                if FEEDER_KIND[card] != 0:
                    name = feeder(card)
                    assert f"{name} {name}" not in drawn.plain
                    assert f"{name}, {name}" not in drawn.plain
            assert "×2" in drawn.plain
            # Several moves in view, each on one line (the preview below tells the rest).
            choices = table.query_one(ChoiceList)
            assert choices.option_count >= 5
            region = choices.region
            assert region.height >= 3
            rows = shown[region.y : region.y + region.height]
            assert all(" → " in row for row in rows), rows
            # The footer: every key whole, the tiles/codes key and the log's among them.
            footer = shown[-1]
            assert_footer_whole(app, footer)
            assert f"c {_('Codes/tiles')}" in footer and f"l {_('Log')}" in footer

    asyncio.run(scenario())


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_first_screen_shows_every_row_at_80_by_24(
    tui: Any, plain_bots: None, language: None, lang: str
) -> None:
    set_language(lang)

    async def scenario() -> None:
        app = PiepmatzApp(seed=7, bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.pause()
            assert isinstance(app.screen, NewGameScreen)
            shown = tui.rendered(app)
            for label in (
                _("Language"),
                _("Players"),
                _("Rules"),
                _("Seed"),
                _("Start"),
                _("Quit"),
            ):
                assert f" {label} " in shown, label
            assert_footer_whole(app, shown.splitlines()[-1])

    asyncio.run(scenario())


def test_a_kept_game_and_four_players_leave_the_buttons_in_sight_at_80_by_24(
    tui: Any, plain_bots: None, tmp_path: Any
) -> None:
    path = tmp_path / "autosave.json"
    Session.new(["human", "random"], seed=3).save(path)

    async def scenario() -> None:
        app = PiepmatzApp(seed=7, bot_delay=0, keep=path)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, NewGameScreen) and screen.kept is not None
            screen.query_one("#players", Select).value = 4
            await pilot.pause()
            await pilot.pause()
            assert screen.query_one("#buttons").region.bottom <= SIZE[1] - 1
            shown = tui.rendered(app)
            for label in (_("Resume the last game"), seat_name(3), _("Start"), _("Quit")):
                assert label in shown, label

    asyncio.run(scenario())


@pytest.mark.parametrize("height", [30, 31, 32])
@pytest.mark.parametrize("kept", [True, False], ids=["kept", "newcomer"])
def test_the_first_screen_s_buttons_are_in_sight_just_above_the_compact_height(
    tui: Any, plain_bots: None, tmp_path: Any, height: int, kept: bool
) -> None:
    """Tall enough for the full layout as a rule, but a kept game's line (or the lesson's
    offer to a newcomer) takes rows too: the buttons stay in sight, compact if they must."""
    path = tmp_path / "autosave.json"
    if kept:
        Session.new(["human", "random"], seed=3).save(path)

    async def scenario() -> None:
        app = PiepmatzApp(seed=7, bot_delay=0, keep=path)
        async with app.run_test(size=(100, height)) as pilot:
            await pilot.pause()
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, NewGameScreen)
            assert bool(screen.kept) == kept and screen.offer_lesson != kept
            buttons = screen.query_one("#buttons").region
            assert buttons.bottom <= height - 1, (buttons, height)  # above the footer
            shown = tui.rendered(app)
            first = _("Resume the last game") if kept else _("Learn to play")
            for label in (first, _("Start"), _("Quit")):
                assert label in shown, label

    asyncio.run(scenario())


# ----------------------------------------------------------------------------- snapshots


@pytest.mark.parametrize("lang", ["cs", "de"])
def test_snapshot_four_players_mid_game(
    snap_compare: Any, tui: Any, language: None, lang: str
) -> None:
    set_language(lang)
    app = PiepmatzApp(session=advanced(4, 30, late_in_the_game), bot_delay=0)

    async def run_before(pilot: Any) -> None:
        await tui.settle(pilot)
        await pilot.press("down")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("lang", ["cs", "de"])
def test_snapshot_four_players_at_the_end(
    snap_compare: Any, tui: Any, language: None, lang: str
) -> None:
    set_language(lang)
    app = PiepmatzApp(session=advanced(4, 30, lambda s: s.is_over()), bot_delay=0)

    async def run_before(pilot: Any) -> None:
        await tui.settle(pilot)
        assert isinstance(app.screen, EndScreen)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("lang", ["cs", "de"])
def test_snapshot_four_players_table_after_the_end(
    snap_compare: Any, tui: Any, language: None, lang: str
) -> None:
    set_language(lang)
    app = PiepmatzApp(session=advanced(4, 30, lambda s: s.is_over()), bot_delay=0)

    async def run_before(pilot: Any) -> None:
        await tui.settle(pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
