"""Games in files, read the same way by every command: a game record (``demo --record``), a
terminal-game save, or one game of a tournament's ``--records`` file (JSON lines); or an online
game's link (its table, its replay), whose record the server gives.

``piepmatz replay``, ``piepmatz review`` and the terminal game (``play --resume``,
``play --replay``, its open and replay dialogs) all load through here, so that a file gets the
same answer and the same message whichever command reads it. A game of a JSON-lines file is
numbered by its tournament index, else by its place in the file from 0 (:func:`game_number`).

The save file is a small versioned wrapper around the engine's record, with who sat where (and
the people's names, ``names``, when they gave them):

>>> from piepmatz.core import Game
>>> doc = save_doc(Game.new(players=2, seed=5), ["human", "random"], hints=True)
>>> doc["format"], doc["version"], doc["seats"]
('piepmatz-tui-save', 1, ['human', 'random'])
>>> read_save(doc).seats
['human', 'random']
"""

from __future__ import annotations

import re
import socket
import ssl
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TextIO

from piepmatz.core import Game, InvalidJSONError, parse_json
from piepmatz.core.errors import PiepmatzError
from piepmatz.core.game import RECORD_FORMAT
from piepmatz.i18n import _, current_language, ngettext
from piepmatz.text import scoresheet
from piepmatz.text.lines import shown
from piepmatz.text.words import bot_level, bot_name, rules_words, seat_name, tell

#: A seat a person plays; any other seat is a bot spec (:func:`piepmatz.bots.make_bot`).
HUMAN: Final = "human"
SAVE_FORMAT: Final = "piepmatz-tui-save"
SAVE_VERSION: Final = 1
#: An online game's link as the server hands it out or the address bar shows it (the table's
#: page, its replay, its record): the site before ``/play/``, ``/replay/`` or ``/api/tables/``,
#: and the table. Its record is at ``SITE/api/tables/TABLE/record`` once the game is over.
TABLE_LINK: Final = re.compile(
    r"^(https?://[^?#]+?)/(?:play|replay|api/tables)/([A-Za-z0-9_-]{1,64})(?:/record)?/?(?:[?#].*)?$"
)
#: Seconds to wait for a server's answer.
FETCH_TIMEOUT: Final = 30.0
#: The most of an answer that is read: a whole game's record is tens of kilobytes.
MAX_FETCHED: Final = 8 * 1024 * 1024
#: The longest name or bot a record's ``seats`` may give (the server allows 32-character names).
MAX_SEAT_TEXT: Final = 64


class GameFileError(ValueError):
    """A file that cannot be read, holds no game, or not the one asked for; the message names
    the file (and the line, in a JSON-lines file) and says what is wrong."""


@dataclass(frozen=True)
class Saved:
    """What a save holds: the game, who sits in each seat, and whether hints are allowed."""

    game: Game
    seats: list[str]
    hints: bool
    #: Each seat's person's name, as the table was told it (None: a bot, or a person unnamed,
    #: who is "Player N").
    names: list[str | None] | None = None


@dataclass(frozen=True)
class Loaded:
    """A game read from a file, with who sat where when the file says (a save, a tournament's
    or an online game's record; else None), and ``where``: the file, and the line in a
    JSON-lines file."""

    game: Game
    seats: list[str] | None
    where: str
    #: How an online game ended, when its record says (``ending``: resigned, aborted…).
    ending: dict[str, Any] | None = None
    #: Each seat as an online game's sentences named it ("Anna", "Bot 2"), when its record
    #: says; else None (seats are "Player N").
    names: list[str] | None = None

    @property
    def ended(self) -> bool:
        """The game is over: played out, or ended early (a resignation, an abort)."""
        return self.game.state.is_over() or self.ending is not None


#: How an online game may have ended (``ending.how`` in its record).
ENDINGS = ("played_out", "resigned", "aborted")


def read_ending(doc: Any, game: Game) -> dict[str, Any] | None:
    """A record's ``ending`` (an online game's: docs/protocol.md), checked; ``None`` without
    one. :class:`GameFileError` says what is wrong with it."""
    ending = doc.get("ending") if isinstance(doc, dict) else None
    if ending is None:
        return None
    if not isinstance(ending, dict):
        raise GameFileError("the record's ending must be an object (docs/protocol.md)")
    players, moves = game.options.players, len(game.actions)

    def seats(key: str) -> bool:
        value = ending.get(key, [])
        return isinstance(value, list) and all(type(s) is int and 0 <= s < players for s in value)

    counts = ending.get("stood_in", [0] * players)
    if (
        ending.get("how") not in ENDINGS
        or ending.get("move") != moves
        or not (ending.get("seat") is None or type(ending["seat"]) is int)
        or not (ending.get("seat") is None or 0 <= ending["seat"] < players)
        or not seats("winners")
        or not seats("resigned")
        or not isinstance(counts, list)
        or len(counts) != players
        or not all(type(c) is int and 0 <= c <= moves for c in counts)
    ):
        raise GameFileError(
            "the record's ending must say how (" + ", ".join(ENDINGS) + "), after its moves, "
            "and name seats of the game"
        )
    if (ending["how"] == "played_out") != game.state.is_over():
        raise GameFileError("the record's ending does not match its moves")
    return dict(ending)


