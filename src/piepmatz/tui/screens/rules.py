"""The rules in play, as a scrollable document."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from piepmatz.i18n import N_, _

from .widgets import translate_bindings


class RulesScreen(ModalScreen[None]):
    """RULES.md for the rules in play: the flags first, each rule that differs marked."""

    DEFAULT_CSS = """
    RulesScreen { align: center middle; }
    RulesScreen > VerticalScroll { width: 100%; max-width: 110; height: 100%; max-height: 40;
        border: thick $accent; background: $surface; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,r", "close", N_("Close the rules")),
    ]

    def __init__(self, rules_name: str, markdown: str) -> None:
        super().__init__()
        translate_bindings(self)
        self.rules_name = rules_name
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = _("Rules — {rules} (Escape to close)").format(
                rules=self.rules_name
            )
            yield Markdown(self.markdown)

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)
