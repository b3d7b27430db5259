"""Why? The rule behind a line of the log, in words, with its id (the rules screen has it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from piepmatz.core.events import Event
from piepmatz.core.rules import Rules
from piepmatz.i18n import N_, _
from piepmatz.text.why import why

from .widgets import cards_of, event_line, translate_bindings

#: How many of the latest log lines can be asked about (a whole game's log is long).
LINES = 60


class WhyScreen(ModalScreen[None]):
    """The log's lines, the last one chosen; the rule behind the chosen line below them."""

    DEFAULT_CSS = """
    WhyScreen { align: center bottom; background: transparent 0%; }
    WhyScreen > Vertical { width: 100%; height: auto; max-height: 20; border: thick $accent;
        background: $surface; padding: 0 1; }
    WhyScreen OptionList, WhyScreen OptionList:focus { height: auto; max-height: 8;
        border: none; background: $panel; }
    WhyScreen #answer { height: auto; padding-top: 1; }
    WhyScreen #why-how { height: auto; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,w,q", "close", N_("Close")),
    ]

    def __init__(
        self, events: Sequence[Event], rules: Rules, names: Sequence[str] | None = None
    ) -> None:
        super().__init__()
        translate_bindings(self)
        self.events = list(events)[-LINES:]
        self.rules = rules
        #: The seats as the table's log names them (default "Player N").
        self.names = names

    def compose(self) -> ComposeResult:
        cards = cards_of(self)
        with Vertical() as box:
            box.border_title = _("Why? — the rule behind a line of the log")
            yield Static(
                _("↑↓: another line · Escape: close · r on the table: the rules"), id="why-how"
            )
            yield OptionList(
                *(
                    Option(event_line(e, cards, self.names), id=str(i))
                    for i, e in enumerate(self.events)
                ),
                id="why-lines",
            )
            yield Static(id="answer")

    def on_mount(self) -> None:
        lines = self.query_one(OptionList)
        lines.highlighted = len(self.events) - 1
        lines.focus()

    def answer(self, index: int) -> Text:
        said = why(self.events[index], self.rules)
        text = Text(_("Rule {rule}").format(rule=said.rule) + ": ", style="bold")
        text.append(said.text, style="")
        return text

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None:
            self.query_one("#answer", Static).update(self.answer(int(event.option.id)))

    def action_close(self) -> None:
        self.dismiss(None)