#: The longest name a person at a terminal's table may give (as an online display name).
MAX_NAME: Final = 32


def person_name(text: str) -> str | None:
    """A person's name as typed for a seat: trimmed, None when empty; ``ValueError`` (in the
    player's words) for one too long or holding what a terminal would act on, not show.

    >>> person_name("  Anna "), person_name(""), person_name("Zoë")
    ('Anna', None, 'Zoë')
    """
    name = unicodedata.normalize("NFC", text).strip()
    if not name:
        return None
    if shown(name) != name:
        raise ValueError(_("a name is plain text on one line: {name!r} is not").format(name=name))
    if len(name) > MAX_NAME:
        raise ValueError(
            _("a name has at most {count} characters: {name!r} has {length}").format(
                count=MAX_NAME, name=name, length=len(name)
            )
        )
    return name


def seat_names(seats: Sequence[str], names: Sequence[str | None] | None) -> list[str | None]:
    """The people's names, one a seat, each checked (:func:`person_name`); a bot's seat has
    none. ``ValueError``, in the player's words and naming the seat, for a name that cannot be
    one or one on a bot's seat.

    >>> seat_names(["human", "easy", "human"], [" Anna", None, ""])
    ['Anna', None, None]
    """
    if names is None:
        return [None] * len(seats)
    if len(names) != len(seats):
        raise ValueError(f"{len(names)} names for {len(seats)} seats")
    checked: list[str | None] = []
    for p, (seat, name) in enumerate(zip(seats, names, strict=True)):
        try:
            checked.append(person_name(name) if name is not None else None)
        except ValueError as exc:
            raise ValueError(f"{seat_name(p)}: {exc}") from None
        if checked[-1] is not None and seat != HUMAN:
            raise ValueError(
                _("{seat} is a bot's: only a person's seat takes a name").format(seat=seat_name(p))
            )
    return checked


def seat_label(seats: Sequence[str], player: int, name: str | None = None) -> str:
    """A seat of a game at one terminal: a person's ``name`` when they gave one, "Player 2
    (person)" when not, "Player 3 (medium bot)"."""
    kind = seats[player]
    if kind == HUMAN:
        return name or _("{seat} (person)").format(seat=seat_name(player))
    return _("{seat} ({bot} bot)").format(seat=seat_name(player), bot=bot_level(kind))


def seat_labels(
    seats: Sequence[str] | None, players: int, names: Sequence[str] | None = None
) -> list[str]:
    """Every seat's label; a bare record, which does not say who sat where, gives plain names.
    With ``names`` (an online game's), seats are labelled as its table showed them: "Anna",
    "Bot 2 (easy)"."""
    if names is not None and seats is not None:
        return [
            name if kind == HUMAN else f"{name} ({bot_level(kind)})"
            for name, kind in zip(names, seats, strict=True)
        ]
    return [seat_label(seats, p) if seats else seat_name(p) for p in range(players)]


def save_doc(
    game: Game, seats: Sequence[str], hints: bool, names: Sequence[str | None] | None = None
) -> dict[str, Any]:
    """The save document of a game and its seats (what :func:`read_save` reads); ``names``,
    the people's, only when someone gave one (a save without them reads as before)."""
    doc = {
        "format": SAVE_FORMAT,
        "version": SAVE_VERSION,
        "seats": list(seats),
        "hints": hints,
        "record": game.record(),
    }
    if names is not None and any(names):
        doc["names"] = list(names)
    return doc


