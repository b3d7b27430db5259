"""The guided first game (``piepmatz tutorial``): the table screen driven by a
:class:`~piepmatz.tutorial.Lesson` instead of bots. The table, the choices, the dialogs and the
log are the table's own; the lesson adds the step's instruction above the choices, marks the
scripted choice (the cursor on it), refuses any other with its sentence, and tells afterwards what
happened. The steps done are kept after every move (:mod:`piepmatz.tui.learning`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Footer, RichLog, Static

from piepmatz.core import Game, GameOptions
from piepmatz.core.events import Event
from piepmatz.core.state import PLAY
from piepmatz.i18n import N_, _, current_language
from piepmatz.text.words import Part
from piepmatz.tutorial import LEARNER, Lesson, say, texts

from ..learning import Progress, load_progress, save_progress
from ..session import Session
from .dialogs import ChoiceDialog, ConfirmDialog
from .end import EndScreen
from .messages import NewGame, OpenSave, StartGame
from .table import TableScreen
from .widgets import ChoiceList, cards_of, choice_options, translate_bindings

#: The seat the lesson's bot is shown as: the level the lesson offers a first game against.
BOT = "easy"


def lesson_session(lesson: Lesson) -> Session:
    """A session around the lesson's own state: the table draws it, the lesson changes it."""
    state = lesson.state
    game = Game(GameOptions(players=state.num_players, rules=state.rules))
    game.state = state
    return Session(game, ["human", BOT], hints=False)


def lesson_text(name: str) -> list[Part]:
    """One of the lesson's own texts (``intro``, ``bot_turn``, ``end``) as parts."""
    return say(texts(current_language())["lesson"][name])


