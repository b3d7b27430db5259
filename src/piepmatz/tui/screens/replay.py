"""Step through a finished game forwards and backwards, every hand and blind seed shown."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Button, Footer, RichLog, Static

from piepmatz.core import Game, view_of
from piepmatz.core.state import State
from piepmatz.i18n import N_, _
from piepmatz.records import seat_labels
from piepmatz.text.words import birds_as, feeder, short_label

from ..render import (
    Cards,
    End,
    action_text,
    score_sheet_text,
    status_text,
    table_text,
)
from .widgets import cards_of, event_line, toggle_codes, translate_bindings


class ReplayScreen(Screen[None]):
    """Omniscient: only for a game that is over (a replay of a game in progress would be a
    peek at the other hands; :func:`~piepmatz.records.load_game` refuses those)."""

    DEFAULT_CSS = """
    ReplayScreen #status { height: auto; background: $warning; color: $text; padding: 0 1; }
    ReplayScreen #table { height: auto; padding: 0 1; }
    ReplayScreen #hands { height: auto; padding: 0 1; }
    ReplayScreen #nav { height: 1; }
    ReplayScreen #nav Button { height: 1; min-width: 8; border: none; margin-right: 1; }
    ReplayScreen RichLog { height: 1fr; min-height: 4; padding: 0 1; border-top: solid $warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,l", "step(1)", N_("Forward")),
        Binding("left,h", "step(-1)", N_("Back")),
        Binding("home", "jump(0)", N_("Beginning")),
        Binding("end", "jump(-1)", N_("End")),
        Binding("c", "codes", N_("Codes/tiles")),
        Binding("escape,q", "close", N_("Close")),
    ]

    def __init__(self, game: Game, seats: list[str] | None, names: list[str] | None = None) -> None:
        super().__init__()
        translate_bindings(self)
        self.game = game
        self.labels = seat_labels(seats, game.options.players, names)
        self.names = names  # an online game's people and bots, as its sentences named them
        # Every state of the game, from the deal to the end (games are short: ~70 actions).
        options = game.options
        state = State.new_game(
            options.players,
            options.rules,
            options.seed,
            options.first_player,
            options.removed_species,
        )
        self.states = [state.copy()]
        for action in game.actions:
            state.apply_id(action.id)
            self.states.append(state.copy())
        self.index = 0

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        yield Static(id="table")
        yield Static(id="hands")
        with Horizontal(id="nav"):
            yield Button(_("◀ back"), id="back")
            yield Button(_("forward ▶"), id="forward")
            yield Button(_("close"), id="close")
        yield RichLog(id="log", wrap=True, markup=False, min_width=20)
        yield Footer(compact=True)

    @property
    def cards(self) -> Cards:
        return cards_of(self)

    def on_mount(self) -> None:
        self.show()

    def on_screen_resume(self) -> None:
        self.show()  # the birds as the screen below now draws them

    def action_codes(self) -> None:
        toggle_codes(self)
        self.show()

    def show(self) -> None:
        state = self.states[self.index]
        view = view_of(state, 0)
        last = len(self.states) - 1
        cards = self.cards
        if self.index:
            with birds_as("code"):  # drawn as the table draws birds (tiles or codes)
                what = action_text(self.game.actions[self.index - 1])
        else:
            what = _("the deal")
        # The padding, and the screen's scrollbar (a replay is taller than a small terminal).
        width = self.app.size.width - 4
        # The header on one line: without its reminder when the move would not fit otherwise.
        for header in (
            _("REPLAY · every hand and blind seed shown · step {step}/{last} · {action}"),
            _("REPLAY · step {step}/{last} · {action}"),
        ):
            status = cards.words(header.format(step=self.index, last=last, action=what))
            if status.cell_len <= width:
                break
        seed = self.game.options.seed
        status.append("\n")
        status.append_text(status_text(view, self.labels, state.rules.name, seed, width))
        self.query_one("#status", Static).update(status)
        end = End(self.game.score(), state.seeds_blind) if state.is_over() else None
        table = table_text(view, self.labels, show_hand=False, cards=cards, width=width, end=end)
        self.query_one("#table", Static).update(table)
        hands = Text()
        for p in range(state.num_players):
            seat = short_label(self.labels[p])
            hands.append(_("{player} hand:").format(player=seat) + " ", style="bold")
            hands.append_text(cards.birds(state.hands[p], inline=True))
            if state.seeds_blind[p]:
                blind = " ".join(feeder(c) for c in state.seeds_blind[p])
                hands.append(" · " + _("blind seeds: {seeds}").format(seeds=blind))
            hands.append("\n")
        self.query_one("#hands", Static).update(hands)
        log = self.query_one(RichLog)
        log.clear()
        before = len(self.states[self.index - 1].events or ()) if self.index else 0
        for event in (state.events or ())[before:]:
            log.write(event_line(event, cards, self.names))
        if self.index == last:
            log.write(score_sheet_text(self.game.score(), self.labels))

    def action_step(self, delta: int) -> None:
        self.index = max(0, min(len(self.states) - 1, self.index + delta))
        self.show()

    def action_jump(self, where: int) -> None:
        self.index = where % len(self.states)
        self.show()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "back":
            self.action_step(-1)
        elif event.button.id == "forward":
            self.action_step(1)
        else:
            self.action_close()

    def action_close(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.dismiss(None)
        else:
            self.app.exit()
