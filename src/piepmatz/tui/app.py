"""The Textual front end of ``piepmatz play``.

Screens: the new-game screen, the table (with the log and the choices), the decision dialogs
(collect after no chase, crow's victim, draws, last hand), the hot-seat hand-off, the end screen
with the score sheet, the rules, and the replay viewer. Data flows down (the screens redraw from
the seat's view after every move); intent flows up (a chosen action id is applied by the table
screen, the only place that changes the game). Bots think in a worker thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, TypeVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import (
    Button,
    Footer,
    Input,
    Label,
    Markdown,
    OptionList,
    RichLog,
    Select,
    Static,
)
from textual.widgets.option_list import Option

from piepmatz.bots.base import BotMoveError
from piepmatz.core import Action, Game, PlayerView, describe_event, view_of
from piepmatz.core.rules import PRESETS
from piepmatz.core.state import COLLECT, CROW_VICTIM, DRAW, LAST_HAND, PLAY, State

from .preview import preview
from .render import (
    action_text,
    birds,
    grouped_collection,
    hand_text,
    running_sheet,
    score_sheet_text,
    status_text,
    table_text,
)
from .rulesdoc import rules_markdown
from .session import (
    HUMAN,
    SaveFileError,
    SeatError,
    Session,
    available_bots,
    default_bot,
    load_record,
    seat_label,
)

DEFAULT_SAVE = "piepmatz-save.json"
#: How many recent events the log shows again when the seat at the keyboard changes.
LOG_REWRITE = 40


def _event_line(event: tuple[Any, ...]) -> Text:
    """A log line: turns stand out, chase steps are indented under their chase."""
    text = describe_event(event)
    kind = event[0]
    if kind == "turn":
        return Text(text, style="bold reverse")
    if kind == "chase":
        return Text(text, style="bold yellow")
    if kind in (
        "take_seed",
        "take_blind",
        "take_pest",
        "collect_perch",
        "crow",
        "crow_nothing",
        "squirrel",
        "promote",
        "feeder_empty",
    ):
        return Text("  " + text)
    if kind in ("end_triggered", "game_over"):
        return Text(text, style="bold red")
    return Text(
        text, style="dim" if kind in ("refill_display", "refill_column", "pest_beside") else ""
    )


# ---------------------------------------------------------------------- choices


class ChoiceList(OptionList):
    """The legal choices. Keyboard: arrows to look, Enter to commit. Mouse: a click shows what a
    choice would do, a second click on it commits — nothing happens on a single stray click."""

    async def _on_click(self, event: events.Click) -> None:
        # Handled here only: OptionList's own click handler would commit at once.
        event.prevent_default()
        clicked: int | None = event.style.meta.get("option")
        if clicked is None:
            return
        if clicked == self.highlighted:
            self.action_select()
        else:
            self.highlighted = clicked


def choice_options(view: PlayerView, legal: Sequence[int]) -> list[Option]:
    options = []
    for action_id in legal:
        action = Action.from_id(action_id)
        headline = preview(view, action_id).headline
        label = Text()
        label.append(f"{action_text(action, short=True):<16}", style="bold")
        label.append(" " + headline)
        options.append(Option(label, id=str(action_id)))
    return options


def preview_text(view: PlayerView, action_id: int) -> Text:
    p = preview(view, action_id)
    t = Text()
    t.append(str(Action.from_id(action_id)), style="bold")
    t.append(f" — {p.headline}\n", style="bold")
    t.append("\n".join(step for step in p.steps[:6] if step != p.headline))
    return t


# ---------------------------------------------------------------------- dialogs

DIALOG_TEXT = {
    COLLECT: (
        "No chase — add a bird?",
        "The row did not chase (T2.2). You may add one bird from your hand whose value is not "
        "higher than the bird you just played to your collection, or add none.",
    ),
    CROW_VICTIM: (
        "The crow — choose your loss",
        "You took a crow (T2.1d): one bird of a species of which you hold the most leaves the "
        "game. Choose which.",
    ),
    DRAW: (
        "Draw a bird",
        "Take a face-up display bird or the top card of the bird deck (T3.1).",
    ),
    LAST_HAND: (
        "The last hand",
        "The game is over after this round (E3): choose two birds of your hand for your "
        "collection; the rest is discarded. Nobody sees your choice until all have chosen.",
    ),
}


T = TypeVar("T")


def save_dialog(app: App[Any], session: Session) -> None:
    """Ask for a path and save ``session`` there; a failure is told and changes nothing."""

    def save(path: str | None) -> None:
        if path is None:
            return
        try:
            session.save(path)
        except SaveFileError as exc:
            app.notify(str(exc), title="Not saved", severity="error")
            return
        app.notify(f"Saved to {path}", title="Saved")

    app.push_screen(PathDialog("Save the game to:", DEFAULT_SAVE), save)


def load_dialog(
    app: App[Any],
    prompt: str,
    load: Callable[[str], T],
    loaded: Callable[[T], object],
    failed: Callable[[str], object],
) -> None:
    """Ask for a path and ``load`` it; a broken file is told through ``failed``, nothing changes."""

    def open_path(path: str | None) -> None:
        if path is None:
            return
        try:
            value = load(path)
        except SaveFileError as exc:
            failed(str(exc))
            return
        loaded(value)

    app.push_screen(PathDialog(prompt, DEFAULT_SAVE), open_path)


class ChoiceDialog(ModalScreen[int]):
    """One decision other than playing a bird: the choices, what each does, and why asked."""

    DEFAULT_CSS = """
    ChoiceDialog { align: center bottom; background: transparent 0%; }
    ChoiceDialog > Vertical {
        width: 100%; height: auto; max-height: 16; border: thick $accent; background: $surface;
        padding: 0 1;
    }
    ChoiceDialog #why { height: auto; color: $text-muted; }
    ChoiceDialog #context { height: auto; }
    ChoiceDialog Horizontal { height: auto; }
    ChoiceDialog ChoiceList, ChoiceDialog ChoiceList:focus {
        width: 56; height: auto; max-height: 8; border: none; background: $panel;
    }
    ChoiceDialog #dialog-preview { width: 1fr; height: auto; padding: 0 1; }
    """

    def __init__(self, view: PlayerView, legal: Sequence[int]) -> None:
        super().__init__()
        self.view = view
        self.legal = list(legal)

    def compose(self) -> ComposeResult:
        title, why = DIALOG_TEXT[self.view.phase]
        with Vertical() as box:
            box.border_title = f"{title} — Player {self.view.player}"
            yield Static(why, id="why")
            yield Static(self._context_text(), id="context")
            yield Static(
                Text("↑↓/click: see what it does · Enter/click again: choose", style="italic"),
                id="how",
            )
            with Horizontal():
                yield ChoiceList(*choice_options(self.view, self.legal), id="dialog-choices")
                yield Static(id="dialog-preview")

    def _context_text(self) -> Text:
        view = self.view
        t = Text()
        if view.phase == CROW_VICTIM:
            sheet = running_sheet(view)
            majority = {c: h == view.player for c, h in sheet.majority.items()}
            t.append("Your collection: ")
            t.append_text(grouped_collection(view.collections[view.player], majority))
        elif view.phase == DRAW:
            t.append("Display: ")
            for slot, card in enumerate(view.display):
                t.append(f"{slot + 1}:")
                t.append_text(birds([card]) if card >= 0 else Text("empty"))
                t.append("  ")
            t.append(f"bird deck {view.bird_deck_size} · draws left {view.draws_left} · hand ")
            t.append_text(birds(view.hand))
        else:
            t.append_text(hand_text(view))
            if view.phase == COLLECT:
                t.append(f"   (you played a {view.played_value})")
        return t

    def on_mount(self) -> None:
        choices = self.query_one(ChoiceList)
        choices.highlighted = 0
        choices.focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None:
            self.query_one("#dialog-preview", Static).update(
                preview_text(self.view, int(event.option.id))
            )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.dismiss(int(event.option.id))


class HandoffScreen(ModalScreen[None]):
    """Hot-seat: hides the table until the next person confirms they are at the keyboard."""

    DEFAULT_CSS = """
    HandoffScreen { align: center middle; background: $background; }
    HandoffScreen > Vertical {
        width: 60; height: auto; border: thick $accent; padding: 1 2; background: $surface;
    }
    HandoffScreen Static { width: 100%; content-align: center middle; }
    HandoffScreen Button { width: 100%; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "ready", "Show my hand")]

    def __init__(self, label: str) -> None:
        super().__init__()
        self.label = label

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(f"Pass the keyboard to {self.label}.", style="bold"))
            yield Static("The hand stays hidden until they are ready.")
            yield Button(
                f"I am {self.label.split(' (')[0]} — show my hand", id="ready", variant="primary"
            )

    def on_mount(self) -> None:
        self.query_one(Button).focus()

    def action_ready(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)