class TutorialScreen(TableScreen):
    """The table with the lesson's step above the choices and its move marked."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", N_("Leave the lesson")),
    ]

    def __init__(self, lesson: Lesson, progress: Path | None = None) -> None:
        super().__init__(lesson_session(lesson), bot_delay=0, keep=None)
        translate_bindings(self)
        self.lesson = lesson
        #: Where the steps done are kept (None: not kept).
        self.progress = progress
        #: What the learner's last try brought: the refusal's sentence or what happened.
        self.told: tuple[Part, ...] = ()
        self.refused = False
        #: What happened, for the log, written before the bot's turn that follows it.
        self.pending: tuple[Part, ...] = ()

    def on_mount(self) -> None:
        # The table's own on_mount runs after this one (Textual calls each class's handler).
        if self.lesson.done == 0:
            intro = "".join(p.text for p in lesson_text("intro"))
            self.app.push_screen(LessonIntro(intro, _("Begin"), _("Not now")), self._begin)

    def _begin(self, yes: bool | None) -> None:
        if not yes:
            self.post_message(NewGame())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """No saving, hints or other games during the lesson."""
        if action in ("save", "resume", "new_game", "hint"):
            return False
        return super().check_action(action, parameters)

    def told_seed(self) -> int | None:
        """None: the lesson's deal is fixed, and its seed would mean nothing to a learner."""
        return None

    # -------------------------------------------------------------- the step

    def instruction(self) -> Text:
        """What the last try brought, then what to do now."""
        text = Text()
        if self.told:
            style = "bold red" if self.refused else "italic"
            text.append_text(self.cards.sentence(self.told, style=style))
            text.append("\n")
        if self.lesson.step is not None:
            text.append_text(self.cards.sentence(self.lesson.parts("do"), style="bold"))
        return text

    def ask(self, player: int) -> None:
        step = self.lesson.step
        if step is None:
            return
        view = self.view
        legal = self.session.game.state.legal_action_ids()
        mark = step.action.id
        heading = _("Lesson, step {step} of {steps}: ▶ marks the move · Enter plays it").format(
            step=self.lesson.done + 1, steps=self.lesson.steps
        )
        if view.phase == PLAY:
            self.query_one("#choices-title", Static).update(heading)
            hint = self.query_one("#hint", Static)
            hint.update(self.instruction())
            hint.set_class(True, "shown")
            choices = self.query_one(ChoiceList)
            choices.set_options(choice_options(view, legal, self.cards, mark))
            choices.highlighted = legal.index(mark)
            choices.focus()
            return
        self.clear_choices(heading)
        self.waiting = True
        dialog = ChoiceDialog(view, legal, self.labels()[player], self.this_turn(view), mark)
        dialog.hint = self.instruction, mark
        self.app.push_screen(dialog, self._chosen)

    def _chosen(self, action_id: int | None) -> None:
        self.waiting = False
        if action_id is None:
            self.advance()
        else:
            self.play(action_id)

    def play(self, action_id: int) -> None:
        """The learner's try: played if it is the step's, else refused and nothing changes."""
        outcome = self.lesson.move(action_id)
        self.told, self.refused = outcome.parts, not outcome.accepted
        if outcome.accepted:
            self.pending = outcome.parts
            self.keep_progress()
            if self.lesson.over:
                self.told = ()
        self.advance()

    def keep_progress(self) -> None:
        if self.progress is not None:
            played = load_progress(self.progress).played
            save_progress(Progress(self.lesson.done, played), self.progress)

    def write_log(self, log: RichLog, event: Event) -> None:
        if event.kind == "turn" and getattr(event, "player", LEARNER) != LEARNER:
            self.write_pending(log)
            log.write(self.cards.sentence(lesson_text("bot_turn"), style="italic"))
        super().write_log(log, event)

    def write_pending(self, log: RichLog) -> None:
        if self.pending:
            log.write(self.cards.sentence(self.pending, style="italic"))
            self.pending = ()

    def redraw(self) -> None:
        super().redraw()
        self.write_pending(self.query_one(RichLog))

    # -------------------------------------------------------------- the end, leaving

    def action_score_sheet(self) -> None:
        if self.session.state_over and not isinstance(self.app.screen, EndScreen):
            self.app.push_screen(LessonEndScreen(self.session, self.labels()), self._ended)

    def _ended(self, choice: str | None) -> None:
        if choice == BOT:
            if self.progress is not None:
                save_progress(Progress(self.lesson.done, True), self.progress)
            self.post_message(StartGame(Session.new(["human", BOT], "standard")))
        elif choice == "quit":
            self.app.exit()

    def leave(self, then: NewGame | OpenSave | None) -> None:
        """Nothing to ask: the steps done are kept."""
        if then is None:
            self.app.exit()
        else:
            self.post_message(then)

    async def action_quit(self) -> None:
        self.leave(NewGame())


class LessonIntro(ConfirmDialog):
    """The lesson's introduction; Enter begins (``n`` or Escape goes back)."""

    def on_mount(self, event: events.Mount) -> None:  # type: ignore[override]
        event.prevent_default()  # not the question's focus on "no"
        self.query_one(Vertical).border_title = "".join(p.text for p in lesson_text("title"))
        self.query_one("#yes", Button).focus()


class LessonEndScreen(EndScreen):
    """The lesson's end: the score sheet, each number explained, and a first real game."""

    def __init__(self, session: Session, labels: Sequence[str]) -> None:
        super().__init__(session, labels)
        self.explained = True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action not in ("save", "review") and (
            action != "choose" or parameters[0] != "replay"
        )

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = _("The lesson is over — score sheet")
            with VerticalScroll(id="sheet-scroll"):
                yield Static(self.end_text(), id="lesson-end")
                yield Static(self.sheet_text(), id="sheet")
            with Horizontal(id="end-buttons"):
                yield Button(_("Play the easy bot"), id=BOT, variant="primary")
                yield Button(_("Quit"), id="quit")
        yield Footer(compact=True)

    def end_text(self) -> Text:
        return cards_of(self).sentence(lesson_text("end"), style="bold")

    def action_choose(self, choice: str | None) -> None:
        self.dismiss(BOT if choice == "new" else choice)