def read_save(doc: Any) -> Saved:
    """The game and seats of a save document; :class:`GameFileError` says what is off. The seats
    are names here: whether their bots can be built is for whoever seats them."""
    if not isinstance(doc, dict) or doc.get("format") != SAVE_FORMAT:
        raise GameFileError(f"not a Piepmatz save file (format must be {SAVE_FORMAT!r})")
    if type(doc.get("version")) is not int or doc["version"] != SAVE_VERSION:
        raise GameFileError(
            f"save version {doc.get('version')!r} is not supported (this is {SAVE_VERSION})"
        )
    seats = doc.get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise GameFileError("the save's seats must be a list of seat names")
    hints = doc.get("hints", True)
    if type(hints) is not bool:
        raise GameFileError(f"the save's hints must be true or false, not {hints!r}")
    game = _replayed(doc.get("record"))
    if len(seats) != game.options.players:
        raise GameFileError(f"{len(seats)} seats for a {game.options.players}-player game")
    return Saved(game, list(seats), hints, _save_names(doc.get("names"), seats))


def _save_names(names: Any, seats: list[str]) -> list[str | None] | None:
    """A save's people's names: one a seat, a person's (or null, a bot's too)."""
    if names is None:
        return None
    try:
        if not (isinstance(names, list) and all(n is None or isinstance(n, str) for n in names)):
            raise ValueError
        return seat_names(seats, names)
    except ValueError:
        raise GameFileError(
            f"the save's names must be a list of its {len(seats)} seats, a person's name "
            f"(at most {MAX_NAME} characters, one line) or null"
        ) from None


def _replayed(record: Any) -> Game:
    try:
        return Game.from_record(record)
    except PiepmatzError as exc:
        raise GameFileError(str(exc)) from None


def read_documents(path: str | Path) -> list[tuple[str, Any]]:
    """The JSON documents of a file, each with where it is: one document (``path``), or one per
    line (JSON lines, as a tournament's ``--records`` writes: ``path line N``). ``path`` may be
    an online game's link (:data:`TABLE_LINK`): its record, from the server."""
    if str(path).startswith(("http://", "https://")):
        # Said without what follows "#": an invite's seat token, the person's alone.
        path = str(path).split("#", 1)[0]
        data = _fetched(path)
    else:
        data = _read(path)
    try:
        return [(str(path), parse_json(data))]
    except InvalidJSONError as whole:
        lines = [(n, line) for n, line in enumerate(data.splitlines(), 1) if line.strip()]
        if len(lines) < 2:
            raise GameFileError(f"{path}: {whole}") from None
    docs = []
    for n, line in lines:
        where = f"{path} line {n}"
        try:
            docs.append((where, parse_json(line)))
        except InvalidJSONError as exc:
            raise GameFileError(f"{where}: {exc}") from None
    return docs


def _read(path: str | Path) -> bytes:
    """The file's bytes; a file that is not there, or a folder, said in the player's words."""
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise GameFileError(
            _("cannot read {path}: there is no such file").format(path=path)
        ) from None
    except IsADirectoryError:
        raise GameFileError(
            _("cannot read {path}: it is a folder; give a game's file in it").format(path=path)
        ) from None
    except OSError as exc:
        raise GameFileError(
            _("cannot read {path}: {reason}").format(path=path, reason=exc.strerror or exc)
        ) from None