class PathDialog(ModalScreen[str | None]):
    """Ask for a file name (save, resume, replay); Escape cancels."""

    DEFAULT_CSS = """
    PathDialog { align: center middle; }
    PathDialog > Vertical {
        width: 70; height: auto; border: thick $accent; padding: 1 2; background: $surface;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, default: str) -> None:
        super().__init__()
        self.title_text = title
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text)
            yield Input(value=self.default, id="path")
            yield Label("Enter to confirm, Escape to cancel", classes="muted")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        self.dismiss(value or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class RulesScreen(ModalScreen[None]):
    """RULES.md for the rules in play: the flags first, each rule that differs marked."""

    DEFAULT_CSS = """
    RulesScreen { align: center middle; }
    RulesScreen > VerticalScroll { width: 96; height: 28; border: thick $accent;
        background: $surface; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,r", "close", "Close the rules"),
    ]

    def __init__(self, rules_name: str, markdown: str) -> None:
        super().__init__()
        self.rules_name = rules_name
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = f"Rules — {self.rules_name} (Escape to close)"
            yield Markdown(self.markdown)

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)


# ---------------------------------------------------------------------- new game


class NewGameScreen(Screen[None]):
    DEFAULT_CSS = """
    NewGameScreen { align: center middle; }
    NewGameScreen > Vertical { width: 72; height: auto; border: thick $accent; padding: 0 2; }
    NewGameScreen .row { height: 3; }
    NewGameScreen .row Label { width: 14; padding-top: 1; }
    NewGameScreen .row Select { width: 1fr; }
    NewGameScreen .row Input { width: 1fr; }
    NewGameScreen .hidden { display: none; }
    NewGameScreen #buttons { height: 3; margin-top: 1; }
    NewGameScreen #buttons Button { margin-right: 1; min-width: 10; }
    NewGameScreen #error { color: $error; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "start", "Start"),
        Binding("ctrl+o", "resume", "Resume a save"),
        Binding("ctrl+r", "replay", "Replay a save"),
    ]

    def __init__(self, rules: str = "standard", seed: int | None = None) -> None:
        super().__init__()
        self.rules = rules if rules in PRESETS else "standard"
        self.seed = seed

    def compose(self) -> ComposeResult:
        kinds = [("person", HUMAN)] + [(f"{b} bot", b) for b in available_bots()]
        bot = default_bot()
        with Vertical() as box:
            box.border_title = "Piepmatz — new game"
            with Horizontal(classes="row"):
                yield Label("Players")
                yield Select(
                    [(str(n), n) for n in (2, 3, 4)], value=3, allow_blank=False, id="players"
                )
            for seat in range(4):
                with Horizontal(
                    classes="row" + (" hidden" if seat == 3 else ""), id=f"seat-row-{seat}"
                ):
                    yield Label(f"Player {seat}")
                    yield Select(
                        kinds,
                        value=HUMAN if seat == 0 else bot,
                        allow_blank=False,
                        id=f"seat-{seat}",
                    )
            with Horizontal(classes="row"):
                yield Label("Rules")
                yield Select(
                    [(name, name) for name in sorted(PRESETS)],
                    value=self.rules,
                    allow_blank=False,
                    id="rules",
                )
            with Horizontal(classes="row"):
                yield Label("Seed")
                yield Input(
                    "" if self.seed is None else str(self.seed),
                    placeholder="empty: a fresh deal",
                    id="seed",
                )
            yield Static(id="error")
            with Horizontal(id="buttons"):
                yield Button("Start", id="start", variant="primary")
                yield Button("Resume…", id="resume")
                yield Button("Replay…", id="replay")
                yield Button("Quit", id="quit")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#start", Button).focus()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "players" and isinstance(event.value, int):
            for seat in range(4):
                self.query_one(f"#seat-row-{seat}").set_class(seat >= event.value, "hidden")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_start()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()
        elif event.button.id == "resume":
            self.action_resume()
        elif event.button.id == "replay":
            self.action_replay()
        elif event.button.id == "quit":
            self.app.exit()

    def _value(self, widget_id: str) -> Any:
        return self.query_one(f"#{widget_id}", Select).value

    def action_start(self) -> None:
        players = int(self._value("players"))
        seats = [str(self._value(f"seat-{p}")) for p in range(players)]
        seed_text = self.query_one("#seed", Input).value.strip()
        error = self.query_one("#error", Static)
        try:
            seed = int(seed_text) if seed_text else None
        except ValueError:
            error.update(f"The seed must be a whole number, not {seed_text!r}.")
            return
        try:
            session = Session.new(seats, rules=str(self._value("rules")), seed=seed)
        except (SeatError, ValueError) as exc:
            error.update(str(exc))
            return
        app = self.app
        assert isinstance(app, PiepmatzApp)
        app.switch_screen(TableScreen(session, app.bot_delay))

    def action_resume(self) -> None:
        app = self.app
        assert isinstance(app, PiepmatzApp)
        load_dialog(
            app,
            "Resume the game saved in:",
            Session.load,
            lambda session: app.switch_screen(TableScreen(session, app.bot_delay)),
            self.query_one("#error", Static).update,
        )

    def action_replay(self) -> None:
        load_dialog(
            self.app,
            "Replay the game saved in:",
            load_record,
            lambda loaded: self.app.push_screen(ReplayScreen(*loaded)),
            self.query_one("#error", Static).update,
        )


# ---------------------------------------------------------------------- the table


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

    def __init__(self, session: Session, bot_delay: float = 0.6) -> None:
        super().__init__()
        self.session = session
        self.bot_delay = bot_delay
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
            log.write(_event_line(event))
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
                self.app.push_screen(EndScreen(session, self.labels()))
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
            self.app.push_screen(HandoffScreen(session.label(player)), self._handed_off)
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
        self.app.push_screen(ChoiceDialog(view, legal), self._chosen)

    def _chosen(self, action_id: int | None) -> None:
        self.waiting = False
        if action_id is not None:
            self.play(action_id)

    def play(self, action_id: int) -> None:
        """Apply a person's choice: the one place that changes the game (besides bots)."""
        self.session.apply(action_id, self.session.to_act)
        self.advance()

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
        if not self.is_attached:
            return
        self.session.apply(action_id, self.session.to_act)
        self.advance()

    # -------------------------------------------------------------- commands

    def action_rules(self) -> None:
        rules = self.session.game.state.rules
        self.app.push_screen(RulesScreen(rules.name, rules_markdown(rules)))

    def action_save(self) -> None:
        save_dialog(self.app, self.session)

    def action_resume(self) -> None:
        load_dialog(
            self.app,
            "Resume the game saved in:",
            Session.load,
            lambda session: self.app.switch_screen(TableScreen(session, self.bot_delay)),
            lambda message: self.app.notify(message, title="Cannot resume", severity="error"),
        )

    def action_new_game(self) -> None:
        self.app.switch_screen(NewGameScreen(self.session.game.state.rules.name))

    async def action_quit(self) -> None:
        self.app.exit()


