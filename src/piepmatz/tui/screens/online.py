"""An online table in the terminal: the table screen drawn from the server's ``state`` messages.

The server holds the game; this screen only shows what the seat is sent (its view, its log, its
legal actions, the previews it asks for) and sends the seat's choices with the move they answer
(``docs/protocol.md``). The table, the log and the score sheet are drawn by the same code as the
local game's, from the view read back (:func:`~piepmatz.core.viewjson.view_from_json`); nothing
here knows a rule. A dropped connection is opened again by the client, and the screen says so
meanwhile.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, OptionList, RichLog, Static
from textual.widgets.option_list import Option
from websockets.exceptions import WebSocketException

from piepmatz.core import Action, Game, PlayerView, Rules
from piepmatz.core.errors import PiepmatzError
from piepmatz.core.events import Event
from piepmatz.core.state import PLAY
from piepmatz.core.viewjson import events_from_json, view_from_json
from piepmatz.i18n import N_, _, current_language, ngettext
from piepmatz.records import HUMAN
from piepmatz.server.client import SeatClient
from piepmatz.text.guide import guide_markdown
from piepmatz.text.numbers import count
from piepmatz.text.rulebook import rules_markdown
from piepmatz.text.words import action_words, birds_as

from ..hints import thinking_text
from ..online import (
    CHAT_LENGTH,
    SEAT_REFUSED,
    SEND_GAP,
    OnlineError,
    Seating,
    abort_asked,
    absence_text,
    back_text,
    bot_for_a_seat,
    bot_replaced_text,
    ending_text,
    hint_line,
    move_time_left,
    offered_again,
    others_at,
    pace_words,
    resign_question,
    seat_labels,
    seat_names,
    seats_for_a_bot,
    stand_in_of,
    table_rules,
)
from ..render import Cards, status_text, table_text
from ..session import Session
from .dialogs import DIALOG_TEXT, ConfirmDialog
from .end import EndScreen
from .messages import NewGame, PlayAgain, ShowReplay
from .rules import RulesScreen
from .why import WhyScreen
from .widgets import (
    ChoiceList,
    cards_of,
    event_line,
    hide_binding,
    toggle_codes,
    translate_bindings,
)

#: What the table asks before leaving a game in progress (the seat stays the player's).
LEAVE_ONLINE = N_(
    "Leave this table? Your seat stays yours: the same link or command takes you back to it "
    "(at a timed table a stand-in bot plays for you while you are away)."
)
#: Refusals the screen does not show: a second Enter for a move already sent is ``stale``.
QUIET_ERRORS = frozenset({"stale"})
#: The id of a waiting table's choice that gives a free seat to the stand-in (then its number).
SEAT_BOT = "seat-bot:"


class OnlineTableScreen(Screen[None]):
    """The table of an online game, from the seat's view the server sends; a spectator's (no
    seat) from the public view, with nothing to play, say or ask."""

    DEFAULT_CSS = """
    OnlineTableScreen #status { height: auto; background: $accent; color: $text; padding: 0 1; }
    OnlineTableScreen #people { height: auto; padding: 0 1; background: $panel; }
    OnlineTableScreen #table { height: auto; padding: 0 1; }
    OnlineTableScreen #bottom { height: 1fr; min-height: 5; }
    OnlineTableScreen #left { width: 62; }
    OnlineTableScreen #choices-title { height: auto; padding: 0 1; background: $panel; }
    OnlineTableScreen ChoiceList, OnlineTableScreen ChoiceList:focus { height: 1fr;
        min-height: 2; border: none; text-wrap: nowrap; text-overflow: ellipsis; }
    OnlineTableScreen #preview { height: 5; padding: 0 1; background: $panel; }
    OnlineTableScreen #hint { height: auto; padding: 0 1; background: $boost; display: none; }
    OnlineTableScreen #hint.shown { display: block; }
    OnlineTableScreen RichLog { width: 1fr; border-left: solid $accent; padding: 0 1; }
    OnlineTableScreen #chat { display: none; }
    OnlineTableScreen #chat.shown { display: block; }
    OnlineTableScreen.narrow #left { width: 1fr; }
    OnlineTableScreen.narrow #preview { height: 3; }
    OnlineTableScreen.narrow RichLog { display: none; }
    OnlineTableScreen.narrow.show-log #left { display: none; }
    OnlineTableScreen.narrow.show-log RichLog { display: block; border-left: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("h", "hint", N_("Hint")),
        Binding("t", "chat", N_("Chat")),
        Binding("r", "rules", N_("Rules")),
        Binding("c", "codes", N_("Codes/tiles")),
        Binding("l", "log", N_("Log")),
        Binding("w", "why", N_("Why?"), show=False),
        Binding("y", "copy_invites", N_("Copy invites"), show=False),
        Binding("b", "back", N_("Take my seat back")),
        Binding("g", "resign", N_("Resign")),
        Binding("a", "abort", N_("Abort the game")),
        Binding("e", "score_sheet", N_("Score sheet")),
        Binding("pageup", "scroll_log(-1)", N_("Log up"), show=False, priority=True),
        Binding("pagedown", "scroll_log(1)", N_("Log down"), show=False, priority=True),
        Binding("q", "quit", N_("Quit")),
    ]
    #: Below this width the log moves behind the choices (``l`` shows it), as on the table.
    WIDE = 100

    def __init__(self, seating: Seating) -> None:
        super().__init__()
        translate_bindings(self)
        self.seating = seating
        self.seat = seating.seat
        self.client: SeatClient | None = None
        #: The connection: ``connecting``, ``connected``, ``reconnecting``, ``lost`` (the client
        #: gave up) or ``refused`` (the server refused the seat's credential).
        self.connection = "connecting"
        #: The last ``table`` and ``state`` messages, and the view and log read from them.
        self.table: dict[str, Any] | None = None
        self.state: dict[str, Any] | None = None
        self.view: PlayerView | None = None
        self.events: list[Event] = []
        #: Chat lines, each after the log entry it came after: ``(entries, name, text)``.
        self.chat: list[tuple[int, str, str]] = []
        self.logged = 0
        #: The server's previews of the decision at ``move``, by action.
        self.previews: dict[str, dict[str, Any]] = {}
        #: When the last state came (the clock counts down from it).
        self.clock_at = 0.0
        #: The finished game, replayed from its record, for the score sheet.
        self.finished: Game | None = None
        self.ended = False
        self.drawn_as: Cards | None = None
        #: The move whose choices the list shows, and the move last answered: its preview or
        #: a repeated state may come after the choice, and must not offer the choices again.
        self.asked: int | None = None
        self.answered: int | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        yield Static(id="people")
        yield Static(id="table")
        with Horizontal(id="bottom"):
            with Vertical(id="left"):
                yield Static(id="choices-title")
                yield Static(id="hint")
                yield ChoiceList(id="choices")
                yield Static(id="preview")
            yield RichLog(id="log", wrap=True, markup=False, auto_scroll=True, min_width=20)
        yield Input(id="chat", max_length=CHAT_LENGTH, placeholder=_("Say something to the table…"))
        yield Footer(compact=True)

    @property
    def cards(self) -> Cards:
        return cards_of(self)

    def on_mount(self) -> None:
        self.lay_out(self.app.size.width)
        hide_binding(self, "hint")
        self.title_line(_("Connecting to {server}…").format(server=self.seating.server.url))
        self.run_worker(self.play_online(), group="online", exclusive=True)
        self.set_interval(1.0, self.draw_people)

    def on_resize(self, event: events.Resize) -> None:
        self.lay_out(event.size.width)

    def lay_out(self, width: int) -> None:
        self.set_class(width < self.WIDE, "narrow")
        # The footer of a narrow terminal: without resigning, which still answers (Ctrl+P).
        hide_binding(self, "resign", width < self.WIDE)
        self.refresh_bindings()
        if self.is_mounted and self.view is not None:
            self.redraw()

    # -------------------------------------------------------------- the connection

    async def play_online(self) -> None:
        """Sit at the seat and follow the table until the screen closes; the client opens a
        dropped connection again by itself."""
        url = self.seating.server.ws_url(self.seating.table, current_language())
        try:
            async with SeatClient.connect(
                url, self.seating.token, keep=False, reconnect=True, gap=SEND_GAP
            ) as client:
                client.on_connection = self.connected
                self.client = client
                self.connected(True)
                while self.connection != "refused":
                    self.take(await client.receive())
        except (OSError, ValueError, WebSocketException) as exc:
            self.connection = "lost"
            self.draw_people()
            self.app.notify(str(exc), title=_("Disconnected"), severity="error", timeout=30)

    def connected(self, up: bool) -> None:
        self.connection = "connected" if up else "reconnecting"
        if up:
            self.answered = None  # a choice sent while the connection was down was dropped
        self.draw_people()

    async def send(self, message: dict[str, Any]) -> None:
        if self.client is not None:
            await self.client.send(message)

    def take(self, message: dict[str, Any]) -> None:
        """A message received; one this terminal cannot read is told, and the table goes on."""
        try:
            self.receive(message)
        except (PiepmatzError, LookupError, TypeError, ValueError) as exc:
            self.app.notify(
                _("The server sent a message this terminal cannot read: {reason}").format(
                    reason=exc
                ),
                severity="error",
            )

    def receive(self, message: dict[str, Any]) -> None:
        """One message from the server: each kind updates what it is about."""
        kind = message.get("type")
        if kind == "table":
            names = self.names()
            asking = abort_asked(self.table, message, self.seat)
            offered = offered_again(self.table, message, self.seat)
            if self.table is None and message.get("pace"):  # what the clock means, once
                self.app.notify(pace_words(message["pace"]), title=_("Pace"), timeout=15)
            self.table = message
            if offered is not None:
                self.app.notify(
                    _("{name} wants to play again: a in the score sheet (e) joins them.").format(
                        name=offered
                    ),
                    timeout=30,
                )
            if asking:
                self.app.notify(
                    _(
                        "{names} asked to abort the game: a agrees. It is aborted once every "
                        "person at the table asks."
                    ).format(names=", ".join(self.names()[p] for p in asking)),
                    title=_("Abort the game"),
                    timeout=20,
                )
            if self.view is not None and self.names() != names:
                self.draw_cards_again()  # the log names the people who sat down since
            hide_binding(self, "hint", not message.get("hints"))
            self.draw_people()
            self.refresh_bindings()
            if self.state is None and message.get("ending"):  # aborted before the deal
                self.ended = True
                self.title_line(self.ending_text(message["ending"]))
            elif self.state is None:
                self.draw_waiting()
        elif kind == "state":
            self.take_state(message)
        elif kind == "preview" and self.state is not None:
            if message.get("move") == self.state["move"]:
                self.previews = {p["action"]: p for p in message.get("previews", [])}
                self.ask()
        elif kind == "chat":
            self.chat.append((len(self.events), str(message["name"]), str(message["text"])))
            self.query_one(RichLog).write(self.chat_line(self.chat[-1]))
        elif kind == "hint":
            self.show_hint(message)
        elif kind == "error" and message.get("code") in SEAT_REFUSED:
            self.connection = "refused"
            self.title_line(str(message.get("message", "")))
            self.draw_people()
        elif kind == "error":
            code = str(message.get("code", ""))
            if code.startswith("hint"):  # no hint: nothing is coming
                self.query_one("#hint", Static).set_class(False, "shown")
            if code not in QUIET_ERRORS:
                self.app.notify(
                    str(message.get("message", "")), title=_("Refused"), severity="error"
                )
            refused = code not in QUIET_ERRORS and not code.startswith("hint")
            if refused and self.answered is not None:
                self.answered = None  # the choice refused (too fast, say): choose again
                self.ask()
        elif kind in ("stand_in", "returned", "bot_replaced"):
            if kind == "stand_in" and message.get("seat") == self.seat:
                self.app.notify(
                    _("A stand-in bot plays for you now: b takes your seat back."),
                    severity="warning",
                    timeout=20,
                )
            elif kind == "returned" and message.get("seat") == self.seat:
                self.app.notify(back_text(message, self.table), timeout=10)
            elif kind != "bot_replaced" and message.get("seat") != self.seat:
                self.app.notify(absence_text(message, self.names()), timeout=10)
            if kind == "bot_replaced":
                self.app.notify(bot_replaced_text(message, self.names()), timeout=10)
            self.draw_people()
            self.refresh_bindings()

    def take_state(self, message: dict[str, Any]) -> None:
        try:
            entries = events_from_json(message["events"])
            start = int(message["events_from"])
            log = self.events[:start] + entries
            view = view_from_json(message["view"], log)
        except (PiepmatzError, KeyError, TypeError, ValueError) as exc:
            self.app.notify(
                _("The server sent a state this terminal cannot read: {reason}").format(reason=exc),
                severity="error",
            )
            return
        if start < self.logged:  # the log from an earlier entry on (a reconnect): anew
            self.logged = 0
            self.query_one(RichLog).clear()
        moved = self.state is None or self.state["move"] != message["move"]
        self.state, self.view, self.events = message, view, log
        self.clock_at = time.monotonic()
        if moved:
            self.previews = {}
            self.query_one("#hint", Static).set_class(False, "shown")
        self.redraw()
        self.ask()
        if message.get("result") is not None and not self.ended:
            self.ended = True
            self.refresh_bindings()
            self.run_worker(self.fetch_record(), group="record")
        elif message.get("ending"):
            self.ended = True  # resigned or aborted: nothing more to play
            self.refresh_bindings()
        elif message.get("legal") and moved:
            self.run_worker(self.send({"type": "preview", "move": message["move"]}))

    # -------------------------------------------------------------- drawing

    def names(self) -> list[str]:
        """Each seat's name: a person's own, a bot as "Bot N" (as the server's log names them)."""
        return seat_names(self.table, self.view.num_players if self.view else None)

    def labels(self) -> list[str]:
        return seat_labels(self.table, self.names(), self.seat)

    def title_line(self, text: str) -> None:
        self.query_one("#choices-title", Static).update(text)

    def redraw(self) -> None:
        view = self.view
        if view is None:
            return
        self.drawn_as = self.cards
        labels = self.labels()
        width = self.app.size.width - 2
        rules = self.table["rules"] if self.table else view.rules.name
        # No seed to tell: the deal is the server's secret until the end.
        ending = self.state.get("ending") if self.state else None
        if ending and self.state and self.state.get("result") is None:  # not played out
            over = self.ending_text(ending)
        else:
            over = None
        status = status_text(view, labels, rules, None, width, over)
        self.query_one("#status", Static).update(status)
        table = table_text(
            view, labels, cards=self.cards, width=width, header=False, show_hand=self.seated
        )
        self.query_one("#table", Static).update(table)
        self.write_log()
        self.draw_people()

    def write_log(self) -> None:
        log = self.query_one(RichLog)
        names = self.names()
        for i in range(self.logged, len(self.events)):
            for line in self.chat:
                if line[0] == i and self.logged == 0:
                    log.write(self.chat_line(line))
            log.write(event_line(self.events[i], self.cards, names))
        if self.logged == 0:  # written anew: the chat after the last entry too
            for line in self.chat:
                if line[0] >= len(self.events):
                    log.write(self.chat_line(line))
        self.logged = len(self.events)

    def chat_line(self, line: tuple[int, str, str]) -> Text:
        text = Text(f"{line[1]}: ", style="bold cyan")
        text.append(line[2])  # plain text, never markup
        return text

    def draw_people(self) -> None:
        """Who sits where, who is connected, their clocks, and this terminal's connection."""
        if not self.is_mounted:
            return
        line = Text()
        if self.connection == "reconnecting":
            line.append(_("disconnected — reconnecting…") + "  ", style="bold red")
        elif self.connection in ("lost", "refused"):
            line.append(_("disconnected") + "  ", style="bold red")
        seats = self.table["seats"] if self.table else []
        labels = self.labels()
        clock = self.state.get("clock") if self.state else None
        for p, info in enumerate(seats):
            if p:
                line.append(" · ")
            human = info.get("kind") == HUMAN
            here = info.get("connected") or not human
            line.append("● " if here else "○ ", style="green" if here else "dim")
            line.append(labels[p] if p < len(labels) else str(info.get("name")))
            if human and not info.get("connected") and info.get("name"):
                line.append(" " + _("(not connected)"), style="dim")
            if info.get("absent"):
                line.append(" " + _("(a stand-in plays)"), style="yellow")
            left = self.time_left(clock, p)
            if left is not None:
                running = clock is not None and clock.get("running") == p
                line.append(f" {left}", style="bold reverse" if running else "")
        self.query_one("#people", Static).update(line)

    def time_left(self, clock: dict[str, Any] | None, seat: int) -> str | None:
        """A seat's time left as ``m:ss`` (its clock counts down while it runs), or at a
        turn-based table the time left for the move being made (``23 h 59 min``); else None."""
        if not clock or not isinstance(clock.get("left"), list) or seat >= len(clock["left"]):
            return None
        left = clock["left"][seat]
        if left is None:  # a turn-based table: the move's own time, while it runs
            return move_time_left(clock, seat, time.monotonic() - self.clock_at)
        if clock.get("running") == seat and not self.ended:
            left -= (time.monotonic() - self.clock_at) * 1000
        seconds = max(0, int(left // 1000))
        return f"{seconds // 60}:{seconds % 60:02d}"

    def draw_waiting(self) -> None:
        """Before the deal: who is still awaited, and the invites to send (a table this player
        opened)."""
        seats = self.table["seats"] if self.table else []
        free = [s for s in seats if s.get("kind") == HUMAN and not s.get("name")]
        waiting = ngettext(
            "Waiting for {count} more person to sit down…",
            "Waiting for {count} more people to sit down…",
            len(free),
        )
        self.title_line(waiting.format(count=count(len(free))))
        text = Text()
        if self.seating.invites:
            text.append(_("Send each friend their own link (y copies them):") + "\n", style="bold")
            for seat, link in self.seating.invites:
                text.append(_("Seat {number}").format(number=seat + 1) + ": " + link + "\n")
            if self.seating.spectate:
                text.append(watch_text(self.seating.spectate) + "\n")
        self.query_one("#table", Static).update(text)
        # A friend who does not come need not hold the game up: a free seat may go to the
        # table's stand-in bot, chosen as a move is.
        offers = [
            Option(bot_for_a_seat(self.table, free), f"{SEAT_BOT}{free}")
            for free in seats_for_a_bot(self.table, self.seat)
        ]
        self.query_one(ChoiceList).set_options(offers)

    def ask(self) -> None:
        """The seat's decision, if it has one: its choices with the server's previews."""
        state, view = self.state, self.view
        choices = self.query_one(ChoiceList)
        if state is None or view is None:
            return
        ending = state.get("ending")
        if state.get("result") is None and ending:  # resigned or aborted: not played out
            self.title_line(self.ending_text(ending))
            choices.clear_options()
            self.query_one("#preview", Static).update("")
            return
        if state.get("result") is not None:
            self.title_line(_("The game is over."))
            choices.set_options([Option(_("Show the score sheet again (e)"), "sheet")])
            return
        legal: list[str] = list(state.get("legal") or [])
        if legal and self.answered == state["move"]:
            return  # chosen and sent: the next state brings the next decision
        if not legal:
            who = self.names()[view.current_player] if view.current_player >= 0 else ""
            waiting = (
                _("Watching: {player} to move") if not self.seated else _("Waiting for {player}…")
            )
            self.title_line(waiting.format(player=who))
            choices.clear_options()
            self.query_one("#preview", Static).update("")
            return
        if view.phase == PLAY:
            self.title_line(_("Your move — ↑↓/click: preview · Enter/click again: play"))
        else:
            title, why = DIALOG_TEXT[view.phase]
            me = self.labels()[view.player]
            self.title_line(_(title).format(player=me) + "\n" + _(why))
        # The same decision again (its previews came): the cursor stays where it was.
        same = choices.option_count == len(legal) and self.asked == state["move"]
        highlighted = choices.highlighted if same else 0
        self.asked = state["move"]
        choices.set_options([self.choice_option(i, text) for i, text in enumerate(legal)])
        choices.highlighted = highlighted
        if not isinstance(self.focused, Input):
            choices.focus()

    def ending_text(self, ending: dict[str, Any]) -> str:
        """How a game that was not played out ended: aborted, or resigned."""
        return ending_text(ending, self.names())

    def choice_option(self, index: int, text: str) -> Option:
        with birds_as("code"):  # drawn as the table draws birds (tiles or codes)
            said = action_words(Action.parse(text), True)
        label = self.cards.words(said, style="bold")
        headline = self.previews.get(text, {}).get("headline")
        if headline:
            label.append(" " * max(1, 18 - len(label.plain)))
            label.append_text(self.cards.words(str(headline)))
        # The option names the move it answers: one chosen from a list drawn for an earlier
        # decision (its event arriving late) is no choice of the current one.
        return Option(label, id=f"{self.state['move'] if self.state else -1}:{index}")

    def chosen_action(self, option: str | None) -> str | None:
        """The action of a choice's option, if it answers the current decision."""
        move, _sep, index = (option or "").partition(":")
        legal = list(self.state.get("legal") or []) if self.state else []
        if not (self.state and move == str(self.state["move"]) and index.isdigit()):
            return None
        return legal[int(index)] if int(index) < len(legal) else None

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        action = self.chosen_action(event.option.id)
        if event.option_list.id != "choices" or action is None:
            return
        found = self.previews.get(action)
        with birds_as("code"):
            said = action_words(Action.parse(action))
        text = self.cards.words(said, style="bold")
        if found is not None:
            text = self.cards.words(f"{said} — {found['headline']}\n", style="bold")
            steps = [s for s in found.get("steps", [])[:6] if s != found["headline"]]
            text.append_text(self.cards.words("\n".join(steps)))
        self.query_one("#preview", Static).update(text)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        chosen = event.option.id
        if event.option_list.id == "choices" and chosen and chosen.startswith(SEAT_BOT):
            seat = int(chosen.removeprefix(SEAT_BOT))
            self.run_worker(
                self.send({"type": "seat_bot", "seat": seat, "bot": stand_in_of(self.table)})
            )
            return
        if event.option_list.id != "choices" or chosen is None or self.state is None:
            return
        if chosen == "sheet":
            self.action_score_sheet()
            return
        action = self.chosen_action(chosen)
        if action is None:
            return
        self.title_line(_("Sent: {action}").format(action=action))
        self.query_one(ChoiceList).clear_options()
        self.answered = self.state["move"]
        self.run_worker(self.send({"type": "action", "move": self.state["move"], "action": action}))

    # -------------------------------------------------------------- hints and chat

    def action_hint(self) -> None:
        state = self.state
        if not (self.table and self.table.get("hints")):
            self.app.notify(_("Hints are turned off at this table."), title=_("Hint"), timeout=3)
            return
        if state is None or not state.get("legal"):
            self.app.notify(_("There is no decision of yours to hint now."), title=_("Hint"))
            return
        hint = self.query_one("#hint", Static)
        hint.update(Text(thinking_text(), style="italic"))
        hint.set_class(True, "shown")
        self.run_worker(self.send({"type": "hint", "move": state["move"]}))

    def show_hint(self, message: dict[str, Any]) -> None:
        if self.state is None or message.get("move") != self.state["move"]:
            return
        with birds_as("code"):
            action = action_words(Action.parse(str(message["action"])))
        line = hint_line(message, action)
        hint = self.query_one("#hint", Static)
        hint.update(self.cards.words(line, style="bold"))
        hint.set_class(True, "shown")
        legal = list(self.state.get("legal") or [])
        if message["action"] in legal:
            self.query_one(ChoiceList).highlighted = legal.index(message["action"])

    def action_chat(self) -> None:
        chat = self.query_one("#chat", Input)
        chat.set_class(True, "shown")
        chat.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "chat":
            return
        text = event.value.strip()
        event.input.value = ""
        self.close_chat()
        if text:
            self.run_worker(self.send({"type": "chat", "text": text}))

    def close_chat(self) -> None:
        self.query_one("#chat", Input).set_class(False, "shown")
        self.query_one(ChoiceList).focus()

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape" and isinstance(self.focused, Input):
            event.stop()
            self.close_chat()

    def action_copy_invites(self) -> None:
        if self.seating.invites:
            self.app.copy_to_clipboard("\n".join(link for _seat, link in self.seating.invites))
            self.app.notify(_("The invite links are copied."), timeout=3)

    # -------------------------------------------------------------- the end

    async def fetch_record(self) -> None:
        """The finished game's record, replayed here: the score sheet, the replay and the
        review are the local game's."""
        server, table = self.seating.server, self.seating.table
        try:
            record = await asyncio.to_thread(server.request, f"tables/{table}/record")
            self.finished = Game.from_record(record)
        except (OnlineError, PiepmatzError) as exc:
            self.app.notify(str(exc), title=_("No score sheet"), severity="error", timeout=20)
            for line in (self.state or {}).get("explained") or []:
                self.query_one(RichLog).write(" · ".join(str(x) for x in line))
            return
        self.action_score_sheet()

    @property
    def seated(self) -> bool:
        """Whether this terminal sits at a seat (else it watches)."""
        return self.seat is not None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.seated and action in ("hint", "chat", "back", "resign", "abort"):
            return False  # a spectator's: the server would refuse them
        if self.ended and action in ("hint", "back", "resign", "abort"):
            return False  # nothing more to play
        if action == "score_sheet":
            return self.finished is not None
        if action == "copy_invites":
            return bool(self.seating.invites)
        if action == "back":
            return self.stood_in()
        if action == "resign":
            return self.playing() and self.my_seat().get("absent") != "resigned"
        if action == "abort":
            asked = self.table.get("abort", []) if self.table else []
            return bool(self.table and self.table.get("abortable")) and self.seat not in asked
        return True

    def my_seat(self) -> dict[str, Any]:
        seats = self.table["seats"] if self.table else []
        seat = self.seat
        return dict(seats[seat]) if seat is not None and seat < len(seats) else {}

    def playing(self) -> bool:
        return bool(self.table and self.table.get("status") == "playing") and not self.ended

    def action_resign(self) -> None:
        """Resign, asked first: what it does depends on the table (``docs/protocol.md``)."""
        if not self.check_action("resign", ()):
            return

        def resign(yes: bool | None) -> None:
            if yes:
                self.run_worker(self.send({"type": "resign"}))

        question = resign_question(self.table or {}, self.names(), self.seat)
        self.app.push_screen(ConfirmDialog(question, _("Yes, resign"), _("No, play on")), resign)

    def action_abort(self) -> None:
        """Ask to abort the game (its first round only): it is aborted once everyone asks."""
        if self.check_action("abort", ()):
            self.run_worker(self.send({"type": "abort"}))
            self.app.notify(
                _("Asked to abort: the game is aborted once every person at the table asks."),
                timeout=10,
            )

    def stood_in(self) -> bool:
        """A stand-in plays this seat while its person is here (their time ran out, or they
        were away): ``back`` takes it back (a resignation cannot be taken back)."""
        return self.my_seat().get("absent") in ("time", "away") and not self.ended

    def action_back(self) -> None:
        if self.stood_in():
            self.run_worker(self.send({"type": "back"}))

    def action_score_sheet(self) -> None:
        game = self.finished
        if game is None or isinstance(self.app.screen, EndScreen):
            return
        session = Session(game, [HUMAN] * game.options.players, hints=False)
        again = others_at(self.table, self.seat)
        screen = EndScreen(session, self.labels(), self.seat, again=again)
        self.app.push_screen(screen, self.ended_with)

    def ended_with(self, choice: str | None) -> None:
        game = self.finished
        if choice == "new" and game is not None:
            self.post_message(NewGame(game.state.rules.name))
        elif choice == "replay" and game is not None:
            # Named as at the table (Anna, Bot 2 (medium)), as piepmatz replay names them.
            kinds = [str(s.get("kind", HUMAN)) for s in (self.table or {}).get("seats", [])]
            seats = kinds if len(kinds) == game.options.players else None
            self.post_message(ShowReplay(game, seats, self.names()))
        elif choice == "again":
            self.run_worker(self.play_again(), exclusive=True, group="again")
        elif choice == "quit":
            self.app.exit()

    async def play_again(self) -> None:
        """At the table these people play again at (opened now if nobody asked yet), at this
        seat: this screen gives way to that table's."""
        try:
            seating = await asyncio.to_thread(self.seating.server.rematch, self.seating)
        except OnlineError as exc:
            self.app.notify(str(exc), title=_("Refused"), severity="error")
            return
        self.post_message(PlayAgain(seating))

    # -------------------------------------------------------------- the keys

    def rules(self) -> Rules:
        return table_rules(self.view, self.table)

    def action_rules(self) -> None:
        rules = self.rules()
        guide = guide_markdown(current_language())
        self.app.push_screen(RulesScreen(rules.name, rules_markdown(rules), guide))

    def action_why(self) -> None:
        if self.events:
            self.app.push_screen(WhyScreen(self.events, self.rules(), self.names()))

    def action_codes(self) -> None:
        toggle_codes(self)
        self.draw_cards_again()

    def draw_cards_again(self) -> None:
        self.logged = 0
        self.query_one(RichLog).clear()
        self.redraw()
        self.ask()

    def on_screen_resume(self) -> None:
        if self.drawn_as is not None and self.drawn_as != self.cards:
            self.draw_cards_again()

    def action_log(self) -> None:
        self.toggle_class("show-log")
        self.call_after_refresh(self.draw_cards_again)

    def action_scroll_log(self, pages: int) -> None:
        log = self.query_one(RichLog)
        if pages < 0:
            log.scroll_page_up()
        else:
            log.scroll_page_down()

    async def action_quit(self) -> None:
        self.leave()

    def leave(self) -> None:
        def go(yes: bool | None) -> None:
            if yes:
                self.app.exit()

        if self.ended or not self.seated or (self.state is None and not self.seating.invites):
            go(True)
        else:
            self.app.push_screen(ConfirmDialog(_(LEAVE_ONLINE), _("Leave"), _("Stay")), go)


def invites_text(invites: Sequence[tuple[int, str]], spectate: str | None = None) -> str:
    """The invites of a table just opened, one a line, for the terminal's scrollback; then
    the link anyone may watch by."""
    lines = [_("Seat {number}").format(number=seat + 1) + ": " + link for seat, link in invites]
    return "\n".join(lines + ([watch_text(spectate)] if spectate else []))


def watch_text(link: str) -> str:
    """The spectators' link, said as what it is for."""
    return _("Anyone may watch (without seeing hands): {link}").format(link=link)
