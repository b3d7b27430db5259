"""The server's words, each defined once: a table's status and the codes of its refusals. The
protocol sends their values; the browser gets the lists from the server (``/api/i18n``'s
registries) rather than writing them again.
"""

from __future__ import annotations

from enum import StrEnum


class TableStatus(StrEnum):
    """Where a table is, in the order it goes through: waiting for people, playing, over."""

    WAITING = "waiting"
    PLAYING = "playing"
    OVER = "over"

    def latest(self, other: str) -> TableStatus:
        """The further along of this and ``other`` (news from elsewhere may come late)."""
        order = list(TableStatus)
        return max(self, TableStatus(other), key=order.index)


class SeekStatus(StrEnum):
    """Where a player's "Find a game" stands: waiting for others, or seated at a table."""

    WAITING = "waiting"
    SEATED = "seated"


class Absence(StrEnum):
    """Why a stand-in bot plays a person's seat (``seats.absent``)."""

    TIME = "time"  # their time ran out
    AWAY = "away"  # disconnected longer than the pace allows
    RESIGNED = "resigned"  # for good


class Ending(StrEnum):
    """How a game ended (``ending.how``)."""

    PLAYED_OUT = "played_out"
    RESIGNED = "resigned"  # a two-player game, by a resignation
    ABORTED = "aborted"


class ErrorCode(StrEnum):
    """Why a message or a request was refused (``error.code``; docs/protocol.md lists them)."""

    MALFORMED = "malformed"
    TOO_LONG = "too_long"
    HELLO_FIRST = "hello_first"
    HELLO_AGAIN = "hello_again"
    BAD_TOKEN = "bad_token"
    NOT_JOINED = "not_joined"
    NO_TABLE = "no_table"
    SPECTATOR = "spectator"
    NOT_PLAYING = "not_playing"
    STALE = "stale"
    NOT_YET = "not_yet"
    ILLEGAL = "illegal"
    NOT_YOUR_TURN = "not_your_turn"
    UNAVAILABLE = "unavailable"
    STORAGE = "storage"
    RATE_LIMITED = "rate_limited"
    TOO_MANY_CONNECTIONS = "too_many_connections"
    FULL = "full"
    SEAT_TAKEN = "seat_taken"
    HINTS_OFF = "hints_off"
    HINT_BUSY = "hint_busy"
    HINT_FAILED = "hint_failed"
    RESIGNED = "resigned"
    NOT_ABORTABLE = "not_abortable"
    STOOD_IN = "stood_in"
    BANNED = "banned"
    NOT_AT_TABLE = "not_at_table"
    OWN_SEAT = "own_seat"
    NO_SEAT = "no_seat"
    NO_PLAYER = "no_player"
    NOT_WAITING = "not_waiting"
    PEOPLE_ONLY = "people_only"
    CHAT_OFF = "chat_off"


class ReportReason(StrEnum):
    """Why a table is reported to the operator (``reports.reason``): the short list a person
    chooses from, beside their own words."""

    ABUSE = "abuse"  # insults or harassment in the chat
    CHEATING = "cheating"  # playing together against others, or with help
    STALLING = "stalling"  # holding the table up, leaving on purpose
    SPAM = "spam"
    OTHER = "other"


__all__ = ["Absence", "Ending", "ErrorCode", "ReportReason", "SeekStatus", "TableStatus"]
