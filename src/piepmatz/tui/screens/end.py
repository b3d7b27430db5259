"""The end of a game: the full score sheet, and what next."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from piepmatz.i18n import N_, _
from piepmatz.text.scoresheet import explain

from ..render import score_sheet_text
from ..session import Session, shown_path
from .messages import SaveGame
from .review import ReviewScreen
from .widgets import translate_bindings


class EndScreen(ModalScreen[str | None]):
    """Dismissed with what the player chose: ``new``, ``replay``, ``quit`` or None (look at the
    table); saving is asked of the app (a message) while the sheet stays open."""

    DEFAULT_CSS = """
    EndScreen { align: center middle; }
    EndScreen > Vertical { width: 100%; max-width: 96; height: auto; max-height: 100%;
        border: thick $accent; background: $surface; padding: 0 1; }
    EndScreen VerticalScroll { height: auto; max-height: 1fr; }
    EndScreen #sheet { height: auto; width: 100%; }
    EndScreen #end-buttons { height: 3; }
    EndScreen Button { margin-right: 1; min-width: 8; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "choose('new')", N_("New game")),
        Binding("a", "again", N_("Play again"), show=False),
        Binding("s", "save", N_("Save")),
        Binding("p", "choose('replay')", N_("Replay")),
        Binding("v", "review", N_("Review")),
        Binding("x", "explain", N_("Explain")),
        Binding("escape", "choose(None)", N_("Look at the table")),
        Binding("q", "choose('quit')", N_("Quit")),
    ]

    def __init__(
        self,
        session: Session,
        labels: Sequence[str],
        reviewed: int | None = None,
        again: bool = False,
        kept: Path | None = None,
    ) -> None:
        super().__init__()
        translate_bindings(self)
        self.session = session
        self.labels = list(labels)
        #: Whose decisions the review grades (an online table's: the seat at this terminal).
        self.reviewed = reviewed
        #: Each number of every score told by its cards (``x``), below the sheet.
        self.explained = False
        #: An online table with other people: *Play again* with them (``again``).
        self.again = again
        #: Where the finished game was kept among the saves (said under the sheet).
        self.kept = kept
        #: Reviews opened here: at a hot-seat table, the next is the next person's.
        self.reviews = 0

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = _("The game is over — score sheet")
            with VerticalScroll(id="sheet-scroll"):
                yield Static(self.sheet_text(), id="sheet")
            with Horizontal(id="end-buttons"):
                if self.again:
                    yield Button(_("Play again"), id="again", variant="primary")
                yield Button(
                    _("New game"), id="new", variant="default" if self.again else "primary"
                )
                yield Button(_("Save"), id="save")
                yield Button(_("Replay"), id="replay")
                yield Button(_("Review"), id="review")
                yield Button(_("Quit"), id="quit")
        # Its own keys at the bottom (the table's below would not answer while the sheet is open).
        yield Footer(compact=True)

    def on_mount(self) -> None:
        # The sheet has the focus, not a button: an Enter still pressed for the last hand must
        # not start a new game before the sheet is read (the keys and the buttons are there).
        # (Queried, not required: a screen closed as it opens, an app ending, has none.)
        for sheet in self.query("#sheet-scroll"):
            sheet.focus()

    def sheet_text(self) -> Text:
        """The sheet; explained, each player's numbers told by the cards that make them."""
        state = self.session.game.state
        sheet = self.session.game.score()
        text = score_sheet_text(sheet, self.labels)
        if self.kept is not None:
            text.append(
                "\n\n"
                + _(
                    "Kept among your saves as {name}: Ctrl+R on the first screen replays it."
                ).format(name=shown_path(self.kept)),  # piepmatz review takes it too
                style="dim",
            )
        if not self.explained:
            return text
        for p, label in enumerate(self.labels):
            text.append("\n\n" + label + "\n", style="bold")
            piles = [state.seed_pile(q) for q in range(state.num_players)]
            lines = explain(sheet, state.rules, state.collections, piles, p)
            text.append("\n".join("  " + line for line in lines))
        return text

    def action_explain(self) -> None:
        self.explained = not self.explained
        self.query_one("#sheet", Static).update(self.sheet_text())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "save":
            self.action_save()
        elif event.button.id == "review":
            self.action_review()
        else:
            self.dismiss(event.button.id)

    def action_choose(self, choice: str | None) -> None:
        self.dismiss(choice)

    def action_again(self) -> None:
        if self.again:
            self.dismiss("again")

    def action_review(self) -> None:
        """The game reviewed for the person at the table; at a hot-seat table, for each person
        in turn, one more each time it is asked."""
        humans = self.session.humans or [0]
        if self.reviewed is not None:
            player = self.reviewed
        else:
            player = humans[self.reviews % len(humans)]
            self.reviews += 1
        self.app.push_screen(ReviewScreen(self.session.game, player, self.labels))

    def action_save(self) -> None:
        self.post_message(SaveGame(self.session))
