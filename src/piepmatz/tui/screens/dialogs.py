"""Dialogs: a decision other than playing a bird, the hot-seat hand-off, a file name, a yes/no."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, Label, OptionList, Static

from piepmatz.core import PlayerView, score_view
from piepmatz.core.events import Event
from piepmatz.core.state import COLLECT, CROW_VICTIM, DRAW, LAST_HAND
from piepmatz.i18n import N_, _
from piepmatz.text.words import short_label

from ..render import Cards, hand_text
from .widgets import (
    ChoiceList,
    cards_of,
    choice_options,
    event_line,
    preview_text,
    translate_bindings,
)

if TYPE_CHECKING:
    from .table import TableScreen

#: Each dialog's title (after it, who decides) and why it asks (translated when shown).
DIALOG_TEXT = {
    COLLECT: (
        N_("No chase — add a bird? — {player}"),
        N_(
            "The row did not chase. You may add one bird from your hand whose value is "
            "not higher than the bird you just played to your collection, or add none."
        ),
    ),
    CROW_VICTIM: (
        N_("The crow — choose your loss — {player}"),
        N_(
            "You took a crow: one bird of a species of which you hold the most leaves "
            "the game. Choose which."
        ),
    ),
    DRAW: (
        N_("Draw a bird — {player}"),
        N_("Take a face-up display bird or the top card of the bird deck."),
    ),
    LAST_HAND: (
        N_("The last hand — {player}"),
        N_(
            "The game is over after this round: choose two birds of your hand for your "
            "collection; the rest is discarded. Nobody sees your choice until all have chosen."
        ),
    ),
}


class ChoiceDialog(ModalScreen[int]):
    """One decision other than playing a bird: the choices, what each does, and why asked."""

    DEFAULT_CSS = """
    ChoiceDialog { align: center bottom; background: transparent 0%; }
    ChoiceDialog > Vertical {
        width: 100%; height: auto; max-height: 20; border: thick $accent; background: $surface;
        padding: 0 1;
    }
    ChoiceDialog #why { height: auto; color: $text-muted; }
    ChoiceDialog #this-turn { height: auto; border-bottom: solid $accent; }
    ChoiceDialog #context { height: auto; }
    ChoiceDialog Horizontal { height: auto; }
    ChoiceDialog ChoiceList, ChoiceDialog ChoiceList:focus {
        width: 60%; max-width: 60; height: auto; max-height: 8; border: none; background: $panel;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    ChoiceDialog #dialog-preview { width: 1fr; height: auto; padding: 0 1; }
    ChoiceDialog #dialog-hint { height: auto; background: $boost; display: none; }
    ChoiceDialog #dialog-hint.shown { display: block; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("h", "hint", N_("Hint")),
        Binding("c", "codes", N_("Codes/tiles")),
    ]

    def __init__(
        self,
        view: PlayerView,
        legal: Sequence[int],
        label: str,
        this_turn: Sequence[Event] = (),
        mark: int | None = None,
        names: Sequence[str] | None = None,
    ) -> None:
        super().__init__()
        translate_bindings(self)
        self.view = view
        #: The seats as the table names them (default "Player N").
        self.names = names
        #: The choice the lesson asks for, marked (the guided first game).
        self.mark = mark
        self.legal = list(legal)
        self.label = label
        #: The events of the turn so far (the chase, the crow): the dialog covers the log.
        self.this_turn = list(this_turn)
        #: The hint shown (what draws its text, and the suggested action), kept when the
        #: dialog is drawn again.
        self.hint: tuple[Callable[[], Text], int | None] | None = None

    @property
    def cards(self) -> Cards:
        return cards_of(self)

    def compose(self) -> ComposeResult:
        title, why = DIALOG_TEXT[self.view.phase]
        with Vertical() as box:
            box.border_title = _(title).format(player=self.label)
            if self.this_turn:
                lines = [event_line(e, self.cards, self.names) for e in self.this_turn[-4:]]
                yield Static(Text("\n").join(lines), id="this-turn")
            yield Static(_(why), id="why")
            yield Static(self._context_text(), id="context")
            yield Static(
                Text(_("↑↓/click: see what it does · Enter/click again: choose"), style="italic"),
                id="how",
            )
            yield Static(id="dialog-hint")
            with Horizontal():
                yield ChoiceList(
                    *choice_options(self.view, self.legal, self.cards, self.mark, self.names),
                    id="dialog-choices",
                )
                yield Static(id="dialog-preview")

    def _context_text(self) -> Text:
        view = self.view
        t = Text()
        if view.phase == CROW_VICTIM:
            sheet = score_view(view)
            majority = {c: h == view.player for c, h in sheet.majority.items()}
            t.append(_("Your collection:") + " ")
            t.append_text(self.cards.collection(view.collections[view.player], majority))
        elif view.phase == DRAW:
            t.append(_("Display:") + " ")
            for slot, card in enumerate(view.display):
                t.append(f"{slot + 1}:")
                t.append_text(self.cards.bird(card) if card >= 0 else Text(_("empty")))
                t.append("  ")
            t.append(
                _("bird deck {count} · draws left {draws} · hand").format(
                    count=view.bird_deck_size, draws=view.draws_left
                )
                + " "
            )
            t.append_text(self.cards.birds(view.hand))
        else:
            t.append_text(hand_text(view, self.cards, short_label(self.label)))
            if view.phase == COLLECT:
                t.append("   " + _("(you played a {value})").format(value=view.played_value))
        return t

    def on_mount(self) -> None:
        choices = self.query_one(ChoiceList)
        choices.highlighted = 0
        choices.focus()
        if self.hint is not None:  # given before the dialog opened (the lesson's step)
            self.suggest(*self.hint)

    def suggest(self, text: Callable[[], Text], action: int | None) -> None:
        """Show a hint above the choices (``text`` draws it) and highlight the choice it
        suggests (``action``)."""
        self.hint = text, action
        self._show_hint()
        if action is not None and action in self.legal:
            self.query_one(ChoiceList).highlighted = self.legal.index(action)

    def _show_hint(self) -> None:
        if self.hint is not None:
            hint = self.query_one("#dialog-hint", Static)
            hint.update(self.hint[0]())
            hint.set_class(True, "shown")

    async def redraw(self) -> None:
        """Draw the dialog again (birds as tiles or codes), on the same choice."""
        highlighted = self.query_one(ChoiceList).highlighted
        await self.recompose()
        choices = self.query_one(ChoiceList)
        choices.highlighted = highlighted
        choices.focus()
        self._show_hint()

    def action_codes(self) -> None:
        table_below(self).action_codes()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None:
            self.query_one("#dialog-preview", Static).update(
                preview_text(self.view, int(event.option.id), self.cards, self.names)
            )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.dismiss(int(event.option.id))

    def action_hint(self) -> None:
        table_below(self).action_hint()


