"""How to play: the player's guide, then the rules in play, as one scrollable document."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from piepmatz.i18n import N_, _
from piepmatz.text.words import rules_words

from ..render import legend_markdown
from .widgets import translate_bindings


class RulesScreen(ModalScreen[None]):
    """The player's guide (``guide``, :func:`piepmatz.text.guide.guide_markdown`), then RULES.md
    for the rules in play: the flags first, each rule that differs marked."""

    DEFAULT_CSS = """
    RulesScreen { align: center middle; }
    RulesScreen > VerticalScroll { width: 100%; max-width: 110; height: 100%; max-height: 40;
        border: thick $accent; background: $surface; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,r", "close", N_("Close the rules")),
    ]

    def __init__(self, rules_name: str, markdown: str, guide: str = "") -> None:
        super().__init__()
        translate_bindings(self)
        self.rules_name = rules_name
        self.markdown = markdown
        self.guide = guide

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = _("How to play — {rules} (Escape to close)").format(
                rules=rules_words(self.rules_name)
            )
            # What the table's tiles and marks mean, before the guide teaches the game.
            yield Markdown(legend_markdown(), id="legend")
            if self.guide:
                yield Markdown(self.guide, id="guide")
            yield Markdown(self.markdown, id="rules-text")

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        """A guide's link to a rule (``#rule-T2.1``) scrolls to it here, not to a browser."""
        if event.href.startswith("#"):
            event.prevent_default()
            self.query_one("#rules-text", Markdown).goto_anchor(event.href[1:])

    def action_close(self) -> None:
        self.dismiss(None)
