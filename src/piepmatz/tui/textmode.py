"""``piepmatz play --text``: the game as plain lines on stdin/stdout.

For screen readers, scripts and pipes. Before each decision of a person the table is printed as
that seat sees it, then a prompt; a line in the engine's notation (``play BL5m 2``, ``draw deck``)
answers it. ``help`` lists the legal actions with what each would do, ``table`` prints the table
again, ``quit`` (or the end of input) leaves. A malformed or illegal line gets an error and the
question again; the game is unchanged.
"""

from __future__ import annotations

import time
from typing import TextIO

from piepmatz.bots.base import BotMoveError
from piepmatz.core import Action, Game, describe_event
from piepmatz.core.errors import PiepmatzError
from piepmatz.core.state import PHASE_NAMES

from .preview import preview
from .render import score_sheet_text, status_text, table_text
from .session import SaveFileError, Session, seat_label


class TextGame:
    def __init__(self, session: Session, out: TextIO, inp: TextIO, delay: float = 0.0) -> None:
        self.session = session
        self.out = out
        self.inp = inp
        self.delay = delay
        # The seat whose view the log follows: the person who acted last (or seat 0).
        humans = session.humans
        self.viewer = humans[0] if humans else 0
        self.shown = 0

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def labels(self) -> list[str]:
        return [self.session.label(p) for p in range(len(self.session.seats))]

    def print_new_events(self) -> None:
        view = self.session.view(self.viewer)
        events = view.events or ()
        for event in events[self.shown :]:
            self.say(describe_event(event))
        self.shown = len(events)

    def print_table(self, player: int) -> None:
        view = self.session.view(player)
        game = self.session.game
        labels = self.labels()
        self.say("")
        self.say(status_text(view, labels, game.state.rules.name, game.options.seed).plain)
        self.say(table_text(view, labels).plain)

    def print_help(self, player: int) -> None:
        view = self.session.view(player)
        self.say("Legal actions (type one as shown):")
        for action_id in self.session.game.state.legal_action_ids():
            self.say(f"  {Action.from_id(action_id)!s:<22} {preview(view, action_id).headline}")
        self.say("Other commands: help, table, save FILE, quit")

    def run(self) -> int:
        session = self.session
        game = session.game
        self.say(
            f"Piepmatz · {game.state.rules.name} rules · seed {game.options.seed} · "
            + ", ".join(self.labels())
        )
        while not session.state_over:
            player = session.to_act
            if not session.is_human(player):
                try:
                    session.bot_move()
                except BotMoveError as exc:
                    self.print_new_events()
                    self.say(f"error: {exc}; the game stops here.")
                    return 1
                self.print_new_events()
                if self.delay:
                    time.sleep(self.delay)
                continue
            self.viewer = player
            self.print_new_events()
            self.print_table(player)
            if not self.ask(player):
                self.say("End of input: the game is left unfinished.")
                return 0
        self.print_new_events()
        self.say("")
        self.say(score_sheet_text(game.score(), self.labels()).plain)
        return 0

    def save(self, path: str) -> None:
        if not path:
            self.say("error: name the file: save mygame.json")
            return
        try:
            self.session.save(path)
        except SaveFileError as exc:
            self.say(f"error: {exc}")
            return
        self.say(f"Saved to {path}: go on with piepmatz play --text --resume {path}")

    def ask(self, player: int) -> bool:
        """Read lines until one is a legal action for ``player``; False at end of input/quit."""
        phase = PHASE_NAMES[self.session.game.state.phase]
        while True:
            self.out.write(f"Player {player} ({phase})> ")
            self.out.flush()
            line = self.inp.readline()
            if not line:
                self.say("")
                return False
            text = line.strip()
            if not text:
                continue
            if text.lower() == "help":
                self.print_help(player)
            elif text.lower() == "table":
                self.print_table(player)
            elif text.lower() == "quit":
                return False
            elif text.split()[0].lower() == "save":
                self.save(text[4:].strip())
            else:
                try:
                    self.session.apply(text, player)
                except PiepmatzError as exc:
                    self.say(f"error: {exc}. Type 'help' for the legal actions.")
                    continue
                return True


def replay_text(game: Game, seats: list[str] | None, out: TextIO) -> int:
    """A saved game as text: every event (omniscient: hidden cards shown) and the score sheet."""
    n = game.options.players
    labels = [seat_label(seats, p) if seats else f"Player {p}" for p in range(n)]
    out.write(
        f"Replay (omniscient: every hidden card is shown) · {game.state.rules.name} rules · "
        f"seed {game.options.seed} · {', '.join(labels)}\n"
    )
    for event in game.state.events or ():
        out.write(describe_event(event) + "\n")
    out.write("\n" + score_sheet_text(game.score(), labels).plain + "\n")
    return 0
