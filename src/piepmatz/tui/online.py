"""The terminal at an online table: the server's HTTP calls, invite links and the player key.

``piepmatz play --server URL`` sits down through the same HTTP API as the browser
(``docs/protocol.md``): it opens a table with friends, a quick game against bots, or joins one by
its invite link or from the server's public list, then plays over the WebSocket
(:mod:`piepmatz.tui.screens.online`). Everything here is plain standard library, so that a
refusal is told before the full-screen game starts.

>>> invite = parse_link("http://example.org/play/qPg8mK9N8Zd-#seat=1&token=abc")
>>> invite.server, invite.table, invite.seat, invite.token
('http://example.org', 'qPg8mK9N8Zd-', 1, 'abc')
>>> Server("http://example.org:8000/").ws_url("qPg8mK9N8Zd-", "de")
'ws://example.org:8000/ws/qPg8mK9N8Zd-?lang=de'
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from piepmatz import records
from piepmatz.core import PlayerView, Rules
from piepmatz.core.errors import PiepmatzError
from piepmatz.i18n import _, current_language, ngettext
from piepmatz.records import HUMAN, refusal, unreachable
from piepmatz.text.lines import shown
from piepmatz.text.numbers import count, decimal, percent
from piepmatz.text.words import bot_level, bot_name, rules_words

from .session import data_dir

#: A table's id as the server makes them; nothing else reaches a path of a request.
TABLE_ID: Final = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: A seat's token or a player key: URL-safe base64.
TOKEN: Final = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
#: How long one HTTP request may take before the server is called unreachable.
TIMEOUT: Final = 15.0
#: The file of player keys, one per server, beside the autosave.
KEYS_FORMAT: Final = "piepmatz-player-keys"


#: The fewest seconds between two messages a terminal sends. A held key or a script answering
#: at once (a decision's preview and answer are two) would otherwise pass the server's 20 a
#: second, which refuses what comes faster and cuts off a flood; a person never types this fast.
SEND_GAP: Final = 0.1
#: Refusals of the seat itself (its ``hello``): saying hello again would be refused again.
SEAT_REFUSED: Final = frozenset({"bad_token", "not_joined", "banned"})


class OnlineError(Exception):
    """What went wrong at the server, in words for the player (a refusal's own sentence);
    ``status`` the HTTP status of a refusal."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Invite:
    """An invite link taken apart: ``SERVER/play/TABLE#seat=N&token=TOKEN``; a spectator's
    link has a token and no seat."""

    server: str
    table: str
    seat: int | None
    token: str | None

    @property
    def spectator(self) -> bool:
        return self.token is not None and self.seat is None


def parse_link(text: str) -> Invite:
    """An invite link, or :class:`OnlineError` saying what is wrong with it."""
    link = urllib.parse.urlsplit(text.strip())
    path = link.path.rstrip("/")
    base, _sep, table = path.rpartition("/play/")
    if link.scheme not in ("http", "https") or not link.netloc or not _sep:
        raise OnlineError(
            _("{link} is not an invite link: it looks like {example}").format(
                link=text, example="http://HOST/play/TABLE#seat=2&token=…"
            )
        )
    if not TABLE_ID.match(table):
        raise OnlineError(_("{link} does not name a table").format(link=text))
    fields = urllib.parse.parse_qs(link.fragment)
    token = fields.get("token", [None])[0]
    seat = fields.get("seat", [None])[0]
    if token is not None and not TOKEN.match(token):
        raise OnlineError(_("the token in {link} is broken").format(link=text))
    if seat is not None and not seat.isdigit():
        raise OnlineError(_("the seat in {link} is not a number").format(link=text))
    server = urllib.parse.urlunsplit((link.scheme, link.netloc, base, "", ""))
    return Invite(server, table, None if seat is None else int(seat), token)


def server_url(text: str) -> str:
    """A server's address as ``--server`` takes it (``http://host:8000``; ``host:8000`` is
    taken as http), without a trailing slash, its host in lower case and a default port
    left out; :class:`OnlineError` for anything else.

    >>> server_url("Example.org:80/"), server_url("HTTPS://[::1]:8443")
    ('http://example.org', 'https://[::1]:8443')
    """
    text = text.strip()
    if "://" not in text:
        text = "http://" + text
    url = urllib.parse.urlsplit(text)
    if url.scheme not in ("http", "https") or not url.hostname or url.query or url.fragment:
        raise OnlineError(
            _("{url} is not a server's address: give it as http://HOST:PORT").format(url=text)
        )
    # As a browser names an origin, so one server keeps one player key however it is typed.
    try:
        port = url.port
    except ValueError:
        port = -1
    if port == -1 or url.username is not None or url.password is not None:
        raise OnlineError(
            _("{url} is not a server's address: give it as http://HOST:PORT").format(url=text)
        )
    host = url.hostname if ":" not in url.hostname else f"[{url.hostname}]"
    if port is not None and port != {"http": 80, "https": 443}[url.scheme]:
        host = f"{host}:{port}"
    return urllib.parse.urlunsplit((url.scheme, host, url.path.rstrip("/"), "", ""))


@dataclass
class Seating:
    """A seat taken at a table: where it is, its credential, and (for a table just opened) the
    links to send to the people invited."""

    server: Server
    table: str
    #: ``None`` for a spectator, who watches and cannot act.
    seat: int | None
    token: str
    #: ``(seat, link)`` of each other person's seat at a table this player opened.
    invites: list[tuple[int, str]] = field(default_factory=list)
    #: The link anyone may watch the table by (a table this player opened).
    spectate: str | None = None


def abort_asked(
    before: dict[str, Any] | None, table: dict[str, Any], seat: int | None
) -> list[int]:
    """The other people who asked to abort since the table's last message, while this seat
    (a person's, not a spectator's) has not: each is told once, with how to agree."""
    asked = [p for p in table.get("abort") or [] if type(p) is int]
    if seat is None or seat in asked or not table.get("abortable"):
        return []
    earlier = (before or {}).get("abort") or []
    return [p for p in asked if p != seat and p not in earlier]


def offered_again(
    before: dict[str, Any] | None, table: dict[str, Any], seat: int | None
) -> str | None:
    """The name of the person who asked to play again, when ``table`` (the table's message)
    is the first to say so and it was not ``seat``."""
    rematch = table.get("rematch")
    if not isinstance(rematch, dict) or (before or {}).get("rematch") or seat is None:
        return None
    by = rematch.get("by")
    names = seat_names(table)
    if type(by) is not int or by == seat or not 0 <= by < len(names):
        return None
    return names[by]


def others_at(table: dict[str, Any] | None, seat: int | None) -> bool:
    """Other people sit at the table with ``seat`` (someone to play again with; a spectator,
    ``None``, has nobody)."""
    return seat is not None and any(
        s.get("kind") == HUMAN and s.get("name") and s.get("seat") != seat
        for s in (table or {}).get("seats") or []
    )


def stand_in_of(table: dict[str, Any] | None) -> str:
    """The table's stand-in: the bot that plays a seat its person gave up or left."""
    return str((table or {}).get("stand_in") or "medium")


def seats_for_a_bot(table: dict[str, Any] | None, seat: int | None) -> list[int]:
    """The free people's seats this seat may give to the table's stand-in bot: a person seated
    at an unrated table still waiting (``seat_bot`` in ``docs/protocol.md``)."""
    table = table or {}
    if seat is None or table.get("status") != "waiting" or table.get("rated"):
        return []
    return [
        s["seat"]
        for s in table.get("seats") or []
        if s.get("kind") == HUMAN and not s.get("name") and type(s.get("seat")) is int
    ]


def bot_for_a_seat(table: dict[str, Any] | None, free: int) -> str:
    """``Let the medium bot play seat 3``: what giving the free seat to the stand-in does."""
    bot = bot_level(stand_in_of(table))
    return _("Let the {bot} bot play seat {number}").format(bot=bot, number=free + 1)


def duration(seconds: float) -> str:
    """A span of time in words, as the browser says it: ``5 min``, ``1 day``, ``1 min 30 s``."""
    rest = max(0, round(seconds))
    days, rest = divmod(rest, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [ngettext("{count} day", "{count} days", days).format(count=days)] if days else []
    if hours:
        parts.append(_("{count} h").format(count=hours))
    if minutes:
        parts.append(_("{count} min").format(count=minutes))
    if secs or not parts:
        parts.append(_("{count} s").format(count=secs))
    return " ".join(parts)


def pace_words(pace: dict[str, Any] | None) -> str:
    """A table's pace (its ``table`` message's ``pace``) in words, with what it means for a
    person who lets their time run out."""
    pace = pace or {}
    kind = pace.get("kind")
    if kind == "live":
        return (
            _("Live: {base} + {increment} a move").format(
                base=duration(float(pace.get("base") or 0)),
                increment=duration(float(pace.get("increment") or 0)),
            )
            + ". "
            + _(
                "Each person has a clock. Whoever runs out of time, or is disconnected for "
                "{away}, is played by the stand-in bot until they come back."
            ).format(away=duration(float(pace.get("away") or 60)))
        )
    if kind == "turn":
        return (
            _("Turn-based: {time} a move").format(time=duration(float(pace.get("per_move") or 0)))
            + ". "
            + _(
                "Each move has its time; whoever lets it run out is played by the stand-in bot "
                "until they come back."
            )
        )
    return _("Untimed")


def move_time_left(
    clock: dict[str, Any] | None, seat: int | None, since: float = 0.0
) -> str | None:
    """The time ``seat`` has left for the move it is to make, in words, at a turn-based table
    (``since``: seconds since the clock was sent); None where no such deadline runs."""
    if not clock or seat is None or clock.get("running") != seat:
        return None
    deadline, now = clock.get("deadline"), clock.get("now")
    if not isinstance(deadline, (int, float)) or not isinstance(now, (int, float)):
        return None
    return duration((deadline - now) / 1000 - since)


def back_text(message: dict[str, Any], table: dict[str, Any] | None) -> str:
    """This seat's ``returned``: back, and how many moves the stand-in made meanwhile."""
    moves = message.get("moves")
    if type(moves) is not int or moves <= 0:
        return _("You are back in your seat.")
    return ngettext(
        "You are back in your seat: the {bot} bot made {count} move for you meanwhile.",
        "You are back in your seat: the {bot} bot made {count} moves for you meanwhile.",
        moves,
    ).format(bot=bot_level(stand_in_of(table)), count=moves)


def absence_text(message: dict[str, Any], names: list[str]) -> str:
    """``stand_in`` or ``returned`` of another person's seat, as the browser says it."""
    seat = message.get("seat")
    name = names[seat] if type(seat) is int and 0 <= seat < len(names) else "?"
    bot = bot_level(str(message.get("bot") or "medium"))
    if message.get("type") == "returned":
        return _("{name} is back and plays again.").format(name=name)
    said = {
        "time": _("{name}'s time ran out: the {bot} bot plays for them until they come back."),
        "away": _(
            "{name} has been away too long: the {bot} bot plays for them until they come back."
        ),
    }.get(str(message.get("reason")), _("{name} resigned: the {bot} bot plays on for them."))
    return said.format(name=name, bot=bot)


def bot_replaced_text(message: dict[str, Any], names: list[str]) -> str:
    """``bot_replaced``: a seat's bot could not move, and which bot played that move for it."""
    seat = message.get("seat")
    name = names[seat] if type(seat) is int and 0 <= seat < len(names) else "?"
    return _("{name} ({bot}) could not move: the {fallback} bot played this move for it.").format(
        name=name,
        bot=bot_level(str(message.get("bot", ""))),
        fallback=bot_level(str(message.get("fallback", ""))),
    )


def resign_question(table: dict[str, Any], names: list[str], seat: int | None) -> str:
    """Resign this game?, with what it does at this table (``docs/protocol.md``): with two
    people the other wins at once, else a bot plays the seat to the end."""
    if table.get("resign") != "play_on" and table.get("players") == 2:
        others = ", ".join(n for p, n in enumerate(names) if p != seat)
        what = _("The game ends at once and {name} wins.").format(name=others)
    else:
        bot = bot_level(stand_in_of(table))
        what = _("The {bot} bot plays your seat to the end; you cannot take it back.").format(
            bot=bot
        )
    return _("Resign this game?") + " " + what


def join_command(seating: Seating) -> str:
    """The command that takes this seat back (any of the player's terminals: the key is the
    player's): what a quick game, a --find or an invite link does not say by itself."""
    return f"piepmatz play --server {seating.server.url} --join {seating.table}"


class Server:
    """One game server's HTTP API, answered in the player's language."""

    def __init__(self, url: str) -> None:
        self.url = server_url(url)

    def ws_url(self, table: str, lang: str) -> str:
        """The table's WebSocket, in ``lang`` (its log, previews and refusals)."""
        scheme = "wss" if self.url.startswith("https:") else "ws"
        rest = self.url.split("://", 1)[1]
        return f"{scheme}://{rest}/ws/{table}?lang={lang}"

    def request(
        self,
        path: str,
        body: dict[str, Any] | None = None,
        key: str | None = None,
        method: str | None = None,
    ) -> Any:
        """``GET`` (or with ``body``, ``POST``; or ``method``) ``/api/PATH``; the answer's JSON
        (``None`` for none), or :class:`OnlineError` with the server's refusal or why it could
        not be reached."""
        headers = {"Accept-Language": current_language(), "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if key is not None:
            headers["Authorization"] = f"Bearer {key}"
        request = urllib.request.Request(self.url + "/api/" + path, data, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
                text = answer.read()
                return json.loads(text) if text else None
        except urllib.error.HTTPError as exc:
            raise OnlineError(refusal(exc), exc.code) from None
        except (urllib.error.URLError, OSError) as exc:
            raise OnlineError(unreachable(self.url, exc)) from None
        except ValueError:
            raise self._strange() from None

    # ------------------------------------------------------------- what a player asks

    def open_tables(self) -> list[dict[str, Any]]:
        """The public tables waiting for people."""
        return self._listed(self.request("tables"))

    def table(self, table: str) -> dict[str, Any]:
        return self._object(self.request(f"tables/{_table_id(table)}"))

    def my_games(self, key: str) -> dict[str, Any]:
        """The tables this player key sits at (``GET /api/games``)."""
        games = self._object(self.request("games", key=key))
        return {k: self._listed(games.get(k, [])) for k in ("playing", "finished")}

    def open_table(self, seats: list[str], name: str, **options: Any) -> Seating:
        """A table with friends (``POST /api/tables``): the creator's seat and the invites."""
        body = {"seats": seats, "name": name, "deal_part": deal_part(), **options}
        answer = self.request("tables", {k: v for k, v in body.items() if v is not None})
        return self._seated(answer)

    def quick(self, name: str, **options: Any) -> Seating:
        """One person against bots, started at once (``POST /api/quick``)."""
        body = {"name": name, "deal_part": deal_part(), **options}
        return self._seated(self.request("quick", {k: v for k, v in body.items() if v is not None}))

    def join(self, table: str, name: str, token: str | None, **options: Any) -> Seating:
        """Sit down at ``table`` by its invite's ``token``, or (None) at a public table's first
        free seat."""
        body = {"name": name, "token": token, "deal_part": deal_part(), **options}
        path = f"tables/{_table_id(table)}/join"
        return self._seated(self.request(path, {k: v for k, v in body.items() if v is not None}))

    def rematch(self, seating: Seating) -> Seating:
        """Play again with the same people (``POST /api/tables/{id}/rematch``): at the new
        table someone opened, or at one opened now, at this seat."""
        body = {"token": seating.token, "deal_part": deal_part()}
        if seating.token != player_key(self.url):
            body["player"] = player_key(self.url)  # "My games" lists the new table too
        return self._seated(self.request(f"tables/{_table_id(seating.table)}/rematch", body))

    def find(
        self,
        name: str,
        key: str,
        players: int,
        pace: str,
        tell: Callable[[str], None],
        bots_now: Callable[[], bool],
        every: float = 2.0,
    ) -> Seating:
        """ "Find a game" (``/api/seek``): wait, telling how it stands, until the server seats
        this player with others (then sit down, as the browser does), or, past the server's
        wait, ``bots_now()`` says to fill the empty seats with bots. Ctrl+C gives the seek up."""
        where = self._object(
            self.request("seek", {"players": players, "pace": pace, "name": name}, key=key)
        )
        said: tuple[object, ...] = ()
        try:
            while where.get("status") != "seated":
                ready = float(where.get("waited", 0)) >= float(where.get("bots_after", 0))
                now = (where.get("others"), ready)
                if now != said:  # told when it changes, not at every question
                    said = now
                    tell(_seek_text(where, ready))
                if ready and bots_now():
                    try:
                        body = {"deal_part": deal_part()}
                        return self._seated(self.request("seek/bots", body, key=key))
                    except OnlineError as exc:
                        # A moment too soon (409), or no longer seeking (404: seated
                        # meanwhile, which the next question tells): asked again.
                        if exc.status not in (404, 409):
                            raise
                time.sleep(every)
                where = self._object(self.request("seek", key=key))
        except KeyboardInterrupt:
            with contextlib.suppress(OnlineError):
                self.request("seek", key=key, method="DELETE")
            raise OnlineError(_("you stopped looking for a game")) from None
        table = str(where.get("table", ""))
        return self.join(table, name, None, player=key)

    # ------------------------------------------------------------- its answers, checked

    def _seated(self, answer: Any) -> Seating:
        """The seat an answer gives: its table and token checked, as they go into addresses
        and messages later."""
        try:
            table, seat, token = answer["table"], answer["seat"], answer["token"]
            invites = [(i["seat"], i["link"]) for i in answer.get("invites", [])]
            spectate = answer.get("spectate")
        except (LookupError, TypeError, AttributeError):
            raise self._strange() from None
        if not (
            isinstance(table, str)
            and TABLE_ID.match(table)
            and type(seat) is int
            and isinstance(token, str)
            and TOKEN.match(token)
            and all(type(s) is int and isinstance(link, str) for s, link in invites)
        ):
            raise self._strange()
        watch = spectate if isinstance(spectate, str) else None
        return Seating(self, table, seat, token, invites, watch)

    def _object(self, answer: Any) -> dict[str, Any]:
        if not isinstance(answer, dict):
            raise self._strange()
        return answer

    def _listed(self, answer: Any) -> list[dict[str, Any]]:
        if not isinstance(answer, list) or not all(isinstance(a, dict) for a in answer):
            raise self._strange()
        return answer

    def _strange(self) -> OnlineError:
        return OnlineError(
            _("{url} answered, but not as a Piepmatz server does").format(url=self.url)
        )


def _seek_text(where: dict[str, Any], ready: bool) -> str:
    """How a seek stands, in a line: the game looked for, how many others wait, the bots."""
    others = int(where.get("others", 0))
    line = ngettext(
        "Looking for a game of {players} players ({pace}): {count} other person waits for it.",
        "Looking for a game of {players} players ({pace}): {count} other people wait for it.",
        others,
    ).format(players=where.get("players"), pace=where.get("pace"), count=count(others))
    if ready:
        return line + " " + _("Press Enter to fill the empty seats with bots now; Ctrl+C gives up.")
    return line + " " + _("Ctrl+C gives up.")


def _table_id(table: str) -> str:
    if not TABLE_ID.match(table):
        raise OnlineError(_("{table} is not a table's id").format(table=table))
    return table


def table_rules(view: PlayerView | None, table: dict[str, Any] | None) -> Rules:
    """The rules of an online table's game: its view's once dealt, else as its ``table``
    message names them (the standard rules for a name this version cannot read)."""
    if view is not None:
        return view.rules
    try:
        return Rules.parse(str((table or {}).get("rules") or "standard"))
    except PiepmatzError:
        return Rules.preset("standard")


def seat_names(table: dict[str, Any] | None, players: int | None = None) -> list[str]:
    """Each seat's name from a ``table`` message: a person's own, a bot as "Bot N" (as the
    server's log names them); ``players`` seats where the table names fewer."""
    seats = table["seats"] if table else []
    out = []
    for p in range(len(seats) if players is None else players):
        info = seats[p] if p < len(seats) else {}
        if info.get("kind", HUMAN) == HUMAN:
            out.append(info.get("name") or _("(free seat)"))
        else:
            out.append(bot_name(p))
    return out


def seat_labels(table: dict[str, Any] | None, names: list[str], seat: int | None) -> list[str]:
    """The seats as the table shows them: this terminal's marked "(you)", a bot's level."""
    seats = table["seats"] if table else []
    kinds = [seats[p]["kind"] if p < len(seats) else HUMAN for p in range(len(names))]
    labels = records.seat_labels(kinds, len(names), names)
    if seat is not None and 0 <= seat < len(labels):
        labels[seat] = _("{seat} (you)").format(seat=names[seat])
    return labels


def ending_text(ending: dict[str, Any], names: list[str]) -> str:
    """How a game that was not played out ended: aborted, or resigned."""
    if ending.get("how") == "aborted":
        return _("The game was aborted: nobody wins.")
    seat = ending.get("seat")
    who = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"
    winners = ", ".join(names[w] for w in ending.get("winners", []) if 0 <= w < len(names))
    return _("{player} resigned: {winners} wins.").format(player=who, winners=winners)


def hint_line(message: dict[str, Any], action: str) -> str:
    """A ``hint`` message told in a line, its action given as ``action`` (in words or the
    engine's notation)."""
    head = _("Hint ({bot} bot)").format(bot=bot_level(str(message.get("bot", ""))))
    return (
        head
        + ": "
        + _(
            "{action} — expected lead {lead} ± {spread} points, win chance {win} "
            "(from your view, {worlds} sampled worlds)"
        ).format(
            action=action,
            lead=decimal(float(message["lead"]), signed=True),
            spread=decimal(float(message["lead_spread"])),
            win=percent(float(message["win"])),
            worlds=count(int(message["worlds"])),
        )
    )


def dicts(value: object) -> list[dict[str, Any]]:
    """The objects of a list in a server's answer (anything else left out: only shown)."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _seats(given: Any) -> dict[str, Any]:
    """The seats of a server's answer as a ``table`` message has them, as far as they are
    shown: each seat's kind, and a person's name (anything else left out)."""
    seats = []
    for seat in dicts(given):
        name = seat.get("name")
        kind = str(seat.get("kind", HUMAN))
        seats.append({"kind": kind, "name": name if isinstance(name, str) else None})
    return {"seats": seats}


def ended_as(ending: Any, names: list[str], seat: Any) -> str:
    """How a finished game ended, in a few words for a list of games ("you won", "Anna won",
    "Ben resigned, Anna won", "aborted, no winner"), as the browser's "My games" says it."""
    if not isinstance(ending, dict):
        return ""
    if ending.get("how") == "aborted":
        return _("aborted, no winner")
    named = range(len(names))
    given = ending.get("winners")
    winners = [w for w in given if type(w) is int and w in named] if isinstance(given, list) else []
    who = ", ".join(names[w] for w in winners)
    if not winners:  # not what a server sends: nothing to tell
        return ""
    if ending.get("how") == "resigned" and ending.get("seat") in named:
        return _("{loser} resigned, {winner} won").format(loser=names[ending["seat"]], winner=who)
    if seat in winners:
        return _("shared win: {names}").format(names=who) if len(winners) > 1 else _("you won")
    return _("{names} won").format(names=who)


def games_text(games: dict[str, Any], site: str) -> str:
    """``piepmatz games``: a server's "My games" as the browser's page lists it: the tables
    waiting for this player's move, those waiting for others, the finished games; each with
    its seats, how far it went or how it ended, and the command that goes back to it."""

    playing = dicts(games.get("playing"))
    sections = [
        (_("Your turn"), [g for g in playing if g.get("your_turn")]),
        (_("Waiting for others"), [g for g in playing if not g.get("your_turn")]),
        (_("Finished"), dicts(games.get("finished"))),
    ]
    out = []
    for heading, listed in sections:
        out.append(f"{heading} ({len(listed)})")
        if not listed:
            out.append("  " + _("None right now."))
        for game in listed:
            table, seat = str(game.get("table")), game.get("seat")
            over = game.get("status") == "over"
            # Each seat's kind and name (a server that sends only names: people by them).
            seats = _seats(game.get("seats") or [{"name": n} for n in game.get("players") or []])
            names = seat_names(seats)
            facts = [", ".join(seat_labels(seats, names, seat if isinstance(seat, int) else None))]
            if game.get("status") == "waiting":
                facts.append(_("waiting for people to join"))
            else:
                move = game.get("move")
                moves = move if isinstance(move, int) else 0
                played = ngettext("{count} move played", "{count} moves played", moves)
                facts.append(played.format(count=moves))
            if over:
                facts.append(ended_as(game.get("ending"), names, seat))
            elif game.get("absent"):
                facts.append(_("a bot plays for you"))
            facts = [_("Table {table}").format(table=table), *filter(None, facts)]
            out.append("  " + " · ".join(facts))
            if over:
                out.append(f"    piepmatz replay {site}/replay/{table}")
            else:
                out.append(f"    piepmatz play --server {site} --join {table}")
    return "\n".join(out)


def open_tables_text(tables: list[Any], site: str) -> str:
    """``play --list``: the public tables waiting for people, each with its rules, pace and
    seats (as the lobby names them) and the command that joins it."""
    if not tables:
        return _("No public table is waiting for people at {server}.").format(server=site)
    lines = []
    for table in dicts(tables):
        seats = _seats(table.get("seats"))
        pace = table.get("pace")
        facts = [
            _("Table {table}").format(table=table.get("table")),
            rules_words(str(table.get("rules", ""))),
            str(pace.get("name", "")) if isinstance(pace, dict) else "",
            ", ".join(seat_labels(seats, seat_names(seats), None)),
        ]
        lines.append(" · ".join(fact for fact in facts if fact))
        lines.append(f"    piepmatz play --server {site} --join {table.get('table')}")
    return "\n".join(lines)


def deal_part() -> str:
    """This player's part of the deal (``docs/protocol.md``, "A deal nobody could choose"):
    randomness of the terminal's own, so that the server alone cannot choose the deal."""
    return secrets.token_urlsafe(32)


# ----------------------------------------------------------------- the player key


def keys_path() -> Path:
    return data_dir() / "player-keys.json"


def player_key(server: str, path: Path | None = None) -> str:
    """This terminal's player key at ``server`` (made and kept on first use): the server's "My
    games" lists the tables it sat down with, across runs. One key per server, as a browser
    keeps one per site: a key is a credential, and a server must not learn another's."""
    path = keys_path() if path is None else path
    keys = _read_keys(path)
    if server not in keys:
        keys[server] = secrets.token_urlsafe(32)  # 32 bytes, 43 characters, as the browser's
        _keep(path, keys, _read_name(path))
    return keys[server]


#: The longest name at a table, as the browser's field allows.
NAME_LENGTH: Final = 32
#: The longest chat line a server takes (``server.plaintext.MAX_CHAT``; a test holds them
#: equal): a longer one is told here, in the player's words, not sent to be refused.
CHAT_LENGTH: Final = 500


def table_name(
    given: str | None, path: Path | None = None, ask: Callable[[str], str] | None = None
) -> str:
    """The name the other people at a table see: ``given`` (``--name``), else the one given
    last time, else asked once (``ask``, the terminal's prompt; ``None`` when nobody can answer)
    and kept beside the player keys. Never the login name: strangers would read it."""
    path = keys_path() if path is None else path
    if given is None:
        given = _read_name(path)
    if given is None:
        if ask is None:
            raise OnlineError(
                _("give your name at the table with --name NAME: the other players see it")
            )
        prompt = _("Your name at the table (the other players see it): ")
        while True:  # a name the server would refuse is asked again, never kept
            try:
                given = ask(prompt).strip()
            except (EOFError, KeyboardInterrupt):
                raise OnlineError(_("no name was given: nothing was played")) from None
            wrong = name_problem(given) if given else None
            if given and wrong is None:
                break
            prompt = (wrong + "\n" if wrong else "") + _(
                "Your name at the table (the other players see it): "
            )
    name = given.strip()
    wrong = name_problem(name)
    if wrong is not None:
        raise OnlineError(wrong)
    if name != _read_name(path):
        _keep(path, _read_keys(path), name)
    return name


def name_problem(name: str) -> str | None:
    """What the server would refuse in a name at the table (its length; a control or
    formatting character, which could move another player's terminal), or None."""
    if not name or len(name) > NAME_LENGTH:
        return _("a name at the table has 1 to {most} characters").format(most=NAME_LENGTH)
    if shown(name) != name:
        return _("a name at the table is plain text on one line, without control characters")
    return None


def _keep(path: Path, keys: dict[str, str], name: str | None) -> None:
    """Write the keys (and the name) readable by their owner only; a failure to write is
    silent: this run plays on, and the next one does not remember."""
    doc: dict[str, object] = {"format": KEYS_FORMAT, "keys": keys}
    if name is not None:
        doc["name"] = name
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Readable by its owner only from the start: the keys are credentials.
        tmp = path.with_name(path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps(doc, indent=1) + "\n")
        tmp.replace(path)
    except OSError:
        pass


def _read_doc(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) and doc.get("format") == KEYS_FORMAT else {}


def _read_name(path: Path) -> str | None:
    name = _read_doc(path).get("name")
    return name if isinstance(name, str) and 0 < len(name.strip()) <= NAME_LENGTH else None


def _read_keys(path: Path) -> dict[str, str]:
    keys = _read_doc(path).get("keys")
    if not isinstance(keys, dict):
        return {}
    return {
        k: v
        for k, v in keys.items()
        if isinstance(k, str) and isinstance(v, str) and re.fullmatch(r"[A-Za-z0-9_-]{43}", v)
    }