# ---------------------------------------------------------------------- end


class EndScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    EndScreen { align: center middle; }
    EndScreen > Vertical { width: 96; height: auto; max-height: 28; border: thick $accent;
        background: $surface; padding: 0 1; }
    EndScreen #sheet { height: auto; }
    EndScreen #end-buttons { height: 3; }
    EndScreen Button { margin-right: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new_game", "New game"),
        Binding("s", "save", "Save"),
        Binding("p", "replay", "Replay"),
        Binding("escape", "close", "Look at the table"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self, session: Session, labels: list[str]) -> None:
        super().__init__()
        self.session = session
        self.labels = labels

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "The game is over — score sheet (E4, E5)"
            yield Static(score_sheet_text(self.session.game.score(), self.labels), id="sheet")
            with Horizontal(id="end-buttons"):
                yield Button("New game", id="new", variant="primary")
                yield Button("Save", id="save")
                yield Button("Replay", id="replay")
                yield Button("Quit", id="quit")

    def on_mount(self) -> None:
        self.query_one("#new", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        {
            "new": self.action_new_game,
            "save": self.action_save,
            "replay": self.action_replay,
            "quit": self.app.exit,
        }[str(event.button.id)]()

    def action_new_game(self) -> None:
        self.dismiss(None)
        self.app.switch_screen(NewGameScreen(self.session.game.state.rules.name))

    def action_save(self) -> None:
        save_dialog(self.app, self.session)

    def action_replay(self) -> None:
        self.app.push_screen(ReplayScreen(self.session.game, self.session.seats))

    def action_close(self) -> None:
        self.dismiss(None)

    def action_quit(self) -> None:
        self.app.exit()


# ---------------------------------------------------------------------- replay


class ReplayScreen(Screen[None]):
    """Step through a game record forwards and backwards; omniscient (all hands shown)."""

    DEFAULT_CSS = """
    ReplayScreen #status { height: 1; background: $warning; color: $text; padding: 0 1; }
    ReplayScreen #table { height: auto; padding: 0 1; }
    ReplayScreen #hands { height: auto; padding: 0 1; }
    ReplayScreen #nav { height: 1; }
    ReplayScreen #nav Button { height: 1; min-width: 8; border: none; margin-right: 1; }
    ReplayScreen RichLog { height: 1fr; padding: 0 1; border-top: solid $warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,l", "step(1)", "Forward"),
        Binding("left,h", "step(-1)", "Back"),
        Binding("home", "jump(0)", "Start"),
        Binding("end", "jump(-1)", "End"),
        Binding("escape,q", "close", "Close"),
    ]

    def __init__(self, game: Game, seats: list[str] | None) -> None:
        super().__init__()
        self.game = game
        n = game.options.players
        self.labels = [seat_label(seats, p) if seats else f"Player {p}" for p in range(n)]
        # Every state of the game, from the deal to the end (games are short: ~70 actions).
        options = game.options
        state = State.new_game(
            options.players,
            options.rules,
            options.seed,
            options.first_player,
            options.removed_species,
        )
        self.states = [state.copy()]
        for action in game.actions:
            state.apply_id(action.id)
            self.states.append(state.copy())
        self.index = 0

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        yield Static(id="table")
        yield Static(id="hands")
        with Horizontal(id="nav"):
            yield Button("◀ back", id="back")
            yield Button("forward ▶", id="forward")
            yield Button("close", id="close")
        yield RichLog(id="log", wrap=True, markup=False, min_width=20)
        yield Footer()

    def on_mount(self) -> None:
        self.show()

    def show(self) -> None:
        state = self.states[self.index]
        view = view_of(state, 0)
        last = len(self.states) - 1
        what = str(self.game.actions[self.index - 1]) if self.index else "the deal"
        status = Text(
            f"REPLAY (omniscient: every hand and blind seed is shown) · step "
            f"{self.index}/{last} · {what} · "
        )
        status.append_text(status_text(view, self.labels, state.rules.name, self.game.options.seed))
        self.query_one("#status", Static).update(status)
        self.query_one("#table", Static).update(table_text(view, self.labels, show_hand=False))
        hands = Text()
        for p in range(state.num_players):
            hands.append(f"Player {p} hand: ", style="bold")
            hands.append_text(birds(state.hands[p]))
            if state.seeds_blind[p]:
                hands.append(f"  blind seeds: {len(state.seeds_blind[p])}")
            hands.append("   ")
        self.query_one("#hands", Static).update(hands)
        log = self.query_one(RichLog)
        log.clear()
        before = len(self.states[self.index - 1].events or ()) if self.index else 0
        for event in (state.events or ())[before:]:
            log.write(_event_line(event))
        if self.index == last:
            log.write(score_sheet_text(self.game.score(), self.labels))

    def action_step(self, delta: int) -> None:
        self.index = max(0, min(len(self.states) - 1, self.index + delta))
        self.show()

    def action_jump(self, where: int) -> None:
        self.index = where % len(self.states)
        self.show()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "back":
            self.action_step(-1)
        elif event.button.id == "forward":
            self.action_step(1)
        else:
            self.action_close()

    def action_close(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.dismiss(None)
        else:
            self.app.exit()


# ---------------------------------------------------------------------- the app


class PiepmatzApp(App[None]):
    """``piepmatz play``. With ``seats`` (or a resumed ``session``) the game starts at once."""

    TITLE = "Piepmatz"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+q", "quit", "Quit", show=False)]

    def __init__(
        self,
        session: Session | None = None,
        seats: Sequence[str] | None = None,
        rules: str = "standard",
        seed: int | None = None,
        bot_delay: float = 0.6,
    ) -> None:
        super().__init__()
        self.session = session
        self.seats = list(seats) if seats else None
        self.rules = rules
        self.seed = seed
        self.bot_delay = bot_delay
        self.replay: tuple[Game, list[str] | None] | None = None

    @classmethod
    def for_replay(cls, game: Game, seats: list[str] | None) -> PiepmatzApp:
        app = cls()
        app.replay = game, seats
        return app

    def on_mount(self) -> None:
        if self.replay is not None:
            self.push_screen(ReplayScreen(*self.replay))
        elif self.session is not None:
            self.push_screen(TableScreen(self.session, self.bot_delay))
        elif self.seats is not None:
            session = Session.new(self.seats, rules=self.rules, seed=self.seed)
            self.push_screen(TableScreen(session, self.bot_delay))
        else:
            self.push_screen(NewGameScreen(self.rules, self.seed))
