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
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO, TypeVar

from piepmatz.bots.analysis import HINT_BOT, hint
from piepmatz.bots.base import BotMoveError
from piepmatz.core import BIRD_NAMES, Action
from piepmatz.core.actions import ActionKind
from piepmatz.core.errors import PiepmatzError
from piepmatz.core.state import COLLECT, DRAW, LAST_HAND
from piepmatz.core.view import PlayerView
from piepmatz.i18n import _
from piepmatz.text.preview import preview
from piepmatz.text.scoresheet import explain
from piepmatz.text.words import (
    bot_level,
    phase_words,
    reason,
    rules_words,
    short_label,
    tell,
)

from .hints import hint_seed, hint_text
from .plainlines import rules_lines
from .render import (
    CODES,
    WORDS,
    Cards,
    action_text,
    display_text,
    hand_text,
    score_sheet_text,
    status_text,
    table_text,
)
from .session import SaveFileError, Session

T = TypeVar("T")

#: Card codes in any case (``bl5m``) read as the engine writes them (``BL5m``).
_CARD_CODES = {name.lower(): name for name in BIRD_NAMES}
#: The first words of the engine's notation (``play``, ``draw``, …): any other word that is no
#: command is told as unknown, not as a move the engine cannot read.
_VERBS = frozenset(kind.value.split()[0] for kind in ActionKind)


def resume_command(path: object, plugins: Sequence[str] = ()) -> str:
    """The command that goes on with the game kept in ``path``, with the plugins this game was
    played with (a save names its bots, never the code that plays them)."""
    given = "".join(f" --plugin {shlex.quote(ref)}" for ref in plugins)
    return f"piepmatz play --text{given} --resume {path}"


def listed_or_typed(text: str, legal: Sequence[T]) -> T | str:
    """The move a line names: the number of a move in ``help``'s list (its entry of ``legal``),
    else the line as notation (:func:`normalise`); ``ValueError`` saying which numbers there
    are for a number no move has (0, -1, one past the list)."""
    if not re.fullmatch(r"[+-]?\d+", text):
        return normalise(text)
    if not 1 <= int(text) <= len(legal):
        raise ValueError(
            _("there is no move {number}: choose 1-{last} (see 'help')").format(
                number=text, last=len(legal)
            )
        )
    return legal[int(text) - 1]


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


def asked_part(view: PlayerView, cards: Cards, label: str) -> str | None:
    """The part of the table a later decision of a turn is about: the display to draw from
    (and the hand it fills), the hand to add a bird or keep two from (None: the status line
    says it all)."""
    if view.phase == DRAW:  # what to draw from, and the hand it joins
        hand = hand_text(view, cards, short_label(label)).plain
        return f"{display_text(view, cards).plain}\n{hand}"
    if view.phase in (COLLECT, LAST_HAND):
        return hand_text(view, cards, short_label(label)).plain
    return None


