"""The first screen: who sits where, the rules, the seed; or resume the game kept last time."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, Select, Static

from piepmatz.core.rules import PRESETS
from piepmatz.i18n import LANGUAGE_NAMES, N_, _, current_language, set_language
from piepmatz.records import HUMAN, MAX_NAME
from piepmatz.text.words import bot_choice, rules_words, seat_name

from ..session import SeatError, Session, available_bots, default_bot
from .messages import OpenSave, StartGame, StartLesson
from .widgets import translate_bindings


class NewGameScreen(Screen[None]):
    DEFAULT_CSS = """
    NewGameScreen { align: center middle; }
    NewGameScreen > VerticalScroll { width: 100%; max-width: 72; height: auto; max-height: 100%;
        border: thick $accent; padding: 0 2; }
    NewGameScreen .row { height: 3; }
    NewGameScreen .row Label { width: 14; padding-top: 1; }
    NewGameScreen .row Select { width: 1fr; }
    NewGameScreen .row Input { width: 1fr; }
    NewGameScreen .row .name { width: 1fr; margin-left: 1; }
    NewGameScreen .row #hints-label { width: 11; padding-left: 1; }
    NewGameScreen .row #hints { width: 12; }
    NewGameScreen .hidden { display: none; }
    NewGameScreen #kept { height: auto; color: $warning; }
    NewGameScreen #offer { height: auto; color: $success; }
    NewGameScreen #buttons { height: 3; }
    NewGameScreen #buttons Button { margin-right: 1; min-width: 10; }
    NewGameScreen #error { color: $error; height: auto; }
    NewGameScreen.short .row { height: 2; padding-top: 1; }
    NewGameScreen.short .row Label { padding-top: 0; }
    NewGameScreen.short #buttons { height: 2; padding-top: 1; }
    NewGameScreen.short #kept-buttons { height: 1; padding-top: 0; }
    """
    #: Below this height the screen is drawn compact (one line a choice), so that it fits 24
    #: lines whole, from the Language row to the buttons.
    TALL = 30
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "start", N_("Start")),
        Binding("ctrl+l", "resume_kept", N_("Resume the last game"), show=False),
        Binding("ctrl+o", "resume", N_("Resume a save")),
        Binding("ctrl+r", "replay", N_("Replay a save")),
        Binding("ctrl+t", "lesson", N_("Learn to play"), show=False),
        Binding("f1", "guide", N_("How to play"), show=False),
    ]

    def __init__(
        self,
        rules: str = "standard",
        seed: int | None = None,
        kept: Session | None = None,
        offer_lesson: bool = False,
        seats: Sequence[str] | None = None,
        names: Sequence[str | None] | None = None,
    ) -> None:
        super().__init__()
        translate_bindings(self)
        #: Who sat where last (a game played again, ``--names``): the rows start so.
        self.seats = list(seats or [])
        self.names = list(names or [])
        #: A preset, or a ``--rules`` spec with flags (offered beside the presets).
        self.rules = rules
        self.seed = seed
        #: The unfinished game kept automatically last time, offered first.
        self.kept = kept
        #: Someone who has not played here: the lesson is offered first.
        self.offer_lesson = offer_lesson

    def compose(self) -> ComposeResult:
        kinds = [(_("person"), HUMAN)] + [(bot_choice(b), b) for b in available_bots()]
        offered = {value for _label, value in kinds}
        first = [HUMAN] + [default_bot()] * 3
        seats = [
            seat if seat in offered else first[p]
            for p, seat in enumerate([*self.seats, *first[len(self.seats) :]][:4])
        ]
        names = [*self.names, *[None] * 4][:4]
        players = len(self.seats) if 2 <= len(self.seats) <= 4 else 3
        with VerticalScroll() as box:
            box.border_title = _("Piepmatz — new game")
            if self.offer_lesson:  # in the frame: the rows still fit 24 lines
                box.border_subtitle = _(
                    "New to Piepmatz? A guided first game teaches it in five minutes."
                )
            if self.kept is not None:
                state = self.kept.game.state
                yield Static(
                    _("Your last game is kept: {players} players, {rules}, turn {turn}.").format(
                        players=len(self.kept.seats),
                        rules=rules_words(state.rules.name),
                        turn=state.turn,
                    ),
                    id="kept",
                )
                with Horizontal(id="kept-buttons", classes="row"):
                    yield Button(_("Resume the last game"), id="resume-kept", variant="warning")
            with Horizontal(classes="row"):
                yield Label(_("Language"))
                yield Select(
                    [(name, code) for code, name in LANGUAGE_NAMES.items()],
                    value=current_language(),
                    allow_blank=False,
                    id="language",
                )
            with Horizontal(classes="row"):
                yield Label(_("Players"))
                yield Select(
                    [(str(n), n) for n in (2, 3, 4)],
                    value=players,
                    allow_blank=False,
                    id="players",
                )
            for seat in range(4):
                with Horizontal(
                    classes="row" + (" hidden" if seat >= players else ""), id=f"seat-row-{seat}"
                ):
                    yield Label(seat_name(seat))
                    yield Select(kinds, value=seats[seat], allow_blank=False, id=f"seat-{seat}")
                    # A person's name, which the table calls them by; shown for a person only.
                    name = Input(
                        names[seat] or "",
                        placeholder=_("name"),
                        max_length=MAX_NAME,
                        id=f"name-{seat}",
                        classes="name" + ("" if seats[seat] == HUMAN else " hidden"),
                    )
                    name.tooltip = _("The name the table calls this person by (optional).")
                    yield name
            with Horizontal(classes="row"):
                yield Label(_("Rules"))
                yield Select(
                    [(rules_words(name), name) for name in sorted({*PRESETS, self.rules})],
                    value=self.rules,
                    allow_blank=False,
                    id="rules",
                )
            with Horizontal(classes="row"):
                yield Label(_("Seed"))
                yield Input(
                    "" if self.seed is None else str(self.seed),
                    placeholder=_("empty: a fresh deal"),
                    id="seed",
                )
                yield Label(_("Hints (h)"), id="hints-label")
                yield Select(
                    [(_("on"), True), (_("off"), False)],
                    value=getattr(self.app, "hints", True),
                    allow_blank=False,
                    id="hints",
                )
            yield Static(id="error")
            with Horizontal(id="buttons"):
                yield Button(_("Start"), id="start", variant="primary")
                yield Button(_("Resume…"), id="resume")
                yield Button(_("Replay…"), id="replay")
                yield Button(
                    _("Learn to play"),
                    id="lesson",
                    variant="success" if self.offer_lesson else "default",
                )
                yield Button(_("Quit"), id="quit")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.lay_out(self.app.size.height)
        self.query_one("#resume-kept" if self.kept else "#start", Button).focus()

    def on_resize(self, event: events.Resize) -> None:
        self.lay_out(event.size.height)

    def lay_out(self, height: int) -> None:
        self.compact(height < self.TALL)
        if height >= self.TALL:
            # Tall enough as a rule; a kept game's line and the lesson's offer may still push
            # the buttons out of sight: then compact too.
            self.call_after_refresh(self.fit)

    def compact(self, short: bool) -> None:
        self.set_class(short, "short")
        for widget in self.query("Select, Input, Button"):
            if isinstance(widget, Select | Input | Button):
                widget.compact = short

    def fit(self) -> None:
        if self.query_one(VerticalScroll).max_scroll_y > 0:
            self.compact(True)

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "language" and event.value != current_language():
            # At once: this screen is drawn again in the new language, and so is every
            # screen after it; the app's own keys too (the command palette's in the footer).
            set_language(str(event.value))
            translate_bindings(self.app)
            self.app.switch_screen(
                NewGameScreen(
                    self.rules,
                    self._seed_typed(),
                    self.kept,
                    self.offer_lesson,
                    [str(self._value(f"seat-{p}")) for p in range(int(self._value("players")))],
                    [self._name_typed(p) for p in range(4)],
                )
            )
            return
        if event.select.id == "players" and isinstance(event.value, int):
            for seat in range(4):
                self.query_one(f"#seat-row-{seat}").set_class(seat >= event.value, "hidden")
        if str(event.select.id).startswith("seat-"):
            seat = int(str(event.select.id).removeprefix("seat-"))
            self.query_one(f"#name-{seat}").set_class(event.value != HUMAN, "hidden")

    def _name_typed(self, seat: int) -> str | None:
        return self.query_one(f"#name-{seat}", Input).value or None

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_start()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        {
            "start": self.action_start,
            "resume-kept": self.action_resume_kept,
            "resume": self.action_resume,
            "replay": self.action_replay,
            "lesson": self.action_lesson,
            "guide": self.action_guide,
            "quit": self.app.exit,
        }[str(event.button.id)]()

    def _value(self, widget_id: str) -> Any:
        return self.query_one(f"#{widget_id}", Select).value

    def action_start(self) -> None:
        players = int(self._value("players"))
        seats = [str(self._value(f"seat-{p}")) for p in range(players)]
        names = [self._name_typed(p) if seats[p] == HUMAN else None for p in range(players)]
        seed_text = self.query_one("#seed", Input).value.strip()
        error = self.query_one("#error", Static)
        try:
            seed = int(seed_text) if seed_text else None
        except ValueError:
            error.update(_("The seed must be a whole number, not {text!r}.").format(text=seed_text))
            return
        try:
            rules = str(self._value("rules"))
            session = Session.new(seats, rules, seed, hints=bool(self._value("hints")), names=names)
        except SeatError as exc:
            error.update(str(exc))
            return
        self.post_message(StartGame(session))

    def _seed_typed(self) -> int | None:
        text = self.query_one("#seed", Input).value.strip()
        return int(text) if text.isdigit() else self.seed

    def action_resume_kept(self) -> None:
        if self.kept is not None:
            self.post_message(StartGame(self.kept))

    def action_guide(self) -> None:
        from ..app import PiepmatzApp  # the app imports this screen

        if isinstance(self.app, PiepmatzApp):
            self.app.action_guide()

    def action_lesson(self) -> None:
        self.post_message(StartLesson())

    def action_resume(self) -> None:
        self.post_message(OpenSave(replay=False))

    def action_replay(self) -> None:
        self.post_message(OpenSave(replay=True))
