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

from piepmatz.bots.analysis import Hint
from piepmatz.bots.base import BotMoveError
from piepmatz.core import PlayerView
from piepmatz.core.events import Event
from piepmatz.core.state import PLAY
from piepmatz.i18n import N_, _, current_language
from piepmatz.text.guide import guide_markdown
from piepmatz.text.rulebook import rules_markdown
from piepmatz.text.words import birds_as

from ..hints import HintGiver, hint_line, hint_seed, thinking_text
from ..render import Cards, End, status_text, table_text
from ..session import SaveFileError, Session
from .dialogs import ChoiceDialog, ConfirmDialog, HandoffScreen
from .end import EndScreen
from .messages import NewGame, OpenSave, SaveGame, ShowReplay
from .rules import RulesScreen
from .why import WhyScreen
from .widgets import (
    ChoiceList,
    cards_of,
    choice_options,
    event_line,
    hide_binding,
    preview_text,
    toggle_codes,
    translate_bindings,
)

#: How many recent events the log shows again when the seat at the keyboard changes.
LOG_REWRITE = 40
LEAVE_QUESTION = N_(
    "Leave this game? It is kept: the next piepmatz play offers to resume it "
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
        border: none; text-wrap: nowrap; text-overflow: ellipsis; }
    TableScreen #preview { height: 5; padding: 0 1; background: $panel; }
    TableScreen #hint { height: auto; padding: 0 1; background: $boost; display: none; }
    TableScreen #hint.shown { display: block; }
    TableScreen RichLog { width: 1fr; border-left: solid $accent; padding: 0 1; }
    TableScreen #too-small { display: none; padding: 1 2; }
    TableScreen.narrow #left { width: 1fr; }
    TableScreen.narrow #preview { height: 3; }
    TableScreen.short #preview { height: 2; }
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
        Binding("w", "why", N_("Why?"), show=False),
        Binding("e", "score_sheet", N_("Score sheet")),
        Binding("pageup", "scroll_log(-1)", N_("Log up"), show=False, priority=True),
        Binding("pagedown", "scroll_log(1)", N_("Log down"), show=False, priority=True),
        Binding("q", "quit", N_("Quit")),
    ]
    #: Below this width the log moves behind the choices (``l`` shows it).
    WIDE = 100
    #: The smallest terminal the table is laid out for.
    MIN_SIZE = (80, 24)
    #: Below this height the perches' heading goes and the preview is shorter, so that four
    #: players' table leaves room for several choices.
    TALL = 30

    def __init__(self, session: Session, bot_delay: float = 0.6, keep: Path | None = None) -> None:
        super().__init__()
        translate_bindings(self)
        self.session = session
        self.bot_delay = bot_delay
        #: Where the finished game was kept among the saves, or None.
        self.kept_as: Path | None = None
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
        #: The score sheet was left for the replay: it comes back when the replay closes.
        self.reopen_sheet = False
        #: How the birds on screen were drawn (``c`` on any screen changes it).
        self.drawn_as: Cards | None = None
        self.hints = HintGiver(session.hints)
        if not session.hints:
            hide_binding(self, "hint")

    def compose(self) -> ComposeResult:
        yield Static(id="too-small")
        yield Static(id="status")
        yield Static(id="table")
        with Horizontal(id="bottom"):
            with Vertical(id="left"):
                yield Static(id="choices-title")
                yield Static(id="hint")
                yield ChoiceList(id="choices")
                yield Static(id="preview")
            yield RichLog(id="log", wrap=True, markup=False, auto_scroll=True, min_width=20)
        yield Footer(compact=True)

    @property
    def cards(self) -> Cards:
        return cards_of(self)

    def on_mount(self) -> None:
        self.lay_out(self.app.size.width, self.app.size.height)
        self.advance()

    def on_resize(self, event: events.Resize) -> None:
        self.lay_out(event.size.width, event.size.height)

    def lay_out(self, width: int, height: int) -> None:
        """The log beside the choices when there is room, else behind them; a terminal too
        small to play in is told so."""
        self.set_class(width < self.WIDE, "narrow")
        # The footer of a narrow terminal: without the keys that leave this game for another.
        for action in ("resume", "new_game"):
            hide_binding(self, action, width < self.WIDE)
        self.refresh_bindings()
        self.set_class(height < self.TALL, "short")
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
        if self.is_mounted:
            self.redraw()

    # -------------------------------------------------------------- drawing

    @property
    def view(self) -> PlayerView:
        return self.session.view(self.viewer)

    def new_game(self) -> NewGame:
        """The new-game screen, set for the same people and bots to play again."""
        session = self.session
        return NewGame(session.game.state.rules.name, session.seats, session.names)

    def labels(self) -> list[str]:
        you = self.session.humans == [self.viewer]
        return [
            _("{seat} (you)").format(seat=self.session.name(p))
            if you and p == self.viewer
            else self.session.label(p)
            for p in range(len(self.session.seats))
        ]

    def told_seed(self) -> int | None:
        """The deal's seed for the status line: a player can deal the same game again."""
        return self.session.game.options.seed

    def drawn(self) -> tuple[Text, Text]:
        """The status line and the table, as this terminal's size draws them."""
        view = self.view
        game = self.session.game
        labels = self.labels()
        width = self.app.size.width - 2  # the padding
        status = status_text(view, labels, game.state.rules.name, self.told_seed(), width)
        # Once the game is over nothing is hidden: the table's totals are the score sheet's.
        state = game.state
        end = End(game.score(), state.seeds_blind) if state.is_over() else None
        table = table_text(
            view,
            labels,
            show_hand=self.session.is_human(self.viewer),
            cards=self.cards,
            width=width,
            header=self.app.size.height >= self.TALL,
            end=end,
        )
        return status, table

    def redraw(self) -> None:
        view = self.view
        self.drawn_as = self.cards
        status, table = self.drawn()
        self.query_one("#status", Static).update(status)
        self.query_one("#table", Static).update(table)
        log = self.query_one(RichLog)
        events = view.events or ()
        # After a change of seat the log is rewritten: its recent part is enough (and fast).
        self.logged = max(self.logged, len(events) - LOG_REWRITE)
        for event in events[self.logged :]:
            self.write_log(log, event)
        self.logged = len(events)

    def write_log(self, log: RichLog, event: Event) -> None:
        log.write(event_line(event, self.cards, self.session.called))

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
        self.query_one("#hint", Static).set_class(False, "shown")

    # -------------------------------------------------------------- the game loop

    def advance(self) -> None:
        """Redraw and ask the next decision: a bot (in a worker) or a person."""
        session = self.session
        if session.state_over:
            self.redraw()
            self.clear_choices(_("The game is over."))
            choices = self.query_one(ChoiceList)
            choices.set_options([Option(_("Show the score sheet again (e)"), "sheet")])
            choices.highlighted = 0
            choices.focus()
            if not self.ended:
                self.ended = True
                self.action_score_sheet()
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
                HandoffScreen(session.label(player), session.name(player), player),
                self._handed_off,
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
            self.query_one("#hint", Static).set_class(False, "shown")
            choices = self.query_one(ChoiceList)
            choices.set_options(choice_options(view, legal, self.cards, names=self.session.called))
            choices.highlighted = 0
            choices.focus()
            return
        self.clear_choices(_("Choose in the dialog below."))
        self.waiting = True
        dialog = ChoiceDialog(
            view, legal, self.labels()[player], self.this_turn(view), names=self.session.called
        )
        if not self.session.hints:
            hide_binding(dialog, "hint")
        self.app.push_screen(dialog, self._chosen)

    def this_turn(self, view: PlayerView) -> list[Event]:
        """The events of the turn so far, for a dialog (which covers the log)."""
        events = list(view.events or ())
        starts = [i for i, e in enumerate(events) if e.kind == "turn"]
        return events[starts[-1] + 1 if starts else 0 :]

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
            self.session.keep_in(self.keep)
            if self.session.state_over:
                # Over, it leaves the autosave for the saves, to be replayed and reviewed
                # another day (as the text game keeps it); the score sheet says where.
                self.keep = None
                self.kept_as = self.session.keep_finished()
        except (OSError, SaveFileError) as exc:
            self.keep = None  # told once; the game goes on without it
            self.app.notify(
                _("The game cannot be kept: {reason}").format(reason=exc), severity="warning"
            )

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        chosen = event.option.id
        if event.option_list.id == "choices" and chosen is not None and chosen.isdigit():
            self.query_one("#preview", Static).update(
                preview_text(self.view, int(chosen), self.cards, self.session.called)
            )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        chosen = event.option.id
        if event.option_list.id != "choices" or chosen is None:
            return
        if chosen == "sheet":
            self.action_score_sheet()
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
        self.hints.request(
            self.app, self.decision_view(), hint_seed(game), self.decision_view, self.show_hint
        )

    def show_hint(self, found: Hint | None) -> None:
        """The hint (or, with None, that the bot is thinking) beside the decision it answers: the
        table's list or the dialog's; the suggested choice is highlighted. It goes with the
        decision: the next one starts without it."""

        def text() -> Text:
            if found is None:
                return Text(thinking_text(self.hints.bot), style="italic")
            with birds_as("code"):  # drawn as the table draws birds (tiles or codes)
                line = hint_line(found)
            return self.cards.words(line, style="bold")

        dialog = self.app.screen
        if isinstance(dialog, ChoiceDialog):
            dialog.suggest(text, None if found is None else found.estimate.action)
            return
        hint = self.query_one("#hint", Static)
        hint.update(text())
        hint.set_class(True, "shown")
        if found is not None:
            choices = self.query_one(ChoiceList)
            ids = [choices.get_option_at_index(i).id for i in range(choices.option_count)]
            if str(found.estimate.action) in ids:
                choices.highlighted = ids.index(str(found.estimate.action))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The score sheet's key only once the game is over, the hint's only before."""
        if action == "score_sheet":
            return self.session.state_over
        if action == "hint":
            return not self.session.state_over
        return True

    def action_score_sheet(self) -> None:
        """The score sheet, at the end of the game and again whenever asked."""
        if self.session.state_over and not isinstance(self.app.screen, EndScreen):
            self.app.push_screen(
                EndScreen(self.session, self.labels(), kept=self.kept_as), self._ended
            )

    def on_screen_resume(self) -> None:
        if self.drawn_as is not None and self.drawn_as != self.cards:
            self.draw_cards_again()  # `c` was pressed on a screen above
        if self.reopen_sheet:  # back from the replay at the end: the score sheet again
            self.reopen_sheet = False
            self.action_score_sheet()

    def _ended(self, choice: str | None) -> None:
        self.reopen_sheet = choice == "replay"
        if choice == "new":
            self.post_message(self.new_game())
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
        toggle_codes(self)
        self.draw_cards_again()

    def draw_cards_again(self) -> None:
        """Everything drawn again with the birds as tiles or codes, as the app now has them."""
        self.logged = 0  # the log is written again, its birds drawn the new way
        self.query_one(RichLog).clear()
        self.redraw()
        dialog = self.app.screen
        if isinstance(dialog, ChoiceDialog):
            dialog.call_later(dialog.redraw)
        # Redraw the choices too, unless a dialog, a bot or the hand-off has the turn.
        to_act = self.session.to_act
        asking = not self.waiting and to_act == self.confirmed == self.viewer and self.looked
        if asking and self.session.is_human(to_act) and self.view.phase == PLAY:
            self.ask(to_act)
            last = self.hints.last
            if last is not None and last[0] == self.decision_view():
                self.show_hint(last[1])

    def action_log(self) -> None:
        self.toggle_class("show-log")
        if not self.has_class("show-log"):
            self.query_one(ChoiceList).focus()  # the choices, hidden meanwhile, have it again
        # The log's lines are wrapped when written, at its width then (none while it was
        # hidden): written again once it is laid out at the width it has now.
        self.call_after_refresh(self.rewrite_log)

    def rewrite_log(self) -> None:
        self.logged = 0
        self.query_one(RichLog).clear()
        self.redraw()
        self.query_one(RichLog).scroll_end(animate=False)

    def action_scroll_log(self, pages: int) -> None:
        log = self.query_one(RichLog)
        if pages < 0:
            log.scroll_page_up()
        else:
            log.scroll_page_down()

    def action_rules(self) -> None:
        """How to play: the player's guide, then the rules in play."""
        rules = self.session.game.state.rules
        guide = guide_markdown(current_language())
        self.app.push_screen(RulesScreen(rules.name, rules_markdown(rules), guide))

    def action_why(self) -> None:
        """The rule behind a line of the log: the last one first, another chosen with ↑↓."""
        events = list(self.view.events or ())
        if events:
            self.app.push_screen(
                WhyScreen(events, self.session.game.state.rules, self.session.called)
            )

    def action_save(self) -> None:
        self.post_message(SaveGame(self.session))

    def action_resume(self) -> None:
        self.leave(OpenSave(replay=False))

    def action_new_game(self) -> None:
        self.leave(self.new_game())

    async def action_quit(self) -> None:
        self.leave(None)
