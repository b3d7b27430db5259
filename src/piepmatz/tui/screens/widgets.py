"""Widgets and text the screens share: the choice list, previews, log lines."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from weakref import WeakKeyDictionary

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.dom import DOMNode
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from piepmatz.core import Action, PlayerView
from piepmatz.core.events import Event
from piepmatz.i18n import _
from piepmatz.text.preview import preview
from piepmatz.text.words import Part, birds_as, told

from ..render import CODES, TILES, Cards, action_text

#: Events told as steps of the chase above them, indented.
_STEPS = frozenset(
    {
        "take_seed",
        "take_blind",
        "take_pest",
        "collect_perch",
        "crow",
        "crow_nothing",
        "squirrel",
        "promote",
        "feeder_empty",
    }
)
_QUIET = frozenset({"refill_display", "refill_column", "pest_beside"})


def translate_bindings(node: DOMNode) -> None:
    """Show ``node``'s key bindings in the current language: they are declared once per class, in
    English (marked with ``N_``), and each screen translates them as it opens, so a language
    chosen on the new-game screen holds on every screen after it. The app's own bindings (the
    command palette's key) are translated again when the language changes: the English texts
    are kept for that."""
    # Textual keeps a per-instance copy of the class's bindings; only the texts shown change.
    table = node._bindings.key_to_bindings
    english: dict[str, list[Binding]] = _ENGLISH_BINDINGS.setdefault(
        node, {key: list(bindings) for key, bindings in table.items()}
    )
    for key, bindings in english.items():
        table[key] = [
            replace(
                b,
                description=_(b.description) if b.description else b.description,
                tooltip=_(b.tooltip) if b.tooltip else b.tooltip,
            )
            for b in bindings
        ]


#: Each node's bindings as declared, in English, for :func:`translate_bindings`.
_ENGLISH_BINDINGS: WeakKeyDictionary[DOMNode, dict[str, list[Binding]]] = WeakKeyDictionary()


def cards_of(node: DOMNode) -> Cards:
    """How every screen of the app draws birds: as tiles, or as the engine's codes once ``c``
    asked for them (:func:`toggle_codes`); the choice is the app's, so it holds on every screen."""
    return CODES if getattr(node.app, "codes", False) else TILES


def toggle_codes(node: DOMNode) -> None:
    """Switch every screen between tiles and codes (each redraws itself)."""
    setattr(node.app, "codes", not getattr(node.app, "codes", False))  # noqa: B010


def hide_binding(node: DOMNode, action: str, hide: bool = True) -> None:
    """Leave ``node``'s key for ``action`` out of the footer, or (``hide=False``) show it again;
    the key answers either way."""
    table = node._bindings.key_to_bindings
    for key, bindings in table.items():
        table[key] = [replace(b, show=not hide) if b.action == action else b for b in bindings]


def event_line(event: Event, cards: Cards = CODES, names: Sequence[str] | None = None) -> Text:
    """A log line: turns stand out, chase steps are indented under their chase; seats by
    ``names`` (an online table's people), else "Player N"."""
    parts = told(event, names)
    kind = event.kind
    if kind == "turn":
        return cards.sentence(parts, style="bold reverse")
    if kind == "chase":
        return cards.sentence(parts, style="bold yellow")
    if kind in _STEPS:
        return cards.sentence([Part("  "), *parts])
    if kind in ("end_triggered", "game_over"):
        return cards.sentence(parts, style="bold red")
    return cards.sentence(parts, style="dim" if kind in _QUIET else "")


class ChoiceList(OptionList):
    """The legal choices. Keyboard: arrows to look, Enter to commit. Mouse: a click shows what a
    choice would do, a second click on it commits — nothing happens on a single stray click."""

    async def _on_click(self, event: events.Click) -> None:
        # Handled here only: OptionList's own click handler would commit at once.
        event.prevent_default()
        clicked: int | None = event.style.meta.get("option")
        if clicked is None:
            return
        if clicked == self.highlighted:
            self.action_select()
        else:
            self.highlighted = clicked


#: Before the choice the lesson asks for (the guided first game); the others are indented alike.
MARKED = "▶ "


def choice_options(
    view: PlayerView,
    legal: Sequence[int],
    cards: Cards = CODES,
    mark: int | None = None,
    names: Sequence[str] | None = None,
) -> list[Option]:
    """The legal choices with what each does; ``mark`` the one to make (the lesson's); the
    other seats by ``names`` (default "Player N")."""
    options = []
    for action_id in legal:
        action = Action.from_id(action_id)
        with birds_as("code"):  # drawn as the table draws birds (tiles or codes)
            headline = preview(view, action_id, names=names).headline
            said = action_text(action, short=True)
        label = Text()
        if mark is not None:
            label.append(MARKED if action_id == mark else " " * len(MARKED), style="bold")
        # The birds named as on the table (tiles or codes).
        shown = cards.words(said, style="bold")
        label.append_text(shown)
        label.append(" " * max(1, 18 - len(shown.plain)))
        label.append_text(cards.words(headline))
        options.append(Option(label, id=str(action_id)))
    return options


def preview_text(
    view: PlayerView, action_id: int, cards: Cards = CODES, names: Sequence[str] | None = None
) -> Text:
    with birds_as("code"):  # drawn as the table draws birds (tiles or codes)
        p = preview(view, action_id, names=names)
        shown = action_text(Action.from_id(action_id))
    t = cards.words(f"{shown} — {p.headline}\n", style="bold")
    t.append_text(cards.words("\n".join(step for step in p.steps[:6] if step != p.headline)))
    return t
