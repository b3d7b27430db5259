"""``piepmatz play --text``: the game as plain lines on stdin/stdout.

For screen readers, scripts and pipes. Before each decision of a person the table is printed as
that seat sees it (birds in words, as a screen reader reads them out: ``Blackbird 5♂``; with
``--codes`` in the engine's codes, ``BL5m``), then a prompt; a line in the engine's notation
(``play BL5m 2``, ``draw deck``, card codes in any case) or the number of a move in the ``help``
list answers it. ``help`` lists the legal actions, numbered, with what each would do and its
notation; ``table`` prints the table again; ``hint`` asks the hard bot (unless the table has
hints off); ``quit`` (or the end of input) leaves. A malformed or illegal line gets an error on
stderr and the question again; the game is unchanged, and when the input is not a terminal (a
script) the exit status is 1 at the end, so that a script notices.
"""

from __future__ import annotations

import re
import sys
import time
from typing import TextIO

from piepmatz.bots.analysis import HINT_BOT, hint
from piepmatz.bots.base import BotMoveError
from piepmatz.core import BIRD_NAMES, Action
from piepmatz.core.errors import PiepmatzError
from piepmatz.i18n import _
from piepmatz.text.preview import preview
from piepmatz.text.words import bot_level, phase_words, reason, seat_name, tell

from .hints import hint_seed, hint_text
from .render import CODES, WORDS, action_text, score_sheet_text, status_text, table_text
from .session import SaveFileError, Session

#: Card codes in any case (``bl5m``) read as the engine writes them (``BL5m``).
_CARD_CODES = {name.lower(): name for name in BIRD_NAMES}


def normalise(line: str) -> str:
    """A typed action in the engine's notation: words in lower case, card codes as written."""
    return " ".join(_CARD_CODES.get(word.lower(), word.lower()) for word in line.split())


def help_heading(codes: bool) -> str:
    """The line above ``help``'s list."""
    if codes:
        return _("Legal actions (type one as shown, or its number):")
    return _("Legal actions (type a number, or the notation in brackets):")


def help_line(number: int, notation: str, headline: str, codes: bool) -> str:
    """A legal action in ``help``'s list: the move in words, what it would do and the notation
    to type; with ``codes`` the notation first, lined up, as a script reads it."""
    if codes:
        return f"{number:>3}. {notation:<20} {headline}".rstrip()
    said = action_text(Action.parse(notation), short=True)
    return f"{number:>3}. {said}{' — ' + headline if headline else ''} ({notation})"


