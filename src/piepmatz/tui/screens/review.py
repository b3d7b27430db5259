""" "Review this game": one player's decisions graded by the search, browsable move by move.

The board of each decision is shown as that player saw it (their view at the time), beside the
options the search valued from that view (:mod:`piepmatz.bots.analysis`). The search runs on a
worker thread (a process pool over the cores); decisions fill in as they are reviewed, and the
screen can be browsed meanwhile.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from piepmatz.bots.analysis import (
    DEFAULT_ITERATIONS,
    Decision,
    DecisionReview,
    decisions,
    iter_reviews,
    summarise,
)
from piepmatz.core import Action, Game
from piepmatz.i18n import N_, _, ngettext
from piepmatz.text.numbers import count, decimal, percent
from piepmatz.text.words import GRADE_WORDS, birds_as

from ..render import Cards, action_text, table_text
from .widgets import cards_of, toggle_codes, translate_bindings

#: The search's budget per option, and the processes it runs on (None: every core).
ITERATIONS = DEFAULT_ITERATIONS
PROCESSES: int | None = None
#: How a grade is shown.
GRADE_STYLES = {
    "best": "bold green",
    "good": "green",
    "inaccuracy": "yellow",
    "mistake": "bold dark_orange",
    "blunder": "bold red",
}


def start_process_helpers() -> None:
    """Start multiprocessing's helper processes with the real stderr.

    Textual captures ``sys.stderr`` with a file whose ``fileno()`` is -1, which the resource
    tracker hands to the process it starts, and that fails ("bad value(s) in fds_to_keep").
    Once started, the helpers serve every later pool.
    """
    import multiprocessing.forkserver
    import multiprocessing.resource_tracker

    if sys.__stderr__ is None:
        return
    captured, sys.stderr = sys.stderr, sys.__stderr__
    try:
        multiprocessing.resource_tracker.ensure_running()
        if "forkserver" in multiprocessing.get_all_start_methods():
            multiprocessing.forkserver.ensure_running()
    finally:
        sys.stderr = captured


class ReviewScreen(Screen[None]):
    """The review of ``player``'s decisions in ``game``."""

    DEFAULT_CSS = """
    ReviewScreen #review-status { height: 1; background: $accent; color: $text; padding: 0 1; }
    ReviewScreen #review-table { height: auto; padding: 0 1; }
    ReviewScreen #review-detail { height: 1fr; padding: 0 1; border-top: solid $accent; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        # The arrows in the footer (before the scrolled detail's own: it needs none across);
        # l and h (vi's) work too, unlisted.
        Binding("right", "step(1)", N_("Next decision"), key_display="→", priority=True),
        Binding("left", "step(-1)", N_("Previous"), key_display="←", priority=True),
        Binding("l", "step(1)", show=False),
        Binding("h", "step(-1)", show=False),
        Binding("m", "next_mistake", N_("Next mistake")),
        Binding("home", "jump(0)", N_("First"), show=False),  # as everywhere: unlisted
        Binding("end", "jump(-1)", N_("Last"), show=False),
        Binding("c", "codes", N_("Codes/tiles")),
        Binding("escape,q", "close", N_("Close")),
    ]

    def __init__(
        self,
        game: Game,
        player: int,
        labels: Sequence[str],
        iterations: int | None = None,
        processes: int | None = None,
        seed: int = 1,
    ) -> None:
        super().__init__()
        translate_bindings(self)
        self.game = game
        self.player = player
        self.labels = list(labels)
        self.iterations = iterations or ITERATIONS
        self.processes = processes or PROCESSES or os.cpu_count() or 1
        self.seed = seed
        self.decisions: list[Decision] = list(decisions(game, player))
        self.reviews: list[DecisionReview] = []
        self.index = 0
        self.closed = False

    def compose(self) -> ComposeResult:
        yield Static(id="review-status")
        yield Static(id="review-table")
        with VerticalScroll(id="review-detail"):
            yield Static(id="review-options")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.show()
        if not self.decisions:
            return
        game, player, iterations = self.game, self.player, self.iterations
        seed, processes = self.seed, self.processes

        def work() -> None:
            if processes > 1:
                start_process_helpers()
            for review in iter_reviews(game, player, iterations, seed, processes):
                if self.closed:
                    break  # stops the searches still queued
                self.app.call_from_thread(self._reviewed, review)

        self.run_worker(work, thread=True, group="review", exclusive=True)

    def on_unmount(self) -> None:
        self.closed = True  # the app may be leaving without closing this screen first

    def _reviewed(self, review: DecisionReview) -> None:
        self.reviews.append(review)
        if not self.is_attached:
            return
        self.show()

    @property
    def done(self) -> bool:
        return len(self.reviews) == len(self.decisions)

    def show(self) -> None:
        status = self.query_one("#review-status", Static)
        options = self.query_one("#review-options", Static)
        total = len(self.decisions)
        who = self.labels[self.player]
        if not total:
            status.update(_("REVIEW of {player}: no decision to review").format(player=who))
            options.update(_("This player took no decision with more than one option."))
            return
        d = self.decisions[self.index]
        line = _("REVIEW of {player} · decision {number}/{total} (turn {turn})").format(
            player=who, number=self.index + 1, total=total, turn=d.view.turn
        )
        if not self.done:
            line += " · " + _("searching: {done} of {total} done").format(
                done=len(self.reviews), total=total
            )
        status.update(line)
        width = self.app.size.width - 2  # the padding
        table = table_text(d.view, self.labels, cards=self.cards, width=width)
        self.query_one("#review-table", Static).update(table)
        with birds_as("code"):  # drawn as the table draws birds (tiles or codes)
            options.update(self.detail(d))

    @property
    def cards(self) -> Cards:
        return cards_of(self)

    def action_codes(self) -> None:
        toggle_codes(self)
        self.show()

    def on_screen_resume(self) -> None:
        self.show()  # the birds as the screen below now draws them

    def detail(self, d: Decision) -> Text:
        """The decision's grade, its options valued by the search, and the game's summary; its
        birds drawn as the table draws them."""
        cards = self.cards
        t = Text()
        display = d.view.display
        played = action_text(Action.from_id(d.played), display=display)
        if self.index >= len(self.reviews):
            t.append(
                _("Played: {action}. The search has not reached this decision yet.").format(
                    action=played
                )
                + "\n"
            )
        else:
            r = self.reviews[self.index]
            t.append(_("Played: {action} —").format(action=played) + " ")
            t.append(_(GRADE_WORDS[r.grade]), style=GRADE_STYLES[r.grade])
            if r.grade != "best":
                t.append(
                    " "
                    + _("({loss} points of lead lost, win chance {change}); best: {best}").format(
                        loss=decimal(r.loss),
                        change=percent(r.win_change, signed=True),
                        best=action_text(Action.from_id(r.best.action), display=display),
                    )
                )
            t.append("\n")
            for e in r.options:
                style = "bold" if e.action == r.played else ""
                line = Text("▶ " if e.action == r.played else "  ", style=style)
                line.append_text(
                    cards.words(action_text(Action.from_id(e.action), display=display), style=style)
                )
                line.append(" " * max(1, 37 - line.cell_len))
                line.append(
                    _("lead {lead} ± {spread}   win {win}").format(
                        lead=decimal(e.lead, signed=True).rjust(5),
                        spread=decimal(e.lead_spread).rjust(3),
                        win=percent(e.win).rjust(4),
                    )
                    + "\n",
                    style=style,
                )
                t.append_text(line)
        if self.done:
            s = summarise(self.reviews)
            lost = ", ".join(
                f"{name} {decimal(c.loss)}" for name, c in s.categories.items() if c.decisions
            )
            t.append(
                "\n"
                + ngettext(
                    "Accuracy {accuracy} ({decisions} decision); points of lead lost: "
                    "{loss} ({lost}). {iterations} search iterations per option, from this "
                    "player's view only.",
                    "Accuracy {accuracy} ({decisions} decisions); points of lead lost: "
                    "{loss} ({lost}). {iterations} search iterations per option, from this "
                    "player's view only.",
                    s.decisions,
                ).format(
                    accuracy=percent(s.accuracy),
                    decisions=s.decisions,
                    loss=decimal(s.loss),
                    lost=lost,
                    iterations=count(self.iterations),
                )
            )
        return cards.drawn(t)

    def action_step(self, delta: int) -> None:
        if self.decisions:
            self.index = max(0, min(len(self.decisions) - 1, self.index + delta))
            self.show()

    def action_next_mistake(self) -> None:
        """The next decision graded below good (an inaccuracy, a mistake, a blunder), from the
        first again after the last; told when the search has graded none (yet)."""
        graded = len(self.reviews)
        worse = [i for i, r in enumerate(self.reviews) if r.grade not in ("best", "good")]
        later = [i for i in worse if i > self.index] or worse
        if not later:
            self.notify(
                _("No mistake among the {count} decisions graded so far.").format(count=graded)
                if graded < len(self.decisions)
                else _("No mistake: every decision is best or good.")
            )
            return
        self.index = later[0]
        self.show()

    def action_jump(self, where: int) -> None:
        if self.decisions:
            self.index = where % len(self.decisions)
            self.show()

    def action_close(self) -> None:
        self.closed = True
        self.dismiss(None)
