"""The terminal game's rules screen shows the rules text of the language the game is shown in."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from piepmatz.i18n import set_language
from piepmatz.tui.app import PiepmatzApp
from piepmatz.tui.screens import RulesScreen, TableScreen


@pytest.mark.parametrize(
    ("lang", "guide", "heading", "note"),
    [
        (
            "cs",
            "Jak se hraje",
            "Pravidla této hry: pravidla z přehledu",
            "v každém tahu si dobereš právě jednu kartu",
        ),
        (
            "de",
            "So wird gespielt",
            "Regeln dieser Partie: Regeln der Übersicht",
            "Man zieht in jedem Zug genau eine Karte",
        ),
    ],
)
def test_the_rules_screen_in_the_games_language(
    tui: Any, lang: str, guide: str, heading: str, note: str
) -> None:
    async def scenario() -> None:
        app = PiepmatzApp(seats=["human", "random"], rules="overview", seed=2, bot_delay=0)
        async with app.run_test(size=(100, 30)) as pilot:
            await tui.settle(pilot)
            while not isinstance(app.screen, TableScreen):
                await pilot.press("enter")
                await tui.settle(pilot)
            await pilot.press("r")
            await pilot.pause()
            assert isinstance(app.screen, RulesScreen)
            assert app.screen.markdown.startswith(f"# {heading}")
            assert "Rules in play" not in app.screen.markdown
            await pilot.pause(0.3)
            assert guide in tui.rendered(app)  # the guide first, in the game's language
            document = app.screen.query_one("#rules-text", Markdown)
            app.screen.query_one(VerticalScroll).scroll_to_widget(document, animate=False, top=True)
            await pilot.pause(0.3)
            assert note in tui.rendered(app)

    set_language(lang)
    try:
        asyncio.run(scenario())
    finally:
        set_language("en")
