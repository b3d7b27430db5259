"""The garbage collector's schedule while the server serves: short young passes on a clock.

Reference counting frees what a move makes, and a move makes no cyclic garbage; the cycles the
collector exists for come from connections (uvicorn's HTTP protocol objects, left when a
request becomes a WebSocket). Python's automatic passes are triggered by allocations and scan
every young object still alive, and many tables keep many alive at any moment (every
connection's pending ``receive`` is a fresh chain of coroutines and futures after each message,
alive until the next one): each automatic pass, and more so one of the middle generation, which
holds the games' logs too, is a pause that every table waits out.

Here the automatic passes are off while serving, and the event loop runs its own:

- at the start, a full pass, then a freeze of what start-up built (the imported libraries, the
  resumed games), which lives as long as the server;
- a young pass every :data:`YOUNG_EVERY` seconds, which scans only what the last tenth of a
  second made and still holds (about a millisecond's work), and then freezes (``gc.freeze``)
  what survived it, so that no later pass scans it again;
- a full pass every :data:`FULL_EVERY` seconds, over everything, frozen or not, for the cycles
  that long-lived objects form when they die (a pause of about a second at 1,000 tables).

Frozen objects are still freed by reference counting; only a cycle among them waits for the
full pass. The server's own objects form none when a connection closes (tested), so that wait
costs little memory.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Awaitable, Callable

#: Seconds between young passes.
YOUNG_EVERY = 0.1
#: Seconds between full passes.
FULL_EVERY = 3600.0

log = logging.getLogger("piepmatz.server")


async def collect(
    young_every: float = YOUNG_EVERY,
    full_every: float = FULL_EVERY,
    *,
    now: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
) -> None:
    """Run the collector's passes on the clock (``now`` and ``sleep``: the event loop's unless
    a test moves time on itself) until cancelled. Automatic passes are off meanwhile;
    afterwards they are back as they were, and nothing stays frozen."""
    was_enabled = gc.isenabled()
    gc.disable()
    gc.collect()
    gc.freeze()
    full_due = now() + full_every
    try:
        while True:
            await sleep(young_every)
            if now() < full_due:
                gc.collect(0)
                gc.freeze()
                continue
            start = time.perf_counter()
            gc.unfreeze()
            found = gc.collect()
            gc.freeze()
            full_due = now() + full_every
            log.info(
                "collector: full pass, %.0f ms, %d objects in cycles freed",
                (time.perf_counter() - start) * 1000,
                found,
            )
    finally:
        gc.unfreeze()  # what this froze goes back to the collector's care
        if was_enabled:
            gc.enable()
