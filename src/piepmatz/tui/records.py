"""Finished games to replay: a save, a game record, or one game of a tournament's ``--records``
file (JSON lines), for ``piepmatz replay``, ``piepmatz play --replay`` and the replay screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

from piepmatz.core import Game
from piepmatz.core.errors import PiepmatzError
from piepmatz.i18n import _, ngettext
from piepmatz.text.words import tell

from .session import SAVE_FORMAT, SaveFileError, Session, read_documents, seat_labels


def _game_of(doc: Any) -> tuple[Game, list[str] | None]:
    if isinstance(doc, dict) and doc.get("format") == SAVE_FORMAT:
        session = Session.from_doc(doc)
        return session.game, session.seats
    try:
        game = Game.from_record(
            {k: v for k, v in doc.items() if k != "tournament"} if isinstance(doc, dict) else doc
        )
    except PiepmatzError as exc:
        raise SaveFileError(str(exc)) from None
    place = doc.get("tournament") if isinstance(doc, dict) else None
    seats = place.get("seats") if isinstance(place, dict) else None
    names: list[str] = seats if isinstance(seats, list) else []
    if len(names) == game.options.players and all(isinstance(s, str) for s in names):
        return game, list(names)
    return game, None


def game_index(doc: Any, line: int) -> int:
    """A game's number in a records file: its tournament index, else its line (from 0)."""
    place = doc.get("tournament") if isinstance(doc, dict) else None
    index = place.get("index") if isinstance(place, dict) else None
    return index if type(index) is int else line


def list_games(path: str | Path) -> list[str]:
    """One line per game of a records file: its number, seats and winner."""
    lines = []
    for line, doc in enumerate(read_documents(path)):
        try:
            game, seats = _game_of(doc)
        except SaveFileError as exc:
            lines.append(f"{game_index(doc, line):>5}  cannot be read: {exc}")
            continue
        labels = seat_labels(seats, game.options.players)
        over = game.state.is_over()
        verdict = game.score().verdict(labels, _) if over else _("not over")
        lines.append(f"{game_index(doc, line):>5}  {', '.join(labels)} · {verdict}")
    return lines


def load_record(path: str | Path, index: int | None = None) -> tuple[Game, list[str] | None]:
    """A finished game to replay, from a save, a record, or game ``index`` of a records file
    (JSON lines). An unfinished game is refused: its replay would show every hand."""
    docs = read_documents(path)
    if index is not None:
        found = [d for n, d in enumerate(docs) if game_index(d, n) == index]
        if not found:
            raise SaveFileError(_("{path} has no game {index}").format(path=path, index=index))
        doc = found[0]
    elif len(docs) == 1:
        doc = docs[0]
    else:
        raise SaveFileError(
            _("{path} holds {count} games: choose one with --game N (the list: --list)").format(
                path=path, count=len(docs)
            )
        )
    try:
        game, seats = _game_of(doc)
    except SaveFileError as exc:
        raise SaveFileError(f"{path}: {exc}") from None
    if not game.state.is_over():
        raise SaveFileError(
            _(
                "{path}: the game is not over, and its replay would show every hand; "
                "resume it instead (piepmatz play --resume FILE)"
            ).format(path=path)
        )
    return game, seats


def replay_text(game: Game, seats: list[str] | None, out: TextIO) -> None:
    """A finished game as text (``piepmatz replay``, ``play --text --replay``): a header, every
    event (the cards drawn face down, the blind seeds and the last hands included) and the score
    sheet."""
    labels = seat_labels(seats, game.options.players)
    moves = len(game.actions)
    out.write(
        ngettext(
            "Replay of a game of Piepmatz · {rules} rules · seed {seed} · {moves} move · {players}",
            "Replay of a game of Piepmatz · {rules} rules · seed {seed} · {moves} moves · "
            "{players}",
            moves,
        ).format(
            rules=game.state.rules.name,
            seed=game.options.seed,
            moves=moves,
            players=", ".join(labels),
        )
        + "\n"
        + _("Every card is named, also those drawn face down and the blind seeds.")
        + "\n"
    )
    for event in game.state.events or ():
        out.write(tell(event) + "\n")
    out.write("\n" + game.score().table(labels, _) + "\n")