class TextGame:
    def __init__(
        self,
        session: Session,
        out: TextIO,
        inp: TextIO,
        delay: float = 0.0,
        err: TextIO | None = None,
        codes: bool = False,
    ) -> None:
        self.session = session
        #: Birds in the engine's codes (``--codes``), else in words.
        self.codes = codes
        self.cards = CODES if codes else WORDS
        self.out = out
        self.inp = inp
        self.err = sys.stderr if err is None else err
        self.delay = delay
        #: A line was refused while a script (not a terminal) drove the game: exit status 1.
        self.refused = False
        # The seat whose view the log follows: the person who acted last (or seat 0).
        humans = session.humans
        self.viewer = humans[0] if humans else 0
        self.shown = 0
        self.hint_bot = HINT_BOT
        #: Where the game was last saved, and how many moves it had then.
        self.saved: tuple[str, int] | None = None

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def labels(self) -> list[str]:
        return [self.session.label(p) for p in range(len(self.session.seats))]

    def error(self, message: str) -> None:
        self.err.write(_("error: {message}").format(message=message) + "\n")
        self.err.flush()
        if not self.inp.isatty():
            self.refused = True

    def print_new_events(self) -> None:
        view = self.session.view(self.viewer)
        events = view.events or ()
        for event in events[self.shown :]:
            self.say(tell(event))
        self.shown = len(events)

    def print_table(self, player: int) -> None:
        view = self.session.view(player)
        game = self.session.game
        labels = self.labels()
        self.say("")
        self.say(status_text(view, labels, game.state.rules.name, game.options.seed).plain)
        self.say(table_text(view, labels, cards=self.cards).plain)

    def print_help(self, player: int) -> None:
        view = self.session.view(player)
        self.say(help_heading(self.codes))
        for n, action_id in enumerate(self.session.game.state.legal_action_ids(), 1):
            notation = str(Action.from_id(action_id))
            self.say(help_line(n, notation, preview(view, action_id).headline, self.codes))
        if self.session.hints:
            self.say(_("Other commands: help, table, hint, save FILE, save --replace FILE, quit"))
        else:  # no hints at this table: no command that only says so
            self.say(_("Other commands: help, table, save FILE, save --replace FILE, quit"))

    def print_hint(self, player: int) -> None:
        if not self.session.hints:
            self.say(_("Hints are turned off at this table."))
            return
        found = hint(self.session.view(player), hint_seed(self.session.game), self.hint_bot)
        self.say(
            _("Hint ({bot} bot): {hint}").format(
                bot=bot_level(found.bot), hint=hint_text(found, notation=self.codes)
            )
        )

    def run(self) -> int:
        session = self.session
        game = session.game
        self.say(
            _("Piepmatz · {rules} rules · seed {seed} · {players}").format(
                rules=game.state.rules.name,
                seed=game.options.seed,
                players=", ".join(self.labels()),
            )
        )
        while not session.state_over:
            player = session.to_act
            if not session.is_human(player):
                try:
                    session.bot_move()
                except BotMoveError as exc:
                    self.print_new_events()
                    self.say(_("error: {reason}; the game stops here.").format(reason=exc))
                    return 1
                self.print_new_events()
                if self.delay:
                    time.sleep(self.delay)
                continue
            self.viewer = player
            self.print_new_events()
            self.print_table(player)
            left = self.ask(player)
            if left is not None:
                self.say(left)
                return 1 if self.refused else 0
        self.print_new_events()
        self.say("")
        self.say(score_sheet_text(game.score(), self.labels()).plain)
        return 1 if self.refused else 0

    def save(self, args: str) -> None:
        replace = args.startswith("--replace")
        path = args.removeprefix("--replace").strip()
        if not path:
            self.error(_("name the file: save mygame.json"))
            return
        try:
            self.session.save(path, replace=replace)
        except SaveFileError as exc:
            if exc.exists:
                self.error(_("{reason} (save --replace FILE replaces it)").format(reason=exc))
            else:
                self.error(str(exc))
            return
        self.saved = (path, len(self.session.game.actions))
        self.say(
            _("Saved to {path}: go on with piepmatz play --text --resume {path}").format(path=path)
        )

    def left(self, unsaved: str) -> str:
        """The sentence to leave with: where the game is kept, if no move came since it was
        saved, else ``unsaved``."""
        if self.saved is not None and self.saved[1] == len(self.session.game.actions):
            return _("You left the game; it is saved in {path}.").format(path=self.saved[0])
        return unsaved

    def ask(self, player: int) -> str | None:
        """Read lines until one is a legal action for ``player`` (None); at the end of input or
        ``quit``, the sentence to leave with."""
        phase = phase_words(self.session.game.state.phase)
        while True:
            self.out.write(f"{seat_name(player)} ({phase})> ")
            self.out.flush()
            line = self.inp.readline()
            if not line:
                self.say("")
                return self.left(_("End of input: the game is left unfinished."))
            text = line.strip()
            if not text:
                continue
            word = text.split()[0].lower()
            if word == "help":
                self.print_help(player)
            elif word == "table":
                self.print_table(player)
            elif word == "hint":
                self.print_hint(player)
            elif word == "quit":
                return self.left(_("You left the game unfinished (save FILE first keeps it)."))
            elif word == "save":
                self.save(text[4:].strip())
            elif self.play(text, player):
                return None

    def play(self, text: str, player: int) -> bool:
        """Apply a typed action or the number of a listed one; an error says what was wrong."""
        legal = self.session.game.state.legal_action_ids()
        if re.fullmatch(r"[+-]?\d+", text):  # a number, even one no move has (0, -1)
            if not 1 <= int(text) <= len(legal):
                self.error(
                    _("there is no move {number}: choose 1-{last} (see 'help')").format(
                        number=text, last=len(legal)
                    )
                )
                return False
            action: int | str = legal[int(text) - 1]
        else:
            action = normalise(text)
        try:
            self.session.apply(action, player)
        except PiepmatzError as exc:
            # The action named as typed, not as read (lower-cased, its spaces made one).
            why = reason(exc).replace(repr(action), repr(text))
            if "action" in exc.params:
                told = _("{action}: {reason}. Type 'help' for the legal actions.")
            else:
                told = _("{reason}. Type 'help' for the legal actions.")
            self.error(told.format(action=text, reason=why))
            return False
        return True
