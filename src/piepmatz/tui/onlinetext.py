"""``piepmatz play --text`` at an online table: the seat's game as plain lines.

For screen readers, scripts and pipes, as the local ``--text`` game is (:mod:`.textmode`). The
server holds the game: every line of its log is printed as it comes, in the player's language
(the server's own sentences), with the chat; before each decision of the seat the table is
printed, then a prompt. A line answers it as locally: the engine's notation (``play BL5m 2``,
card codes in any case) or the number of a move in the ``help`` list, which shows the server's
preview of each. ``table`` prints the table again, ``hint`` asks the server's hint bot (where
the table allows hints), ``say TEXT`` speaks to the table, ``back`` takes the seat back from a
stand-in, ``resign`` (asked first) and ``abort`` (in the first round) as the buttons do,
``bot N`` gives a free seat at a waiting table to its stand-in (a friend who does not come),
``quit`` (or the end of input) leaves: the seat stays the player's; once the game is over,
at a terminal, ``again`` plays again with the same people. At a terminal a line is
read whenever it is typed (``say`` while others play); from a script or a pipe only at a
prompt, so its lines answer the decisions in turn. A refused line is told on stderr and asked
again; when the input is not a terminal the exit status is then 1 at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any, TextIO

from websockets.exceptions import WebSocketException

from piepmatz.core import Action, Game, PlayerView
from piepmatz.core.errors import PiepmatzError
from piepmatz.core.events import Event
from piepmatz.core.viewjson import events_from_json, view_from_json
from piepmatz.i18n import _, current_language, ngettext
from piepmatz.server.client import SeatClient
from piepmatz.text.words import phase_words, rules_words

from .online import (
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
    join_command,
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
from .plainlines import rules_lines
from .render import CODES, WORDS, action_text, score_sheet_text, status_text, table_text
from .textmode import asked_part, help_heading, help_line, listed_or_typed


class OnlineText:
    """One seat's game at an online table, as lines on ``out``, answered from ``inp``."""

    def __init__(
        self, seating: Seating, out: TextIO, inp: TextIO, err: TextIO, codes: bool = False
    ) -> None:
        self.seating = seating
        #: Birds in the engine's codes (``--codes``), else in words.
        self.codes = codes
        self.out, self.inp, self.err = out, inp, err
        self.client: SeatClient | None = None
        self.table: dict[str, Any] | None = None
        self.state: dict[str, Any] | None = None
        self.view: PlayerView | None = None
        #: The log's entries so far, as the view is read with them.
        self.events: list[Event] = []
        #: Log entries printed, and the decision last asked (its move number).
        self.printed = 0
        #: The log's sentences so far, as the server told them (``log`` prints them again).
        self.told: list[str] = []
        self.asked: int | None = None
        #: The server's previews of the decision at the current move, once asked for.
        self.previews: dict[str, str] = {}
        self.refused = False
        self.greeted = False
        #: The move whose table was printed last.
        self.shown: int | None = None
        #: The turn the whole table was last printed at (later decisions show their part).
        self.tabled: int | None = None
        #: ``help`` asked the server for the previews, or ``hint`` for a hint: the prompt waits
        #: for the answer (else it would come after the next prompt, on its line).
        self.asking = False
        #: Log and chat lines that came before the table's message: printed after its greeting.
        self.backlog: list[str] = []
        #: ``resign`` asked whether to: the next line's ``yes`` resigns, anything else plays on.
        self.resigning = False
        #: At a terminal a line may come while a prompt waits: it starts on a line of its own
        #: and the prompt is asked again after it (``prompt_lost``).
        self.anytime = inp.isatty()
        self.prompt_open = False
        self.prompt_lost = False
        #: The people a table waits for, as last told.
        self.waiting_for = 0
        #: The game is over and a person at a terminal may still play again (``again``) with
        #: the others; the seat at the new table, once asked.
        self.over = False
        self.again: Seating | None = None

    # ------------------------------------------------------------------ output

    def say(self, text: str = "") -> None:
        if self.prompt_open:  # not after the prompt, on its line: the prompt comes again
            self.out.write("\n")
            self.prompt_open, self.prompt_lost = False, True
        self.out.write(text + "\n")
        self.out.flush()

    def error(self, message: str) -> None:
        self.err.write(_("error: {message}").format(message=message) + "\n")
        self.err.flush()
        if not self.inp.isatty():
            self.refused = True

    def names(self) -> list[str]:
        return seat_names(self.table)

    def labels(self) -> list[str]:
        return seat_labels(self.table, self.names(), self.seating.seat)

    def print_table(self, asked: bool = False) -> None:
        """The status line and the whole table; ``asked``: a later decision of a turn whose
        table was printed, so only the part it is about (the text game's way)."""
        if self.view is None or self.table is None:
            return
        labels = self.labels()
        cards = CODES if self.codes else WORDS
        self.say("")
        self.say(status_text(self.view, labels, str(self.table["rules"]), None).plain)
        left = move_time_left((self.state or {}).get("clock"), self.seating.seat)
        if left is not None:
            self.say(_("Time left for your move: {time}.").format(time=left))
        if not asked:
            self.say(table_text(self.view, labels, cards=cards).plain)
        elif (part := asked_part(self.view, cards, labels[self.view.player])) is not None:
            self.say(part)

    def print_backlog(self) -> None:
        for line in self.backlog:
            self.say(line)
        self.backlog = []

    def tell(self, *lines: str) -> None:
        """Log and chat lines: printed at once, or after the greeting while this connection
        says hello (they can come before the table's message)."""
        self.backlog += lines
        if self.greeted:
            self.print_backlog()

    def stood_in(self) -> bool:
        """A stand-in plays this seat while its person is here: ``back`` takes it back."""
        seats = self.table["seats"] if self.table else []
        seat = self.seating.seat
        mine = seats[seat] if seat is not None and seat < len(seats) else {}
        return mine.get("absent") in ("time", "away")

    def legal(self) -> list[str]:
        return list(self.state.get("legal") or []) if self.state else []

    def print_help(self) -> None:
        self.say(help_heading(self.codes))
        for n, action in enumerate(self.legal(), 1):
            self.say(help_line(n, action, self.previews.get(action, ""), self.codes))
        if self.table and self.table.get("hints"):
            self.say(
                _(
                    "Other commands: help, table, log, rules, hint, say TEXT, back, resign, "
                    "abort, quit"
                )
            )
        else:  # no hints at this table: no command that only says so
            self.say(
                _("Other commands: help, table, log, rules, say TEXT, back, resign, abort, quit")
            )
        self.offer_bots()

    def offer_bots(self) -> None:
        """At a waiting table, each free seat's ``bot N`` line."""
        for free in seats_for_a_bot(self.table, self.seating.seat):
            self.say(f"bot {free + 1}: {bot_for_a_seat(self.table, free)}")

    # ------------------------------------------------------------------ messages

    def take(self, message: dict[str, Any]) -> int | None:
        """One message from the server; the exit status once the game is over for this seat."""
        kind = message.get("type")
        if kind == "table":
            asking = abort_asked(self.table, message, self.seating.seat)
            came = self.sat_down(message)
            offered = offered_again(self.table, message, self.seating.seat)
            self.table = message
            if offered:
                self.tell(_("{name} wants to play again: type again to join.").format(name=offered))
            if asking:
                self.tell(
                    _(
                        "{names} asked to abort the game: type abort to agree. It is aborted "
                        "once every person at the table asks."
                    ).format(names=", ".join(self.names()[p] for p in asking))
                )
            if not self.greeted:
                self.greeted = True
                self.say(
                    _("Piepmatz at {server} · {rules} · {players}").format(
                        server=self.seating.server.url,
                        rules=rules_words(str(message.get("rules"))),
                        players=", ".join(self.labels()),
                    )
                )
                if message.get("pace"):
                    self.say(pace_words(message["pace"]))
                self.print_backlog()
            for name in came:
                self.tell(_("{name} sat down.").format(name=name))
            self.tell_waiting(message)
            if self.state is None and message.get("ending"):  # aborted before the deal
                self.say(_("The game was aborted: nobody wins."))
                return 0
        elif kind == "state":
            return self.take_state(message)
        elif kind == "chat":
            self.tell(f"{message.get('name')}: {message.get('text')}")
        elif kind == "preview" and self.state is not None:
            if message.get("move") == self.state["move"]:
                found = message.get("previews", [])
                self.previews = {str(p["action"]): str(p["headline"]) for p in found}
                if self.asking:
                    self.asking = False
                    self.print_help()
        elif kind == "hint":
            action = str(message["action"])
            said = action if self.codes else action_text(Action.parse(action))
            self.say(hint_line(message, said))
            self.asking = False
        elif kind == "error":
            self.error(str(message.get("message", "")))
            if message.get("code") in SEAT_REFUSED:
                return 2
            # A refused action or preview: the decision is asked again, the list not awaited.
            self.asked, self.asking = None, False
        elif kind == "stand_in" and message.get("seat") == self.seating.seat:
            self.say(_("A stand-in bot plays for you now: type back to take your seat back."))
        elif kind == "returned" and message.get("seat") == self.seating.seat:
            self.say(back_text(message, self.table))
        elif kind in ("stand_in", "returned"):  # another person's seat
            self.tell(absence_text(message, self.names()))
        elif kind == "bot_replaced":
            self.tell(bot_replaced_text(message, self.names()))
        return None

    def take_or_tell(self, message: dict[str, Any]) -> int | None:
        """:meth:`take`; a message this terminal cannot read is told, and the game goes on."""
        try:
            return self.take(message)
        except (PiepmatzError, LookupError, TypeError, ValueError) as exc:
            # The server's fault, not the script's: told, with no effect on the exit status.
            said = _("The server sent a message this terminal cannot read: {reason}")
            self.err.write(_("error: {message}").format(message=said.format(reason=exc)) + "\n")
            self.err.flush()
            return None

    def take_state(self, message: dict[str, Any]) -> int | None:
        start = int(message["events_from"])
        log = [str(line) for line in message.get("log", [])]
        self.events = self.events[:start] + events_from_json(message["events"])
        self.told = self.told[:start] + log
        self.view = view_from_json(message["view"], self.events)
        if message["move"] != (self.state or {}).get("move"):
            self.previews, self.asking = {}, False
        self.state = message
        # After a reconnect the log may start earlier: what was printed is not printed again.
        self.tell(*log[max(0, self.printed - start) :])
        self.printed = max(self.printed, start + len(log))
        if message.get("result") is not None:
            self.print_sheet()
            return 0
        if message.get("ending"):
            self.say(ending_text(message["ending"], self.names()))
            if message["ending"].get("how") == "resigned" and message["move"]:
                self.say_replay()  # the moves up to the resignation (an abort: as if unplayed)
            return 0
        return None

    def sat_down(self, table: dict[str, Any]) -> list[str]:
        """The names of the people who sat down since the table's last message (not this
        terminal's own)."""
        before = (self.table or {}).get("seats") or []
        came = []
        for seat in table.get("seats") or []:
            p, name = seat.get("seat"), seat.get("name")
            earlier = before[p] if isinstance(p, int) and p < len(before) else {}
            if name and not earlier.get("name") and p != self.seating.seat and before:
                came.append(str(name))
        return came

    def tell_waiting(self, table: dict[str, Any]) -> None:
        """While the table waits for people: how many, told again when it changes."""
        free = 0
        if table.get("status") == "waiting":
            seats = table.get("seats") or []
            free = sum(1 for s in seats if s.get("kind") == "human" and not s.get("name"))
        if free and free != self.waiting_for:
            self.tell(
                ngettext(
                    "Waiting for {count} more person to sit down: the game starts then.",
                    "Waiting for {count} more people to sit down: the game starts then.",
                    free,
                ).format(count=free)
            )
            self.offer_bots()
        self.waiting_for = free

    def print_sheet(self) -> None:
        """The finished game's score sheet, replayed from its record; this seat's score told
        by its cards; the command that replays the game."""
        try:
            record = self.seating.server.request(f"tables/{self.seating.table}/record")
            game = Game.from_record(record)
        except (OnlineError, PiepmatzError) as exc:
            self.error(str(exc))
            for line in (self.state or {}).get("explained") or []:
                self.say(" · ".join(str(x) for x in line))
            return
        self.say("")
        self.say(score_sheet_text(game.score(), self.labels()).plain)
        seat = self.seating.seat
        explained = (self.state or {}).get("explained") or []
        if seat is not None and seat < len(explained):
            self.say("")
            self.say(_("Your score, by its cards:"))
            for line in explained[seat]:
                self.say("  " + str(line))
        self.say("")
        self.say_replay()

    def say_replay(self) -> None:
        """The command that replays this table's game."""
        self.say(
            _("To replay this game: {command}").format(
                command=f"piepmatz replay {self.seating.server.url}/replay/{self.seating.table}"
            )
        )

    # ------------------------------------------------------------------ lines

    async def answer(self, line: str) -> str | None:
        """A line typed at the prompt; the sentence to leave with, for ``quit``."""
        text = line.strip()
        word = text.split()[0].lower() if text else ""
        state = self.state
        if not text:
            return None
        if self.over:
            return await self.after_the_game(word)
        if self.resigning:
            self.resigning = False
            if word in ("yes", _("yes").lower()) and self.playing():
                await self.send({"type": "resign"})
                return None
            if word not in ("resign", "quit"):
                self.say(_("You play on."))
                return None
        if word == "quit":
            return _("You left the table: your seat stays yours; {command} takes you back.").format(
                command=join_command(self.seating)
            )
        if word == "help":
            if self.previews or not self.legal():
                self.print_help()
            elif state is not None:
                self.asking = True  # the prompt waits for the list
                await self.send({"type": "preview", "move": state["move"]})
        elif word == "table":
            self.print_table()
        elif word == "log":
            self.tell(*self.told)
        elif word == "rules":
            for line in rules_lines(table_rules(self.view, self.table)):
                self.say(line)
        elif word == "say":
            said = text[3:].strip()
            if len(said) > CHAT_LENGTH:
                self.error(
                    _("a chat line has at most {most} characters, not {count}").format(
                        most=CHAT_LENGTH, count=len(said)
                    )
                )
            elif said:
                await self.send({"type": "chat", "text": said})
        elif word == "hint" and state is not None:
            if not (self.table and self.table.get("hints")):
                self.say(_("Hints are turned off at this table."))
            else:
                self.asking = True  # the prompt waits for the hint
                await self.send({"type": "hint", "move": state["move"]})
        elif word == "resign" and not self.playing():
            self.error(_("There is no game of yours going on to resign."))
        elif word == "resign":
            self.resigning = True
            question = resign_question(self.table or {}, self.names(), self.seating.seat)
            self.say(question + " " + _("Type yes to resign; anything else plays on."))
        elif word == "abort":
            await self.ask_abort()
        elif word == "bot":
            await self.seat_bot(text.split()[1:])
        elif word == "back" and not self.stood_in():
            self.say(_("Nobody plays for you: your seat is yours."))
        elif word == "back":
            await self.send({"type": "back"})  # the server's answer says you are back
        elif state is not None and self.legal():
            await self.act(text, state)
        else:
            self.error(_("There is no decision of yours to answer now."))
        return None

    async def after_the_game(self, word: str) -> str | None:
        """A line once the game is over: ``again`` sits down at the table where these people
        play again (opened now if nobody asked yet), ``quit`` leaves."""
        if word == "quit":
            return _("You left the table.")
        if word != "again":
            self.error(_("The game is over: type again to play again, or quit."))
            return None
        try:
            self.again = await asyncio.to_thread(self.seating.server.rematch, self.seating)
        except OnlineError as exc:
            self.error(str(exc))
            return None
        return _("To the new table: the game starts once everyone is there.")

    def playing(self) -> bool:
        """This seat's person still plays a game going on (not resigned, not over)."""
        table, state, seat = self.table or {}, self.state or {}, self.seating.seat
        seats = table.get("seats") or []
        mine = seats[seat] if seat is not None and seat < len(seats) else {}
        over = state.get("result") is not None or bool(state.get("ending"))
        going = table.get("status") == "playing" and not over
        return seat is not None and going and mine.get("absent") != "resigned"

    async def seat_bot(self, words: list[str]) -> None:
        """``bot N``: the free seat N goes to the table's stand-in (``bot`` alone: the one free
        seat), or why it cannot."""
        free = seats_for_a_bot(self.table, self.seating.seat)
        if not free:
            self.error(_("No seat here waits for a person a bot could replace."))
            return
        if not words and len(free) == 1:
            words = [str(free[0] + 1)]
        number = words[0] if len(words) == 1 else ""
        if not (number.isascii() and number.isdigit()) or int(number) - 1 not in free:
            seats = ", ".join(str(p + 1) for p in free)
            self.error(_("Type bot and a free seat's number: {seats}.").format(seats=seats))
            return
        await self.send(
            {"type": "seat_bot", "seat": int(number) - 1, "bot": stand_in_of(self.table)}
        )

    async def ask_abort(self) -> None:
        """``abort``: asked, or told why it cannot be (past the first round, asked already)."""
        table = self.table or {}
        if self.seating.seat is None or not self.playing():
            self.error(_("There is no game of yours going on to abort."))
        elif not table.get("abortable"):
            self.error(_("A game can be aborted in its first round only."))
        elif self.seating.seat in (table.get("abort") or []):
            self.say(_("You asked already: the game is aborted once every person asks."))
        else:
            await self.send({"type": "abort"})
            self.say(_("Asked to abort: the game is aborted once every person at the table asks."))

    async def act(self, text: str, state: dict[str, Any]) -> None:
        try:  # notation: the server says what is wrong with it, if anything
            action = listed_or_typed(text, self.legal())
        except ValueError as exc:
            self.error(str(exc))
            return
        self.asked = state["move"]
        await self.send({"type": "action", "move": state["move"], "action": action})

    def connected(self, up: bool) -> None:
        """The connection broke, or is open again: both are said (a terminal gone silent looks
        hung). An answer sent as it broke is lost (the state after the reconnect still asks),
        so the decision is asked again."""
        if up:
            self.asked = None
            self.say(_("Connected again."))
        else:
            self.say(_("The connection to the server broke: reconnecting…"))

    async def send(self, message: dict[str, Any]) -> None:
        if self.client is not None:
            await self.client.send(message)

    def prompt(self) -> None:
        assert self.view is not None
        seat = self.seating.seat
        me = self.names()[seat] if seat is not None else "?"
        what = phase_words(self.view.phase) if self.legal() else _("a stand-in plays")
        self.out.write(f"{me} ({what})> ")
        self.out.flush()
        self.prompt_open = self.anytime

    # ------------------------------------------------------------------ the loop

    async def play(self, lines: _Lines | None = None) -> int:
        url = self.seating.server.ws_url(self.seating.table, current_language())
        try:
            async with SeatClient.connect(
                url, self.seating.token, keep=False, reconnect=True, gap=SEND_GAP
            ) as client:
                self.client = client
                client.on_connection = self.connected
                return await self.follow(client, lines or _Lines(self.inp))
        except (OSError, ValueError, WebSocketException) as exc:
            self.error(str(exc))
            return 2

    async def games(self) -> int:
        """This table's game, then each one its people play again (``again``), one input
        read by all of them."""
        lines, game = _Lines(self.inp), self
        while True:
            status = await game.play(lines)
            if game.again is None:
                return status
            game = OnlineText(game.again, self.out, self.inp, self.err, self.codes)

    async def follow(self, client: SeatClient, lines: _Lines) -> int:
        """Take the server's messages and, at the seat's prompts, the input's lines, until the
        game is over for this seat or the player leaves; the exit status."""
        receiving = asyncio.ensure_future(client.receive())
        reading: asyncio.Future[str] | None = None
        # A person at a terminal may type at any time (say, quit, abort while others play);
        # a script's lines are read at the seat's prompts only, so they answer them in turn.
        anytime = self.anytime
        prompted: tuple[object, ...] | None = None
        try:
            while True:
                state = self.state
                deciding = state is not None and bool(self.legal()) and self.asked != state["move"]
                # The table's message (names, rules) comes after the first state.
                ready = self.table is not None and not self.asking
                asked = ready and (deciding or self.stood_in())
                now = (state["move"] if state and deciding else None, self.stood_in())
                if asked and (reading is None if not anytime else prompted != now):
                    assert state is not None
                    if deciding and self.shown != state["move"]:
                        self.shown = state["move"]
                        turn = self.view.turn if self.view is not None else None
                        self.print_table(asked=turn == self.tabled)
                        self.tabled = turn
                    self.prompt()
                    prompted = now
                if reading is None and (asked or anytime):
                    reading = asyncio.ensure_future(lines.next())
                waiting = {receiving} | ({reading} if reading else set())
                done, _pending = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                if receiving in done:
                    status = self.take_or_tell(receiving.result())
                    mine = self.seating.seat
                    if status == 0 and anytime and not self.over and others_at(self.table, mine):
                        # At a terminal the people may play again: asked, not left at once.
                        self.over, status = True, None
                        self.say(_("Type again to play again with the same people, or quit."))
                    if status is not None:
                        return status if status else (1 if self.refused else 0)
                    receiving = asyncio.ensure_future(client.receive())
                    if self.prompt_lost:  # a line came after the prompt: asked again below
                        self.prompt_lost, prompted = False, None
                if reading is not None and reading in done:
                    line, reading, prompted = reading.result(), None, None
                    self.prompt_open = False  # Enter ended the prompt's line
                    if not line and self.over:
                        return 1 if self.refused else 0
                    if not line:
                        self.say("")
                        said = _("End of input: you left the table; {command} takes you back.")
                        self.say(said.format(command=join_command(self.seating)))
                        return 1 if self.refused else 0
                    left = await self.answer(line)
                    if left is not None:
                        self.say(left)
                        return 1 if self.refused else 0
        finally:
            # Nothing may still read the connection as it closes.
            for task in (receiving, reading):
                if task is not None and not task.done():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task

    def run(self) -> int:
        return asyncio.run(self.games())


class _Lines:
    """Lines of the input, each read only when asked for (a script's lines answer the prompts
    in turn), in a thread of their own that never holds the process open at its end."""

    def __init__(self, inp: TextIO) -> None:
        self.inp = inp
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[str] = asyncio.Queue()
        self.wanted = threading.Event()
        threading.Thread(target=self._read, name="input", daemon=True).start()

    def _read(self) -> None:
        while True:
            self.wanted.wait()
            self.wanted.clear()
            line = self.inp.readline()
            self.loop.call_soon_threadsafe(self.queue.put_nowait, line)
            if not line:
                return

    async def next(self) -> str:
        self.wanted.set()
        return await self.queue.get()
