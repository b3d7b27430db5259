"""Textual's command palette (Ctrl+P) in the player's language: the footer's key, the search
field, the system commands' titles and help texts, and the theme picker it leads to."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from textual.app import App
from textual.command import CommandInput, CommandList, CommandPalette

from piepmatz.core import Game
from piepmatz.i18n import set_language, translation
from piepmatz.tui.app import PALETTE_TEXTS, PiepmatzApp
from piepmatz.tui.screens import NewGameScreen
from piepmatz.tui.session import Session

#: What each language shows: the footer's key, the placeholders, and on the table (the choices
#: focused) the system commands, title and help text, in Textual's order (by title).
SHOWN: dict[str, dict[str, Any]] = {
    "en": {
        "footer": "^p palette",
        "search": "Search for commands…",
        "themes": "Search for themes…",
        "theme": "theme",
        "commands": [
            ("Keys", "Show help for the focused widget and a summary of available keys"),
            ("Maximize", "Maximize the focused widget"),
            ("Quit", "Quit the application as soon as possible"),
            ("Screenshot", "Save an SVG 'screenshot' of the current screen"),
            ("Theme", "Change the current theme"),
        ],
    },
    "cs": {
        "footer": "^p paleta",
        "search": "Hledat příkazy…",
        "themes": "Hledat barevné motivy…",
        "theme": "motiv",
        "commands": [
            ("Barevný motiv", "Změnit barevný motiv"),
            ("Klávesy", "Zobrazit nápovědu k aktivnímu prvku a přehled dostupných kláves"),
            ("Konec", "Co nejdříve ukončit aplikaci"),
            ("Maximalizovat", "Maximalizovat aktivní prvek"),
            ("Snímek obrazovky", "Uložit snímek aktuální obrazovky jako SVG"),
        ],
    },
    "de": {
        "footer": "^p Palette",
        "search": "Befehle suchen…",
        "themes": "Farbschemata suchen…",
        "theme": "farb",
        "commands": [
            ("Beenden", "Die Anwendung so bald wie möglich beenden"),
            ("Bildschirmfoto", "Ein Bildschirmfoto des aktuellen Bildschirms als SVG speichern"),
            ("Farbschema", "Das aktuelle Farbschema wechseln"),
            ("Maximieren", "Das ausgewählte Element maximieren"),
            (
                "Tasten",
                "Hilfe zum ausgewählten Element und eine Übersicht der verfügbaren Tasten anzeigen",
            ),
        ],
    },
}


@pytest.fixture
def language() -> Iterator[None]:
    """Each test sets the process's language; it is English again afterwards."""
    yield
    set_language("en")


def _table_app() -> PiepmatzApp:
    session = Session(Game.new(players=3, seed=7, first_player=0), ["human", "random", "random"])
    return PiepmatzApp(session=session, bot_delay=0)


async def _palette(pilot: Any) -> CommandPalette:
    """The palette open on top, once its commands are listed."""
    for _ in range(100):
        await pilot.pause(0.02)
        screen = pilot.app.screen
        if isinstance(screen, CommandPalette) and screen.query_one(CommandList).option_count:
            return screen
    raise AssertionError("the command palette did not open with its commands")


def _listed(palette: CommandPalette) -> list[tuple[str, str]]:
    """The commands the palette lists: (title, help) as the player reads them."""
    options = palette.query_one(CommandList)
    listed = []
    for index in range(options.option_count):
        title, _newline, help_text = str(options.get_option_at_index(index).prompt).partition("\n")
        listed.append((title, help_text))
    return listed


