"""The terminal game in a pseudo-locale, as the browser's (``tests/browser/test_pseudo.py``):
every text of the catalogues comes out marked ``⟦…⟧`` (through ``_``, ``ngettext``,
``pgettext``; the footer's key descriptions too), and every text the screens show must carry
the mark. A text written without ``_()``, or missing from the catalogues, fails, wherever it
is: the new-game screen, the table, a hint, the dialogs, the end, the rules, the replay and the
review, the lesson. Exempt are names (the game's, the languages' own, the presets', the
species'), numbers, punctuation, the cards' faces (tiles, seeds), the rules' text (the
rulebook's own files) and the lesson's (its own files, marked here)."""

from __future__ import annotations

import asyncio
import gettext
import re
from typing import Any

import pytest
from babel.messages.pofile import read_po
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Footer, Input, Markdown, OptionList, RichLog, Static

import piepmatz.i18n
import piepmatz.tui.screens.review as review_module
import piepmatz.tui.screens.tutorial as tutorial_screen
import piepmatz.tutorial as tutorial
from piepmatz.core.rules import PRESETS
from piepmatz.core.state import LAST_HAND
from piepmatz.i18n import LANGUAGE_NAMES, LOCALE_DIR
from piepmatz.text.words import species_names
from piepmatz.tui.app import PiepmatzApp
from piepmatz.tui.screens import (
    ChoiceDialog,
    EndScreen,
    LessonEndScreen,
    NewGameScreen,
    ReplayScreen,
    ReviewScreen,
    RulesScreen,
    TableScreen,
    WhyScreen,
)
from piepmatz.tui.screens.dialogs import ConfirmDialog

from .conftest import advanced

SIZE = (160, 50)  # wide and tall: nothing cut, so that every mark is whole
HINT_BOT = "ismcts:iterations=30"
#: Names, not texts: the game's, each language's own, the presets', the species' in every language.
NAMES = sorted(
    {
        "Piepmatz",
        *LANGUAGE_NAMES.values(),
        *PRESETS,
        *(n for lang in LANGUAGE_NAMES for n in species_names(lang).values()),
    },
    key=len,
    reverse=True,
)
#: Cards' faces: tiles (``Bl5♀•••``), a collection's species and values (``Bl 5♂ 6♀``), seeds.
FACES = re.compile(r"\b(?:Bl|Bu|Ch|Gr|Sp|Ye)(?=\d|\s|$)|\bS\d\b|\d[♂♀]•*")
MARKED = re.compile(r"⟦[^⟦⟧]*⟧")
#: What may stay once the marked parts, names and faces are taken out.
BARE = re.compile(r"^[\d\W_]*$")


def mark(text: str) -> str:
    return f"⟦{text}⟧"


class Marking(gettext.NullTranslations):
    """The pseudo-locale's catalogue: each text of the ``piepmatz`` catalogues (the entries of a
    translated one: every text the code marks for translation) marked; any other text, such as
    one given to ``_()`` without being marked where it is written, stays bare."""

    def __init__(self) -> None:
        super().__init__()
        with (LOCALE_DIR / "de" / "LC_MESSAGES" / "piepmatz.po").open("rb") as po:
            entries = [m for m in read_po(po) if m.id]
        self.texts = {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in entries}

    def _mark(self, context: str | None, message: str, shown: str) -> str:
        return mark(shown) if (context, message) in self.texts else shown

    def gettext(self, message: str) -> str:
        return self._mark(None, message, message)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return self._mark(None, msgid1, msgid1 if n == 1 else msgid2)

    def pgettext(self, context: str, message: str) -> str:
        return self._mark(context, message, message)


@pytest.fixture
def pseudo(monkeypatch: pytest.MonkeyPatch) -> None:
    marking = Marking()
    monkeypatch.setattr(piepmatz.i18n, "translation", lambda lang, domain="piepmatz": marking)


def unmarked(text: str) -> str:
    """What of ``text`` is not marked and not exempt."""
    while MARKED.search(text):  # marks nest: a text filled into a text
        text = MARKED.sub(" ", text)
    for name in NAMES:
        text = text.replace(name, " ")
    text = FACES.sub(" ", text)
    return "" if BARE.match(text) else text.strip()


def shown(widget: Widget) -> bool:
    return all(w.display and w.visible for w in widget.ancestors_with_self if isinstance(w, Widget))


def texts(app: Any) -> list[tuple[str, str]]:
    """Each visible text of the screens on show (a dialog's and those under it), by widget."""
    out: list[tuple[str, str]] = []
    for screen in reversed(app.screen_stack):
        for widget in screen.query("*"):
            if not shown(widget) or any(
                isinstance(w, Markdown) for w in widget.ancestors_with_self
            ):
                continue
            name = f"{type(screen).__name__} {type(widget).__name__}#{widget.id}"
            if widget.border_title:
                out.append((name, str(widget.border_title)))
            if isinstance(widget, Button):
                out.append((name, str(widget.label)))
            elif isinstance(widget, Static):
                out.append((name, str(widget.content)))
            elif isinstance(widget, Input):
                out.append((name, widget.value or widget.placeholder))
            elif isinstance(widget, OptionList):
                for i in range(widget.option_count):
                    out.append((name, str(widget.get_option_at_index(i).prompt)))
            elif isinstance(widget, RichLog):
                out.append((name, "".join(strip.text for strip in widget.lines)))
        if not isinstance(screen, ModalScreen):
            break
    return out