def table_below(screen: Screen[Any]) -> TableScreen:
    """The table screen under ``screen`` (a dialog or the hand-off it opened), whose keys
    ``screen`` passes on."""
    from .table import TableScreen  # the table opens these screens: imported when asked

    return next(s for s in screen.app.screen_stack if isinstance(s, TableScreen))


class HandoffScreen(ModalScreen[None]):
    """Hot-seat: hides the table until the next person confirms they are at the keyboard.

    They confirm with their seat's number (or the button, reached with Tab or the mouse), never
    with Enter: the person who just moved, pressing Enter through their turn's last steps,
    would otherwise show the next hand to themselves. ``q`` leaves the game from here (asked
    first), without showing a hand."""

    DEFAULT_CSS = """
    HandoffScreen { align: center middle; background: $background; }
    HandoffScreen > Vertical {
        width: 60; height: auto; border: thick $accent; padding: 1 2; background: $surface;
    }
    HandoffScreen Static { width: 100%; content-align: center middle; }
    HandoffScreen Button { width: 100%; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "leave", N_("Quit"))]
    #: Nothing focused at first: a focused button would take Enter.
    AUTO_FOCUS = ""

    def __init__(self, label: str, name: str, seat: int) -> None:
        super().__init__()
        translate_bindings(self)
        self.label = label
        self.person = name
        #: The key that shows the hand: the seat's number, as people count.
        self.key = str(seat + 1)
        self._bindings.bind(self.key, "ready", _("Show my hand"))

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                Text(_("Pass the keyboard to {player}.").format(player=self.label), style="bold")
            )
            yield Static(_("The hand stays hidden until they are ready."))
            yield Static(
                _("{player}: press {key} to see your hand.").format(
                    player=self.person, key=self.key
                )
            )
            yield Button(
                _("I am {player} — show my hand").format(player=self.person),
                id="ready",
                variant="primary",
            )

    def action_ready(self) -> None:
        self.dismiss(None)

    def action_leave(self) -> None:
        table_below(self).leave(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)


class PathDialog(ModalScreen[str | None]):
    """Ask for a file name (save, resume, replay); Escape cancels."""

    DEFAULT_CSS = """
    PathDialog { align: center middle; }
    PathDialog > Vertical {
        width: 90%; max-width: 76; height: auto; border: thick $accent; padding: 1 2;
        background: $surface;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", N_("Cancel"))]

    def __init__(self, title: str, default: str) -> None:
        super().__init__()
        translate_bindings(self)
        self.title_text = title
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text)
            yield Input(value=self.default, id="path")
            yield Label(_("Enter to confirm, Escape to cancel"), classes="muted")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        self.dismiss(value or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmDialog(ModalScreen[bool]):
    """A yes/no question (leave a game in progress, replace a file); Escape and ``n`` say no."""

    DEFAULT_CSS = """
    ConfirmDialog { align: center middle; }
    ConfirmDialog > Vertical {
        width: 90%; max-width: 70; height: auto; border: thick $warning; padding: 1 2;
        background: $surface;
    }
    ConfirmDialog #question { height: auto; }
    ConfirmDialog Horizontal { height: 3; margin-top: 1; }
    ConfirmDialog Button { margin-right: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", N_("Yes")),
        Binding("escape,n", "answer(False)", N_("No")),
    ]

    def __init__(self, question: str, yes: str, no: str) -> None:
        super().__init__()
        translate_bindings(self)
        self.question = question
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question, id="question")
            with Horizontal():
                yield Button(f"{self.yes} (y)", id="yes", variant="warning")
                yield Button(f"{self.no} (n)", id="no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