@pytest.mark.parametrize("lang", ["en", "cs", "de"])
def test_the_palette_in_the_players_language(tui: Any, language: None, lang: str) -> None:
    set_language(lang)
    shown = SHOWN[lang]

    async def scenario() -> None:
        app = _table_app()
        async with app.run_test(size=tui.size) as pilot:
            await tui.settle(pilot)
            assert tui.rendered(app).splitlines()[-1].rstrip().endswith(shown["footer"])
            await pilot.press("ctrl+p")
            palette = await _palette(pilot)
            assert palette.query_one(CommandInput).placeholder == shown["search"]
            assert _listed(palette) == shown["commands"]
            assert shown["search"] in tui.rendered(app)
            # The search finds the commands by their shown titles; the theme picker follows.
            await pilot.press(*shown["theme"])
            title = next(t for t, _help in shown["commands"] if shown["theme"] in t.lower())
            for _ in range(100):
                await pilot.pause(0.02)
                if [t for t, _help in _listed(palette)] == [title]:
                    break
            else:
                raise AssertionError(f"the search for {shown['theme']!r} did not find {title!r}")
            await pilot.press("enter")
            for _ in range(100):
                await pilot.pause(0.02)
                if isinstance(app.screen, CommandPalette) and app.screen is not palette:
                    break
            else:
                raise AssertionError("the theme picker did not open")
            assert app.screen.query_one(CommandInput).placeholder == shown["themes"]

    asyncio.run(scenario())


def test_the_footer_follows_the_language_switch(tui: Any, plain_bots: None, language: None) -> None:
    async def scenario() -> None:
        app = PiepmatzApp(seed=7, bot_delay=0)
        async with app.run_test(size=tui.size) as pilot:
            await pilot.pause()
            assert tui.rendered(app).splitlines()[-1].rstrip().endswith("^p palette")
            for lang in ("de", "cs", "en"):
                app.screen.query_one("#language").value = lang
                for _ in range(20):
                    await pilot.pause()
                    rows = tui.rendered(app).splitlines()  # none until the screen is drawn
                    if isinstance(app.screen, NewGameScreen) and rows:
                        footer = rows[-1].rstrip()
                        if footer.endswith(SHOWN[lang]["footer"]):
                            break
                assert footer.endswith(SHOWN[lang]["footer"]), footer
            await pilot.press("ctrl+p")
            palette = await _palette(pilot)
            assert palette.query_one(CommandInput).placeholder == SHOWN["en"]["search"]

    asyncio.run(scenario())


def _screens() -> list[Any]:
    """Stand-ins for every kind of screen Textual's system commands depend on: keys panel
    shown or not, a widget maximized, one that can be, or none focused."""
    focused = SimpleNamespace(allow_maximize=True)
    screens = []
    for panel in ([], ["HelpPanel"]):
        for maximized, focus in ((None, None), (None, focused), (focused, focused)):
            screens.append(
                SimpleNamespace(
                    query=lambda _selector, panel=panel: panel,
                    maximized=maximized,
                    focused=focus,
                    action_minimize=lambda: None,
                    action_maximize=lambda: None,
                )
            )
    return screens


def test_every_text_of_textuals_palette_is_marked_and_translated() -> None:
    """Textual's texts as this Textual shows them; a new or changed one fails here."""
    app = PiepmatzApp()
    texts = set()
    for screen in _screens():
        for command in App.get_system_commands(app, screen):
            texts |= {command.title, command.help}
    (binding,) = [b for _key, b in App()._bindings if b.action == "command_palette"]
    texts |= {binding.description, str(binding.tooltip)}
    texts.add(inspect.signature(CommandPalette).parameters["placeholder"].default)
    assert '"Search for themes…"' in inspect.getsource(App.search_themes)
    texts.add("Search for themes…")
    assert texts == set(PALETTE_TEXTS)
    for lang in ("cs", "de"):
        for text in PALETTE_TEXTS:
            assert translation(lang).gettext(text) != text, (lang, text)


def test_the_commands_are_textuals_own(language: None) -> None:
    """Only the titles and help texts change: the same commands, callbacks and order."""
    set_language("de")
    app = PiepmatzApp()
    for screen in _screens():
        ours = list(app.get_system_commands(screen))
        textuals = list(App.get_system_commands(app, screen))
        assert len(ours) == len(textuals)
        for mine, theirs in zip(ours, textuals, strict=True):
            assert mine.title == translation("de").gettext(theirs.title) != theirs.title
            assert mine.help == translation("de").gettext(theirs.help) != theirs.help
            same = getattr(mine.callback, "__code__", None) is getattr(
                theirs.callback, "__code__", False
            )
            assert mine.callback == theirs.callback or same
            assert mine.discover == theirs.discover
