"""What a screen asks of the app: the app owns the navigation between screens."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.message import Message

from piepmatz.core import Game

from ..session import Session

if TYPE_CHECKING:
    from ..online import Seating


class StartGame(Message):
    """Play ``session`` on the table screen (a new game or a resumed one)."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session


class NewGame(Message):
    """Open the new-game screen, ``rules`` preselected, and the ``seats`` and their people's
    ``names`` of the game played last at this terminal (the same people play again)."""

    def __init__(
        self,
        rules: str = "standard",
        seats: Sequence[str] | None = None,
        names: Sequence[str | None] | None = None,
    ) -> None:
        super().__init__()
        self.rules = rules
        self.seats = seats
        self.names = names


class OpenSave(Message):
    """Ask for a file and resume it (``replay=False``) or step through it (``replay=True``)."""

    def __init__(self, replay: bool) -> None:
        super().__init__()
        self.replay = replay


class ShowReplay(Message):
    """Step through ``game`` (finished) in the replay viewer; ``names``: an online table's
    seats by name, as its players knew them."""

    def __init__(self, game: Game, seats: list[str] | None, names: list[str] | None = None) -> None:
        super().__init__()
        self.game = game
        self.seats = seats
        self.names = names


class PlayAgain(Message):
    """Play at ``seating``'s table: where an online table's people play again."""

    def __init__(self, seating: Seating) -> None:
        super().__init__()
        self.seating = seating


class SaveGame(Message):
    """Ask for a file and save ``session`` there."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session


class StartLesson(Message):
    """Open the guided first game, where the learner left it."""
