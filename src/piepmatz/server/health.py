"""Whether the process is ready for players, as load balancers and Kubernetes ask
(``/readyz``): the database answers with the schema this version needs, the bus is connected
(with ``--redis``) and the bot workers are alive. A problem is said in a few fixed words (the
details, which may name hosts, go to the log)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from . import db

if TYPE_CHECKING:
    from .hub import Hub

log = logging.getLogger("piepmatz.server")

#: Seconds each check may take before it counts as failed (a probe's own timeout is ~1 s+).
CHECK_WITHIN = 2.0
#: What a check that passed says.
OK = "ok"


async def readiness(hub: Hub) -> dict[str, str]:
    """Each check's answer: :data:`OK` or what is wrong."""
    checks = {"database": await _database(hub)}
    if hub.bus is not None:
        checks["bus"] = await _bus(hub)
    checks["bots"] = hub.bots.alive() or OK
    return checks


async def _database(hub: Hub) -> str:
    try:
        async with asyncio.timeout(CHECK_WITHIN), hub.store.engine.connect() as conn:
            current = await conn.run_sync(db.current_revision)
    except Exception as exc:
        said = (str(exc) or repr(exc)).splitlines()[0]
        log.warning("not ready: the database does not answer: %s", said)
        return "the database does not answer"
    head = db.head_revision()
    if current != head:
        return f"the schema is at migration {current}, this server needs {head}"
    return OK


async def _bus(hub: Hub) -> str:
    assert hub.bus is not None
    if not hub.bus.listening():
        return "the Redis subscription is down"
    try:
        async with asyncio.timeout(CHECK_WITHIN):
            await hub.bus.redis.ping()
    except Exception as exc:
        log.warning("not ready: Redis does not answer: %s", exc)
        return "Redis does not answer"
    return OK


__all__ = ["CHECK_WITHIN", "OK", "readiness"]
