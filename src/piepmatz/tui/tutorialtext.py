"""``piepmatz tutorial --text``: the guided first game as plain lines on stdin/stdout.

For a learner with a screen reader (and for scripts). It is ``piepmatz play --text``
(:class:`~piepmatz.tui.textmode.TextGame`) driven by a :class:`~piepmatz.tutorial.Lesson`
instead of bots, as the full-screen lesson is the table screen driven by it: the table as the
text game prints it, then the step's instruction (``do``) and the prompt. A move the step does
not want is refused with the step's own sentence (``refuse``) and asked again, nothing changed;
the step's move is played, the bot's scripted moves follow, and what happened (``after``) is
told after the move's lines of the log. The steps done are kept after every move in
``learning.json``, as the full screen keeps them, and the next ``piepmatz tutorial`` (either
kind) goes on from there. This module only turns the lesson into lines: its moves, its rules and
its texts are the tutorial package's (:mod:`piepmatz.tutorial`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from piepmatz.core import Action
from piepmatz.i18n import _
from piepmatz.text.preview import preview
from piepmatz.text.words import Part, tell
from piepmatz.tutorial import LEARNER, Lesson

from .learning import Progress, load_progress, save_progress
from .render import score_sheet_text
from .screens.tutorial import BOT, lesson_session, lesson_text
from .textmode import TextGame, help_heading, help_line, listed_or_typed

#: The command that takes the lesson up again, told when it is left.
AGAIN = "piepmatz tutorial --text"


class TutorialText(TextGame):
    """The lesson as plain lines: the text game's table, prompt and commands, the lesson's
    steps, refusals and explanations."""

    def __init__(
        self,
        lesson: Lesson,
        out: TextIO,
        inp: TextIO,
        err: TextIO | None = None,
        codes: bool = False,
        progress: Path | None = None,
    ) -> None:
        # No autosave and no record: the lesson keeps only the steps done.
        super().__init__(lesson_session(lesson), out, inp, err=err, codes=codes)
        self.lesson = lesson
        #: Where the steps done are kept (None: not kept).
        self.progress = progress
        #: What happened (the step's ``after``), told after the move's lines of the log.
        self.pending: tuple[Part, ...] = ()
        #: Whether a step was played here (then the steps done are kept again on leaving).
        self.moved = False
        # A lesson taken up again tells the current turn's lines only (``log`` tells them all).
        self.resumed = lesson.done > 0
        self.shown = self.turn_start(self.viewer) if self.resumed else 0

    def told(self, parts: Sequence[Part]) -> str:
        """A lesson's sentence as a line, its birds in words (with ``--codes`` as codes)."""
        return self.cards.sentence(parts).plain

    # -------------------------------------------------------------- the lines

    def print_new_events(self) -> None:
        """The log's new lines; what the learner's move did is told before the bot's turn, as
        the full screen's log tells it."""
        events = self.session.view(self.viewer).events or ()
        for event in events[self.shown :]:
            if event.kind == "turn" and getattr(event, "player", LEARNER) != LEARNER:
                self.say_pending()
                self.say(self.told(lesson_text("bot_turn")))
            self.say(tell(event))
        self.shown = len(events)
        self.say_pending()

    def say_pending(self) -> None:
        if self.pending:
            self.say(self.told(self.pending))
            self.pending = ()

    def told_seed(self) -> None:
        """None: the lesson's deal is fixed, its seed nothing to the learner."""
        return None

    def print_help(self, player: int) -> None:
        """The moves as the text game lists them, then which of them the lesson asks for."""
        view = self.session.view(player)
        legal = self.session.game.state.legal_action_ids()
        self.say(help_heading(self.codes))
        for n, action_id in enumerate(legal, 1):
            notation = str(Action.from_id(action_id))
            self.say(help_line(n, notation, preview(view, action_id).headline, self.codes))
        step = self.lesson.step
        if step is not None and step.action.id in legal:
            self.say(
                _("The lesson asks for move {number}.").format(
                    number=legal.index(step.action.id) + 1
                )
            )
        self.say(_("Other commands: help, table, log, rules, quit"))

    def not_here(self, word: str) -> None:
        """``hint`` and ``save``: the lesson has neither (it shows the move, and keeps its
        steps itself)."""
        self.error(
            _(
                "'{word}' is not a move or a command: type a move's number or its "
                "notation ('help' lists them)"
            ).format(word=word)
        )

    def print_hint(self, player: int) -> None:
        self.not_here("hint")

    def save(self, args: str) -> None:
        self.not_here("save")

    # -------------------------------------------------------------- the lesson

    def play_out(self) -> int:
        lesson = self.lesson
        self.say(self.told(lesson_text("title")))
        if lesson.done == 0:
            self.say(self.told(lesson_text("intro")))
        else:
            self.say(
                _("The lesson goes on at step {step} of {steps}.").format(
                    step=lesson.done + 1, steps=lesson.steps
                )
            )
        while not lesson.over:
            left = self.turn(self.session.to_act)
            if left is not None:
                self.say(left)
                return 1 if self.refused else 0
        self.print_new_events()
        self.say("")
        self.say(score_sheet_text(self.session.game.score(), self.labels()).plain)
        self.print_explained()
        self.say("")
        self.say(self.told(lesson_text("end")))
        self.say(
            _("{play} starts a game against the easy bot; {again} takes the lesson again.").format(
                play=f"piepmatz play --text --seats human,{BOT}", again=AGAIN
            )
        )
        return 1 if self.refused else 0

    def ask(self, player: int) -> str | None:
        """The step's instruction, then the text game's prompt."""
        self.say(
            _("Lesson, step {step} of {steps}: {instruction}").format(
                step=self.lesson.done + 1,
                steps=self.lesson.steps,
                instruction=self.told(self.lesson.parts("do")),
            )
        )
        return super().ask(player)

    def play(self, text: str, player: int) -> bool:
        """The learner's try: played if it is the step's move, else refused with the step's
        sentence, nothing changed, and asked again."""
        try:
            action = listed_or_typed(text, self.session.game.state.legal_action_ids())
        except ValueError as exc:
            self.error(str(exc))
            return False
        outcome = self.lesson.move(action)
        if not outcome.accepted:
            self.say(self.told(outcome.parts))
            return False
        self.moved = True
        self.pending = outcome.parts
        self.keep_progress()
        return True

    def keep_progress(self) -> None:
        """Keep the steps done, as the full-screen lesson keeps them after every move."""
        if self.progress is not None:
            played = load_progress(self.progress).played
            save_progress(Progress(self.lesson.done, played), self.progress)

    def left(self, unsaved: str) -> str:
        """Leaving (``quit``, the end of input, Ctrl+C): the steps done are kept, and the line
        says how to go on."""
        if self.moved:  # kept again: Ctrl+C may have come between a move and its keeping
            self.keep_progress()
        return _(
            "You left the lesson at step {step} of {steps}; {command} goes on from there."
        ).format(step=self.lesson.done + 1, steps=self.lesson.steps, command=AGAIN)