def check(app: Any, tui: Any, seen: set[str]) -> None:
    seen.add(type(app.screen).__name__)
    bare = [(name, unmarked(text)) for name, text in texts(app) if unmarked(text)]
    assert not bare, bare
    if not app.screen.query(Footer):
        return  # a dialog: the footer is the screen's below, which it may cover
    # The footer: keys and their marked descriptions, nothing else.
    footer = tui.rendered(app).splitlines()[-1]
    keys = {app.get_key_display(b.binding) for b in app.screen.active_bindings.values()}
    rest = MARKED.sub(" ", footer).replace("▏", " ").split()
    assert set(rest) <= keys, footer


@pytest.mark.usefixtures("quick_idle")
def test_every_text_of_the_terminal_game_is_translated(
    tui: Any, pseudo: None, plain_bots: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(review_module, "ITERATIONS", 4)
    monkeypatch.setattr(review_module, "PROCESSES", 1)
    seen: set[str] = set()

    async def first_screen() -> None:
        app = PiepmatzApp(seed=7, bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, NewGameScreen)
            check(app, tui, seen)
            await pilot.press("ctrl+s")
            await tui.settle(pilot)
            assert isinstance(app.screen, TableScreen)
            check(app, tui, seen)
            app.screen.hints.bot = HINT_BOT
            await pilot.press("h")
            await tui.settle(pilot)
            await pilot.pause()
            assert app.screen.hints.last is not None
            check(app, tui, seen)
            await pilot.press("w")  # why? on the log
            await pilot.pause()
            assert isinstance(app.screen, WhyScreen)
            check(app, tui, seen)
            await pilot.press("escape")
            await pilot.pause()
            await pilot.press("enter")  # a bird played: a dialog next (collect or draw)
            await tui.settle(pilot)
            assert isinstance(app.screen, ChoiceDialog)
            check(app, tui, seen)
            await pilot.press("r")
            await pilot.press("escape")

    async def the_end() -> None:
        session = advanced(2, 3, lambda s: s.phase == LAST_HAND and s.current_player == 0)
        app = PiepmatzApp(session=session, bot_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await tui.settle(pilot)
            assert isinstance(app.screen, ChoiceDialog)
            check(app, tui, seen)
            await pilot.press("enter")
            await tui.settle(pilot)
            assert isinstance(app.screen, EndScreen)
            check(app, tui, seen)
            await pilot.press("x")  # each number explained
            await pilot.pause()
            check(app, tui, seen)
            await pilot.press("escape")
            await pilot.pause()
            check(app, tui, seen)
            await pilot.press("r")
            await pilot.pause()
            assert isinstance(app.screen, RulesScreen)
            check(app, tui, seen)
            await pilot.press("escape")
            await pilot.press("e", "p")
            await pilot.pause()
            assert isinstance(app.screen, ReplayScreen)
            await pilot.press("right", "right", "end")
            check(app, tui, seen)
            await pilot.press("escape")
            await pilot.pause()
            await pilot.press("v")
            await tui.settle(pilot)
            screen = app.screen
            assert isinstance(screen, ReviewScreen)
            for _ in range(100):
                if screen.done:
                    break
                await pilot.pause(0.05)
            await pilot.pause()
            check(app, tui, seen)

    # The lesson's texts are whole texts per language, like the rules (its own files): marked
    # here as the catalogues' are, so that every other text beside them is still checked.
    lesson_texts = tutorial.texts

    def marked_texts(lang: str) -> dict[str, Any]:
        data = lesson_texts(lang)
        return {
            "lesson": {k: mark(v) for k, v in data["lesson"].items()},
            "steps": {i: {k: mark(v) for k, v in t.items()} for i, t in data["steps"].items()},
        }

    monkeypatch.setattr(tutorial, "texts", marked_texts)
    monkeypatch.setattr(tutorial_screen, "texts", marked_texts)

    async def the_lesson() -> None:
        app = PiepmatzApp(lesson=True)
        async with app.run_test(size=SIZE) as pilot:
            await tui.settle(pilot)
            assert isinstance(app.screen, ConfirmDialog)  # the introduction
            await pilot.press("enter")
            await tui.settle(pilot)
            await pilot.press("down", "enter")  # refused: the sentence shown
            await tui.settle(pilot)
            for _ in range(40):  # Enter on the marked choice, step by step
                if isinstance(app.screen, LessonEndScreen):
                    break
                check(app, tui, seen)
                await pilot.press("enter")
                await tui.settle(pilot)
            assert isinstance(app.screen, LessonEndScreen)
            check(app, tui, seen)

    asyncio.run(first_screen())
    asyncio.run(the_end())
    asyncio.run(the_lesson())
    assert seen >= {
        "NewGameScreen",
        "TableScreen",
        "ChoiceDialog",
        "EndScreen",
        "ReplayScreen",
        "WhyScreen",
        "TutorialScreen",
        "LessonEndScreen",
    }
