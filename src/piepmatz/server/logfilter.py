"""Keep seat tokens out of the server's logs.

At debug level the WebSocket library logs every frame it sends and receives, and a ``hello``
frame carries its seat's token: whoever reads the log could sit at that seat. Those frame dumps
are dropped; everything else the server and uvicorn log stays.
"""

from __future__ import annotations

import logging
import os

import websockets

_LIBRARY = os.path.dirname(websockets.__file__) + os.sep


class NoFrameDumps(logging.Filter):
    """Drops the WebSocket library's debug records (its frame-by-frame dumps)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.INFO or not record.pathname.startswith(_LIBRARY)


def keep_tokens_out_of_logs() -> None:
    """Install the filter on the loggers uvicorn hands the WebSocket library (idempotent)."""
    for name in ("uvicorn.error", "websockets.server", "websockets.protocol"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, NoFrameDumps) for f in logger.filters):
            logger.addFilter(NoFrameDumps())
