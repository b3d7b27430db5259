"""The table: the game as the seat at the keyboard sees it, the choices, and the log.

The only screen that changes the game: a person's choice (from the list or a dialog) and a bot's
(from a worker thread) are applied here, and after each the game is kept in the autosave.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, OptionList, RichLog, Static
from textual.widgets.option_list import Option

from piepmatz.bots.base import BotMoveError
from piepmatz.core import PlayerView
from piepmatz.core.state import PLAY
from piepmatz.i18n import N_, _
from piepmatz.text.rulebook import rules_markdown
from piepmatz.text.words import seat_name

from ..hints import HintGiver, hint_seed
from ..render import CODES, TILES, Cards, status_text, table_text
from ..session import SaveFileError, Session
from .dialogs import ChoiceDialog, ConfirmDialog, HandoffScreen
from .end import EndScreen
from .messages import NewGame, OpenSave, SaveGame, ShowReplay
from .rules import RulesScreen
from .widgets import ChoiceList, choice_options, event_line, preview_text, translate_bindings

#: How many recent events the log shows again when the seat at the keyboard changes.
LOG_REWRITE = 40
LEAVE_QUESTION = N_(
    "Leave this game? It is kept: the next `piepmatz play` offers to resume it "
    "(or save it under a name first with s)."
)


class TableScreen(Screen[None]):
    """The game: table on top, choices (with preview) and log below."""

    DEFAULT_CSS = """
    TableScreen #status { height: auto; background: $accent; color: $text; padding: 0 1; }
    TableScreen #table { height: auto; padding: 0 1; }
    TableScreen #bottom { height: 1fr; min-height: 5; }
    TableScreen #left { width: 62; }
    TableScreen #choices-title { height: 1; padding: 0 1; background: $panel; }
    TableScreen ChoiceList, TableScreen ChoiceList:focus { height: 1fr; min-height: 2;
        border: none; }
    TableScreen #preview { height: 5; padding: 0 1; background: $panel; }
    TableScreen RichLog { width: 1fr; border-left: solid $accent; padding: 0 1; }
    TableScreen #too-small { display: none; padding: 1 2; }
    TableScreen.narrow #left { width: 1fr; }
    TableScreen.narrow #preview { height: 3; }
    TableScreen.narrow RichLog { display: none; }
    TableScreen.narrow.show-log #left { display: none; }
    TableScreen.narrow.show-log RichLog { display: block; border-left: none; }
    TableScreen.too-small > * { display: none; }
    TableScreen.too-small #too-small { display: block; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("h", "hint", N_("Hint")),
        Binding("r", "rules", N_("Rules")),
        Binding("s", "save", N_("Save")),
        Binding("o", "resume", N_("Resume")),
        Binding("n", "new_game", N_("New game")),
        Binding("c", "codes", N_("Codes/tiles")),
        Binding("l", "log", N_("Log")),
        Binding("pageup", "scroll_log(-1)", N_("Log up"), show=False, priority=True),
        Binding("pagedown", "scroll_log(1)", N_("Log down"), show=False, priority=True),
        Binding("q", "quit", N_("Quit")),
    ]
    #: Below this width the log moves behind the choices (``l`` shows it).
    WIDE = 100
    #: The smallest terminal the table is laid out for.
    MIN_SIZE = (80, 24)

    def __init__(self, session: Session, bot_delay: float = 0.6, keep: Path | None = None) -> None:
        super().__init__()
        translate_bindings(self)
        self.session = session
        self.bot_delay = bot_delay
        #: Where the game is kept after every move (the autosave), or None.
        self.keep = keep
        humans = session.humans
        #: The seat whose view the table shows: the person at the keyboard (seat 0 if none).
        self.viewer = humans[0] if humans else 0
        #: The seat that confirmed the last hand-off (hot-seat), so it is asked only once a turn.
        self.confirmed = self.viewer if len(humans) <= 1 else -1
        self.logged = 0
        self.thinking = False
        self.waiting = False  # a dialog or the hand-off is open
        self.ended = False
        #: Hot-seat: the person who just moved has looked at the result (the bird drawn).
        self.looked = True
        #: Birds as the engine's codes instead of tiles (``c`` toggles).
        self.codes = False
        self.hints = HintGiver(session.hints)

    def compose(self) -> ComposeResult:
        yield Static(id="too-small")
        yield Static(id="status")
        yield Static(id="table")
        with Horizontal(id="bottom"):
            with Vertical(id="left"):
                yield Static(id="choices-title")
                yield ChoiceList(id="choices")
                yield Static(id="preview")
            yield RichLog(id="log", wrap=True, markup=False, auto_scroll=True, min_width=20)
        yield Footer()

    @property
    def cards(self) -> Cards:
        return CODES if self.codes else TILES

    def on_mount(self) -> None:
        self.lay_out(self.app.size.width, self.app.size.height)
        self.advance()

    def on_resize(self, event: events.Resize) -> None:
        self.lay_out(event.size.width, event.size.height)

    def lay_out(self, width: int, height: int) -> None:
        """The log beside the choices when there is room, else behind them; a terminal too
        small to play in is told so."""
        self.set_class(width < self.WIDE, "narrow")
        small = width < self.MIN_SIZE[0] or height < self.MIN_SIZE[1]
        self.set_class(small, "too-small")
        if small:
            self.query_one("#too-small", Static).update(
                _(
                    "The terminal is {width} × {height}: Piepmatz needs at least "
                    "{min_width} × {min_height}. Make it larger to play on (the game waits), "
                    "or use piepmatz play --text."
                ).format(
                    width=width,
                    height=height,
                    min_width=self.MIN_SIZE[0],
                    min_height=self.MIN_SIZE[1],
                )
            )
        self.query_one(RichLog).scroll_end(animate=False)

    # -------------------------------------------------------------- drawing

    @property
    def view(self) -> PlayerView:
        return self.session.view(self.viewer)

    def labels(self) -> list[str]:
        you = self.session.humans == [self.viewer]
        return [
            _("{seat} (you)").format(seat=seat_name(p))
            if you and p == self.viewer
            else self.session.label(p)
            for p in range(len(self.session.seats))
        ]

    def redraw(self) -> None:
        view = self.view
        game = self.session.game
        labels = self.labels()
        self.query_one("#status", Static).update(
            status_text(view, labels, game.state.rules.name, game.options.seed)
        )
        show_hand = self.session.is_human(self.viewer)
        self.query_one("#table", Static).update(
            table_text(view, labels, show_hand=show_hand, cards=self.cards)
        )
        log = self.query_one(RichLog)
        events = view.events or ()
        # After a change of seat the log is rewritten: its recent part is enough (and fast).
        self.logged = max(self.logged, len(events) - LOG_REWRITE)
        for event in events[self.logged :]:
            log.write(event_line(event, self.cards))
        self.logged = len(events)

    def set_viewer(self, player: int) -> None:
        """Show another seat's view; the log is rewritten, since it holds that seat's secrets."""
        if player != self.viewer:
            self.viewer = player
            self.logged = 0
            self.query_one(RichLog).clear()

    def clear_choices(self, title: str) -> None:
        self.query_one("#choices-title", Static).update(title)
        self.query_one(ChoiceList).clear_options()
        self.query_one("#preview", Static).update("")

    # -------------------------------------------------------------- the game loop

    def advance(self) -> None:
        """Redraw and ask the next decision: a bot (in a worker) or a person."""
        session = self.session
        if session.state_over:
            self.redraw()
            self.clear_choices(_("The game is over."))
            if not self.ended:
                self.ended = True
                self.app.push_screen(EndScreen(session, self.labels()), self._ended)
            return
        player = session.to_act
        if not session.is_human(player):
            self.redraw()
            self.clear_choices(_("{player} is thinking…").format(player=session.label(player)))
            self.start_bot()
            return
        if player != self.confirmed:
            if not self.looked and self.session.is_human(self.confirmed):
                self.look_before_handing_off(player)
                return
            # Hot-seat: hide the table until the next person is at the keyboard.
            self.set_viewer(player)
            self.clear_choices(_("Waiting for {player}…").format(player=session.label(player)))
            self.waiting = True
            self.app.push_screen(
                HandoffScreen(session.label(player), seat_name(player)), self._handed_off
            )
            return
        self.set_viewer(player)
        self.redraw()
        self.ask(player)

    def look_before_handing_off(self, player: int) -> None:
        """Hot-seat: the person who moved sees what it brought (the bird drawn) first."""
        self.set_viewer(self.confirmed)
        self.redraw()
        self.query_one("#choices-title", Static).update(_("Your turn is over: look at your hand."))
        choices = self.query_one(ChoiceList)
        label = self.session.label(player)
        handoff = _("Hide my hand and pass the keyboard to {player}").format(player=label)
        choices.set_options([Option(handoff, "handoff")])
        choices.highlighted = 0
        choices.focus()
        self.query_one("#preview", Static).update("")

    def _handed_off(self, _: None) -> None:
        self.waiting = False
        self.confirmed = self.session.to_act
        self.advance()

    def ask(self, player: int) -> None:
        view = self.view
        legal = self.session.game.state.legal_action_ids()
        if view.phase == PLAY:
            self.query_one("#choices-title", Static).update(
                _("Your move — ↑↓/click: preview · Enter/click again: play")
            )
            choices = self.query_one(ChoiceList)
            choices.set_options(choice_options(view, legal, self.cards))
            choices.highlighted = 0
            choices.focus()
            return
        self.clear_choices(_("Choose in the dialog below."))
        self.waiting = True
        dialog = ChoiceDialog(view, legal, self.labels()[player], self.this_turn(view), self.cards)
        self.app.push_screen(dialog, self._chosen)

    def this_turn(self, view: PlayerView) -> list[Text]:
        """The log lines of the turn so far, for a dialog (which covers the log)."""
        events = list(view.events or ())
        starts = [i for i, e in enumerate(events) if e.kind == "turn"]
        return [event_line(e, self.cards) for e in events[starts[-1] + 1 if starts else 0 :]]

    def _chosen(self, action_id: int | None) -> None:
        self.waiting = False
        if action_id is not None:
            self.play(action_id)

    def play(self, action_id: int) -> None:
        """Apply a choice (a person's or a bot's): the one place that changes the game."""
        if self.session.is_human(self.session.to_act):
            self.looked = False
        self.session.apply(action_id, self.session.to_act)
        self.keep_game()
        self.advance()

    def keep_game(self) -> None:
        """Keep the game in the autosave (forgotten once it is over): a key pressed by mistake
        or a closed terminal loses nothing."""
        if self.keep is None:
            return
        try:
            if self.session.state_over:
                self.keep.unlink(missing_ok=True)
            else:
                self.keep.parent.mkdir(parents=True, exist_ok=True)
                self.session.save(self.keep, replace=True)
        except (OSError, SaveFileError) as exc:
            self.keep = None  # told once; the game goes on without it
            self.app.notify(
                _("The game cannot be kept: {reason}").format(reason=exc), severity="warning"
            )

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        chosen = event.option.id
        if event.option_list.id == "choices" and chosen is not None and chosen.isdigit():
            self.query_one("#preview", Static).update(
                preview_text(self.view, int(chosen), self.cards)
            )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        chosen = event.option.id
        if event.option_list.id != "choices" or chosen is None:
            return
        self.clear_choices("")
        if chosen == "handoff":
            self.looked = True
            self.advance()
        else:
            self.play(int(chosen))

    # -------------------------------------------------------------- bots

    def start_bot(self) -> None:
        if self.thinking:
            return
        self.thinking = True
        bot, view, legal, rng = self.session.bot_request()
        delay = self.bot_delay

        def think() -> None:
            # Pace: a person can follow the log between two bot moves.
            if delay:
                time.sleep(delay)
            try:
                choice = self.session.ask_bot(bot, view, legal, rng)
            except BotMoveError as exc:
                self.app.call_from_thread(self._bot_failed, str(exc))
                return
            self.app.call_from_thread(self._bot_chose, choice)

        self.run_worker(think, thread=True, group="bot", exclusive=True)

    def _bot_failed(self, message: str) -> None:
        # The game stays where it is: it can still be saved, and the bot's author told why.
        self.thinking = False
        self.app.notify(message, title=_("A bot failed"), severity="error", timeout=30)

    def _bot_chose(self, action_id: int) -> None:
        self.thinking = False
        if self.is_attached:
            self.play(action_id)

    # -------------------------------------------------------------- commands

    def decision_view(self) -> PlayerView | None:
        """The view of the person at the keyboard when it is their decision, else None."""
        session = self.session
        if session.state_over or (self.waiting and not isinstance(self.app.screen, ChoiceDialog)):
            return None
        p = session.to_act
        return self.view if p == self.viewer == self.confirmed and session.is_human(p) else None

    def action_hint(self) -> None:
        game = self.session.game
        self.hints.request(self.app, self.decision_view(), hint_seed(game), self.decision_view)

    def _ended(self, choice: str | None) -> None:
        if choice == "new":
            self.post_message(NewGame(self.session.game.state.rules.name))
        elif choice == "replay":
            self.post_message(ShowReplay(self.session.game, self.session.seats))
        elif choice == "quit":
            self.app.exit()

    def leave(self, then: NewGame | OpenSave | None) -> None:
        """Leave the game (quit, or ``then``): asked first while it is in progress."""

        def go(yes: bool | None) -> None:
            if not yes:
                return
            if then is None:
                self.app.exit()
            else:
                self.post_message(then)

        if self.session.state_over:
            go(True)
        else:
            self.app.push_screen(ConfirmDialog(_(LEAVE_QUESTION), _("Leave"), _("Stay")), go)

    def action_codes(self) -> None:
        self.codes = not self.codes
        self.logged = 0  # the log is written again, its birds drawn the new way
        self.query_one(RichLog).clear()
        self.redraw()
        # Redraw the choices too, unless a dialog, a bot or the hand-off has the turn.
        to_act = self.session.to_act
        asking = not self.waiting and to_act == self.confirmed == self.viewer and self.looked
        if asking and self.session.is_human(to_act) and self.view.phase == PLAY:
            self.ask(to_act)

    def action_log(self) -> None:
        self.toggle_class("show-log")
        self.query_one(RichLog).scroll_end(animate=False)

    def action_scroll_log(self, pages: int) -> None:
        log = self.query_one(RichLog)
        if pages < 0:
            log.scroll_page_up()
        else:
            log.scroll_page_down()

    def action_rules(self) -> None:
        rules = self.session.game.state.rules
        self.app.push_screen(RulesScreen(rules.name, rules_markdown(rules)))

    def action_save(self) -> None:
        self.post_message(SaveGame(self.session))

    def action_resume(self) -> None:
        self.leave(OpenSave(replay=False))

    def action_new_game(self) -> None:
        self.leave(NewGame(self.session.game.state.rules.name))

    async def action_quit(self) -> None:
        self.leave(None)
