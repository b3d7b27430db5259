"""The server's log: the standard :mod:`logging`, one line a record with its time, level and
logger name (``text``), or one JSON object a line for log collectors (``json``).

A warning or an error that repeats (``database unavailable`` while PostgreSQL restarts, once
per refused request) is written once per window: the copies in between are counted, and the
next one written after the window says how many were held back; if none comes, the last copy
held back says it once the window is over (or when the server stops). Seat tokens never reach the
log (:mod:`.logfilter`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import IO

from .logfilter import keep_tokens_out_of_logs

#: The formats ``--log-format`` offers.
FORMATS = ("text", "json")
#: Every line of the text format: when, how bad, who, what.
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
#: Seconds within which the same warning or error is written once.
REPEAT_WINDOW = 15.0


class JsonFormatter(logging.Formatter):
    """One JSON object a record: ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``message``
    and, with an exception, ``exception`` (its traceback). Six lines of the standard library
    do what a dependency would."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


class Repeats(logging.Filter):
    """Lets the first of a warning or an error through and holds back the same one (the same
    logger, level and message before its arguments are filled in) for ``window`` seconds; the
    next one let through after that says how many were held back."""

    def __init__(self, window: float = REPEAT_WINDOW, clock: Callable[[], float] = time.monotonic):
        super().__init__()
        self.window = window
        self.clock = clock
        #: When each message was last written, and the copies held back since.
        self.seen: dict[tuple[str, int, str], tuple[float, int]] = {}
        #: The last copy held back of each message, told when nothing else tells the count.
        self.last: dict[tuple[str, int, str], logging.LogRecord] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING or getattr(record, "held_back", False):
            return True
        key = (record.name, record.levelno, str(record.msg))
        now = self.clock()
        written, held = self.seen.get(key, (None, 0))
        if written is not None and now - written < self.window:
            self.seen[key] = (written, held + 1)
            self.last[key] = record
            return False
        self.last.pop(key, None)
        if len(self.seen) >= 1024:  # messages are templates: a few dozen in practice
            self.seen = {k: v for k, v in self.seen.items() if now - v[0] < self.window}
            self.last = {k: v for k, v in self.last.items() if k in self.seen}
        self.seen[key] = (now, 0)
        if held:
            message = record.getMessage()
            since = now - written if written is not None else 0.0
            record.msg = f"{message} ({held} more like it held back in the last {since:.0f} s)"
            record.args = None
        return True

    def due(self, every: bool = False) -> list[logging.LogRecord]:
        """The counts no later copy told: for each message held back whose window has passed
        (``every``: all of them, as the server stops), its last copy saying how many were held
        back (the count then starts again)."""
        now = self.clock()
        out = []
        for key, (written, held) in list(self.seen.items()):
            over = every or now - written >= self.window
            if held and over and (record := self.last.pop(key, None)):
                self.seen[key] = (written, 0)
                message = record.getMessage()
                told = logging.makeLogRecord(record.__dict__)
                told.msg = (
                    f"{message} ({held} more like it held back in the last {now - written:.0f} s)"
                )
                told.args, told.exc_info, told.exc_text = None, None, None
                told.held_back = True
                out.append(told)
        return out


def tell_held_back(stopping: bool = False) -> None:
    """Write the counts of repeated warnings and errors that no later copy told: those whose
    window has passed (called every window while the server runs), or all (``stopping``)."""
    handler = _installed
    if handler is None:
        return
    for kept in handler.filters:
        if isinstance(kept, Repeats):
            for record in kept.due(stopping):
                handler.handle(record)


async def keep_telling_held_back(every: float = REPEAT_WINDOW) -> None:
    """:func:`tell_held_back` every ``every`` seconds, until cancelled."""
    while True:
        await asyncio.sleep(every)
        tell_held_back()


class _StandardError(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is when a record comes (as logging's last resort
    does), not to the one there was when it was set up."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> IO[str]:
        return sys.stderr

    @stream.setter
    def stream(self, _value: IO[str]) -> None:
        pass


#: The handler :func:`configure` set up last.
_installed: logging.Handler | None = None


def configure(
    level: str = "info", form: str = "text", stream: IO[str] | None = None
) -> logging.Handler:
    """Send every logger's records at ``level`` and above (the server's and uvicorn's) to
    ``stream`` (standard error) in ``form``; replaces what an earlier call set up."""
    if form not in FORMATS:
        raise ValueError(f"log format {form!r}: one of {', '.join(FORMATS)}")
    global _installed
    handler: logging.Handler = (
        logging.StreamHandler(stream) if stream is not None else _StandardError()
    )
    handler.setFormatter(JsonFormatter() if form == "json" else logging.Formatter(TEXT_FORMAT))
    handler.addFilter(Repeats())
    root = logging.getLogger()
    if _installed is not None:
        root.removeHandler(_installed)
    root.addHandler(handler)
    _installed = handler
    root.setLevel(level.upper())
    # uvicorn's own loggers pass their records on to this handler (uvicorn sets no handlers
    # when started with log_config=None), at the same level.
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
        logger.setLevel(level.upper())
    # Alembic says at info which plugins it set up, on every start: nobody's business.
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
    keep_tokens_out_of_logs()
    return handler


__all__ = [
    "FORMATS",
    "REPEAT_WINDOW",
    "TEXT_FORMAT",
    "JsonFormatter",
    "Repeats",
    "configure",
    "keep_telling_held_back",
    "tell_held_back",
]
