"""A game at the table: the engine's :class:`~piepmatz.core.game.Game` plus who sits in each seat.

A seat is ``"human"`` or a bot spec for :func:`piepmatz.bots.make_bot` (``easy``, ``medium``,
``hard``, ``random``, ``ismcts:…``). Bot levels are looked up by name when a game starts, so
levels registered later by the bots package appear without changes here.

The save file (:mod:`piepmatz.records`, which every command reads it with) is a small versioned
wrapper around the engine's game record:

>>> session = Session.new(["human", "random"], rules="standard", seed=5)
>>> doc = session.save_doc()
>>> doc["format"], doc["seats"]
('piepmatz-tui-save', ['human', 'random'])
>>> Session.from_doc(doc).game.state.turn == session.game.state.turn
True
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from piepmatz.args import new_game
from piepmatz.bots import Bot, bot_names, builds_from_name, make_bot
from piepmatz.bots.base import BotMoveError, bot_rngs, decide
from piepmatz.core import Game, PlayerView, dump_json, view_of
from piepmatz.core.events import Event
from piepmatz.i18n import _
from piepmatz.records import (
    HUMAN,
    GameFileError,
    Saved,
    load_save,
    read_save,
    save_doc,
    seat_label,
    seat_names,
)
from piepmatz.text.words import seat_name

#: The levels the new-game screen offers first, in this order, when the bots package has them.
LEVELS: Final = ("easy", "medium", "hard")
#: The bot a default seat gets; ``random`` stands in until ``medium`` is registered.
PREFERRED_BOT: Final = "medium"
FALLBACK_BOT: Final = "random"


class SeatError(ValueError):
    """A seat list that names an unknown bot, or the wrong number of seats."""


class SaveFileError(ValueError):
    """A save that cannot be written (one that cannot be read is a
    :class:`~piepmatz.records.GameFileError`)."""

    def __init__(self, message: str, exists: bool = False) -> None:
        super().__init__(message)
        #: The file exists already and was not replaced (saving again with replace would).
        self.exists = exists


#: Bots that the levels stand for under the engine's own names (``medium`` is ``heuristic``,
#: ``hard`` an ``ismcts`` search): a seat names them (``--seats human,ismcts``), a menu for
#: people offers their levels.
ENGINE_NAMES: Final = ("heuristic", "ismcts")


def available_bots() -> list[str]:
    """The bots a menu offers: the levels (easy, medium, hard) first, then the other bots that
    need no argument (``random``, ``greedy``, your plugins'), not the levels' engine names."""
    names = [n for n in bot_names() if builds_from_name(n) and n not in ENGINE_NAMES]
    return [n for n in LEVELS if n in names] + [n for n in names if n not in LEVELS]


def default_bot() -> str:
    return PREFERRED_BOT if PREFERRED_BOT in bot_names() else FALLBACK_BOT


def default_seats(players: int = 3, people: int = 1) -> list[str]:
    """One person against bots: the game ``piepmatz play`` starts on a bare Enter; or
    ``people`` in the first seats."""
    return [HUMAN] * people + [default_bot()] * (players - people)


def check_seat(spec: str) -> str:
    """Return the seat spec normalised, or raise :class:`SeatError` naming the choices."""
    spec = spec.strip()
    if spec.lower() == HUMAN:
        return HUMAN
    try:
        make_bot(spec)
    except ValueError as exc:
        raise SeatError(f"seat {spec!r}: {exc}; or 'human'") from None
    return spec


def parse_seats(text: str) -> list[str]:
    """Read ``human,easy,hard`` (2–4 seats)."""
    seats = [check_seat(part) for part in text.split(",")] if text.strip() else []
    if not 2 <= len(seats) <= 4:
        raise SeatError(f"a game has 2, 3 or 4 seats, not {len(seats)} ({text!r})")
    return seats


def data_dir() -> Path:
    """Where the game keeps its files: ``$XDG_DATA_HOME/piepmatz``, else
    ``~/.local/share/piepmatz`` (the XDG base directory specification)."""
    base = os.environ.get("XDG_DATA_HOME", "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "share"
    return root / "piepmatz"


def shown_path(path: Path) -> str:
    """``path`` as a person would type it into a shell: under the data folder, from
    ``$XDG_DATA_HOME`` or ``~`` (short, and the same on every machine)."""
    base = os.environ.get("XDG_DATA_HOME", "").strip()
    folder = data_dir()
    if not path.is_relative_to(folder):
        return str(path)
    named = "$XDG_DATA_HOME/piepmatz" if base and Path(base).is_absolute() else None
    if named is None and folder.is_relative_to(Path.home()):
        named = "~/" + str(folder.relative_to(Path.home()))
    return f"{named or folder}/{path.relative_to(folder)}"


def autosave_path() -> Path:
    """The unfinished game kept after every move, which ``piepmatz play`` offers to resume."""
    return data_dir() / "autosave.json"


def load_kept(path: Path | None = None) -> Session | None:
    """The kept unfinished game, or None (none kept, or the file no longer reads)."""
    path = autosave_path() if path is None else path
    if not path.is_file():
        return None
    try:
        session = Session.load(path)
    except GameFileError:
        return None
    return None if session.state_over else session


def suggest_save_path(session: Session) -> Path:
    """A file name for a save that names the game and replaces no other file."""
    game = session.game
    folder = data_dir() / "saves"
    stem = f"piepmatz-seed{game.options.seed}-turn{game.state.turn}"
    for n in range(1, 1000):
        path = folder / (f"{stem}.json" if n == 1 else f"{stem}-{n}.json")
        if not path.exists():
            return path
    return folder / f"{stem}.json"


class Session:
    """A game and its seats; the bots choose from their own seat's view only."""

    def __init__(
        self,
        game: Game,
        seats: Sequence[str],
        bot_seed: int | None = None,
        hints: bool = True,
        names: Sequence[str | None] | None = None,
    ) -> None:
        if len(seats) != game.options.players:
            raise SeatError(f"{len(seats)} seats for a {game.options.players}-player game")
        self.game = game
        self.seats = [check_seat(s) for s in seats]
        try:
            #: The people's names, one a seat (None: a bot, or a person who gave none).
            self.names = seat_names(self.seats, names)
        except ValueError as exc:
            raise SeatError(str(exc)) from None
        #: Whether the people at this table may ask the bot for hints.
        self.hints = hints
        base = game.options.seed if bot_seed is None else bot_seed
        self.bots: dict[int, Bot] = {p: make_bot(s) for p, s in enumerate(self.seats) if s != HUMAN}
        # One generator per bot seat, derived from the game's seed: a seeded game against bots
        # plays out the same way every time (tests rely on it).
        rngs = bot_rngs(len(self.seats), base)
        self.rngs = {p: rngs[p] for p in self.bots}

    @classmethod
    def new(
        cls,
        seats: Sequence[str],
        rules: str = "standard",
        seed: int | None = None,
        hints: bool = True,
        names: Sequence[str | None] | None = None,
    ) -> Session:
        """A new game; ``rules`` a preset, optionally with flags (``standard:last_hand=false``);
        ``names`` the people's, one a seat (:func:`~piepmatz.records.seat_names`)."""
        return cls(new_game(len(seats), rules, seed), seats, hints=hints, names=names)

    # ------------------------------------------------------------------ who acts

    @property
    def state_over(self) -> bool:
        return self.game.state.is_over()

    @property
    def to_act(self) -> int:
        """The seat to decide now (``-1`` once the game is over)."""
        return self.game.state.current_player

    def is_human(self, player: int) -> bool:
        return 0 <= player < len(self.seats) and self.seats[player] == HUMAN

    @property
    def humans(self) -> list[int]:
        return [p for p, s in enumerate(self.seats) if s == HUMAN]

    def view(self, player: int) -> PlayerView:
        return view_of(self.game.state, player)

    def label(self, player: int) -> str:
        return seat_label(self.seats, player, self.names[player])

    def name(self, player: int) -> str:
        """A person as the table calls them: their name, else "Player 2"."""
        return self.names[player] or seat_name(player)

    @property
    def called(self) -> list[str] | None:
        """Each seat as the log's sentences name it, once a person has a name (else None:
        "Player N" throughout)."""
        return [self.name(p) for p in range(len(self.seats))] if any(self.names) else None

    # ------------------------------------------------------------------ moves

    def bot_request(self) -> tuple[Bot, PlayerView, list[int], random.Random]:
        """What a bot needs to choose (its view, the legal ids, its generator).

        Built on the caller's thread; the bot may then think on another thread, since the view
        is immutable and nothing changes the game until the choice is applied.
        """
        p = self.to_act
        if p not in self.bots:
            raise ValueError(f"player {p} is not a bot")
        return self.bots[p], self.view(p), self.game.state.legal_action_ids(), self.rngs[p]

    def bot_move(self) -> list[Event]:
        """Let the bot to act choose and play; returns the new events.

        :class:`~piepmatz.bots.base.BotMoveError` if the bot breaks the protocol, naming its seat.
        """
        return self.apply(self.ask_bot(*self.bot_request()))

    def ask_bot(self, bot: Bot, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        """The move of ``bot`` (see :meth:`bot_request`), held to the protocol
        (:func:`piepmatz.bots.base.decide`); the TUI asks on a worker thread."""
        try:
            return decide(bot, view, legal, rng)
        except BotMoveError as exc:
            raise BotMoveError(f"{self.label(view.player)} {exc}") from exc

    def apply(self, action: int | str, player: int | None = None) -> list[Event]:
        """Check and play an action; returns the events it caused. Bad input changes nothing."""
        events = self.game.state.events or []
        before = len(events)
        self.game.apply(action, player)
        return list((self.game.state.events or [])[before:])

    # ------------------------------------------------------------------ save and resume

    def save_doc(self) -> dict[str, Any]:
        return save_doc(self.game, self.seats, self.hints, self.names)

    @classmethod
    def from_doc(cls, doc: Any) -> Session:
        """Rebuild a session from a save document; :class:`~piepmatz.records.GameFileError` if
        anything is off, a seat's bot that cannot be built too."""
        return cls._seated(read_save(doc))

    @classmethod
    def _seated(cls, saved: Saved, where: str = "") -> Session:
        try:
            return cls(saved.game, saved.seats, hints=saved.hints, names=saved.names)
        except SeatError as exc:
            raise GameFileError(f"{where}{exc}") from None

    def keep_in(self, path: Path) -> None:
        """Keep the game in ``path`` (the autosave) after a move, forgotten once it is over;
        ``OSError`` or :class:`SaveFileError` when it cannot be."""
        if self.state_over:
            path.unlink(missing_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.save(path, replace=True)

    def keep_finished(self) -> Path:
        """Keep the finished game among the saves (a new file there), so that it can be
        replayed and reviewed later; its path. ``OSError`` or :class:`SaveFileError` when it
        cannot be."""
        path = suggest_save_path(self)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.save(path)
        return path

    def save(self, path: str | Path, replace: bool = False) -> None:
        """Write the save file; an existing file is replaced only with ``replace``, and only
        once the whole text is written."""
        target = Path(path)
        if target.is_dir():
            raise SaveFileError(_("{path} is a folder, not a file").format(path=path))
        if target.exists() and not replace:
            raise SaveFileError(
                _("{path} exists already: choose another name, or replace it").format(path=path),
                exists=True,
            )
        text = dump_json(self.save_doc(), indent=1)
        tmp = target.with_name(target.name + ".tmp")
        try:
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(target)
        except OSError as exc:
            raise SaveFileError(
                _("cannot write {path}: {reason}").format(path=path, reason=exc.strerror or exc)
            ) from None

    @classmethod
    def load(cls, path: str | Path) -> Session:
        """The game saved in ``path``; :class:`~piepmatz.records.GameFileError` if it cannot be
        resumed."""
        return cls._seated(load_save(path), f"{path}: ")
