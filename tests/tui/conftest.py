"""Helpers for driving the real Textual app headless (no pytest-asyncio: each test runs its own
event loop with ``asyncio.run``)."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.worker import WorkerCancelled

from piepmatz.core import Game, State
from piepmatz.core.state import PLAY
from piepmatz.tui.session import Session

SIZE = (100, 30)


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until no bot is thinking and the screen has caught up."""
    app = pilot.app
    for _ in range(500):
        await pilot.pause()
        if not any(w.is_running for w in app.workers):
            break
        # A bot's worker whose move started the next bot's is cancelled by that one (exclusive)
        # while it still waits for its move to be played: its work is done.
        with contextlib.suppress(WorkerCancelled):
            await app.workers.wait_for_complete()
    else:
        raise AssertionError("the bots never finished thinking")
    await _logs_caught_up(pilot)


async def _logs_caught_up(pilot: Pilot[Any]) -> None:
    """Wait until each log on screen shows its last line. A log scrolls to a new line after the
    next refresh, which a loaded machine delays: a snapshot or a check taken before it saw older
    lines. A log scrolled back on purpose only costs the wait."""
    from textual.widgets import RichLog

    for _ in range(200):
        behind = [
            log
            for screen in _shown_screens(pilot.app)
            for log in screen.query(RichLog)
            if log.auto_scroll and log.display and log.scroll_y < log.max_scroll_y
        ]
        if not behind:
            return
        await pilot.pause(0.01)


def _shown_screens(app: Any) -> list[Any]:
    """The top screen and, under a see-through dialog, the screens below it."""
    from textual.screen import ModalScreen

    from piepmatz.tui.screens import HandoffScreen

    shown = []
    for screen in reversed(app.screen_stack):
        shown.append(screen)
        if not isinstance(screen, ModalScreen) or isinstance(screen, HandoffScreen):
            break
    return shown


def screen_text(app: Any) -> str:
    """Everything on screen, as plain text (widgets' content): the top screen and, under a
    see-through dialog, the screens below it."""
    return "\n".join(_widgets_text(screen) for screen in _shown_screens(app))


def _widgets_text(screen: Any) -> str:
    from textual.widgets import Button, OptionList, RichLog, Static

    parts: list[str] = []
    for widget in screen.query("*"):
        if isinstance(widget, Button):
            parts.append(str(widget.label))
        elif isinstance(widget, Static):
            parts.append(str(widget.content))
        elif isinstance(widget, OptionList):
            parts.extend(
                str(widget.get_option_at_index(i).prompt) for i in range(widget.option_count)
            )
        elif isinstance(widget, RichLog):
            parts.extend(strip.text for strip in widget.lines)
    return "\n".join(parts)


@pytest.fixture
def quick_idle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual's pilot sleeps 20 ms at least whenever it waits for the app to be idle (twice a
    key press): most of a whole game's time. For the whole games, which wait for what they read
    themselves (:func:`settle`), idle is checked every 2 ms instead. (A test that counts on a
    pause to let a resize or a binding change land keeps Textual's 20 ms.)"""
    import textual._wait

    monkeypatch.setattr(textual._wait, "SLEEP_GRANULARITY", 1 / 500)
    monkeypatch.setattr(textual._wait, "SLEEP_IDLE", 1 / 500 / 20)


@pytest.fixture(autouse=True)
def data_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The user's data directory (autosave, saves) in a fresh temporary folder: no test reads
    or writes the real one."""
    home = tmp_path_factory.mktemp("xdg-data")
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home / "piepmatz"


@pytest.fixture
def plain_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the new-game screen's default bot ``random``, whatever the bots package registers,
    so that snapshots do not change when levels are added."""
    import piepmatz.tui.screens.newgame as app_module

    monkeypatch.setattr(app_module, "default_bot", lambda: "random")
    monkeypatch.setattr(app_module, "available_bots", lambda: ["random"])


def rendered(app: Any) -> str:
    """The screen as a person sees it, one line per terminal row (clipped, wrapped, overlaid)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def advanced(players: int, seed: int, until: Callable[[State], bool]) -> Session:
    """A game of a person (seat 0) and random bots, its moves chosen by a generator seeded with
    ``seed``, stopped at the first position where ``until`` holds."""
    game = Game.new(players=players, seed=seed, first_player=0)
    rng = random.Random(seed)
    while not until(game.state):
        if game.state.is_over():
            raise AssertionError(f"seed {seed}: the game ended before the position asked for")
        game.apply(rng.choice(game.state.legal_action_ids()))
    return Session(game, ["human"] + ["random"] * (players - 1))


def late_in_the_game(state: State) -> bool:
    """The person's move to a perch late in a four-player game (seed 30: two players hold two
    pests of a kind, every player has drawn blind)."""
    return state.turn >= 25 and state.current_player == 0 and state.phase == PLAY


async def until_screen(
    app: Any, pilot: Pilot[Any], kind: type, press: str | None = None, tries: int = 50
) -> Any:
    """The app's screen once it is a ``kind`` (asserted), settling between looks and pressing
    ``press`` (if given) while it is not yet."""
    for _ in range(tries):
        await settle(pilot)
        if isinstance(app.screen, kind):
            return app.screen
        if press is not None:
            await pilot.press(press)
    raise AssertionError(f"never a {kind.__name__}: still {type(app.screen).__name__}")


class Tui:
    rendered = staticmethod(rendered)
    settle = staticmethod(settle)
    until_screen = staticmethod(until_screen)
    text = staticmethod(screen_text)
    size = SIZE


@pytest.fixture
def tui() -> type[Tui]:
    return Tui