class TextGame:
    def __init__(
        self,
        session: Session,
        out: TextIO,
        inp: TextIO,
        delay: float = 0.0,
        err: TextIO | None = None,
        codes: bool = False,
        keep: Path | None = None,
        plugins: Sequence[str] = (),
    ) -> None:
        self.session = session
        #: The plugins given (``--plugin``), which the command going on with the game needs.
        self.plugins = tuple(plugins)
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
        #: Whether the game was resumed: its log is told from the current turn on (``log``
        #: tells it all), not a whole game's lines again before its table.
        self.resumed = bool(session.game.actions)
        self.shown = self.turn_start(self.viewer) if self.resumed else 0
        self.hint_bot = HINT_BOT
        #: Where the game was last saved, and how many moves it had then.
        self.saved: tuple[str, int] | None = None
        #: The autosave: the game is kept there after every move until it is over (None: only
        #: what the player saves), and once over among the saves (:meth:`keep_record`).
        self.keep = keep
        #: Whether a finished game is kept among the saves (so too when the autosave fails).
        self.records = keep is not None
        #: Whether this game was kept in the autosave: moves were made since it started.
        self.kept = False
        #: Whether the line saying how to answer was printed (before the first prompt).
        self.told_how = False
        #: The turn and seat the table was last printed whole for.
        self.tabled: tuple[int, int] | None = None

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

    def turn_start(self, player: int) -> int:
        """Where the current turn's events start in ``player``'s log (its ``Turn N`` line)."""
        events = self.session.view(player).events or ()
        starts = [i for i, e in enumerate(events) if e.kind == "turn"]
        return starts[-1] if starts else 0

    def print_new_events(self) -> None:
        view = self.session.view(self.viewer)
        events = view.events or ()
        for event in events[self.shown :]:
            self.say(tell(event, self.session.called))
        self.shown = len(events)

    def print_log(self, player: int) -> None:
        """The whole log so far, as ``player`` may read it."""
        for event in self.session.view(player).events or ():
            self.say(tell(event, self.session.called))

    def print_rules(self) -> None:
        """The player's guide and the rules in play, as the rules screen shows them."""
        for line in rules_lines(self.session.game.state.rules):
            self.say(line)

    def told_seed(self) -> int | None:
        """The deal's seed as the status line tells it."""
        return self.session.game.options.seed

    def print_status(self, player: int, asked: bool = False) -> None:
        """The line that says the turn and what ``player`` is asked; ``asked``: and the part
        of the table the question is about (the display to draw from, the hand to add from)."""
        game = self.session.game
        view = self.session.view(player)
        self.say("")
        self.say(status_text(view, self.labels(), game.state.rules.name, self.told_seed()).plain)
        part = asked_part(view, self.cards, self.labels()[player]) if asked else None
        if part is not None:
            self.say(part)

    def print_table(self, player: int) -> None:
        self.print_status(player)
        self.say(table_text(self.session.view(player), self.labels(), cards=self.cards).plain)

    def headline(self, view: PlayerView, action_id: int) -> str:
        return preview(view, action_id, names=self.session.called).headline

    def print_help(self, player: int) -> None:
        view = self.session.view(player)
        self.say(help_heading(self.codes))
        for n, action_id in enumerate(self.session.game.state.legal_action_ids(), 1):
            notation = str(Action.from_id(action_id))
            self.say(help_line(n, notation, self.headline(view, action_id), self.codes))
        if self.session.hints:
            self.say(
                _(
                    "Other commands: help, table, log, rules, hint, save FILE, "
                    "save --replace FILE, quit"
                )
            )
        else:  # no hints at this table: no command that only says so
            self.say(
                _("Other commands: help, table, log, rules, save FILE, save --replace FILE, quit")
            )

    def print_hint(self, player: int) -> None:
        if not self.session.hints:
            self.say(_("Hints are turned off at this table."))
            return
        view = self.session.view(player)
        found = hint(view, hint_seed(self.session.game), self.hint_bot)
        # The move as help lists it, with its number: typed as it is, or by the number.
        chosen = found.estimate.action
        number = self.session.game.state.legal_action_ids().index(chosen) + 1
        notation = str(Action.from_id(chosen))
        said = help_line(number, notation, self.headline(view, chosen), self.codes).strip()
        self.say(
            _("Hint ({bot} bot): {hint}").format(
                bot=bot_level(found.bot), hint=hint_text(found, said=said)
            )
        )

    def print_explained(self) -> None:
        """Each number of every score told by the cards that make it, as the end screen's
        *Explain* tells it."""
        state = self.session.game.state
        sheet = self.session.game.score()
        piles = [state.seed_pile(q) for q in range(state.num_players)]
        for p, label in enumerate(self.labels()):
            self.say("")
            self.say(label)
            for line in explain(sheet, state.rules, state.collections, piles, p):
                self.say("  " + line)

    def run(self) -> int:
        """Play the game out; the exit status (130 when left with Ctrl+C, as the online text
        mode leaves)."""
        try:
            return self.play_out()
        except KeyboardInterrupt:  # Ctrl+C: left in one line, as with quit, not a traceback
            self.say("")
            self.say(self.left(_("You left the game unfinished (save FILE first keeps it).")))
            return 130

    def play_out(self) -> int:
        session = self.session
        game = session.game
        self.say(
            _("Piepmatz · {rules} · seed {seed} · {players}").format(
                rules=rules_words(game.state.rules.name),
                seed=game.options.seed,
                players=", ".join(self.labels()),
            )
        )
        if self.resumed:
            turn = session.view(self.viewer).turn
            self.say(_("Resumed at turn {turn} (log prints the game so far).").format(turn=turn))
        while not session.state_over:
            player = session.to_act
            if not session.is_human(player):
                try:
                    session.bot_move()
                except BotMoveError as exc:
                    self.print_new_events()
                    self.say(_("error: {reason}; the game stops here.").format(reason=exc))
                    return 1
                self.keep_game()
                self.print_new_events()
                if self.delay:
                    time.sleep(self.delay)
                continue
            left = self.turn(player)
            if left is not None:
                self.say(left)
                return 1 if self.refused else 0
            self.keep_game()
        self.print_new_events()
        self.say("")
        self.say(score_sheet_text(game.score(), self.labels()).plain)
        self.print_explained()
        self.keep_record()
        return 1 if self.refused else 0

    def turn(self, player: int) -> str | None:
        """A person's decision: the log since the last one, the table, the prompt; the
        sentence to leave with if they leave. The table is printed whole at a turn's first
        decision; a later one in the same turn (add a bird, draw) prints the line that says
        what it asks, as the log told the move before it (``table`` prints it all): a screen
        reader reads a dozen lines less."""
        self.viewer = player
        self.print_new_events()
        turn = (self.session.view(player).turn, player)
        if turn == self.tabled:
            self.print_status(player, asked=True)
        else:
            self.print_table(player)
            self.tabled = turn
        return self.ask(player)

    def keep_game(self) -> bool:
        """Keep the game in the autosave after a move, as the full-screen game does (forgotten
        once it is over): Ctrl+C or a closed terminal loses nothing. Whether it is kept."""
        if self.keep is None:
            return False
        try:
            self.session.keep_in(self.keep)
        except (OSError, SaveFileError) as exc:
            self.keep = None  # told once; the game goes on without it
            self.err.write(_("The game cannot be kept: {reason}").format(reason=exc) + "\n")
            return False
        self.kept = not self.session.state_over
        return self.kept

    def keep_record(self) -> None:
        """Keep the finished game among the saves, where the end screen offers to save it, and
        say which commands replay and review it."""
        if not self.records:
            return
        try:
            path = self.session.keep_finished()
        except (OSError, SaveFileError) as exc:
            self.err.write(_("The game cannot be kept: {reason}").format(reason=exc) + "\n")
            return
        self.say("")
        humans = self.session.humans
        if humans:  # the review grades the first person's decisions, as the end screen's does
            self.say(
                _(
                    "The game is kept in {path}: piepmatz replay {path} replays it, "
                    "piepmatz review --player {player} {path} reviews your decisions."
                ).format(path=path, player=humans[0] + 1)
            )
        else:
            self.say(
                _("The game is kept in {path}: piepmatz replay {path} replays it.").format(
                    path=path
                )
            )

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
            _("Saved to {path}: go on with {command}").format(
                path=path, command=resume_command(path, self.plugins)
            )
        )

    def left(self, unsaved: str) -> str:
        """The sentence to leave with: where the game is kept (saved with no move since, else
        in the autosave, once a move was made), else ``unsaved``."""
        if self.saved is not None and self.saved[1] == len(self.session.game.actions):
            return _("You left the game; it is saved in {path}.").format(path=self.saved[0])
        # Kept again: Ctrl+C may have come between a move and its keeping.
        if self.kept and self.keep_game():
            return _("You left the game; it is kept in {path}: {command} goes on with it.").format(
                path=self.keep, command=resume_command(self.keep, self.plugins)
            )
        return unsaved

    def ask(self, player: int) -> str | None:
        """Read lines until one is a legal action for ``player`` (None); at the end of input or
        ``quit``, the sentence to leave with."""
        phase = phase_words(self.session.game.state.phase)
        if not self.told_how:
            self.told_how = True
            self.say(
                _(
                    "Type a move's number or its notation; help lists the moves, "
                    "rules explains the game."
                )
            )
        while True:
            self.out.write(f"{self.session.name(player)} ({phase})> ")
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
            elif word == "log":
                self.print_log(player)
            elif word == "rules":
                self.print_rules()
            elif word == "hint":
                self.print_hint(player)
            elif word == "quit":
                return self.left(_("You left the game unfinished (save FILE first keeps it)."))
            elif word == "save":
                self.save(text[4:].strip())
            elif word not in _VERBS and not re.fullmatch(r"[+-]?\d+", text):
                self.error(
                    _(
                        "'{word}' is not a move or a command: type a move's number or its "
                        "notation ('help' lists them)"
                    ).format(word=text.split()[0])
                )
            elif self.play(text, player):
                return None

    def play(self, text: str, player: int) -> bool:
        """Apply a typed action or the number of a listed one; an error says what was wrong."""
        try:
            action = listed_or_typed(text, self.session.game.state.legal_action_ids())
        except ValueError as exc:
            self.error(str(exc))
            return False
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
