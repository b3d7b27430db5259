"""The table: the game as the seat at the keyboard sees it, the choices, and the log.

The only screen that changes the game: a person's choice (from the list or a dialog) and a bot's
(from a worker thread) are applied here, and after each the game is kept in the autosave.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, OptionList, RichLog, Static

from piepmatz.bots.base import BotMoveError
from piepmatz.core import PlayerView
from piepmatz.core.state import PLAY

from ..render import status_text, table_text
from ..rulesdoc import rules_markdown
from ..session import SaveFileError, Session
from .dialogs import ChoiceDialog, ConfirmDialog, HandoffScreen
from .end import EndScreen
from .messages import NewGame, OpenSave, SaveGame, ShowReplay
from .rules import RulesScreen
from .widgets import ChoiceList, choice_options, event_line, preview_text

#: How many recent events the log shows again when the seat at the keyboard changes.
LOG_REWRITE = 40
LEAVE_QUESTION = (
    "Leave this game? It is kept: the next `piepmatz play` offers to resume it "
    "(or save it under a name first with s)."
)


class TableScreen(Screen[None]):
    """The game: table on top, choices (with preview) and log below."""

    DEFAULT_CSS = """
    TableScreen #status { height: 1; background: $accent; color: $text; padding: 0 1; }
    TableScreen #table { height: auto; padding: 0 1; }
    TableScreen #bottom { height: 1fr; }
    TableScreen #left { width: 62; }
    TableScreen #choices-title { height: 1; padding: 0 1; background: $panel; }
    TableScreen ChoiceList, TableScreen ChoiceList:focus { height: 1fr; border: none; }
    TableScreen #preview { height: 5; padding: 0 1; background: $panel; }
    TableScreen RichLog { width: 1fr; border-left: solid $accent; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "rules", "Rules"),
        Binding("s", "save", "Save"),
        Binding("o", "resume", "Resume"),
        Binding("n", "new_game", "New game"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self, session: Session, bot_delay: float = 0.6, keep: Path | None = None) -> None:
        super().__init__()
        self.session = session
        self.bot_delay = bot_delay
        #: Where the game is kept after every move (the autosave), or None.
        self.keep = keep
        humans = session.humans
        #: The seat whose view the table shows: the person at the keyboard (seat 0 if none).
        self.viewer = humans[0] if humans else 0
        #: The seat that confirmed the last hand-off (hot-seat), so it is asked only once a turn.
        self.confirmed = self.viewer if len(humans) <= 1 else -1
        self.logged = 0
        self.thinking = False
        self.waiting = False  # a dialog or the hand-off is open
        self.ended = False

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        yield Static(id="table")
        with Horizontal(id="bottom"):
            with Vertical(id="left"):
                yield Static(id="choices-title")
                yield ChoiceList(id="choices")
                yield Static(id="preview")
            yield RichLog(id="log", wrap=True, markup=False, auto_scroll=True, min_width=20)
        yield Footer()

    def on_mount(self) -> None:
        self.advance()

    # -------------------------------------------------------------- drawing

    @property
    def view(self) -> PlayerView:
        return self.session.view(self.viewer)

    def labels(self) -> list[str]:
        you = self.session.humans == [self.viewer]
        return [
            f"Player {p} (you)" if you and p == self.viewer else self.session.label(p)
            for p in range(len(self.session.seats))
        ]

    def redraw(self) -> None:
        view = self.view
        game = self.session.game
        labels = self.labels()
        self.query_one("#status", Static).update(
            status_text(view, labels, game.state.rules.name, game.options.seed)
        )
        show_hand = self.session.is_human(self.viewer)
        self.query_one("#table", Static).update(table_text(view, labels, show_hand=show_hand))
        log = self.query_one(RichLog)
        events = view.events or ()
        # After a change of seat the log is rewritten: its recent part is enough (and fast).
        self.logged = max(self.logged, len(events) - LOG_REWRITE)
        for event in events[self.logged :]:
            log.write(event_line(event))
        self.logged = len(events)

    def set_viewer(self, player: int) -> None:
        """Show another seat's view; the log is rewritten, since it holds that seat's secrets."""
        if player != self.viewer:
            self.viewer = player
            self.logged = 0
            self.query_one(RichLog).clear()

    def clear_choices(self, title: str) -> None:
        self.query_one("#choices-title", Static).update(title)
        self.query_one(ChoiceList).clear_options()
        self.query_one("#preview", Static).update("")

    # -------------------------------------------------------------- the game loop

    def advance(self) -> None:
        """Redraw and ask the next decision: a bot (in a worker) or a person."""
        session = self.session
        if session.state_over:
            self.redraw()
            self.clear_choices("The game is over.")
            if not self.ended:
                self.ended = True
                self.app.push_screen(EndScreen(session, self.labels()), self._ended)
            return
        player = session.to_act
        if not session.is_human(player):
            self.redraw()
            self.clear_choices(f"{session.label(player)} is thinking…")
            self.start_bot()
            return
        if player != self.confirmed:
            # Hot-seat: hide the table until the next person is at the keyboard.
            self.set_viewer(player)
            self.clear_choices(f"Waiting for {session.label(player)}…")
            self.waiting = True
            self.app.push_screen(
                HandoffScreen(session.label(player), f"Player {player}"), self._handed_off
            )
            return
        self.set_viewer(player)
        self.redraw()
        self.ask(player)

    def _handed_off(self, _: None) -> None:
        self.waiting = False
        self.confirmed = self.session.to_act
        self.advance()

    def ask(self, player: int) -> None:
        view = self.view
        legal = self.session.game.state.legal_action_ids()
        if view.phase == PLAY:
            self.query_one("#choices-title", Static).update(
                "Your move — ↑↓/click: preview · Enter/click again: play"
            )
            choices = self.query_one(ChoiceList)
            choices.set_options(choice_options(view, legal))
            choices.highlighted = 0
            choices.focus()
            return
        self.clear_choices("Choose in the dialog below.")
        self.waiting = True
        self.app.push_screen(ChoiceDialog(view, legal, self.labels()[player]), self._chosen)

    def _chosen(self, action_id: int | None) -> None:
        self.waiting = False
        if action_id is not None:
            self.play(action_id)

    def play(self, action_id: int) -> None:
        """Apply a choice (a person's or a bot's): the one place that changes the game."""
        self.session.apply(action_id, self.session.to_act)
        self.keep_game()
        self.advance()

    def keep_game(self) -> None:
        """Keep the game in the autosave (forgotten once it is over): a key pressed by mistake
        or a closed terminal loses nothing."""
        if self.keep is None:
            return
        try:
            if self.session.state_over:
                self.keep.unlink(missing_ok=True)
            else:
                self.keep.parent.mkdir(parents=True, exist_ok=True)
                self.session.save(self.keep, replace=True)
        except (OSError, SaveFileError) as exc:
            self.keep = None  # told once; the game goes on without it
            self.app.notify(f"The game cannot be kept: {exc}", severity="warning")

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_list.id == "choices" and event.option.id is not None:
            self.query_one("#preview", Static).update(preview_text(self.view, int(event.option.id)))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id == "choices" and event.option.id is not None:
            self.clear_choices("")
            self.play(int(event.option.id))

    # -------------------------------------------------------------- bots

    def start_bot(self) -> None:
        if self.thinking:
            return
        self.thinking = True
        bot, view, legal, rng = self.session.bot_request()
        delay = self.bot_delay

        def think() -> None:
            # Pace: a person can follow the log between two bot moves.
            if delay:
                time.sleep(delay)
            try:
                choice = self.session.ask_bot(bot, view, legal, rng)
            except BotMoveError as exc:
                self.app.call_from_thread(self._bot_failed, str(exc))
                return
            self.app.call_from_thread(self._bot_chose, choice)

        self.run_worker(think, thread=True, group="bot", exclusive=True)

    def _bot_failed(self, message: str) -> None:
        # The game stays where it is: it can still be saved, and the bot's author told why.
        self.thinking = False
        self.app.notify(message, title="A bot failed", severity="error", timeout=30)

    def _bot_chose(self, action_id: int) -> None:
        self.thinking = False
        if self.is_attached:
            self.play(action_id)

    # -------------------------------------------------------------- commands

    def _ended(self, choice: str | None) -> None:
        if choice == "new":
            self.post_message(NewGame(self.session.game.state.rules.name))
        elif choice == "replay":
            self.post_message(ShowReplay(self.session.game, self.session.seats))
        elif choice == "quit":
            self.app.exit()

    def leave(self, then: NewGame | OpenSave | None) -> None:
        """Leave the game (quit, or ``then``): asked first while it is in progress."""

        def go(yes: bool | None) -> None:
            if not yes:
                return
            if then is None:
                self.app.exit()
            else:
                self.post_message(then)

        if self.session.state_over:
            go(True)
        else:
            self.app.push_screen(ConfirmDialog(LEAVE_QUESTION, "Leave", "Stay"), go)

    def action_rules(self) -> None:
        rules = self.session.game.state.rules
        self.app.push_screen(RulesScreen(rules.name, rules_markdown(rules)))

    def action_save(self) -> None:
        self.post_message(SaveGame(self.session))

    def action_resume(self) -> None:
        self.leave(OpenSave(replay=False))

    def action_new_game(self) -> None:
        self.leave(NewGame(self.session.game.state.rules.name))

    async def action_quit(self) -> None:
        self.leave(None)
