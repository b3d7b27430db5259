"""The rules in play, as a scrollable document."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown


class RulesScreen(ModalScreen[None]):
    """RULES.md for the rules in play: the flags first, each rule that differs marked."""

    DEFAULT_CSS = """
    RulesScreen { align: center middle; }
    RulesScreen > VerticalScroll { width: 100%; max-width: 110; height: 100%; max-height: 40;
        border: thick $accent; background: $surface; }
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