def _fetched(link: str | Path) -> bytes:
    """The record of the online game at ``link``, as its server gives it."""
    found = TABLE_LINK.match(str(link))
    if found is None:
        raise GameFileError(
            _("{link} is not a game's link (SERVER/play/TABLE or SERVER/replay/TABLE)").format(
                link=link
            )
        )
    site, table = found.groups()
    request = urllib.request.Request(
        f"{site}/api/tables/{table}/record",
        headers={"Accept": "application/json", "Accept-Language": current_language()},
    )
    try:
        with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT) as answer:
            data: bytes = answer.read(MAX_FETCHED + 1)
    except urllib.error.HTTPError as exc:
        raise GameFileError(f"{link}: {refusal(exc)}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise GameFileError(unreachable(site, exc)) from None
    if len(data) > MAX_FETCHED:
        raise GameFileError(f"{link}: the answer is larger than any game's record")
    return data


def refusal(exc: urllib.error.HTTPError) -> str:
    """The sentence of a request a Piepmatz server refused (its ``detail``), else what the
    status says of the address: no Piepmatz there, or a proxy whose server is down."""
    try:
        detail = parse_json(exc.read(MAX_FETCHED)).get("detail")
    except (InvalidJSONError, AttributeError, OSError):
        detail = None
    if isinstance(detail, list):  # a body the server's schema refused: each field at fault
        detail = "; ".join(str(d.get("msg", d)) if isinstance(d, dict) else str(d) for d in detail)
    if isinstance(detail, str) and detail:
        return _("the server refused: {reason}").format(reason=detail)
    status = f"{exc.code} {exc.reason}"
    site = _site(exc.url or "")
    if exc.code in (404, 405, 501):  # a Piepmatz server names what it did not find
        return _("{url} answered, but it is not a Piepmatz server ({status})").format(
            url=site, status=status
        )
    if exc.code in (502, 503, 504):  # a proxy in front of a server that is down or restarting
        return _("the Piepmatz server at {url} is not answering ({status}): try again soon").format(
            url=site, status=status
        )
    return _("the server refused: {status} {reason}").format(status=exc.code, reason=exc.reason)


def unreachable(url: str, exc: OSError) -> str:
    """Why ``url`` could not be reached, in words: no such host, nothing listening, no answer
    in time; the system's own reason only for what these do not cover."""
    reason = getattr(exc, "reason", exc)
    host = urllib.parse.urlsplit(url).netloc or url
    if isinstance(reason, socket.gaierror):
        return _("cannot reach {url}: no computer is known by the name {host}").format(
            url=url, host=urllib.parse.urlsplit(url).hostname or host
        )
    if isinstance(reason, ConnectionRefusedError):
        return _("cannot reach {url}: nothing answers at {host}; is the server started?").format(
            url=url, host=host
        )
    if isinstance(reason, TimeoutError | socket.timeout):
        return _("cannot reach {url}: it did not answer in time").format(url=url)
    if isinstance(reason, ssl.SSLError) and reason.reason == "WRONG_VERSION_NUMBER":
        return _("cannot reach {url}: the server does not speak https; try {plain}").format(
            url=url, plain=url.replace("https://", "http://", 1)
        )
    if isinstance(reason, ssl.SSLError):
        return _("cannot reach {url}: no secure connection ({reason})").format(
            url=url, reason=getattr(reason, "reason", None) or reason
        )
    return _("cannot reach a Piepmatz server at {url}: {reason}").format(url=url, reason=reason)


def _site(url: str) -> str:
    """``scheme://host:port`` of a request's URL: the address a player typed."""
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else url


def game_number(doc: Any, place: int) -> int:
    """A game's number in a file: its tournament index, else its place among the file's
    documents (from 0)."""
    tournament = doc.get("tournament") if isinstance(doc, dict) else None
    index = tournament.get("index") if isinstance(tournament, dict) else None
    return index if type(index) is int else place


def _game_of(doc: Any) -> tuple[Game, list[str] | None, list[str] | None]:
    """The game of a save or a record, its seats when the document names them, and the seats'
    names when an online game's record gives them."""
    kind = doc.get("format") if isinstance(doc, dict) else None
    if kind == SAVE_FORMAT:
        saved = read_save(doc)
        if saved.names is None:
            return saved.game, saved.seats, None
        # As an online record's: the bots keep the seats' own names.
        people = [n or seat_name(p) for p, n in enumerate(saved.names)]
        return saved.game, saved.seats, people
    if kind != RECORD_FORMAT:
        raise GameFileError(
            f"not a game record (format {RECORD_FORMAT!r}) or a save (format {SAVE_FORMAT!r})"
        )
    game = _replayed(doc)
    if doc.get("seats") is not None:
        return game, *_table_seats(doc["seats"], game.options.players)
    tournament = doc.get("tournament")
    seats = tournament.get("seats") if isinstance(tournament, dict) else None
    if (
        isinstance(seats, list)
        and len(seats) == game.options.players
        and all(isinstance(s, str) for s in seats)
    ):
        return game, list(seats), None
    return game, None, None


def _table_seats(seats: Any, players: int) -> tuple[list[str], list[str]]:
    """An online game's ``seats`` (each its ``kind``, and a person's ``name``): their kinds,
    and their names as the table's sentences gave them (a bot "Bot N", a person without a
    name "Player N")."""

    def text(value: Any) -> bool:
        return value is None or (isinstance(value, str) and len(value) <= MAX_SEAT_TEXT)

    if not (
        isinstance(seats, list)
        and len(seats) == players
        and all(isinstance(s, dict) and s.get("kind") and text(s["kind"]) for s in seats)
        and all(text(s.get("name")) for s in seats)
    ):
        raise GameFileError(
            f"the record's seats must be a list of its {players} seats, each with its kind and "
            f"a person's name (at most {MAX_SEAT_TEXT} characters)"
        )
    kinds = [shown(s["kind"]) or "?" for s in seats]
    names = [
        (shown(s.get("name") or "").strip() or seat_name(p)) if kind == HUMAN else bot_name(p)
        for p, (s, kind) in enumerate(zip(seats, kinds, strict=True))
    ]
    return kinds, names


def load_game(path: str | Path, number: int | None = None, finished: bool = False) -> Loaded:
    """The game of a save or a record, or game ``number`` of a JSON-lines file (which needs
    one when it holds several). With ``finished``, a game in progress is refused: its replay
    would show every hand."""
    docs = read_documents(path)
    numbers = [game_number(doc, place) for place, (_where, doc) in enumerate(docs)]
    if number is not None:
        found = [entry for entry, n in zip(docs, numbers, strict=True) if n == number]
        if not found and len(docs) == 1:
            raise GameFileError(_("{path} has no game {index}").format(path=path, index=number))
        if not found:
            raise GameFileError(
                _("{path} has no game {index}: its games are numbered {first} to {last}").format(
                    path=path, index=number, first=min(numbers), last=max(numbers)
                )
            )
        where, doc = found[0]
    elif len(docs) > 1:
        raise GameFileError(
            _(
                "{path} holds {count} games, numbered {first} to {last}: choose one with "
                "--game N (piepmatz replay --list {path} lists them)"
            ).format(path=path, count=len(docs), first=min(numbers), last=max(numbers))
        )
    else:
        where, doc = docs[0]
    try:
        game, seats, names = _game_of(doc)
        ending = read_ending(doc, game)
    except GameFileError as exc:
        raise GameFileError(f"{where}: {exc}") from None
    if finished and not game.state.is_over() and ending is None:
        raise GameFileError(
            _(
                "{path}: the game is not over, and its replay would show every hand; "
                "resume it instead (piepmatz play --resume FILE)"
            ).format(path=where)
        )
    return Loaded(game, seats, where, ending, names)


def load_save(path: str | Path) -> Saved:
    """The save in a file (one document; a game record is told to be replayed instead)."""
    docs = read_documents(path)
    if len(docs) != 1:
        raise GameFileError(f"{path} holds {len(docs)} JSON documents, not one save")
    doc = docs[0][1]
    try:
        return read_save(doc)
    except GameFileError as exc:
        hint = ""
        if isinstance(doc, dict) and doc.get("format") == RECORD_FORMAT:
            hint = " (it is a game record: step through it with --replay)"
        raise GameFileError(f"{path}: {exc}{hint}") from None


def list_games(path: str | Path) -> list[str]:
    """One line per game of a file: its number, seats and winner."""
    lines = []
    for place, (_where, doc) in enumerate(read_documents(path)):
        number = game_number(doc, place)
        try:
            game, seats, names = _game_of(doc)
        except GameFileError as exc:
            lines.append(f"{number:>5}  cannot be read: {exc}")
            continue
        labels = seat_labels(seats, game.options.players, names)
        over = game.state.is_over()
        verdict = scoresheet.verdict(game.score(), labels) if over else _("not over")
        early = doc.get("ending") if isinstance(doc, dict) else None
        if not over and isinstance(early, dict) and early.get("how") in ENDINGS:
            verdict = _("resigned") if early["how"] == "resigned" else _("aborted")
        lines.append(f"{number:>5}  {', '.join(labels)} · {verdict}")
    return lines


def replay_text(loaded: Loaded, out: TextIO) -> None:
    """A finished game as text (``piepmatz replay``, ``play --text --replay``): a header, every
    event (the cards drawn face down, the blind seeds and the last hands included) and the score
    sheet."""
    game = loaded.game
    labels = seat_labels(loaded.seats, game.options.players, loaded.names)
    moves = len(game.actions)
    out.write(
        ngettext(
            "Replay of a game of Piepmatz · {rules} · seed {seed} · {moves} move · {players}",
            "Replay of a game of Piepmatz · {rules} · seed {seed} · {moves} moves · {players}",
            moves,
        ).format(
            rules=rules_words(game.state.rules.name),
            seed=game.options.seed,
            moves=moves,
            players=", ".join(labels),
        )
        + "\n"
        + _("Every card is named, also those drawn face down and the blind seeds.")
        + "\n"
    )
    for event in game.state.events or ():
        out.write(tell(event, loaded.names) + "\n")
    out.write("\n" + scoresheet.table(game.score(), labels) + "\n")
    if loaded.ending is not None:
        out.write("".join(line + "\n" for line in scoresheet.ending(loaded.ending, labels)))


__all__ = [
    "HUMAN",
    "MAX_NAME",
    "SAVE_FORMAT",
    "SAVE_VERSION",
    "TABLE_LINK",
    "GameFileError",
    "Loaded",
    "Saved",
    "game_number",
    "list_games",
    "load_game",
    "load_save",
    "person_name",
    "read_documents",
    "read_save",
    "refusal",
    "replay_text",
    "save_doc",
    "seat_label",
    "seat_labels",
    "seat_names",
    "unreachable",
]
