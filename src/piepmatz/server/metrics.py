"""What the server counts, in Prometheus' format (the official ``prometheus-client``), at
``/metrics``: moves, the time from an action to its ``ack``, open connections and tables by
status, bot decisions and their time, bots replaced, refusals by code, database errors and
commit time, news on the bus and the gaps in it.

Counted in the server process as plain numbers in memory (a few hundred nanoseconds each); the
bot workers count the time they think in files of a directory of their own (the client's
multiprocess mode), which ``/metrics`` adds up. No label names a table, a seat, a card or a
token: what one reads here is the same for every table.

The hot paths call ``metrics.NAME.inc()`` through this module, so that :func:`turn_off` (``serve
--metrics off``) replaces every instrument with one that does nothing.
"""

from __future__ import annotations

import ipaddress
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from .vocabulary import TableStatus

if TYPE_CHECKING:
    from .hub import Hub

#: The server process's instruments.
REGISTRY = CollectorRegistry()
ProcessCollector(registry=REGISTRY)  # CPU seconds, memory, open files: the process's own

#: From a few milliseconds (a move stored and told) to seconds (a database that waits).
_FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
#: A bot's decision: from the levels' instant answers to the hard bot's second and the ceiling.
_THINK = (0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0)

_moves = Counter("piepmatz_moves", "Moves stored, by who made them", ["by"], registry=REGISTRY)
MOVES_PERSON = _moves.labels("person")
MOVES_BOT = _moves.labels("bot")
MOVES_STAND_IN = _moves.labels("stand_in")
ACK_SECONDS = Histogram(
    "piepmatz_move_ack_seconds",
    "Seconds from a person's action read to its ack sent (stored and told)",
    buckets=_FAST,
    registry=REGISTRY,
)
CONNECTIONS = Gauge(
    "piepmatz_connections", "Open WebSockets (seats and spectators)", registry=REGISTRY
)
BOT_DECISIONS = Counter(
    "piepmatz_bot_decisions", "Moves bots were asked for (stand-ins too)", registry=REGISTRY
)
BOT_DECISION_SECONDS = Histogram(
    "piepmatz_bot_decision_seconds",
    "Seconds from asking a bot for a move to its answer, waiting for a worker included",
    buckets=_THINK,
    registry=REGISTRY,
)
BOTS_REPLACED = Counter(
    "piepmatz_bots_replaced",
    "Bot moves played by the fallback bot instead, by why",
    ["reason"],
    registry=REGISTRY,
)
REFUSALS = Counter(
    "piepmatz_refusals",
    "Messages refused with an error, by its code",
    ["code"],
    registry=REGISTRY,
)
DATABASE_ERRORS = Counter(
    "piepmatz_database_errors",
    "Database operations that failed for the database's own reasons (away, full)",
    registry=REGISTRY,
)
COMMIT_SECONDS = Histogram(
    "piepmatz_database_commit_seconds",
    "Seconds a group commit of moves took",
    buckets=_FAST,
    registry=REGISTRY,
)
_bus = Counter(
    "piepmatz_bus_messages", "News on the Redis bus, by direction", ["direction"], registry=REGISTRY
)
BUS_SENT = _bus.labels("sent")
BUS_HEARD = _bus.labels("heard")
BUS_GAPS = Counter(
    "piepmatz_bus_gaps",
    "News found missing (a move or a seat not heard) and read from the database instead",
    registry=REGISTRY,
)

#: The bot workers' instrument, made in each worker (:func:`worker_started`).
THINK_NAME = "piepmatz_bot_think_seconds"
THINK_HELP = "Seconds a bot worker spent on one piece of work, by kind (move, hint, review)"


class _Nothing:
    """An instrument that counts nothing (``--metrics off``)."""

    def inc(self, amount: float = 1) -> None:
        pass

    def dec(self, amount: float = 1) -> None:
        pass

    def observe(self, amount: float) -> None:
        pass

    def labels(self, *values: str) -> _Nothing:
        return self


_INSTRUMENTS = (
    "MOVES_PERSON",
    "MOVES_BOT",
    "MOVES_STAND_IN",
    "ACK_SECONDS",
    "CONNECTIONS",
    "BOT_DECISIONS",
    "BOT_DECISION_SECONDS",
    "BOTS_REPLACED",
    "REFUSALS",
    "DATABASE_ERRORS",
    "COMMIT_SECONDS",
    "BUS_SENT",
    "BUS_HEARD",
    "BUS_GAPS",
)


def turn_off() -> None:
    """Count nothing in this process from now on (``serve --metrics off``)."""
    nothing = _Nothing()
    for name in _INSTRUMENTS:
        globals()[name] = nothing


#: The tables by status, counted when asked (:class:`TablesCollector`).
TABLES_NAME = "piepmatz_tables"


class TablesCollector(Collector):
    """The tables a process holds, by status, read when ``/metrics`` is asked."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            TABLES_NAME, "Tables this process holds, by status", labels=["status"]
        )
        counts = dict.fromkeys(TableStatus, 0)
        for room in list(self.hub.rooms.values()):
            counts[room.status] += 1
        for status, count in counts.items():
            family.add_metric([status.value], count)
        yield family


class Metrics:
    """One app's ``/metrics``: the process's instruments, its tables and what its bot workers
    wrote to ``directory`` (made here, removed at :meth:`close`)."""

    def __init__(self, allow: Iterable[str]) -> None:
        self.allow = [ipaddress.ip_network(a, strict=False) for a in allow]
        self.directory = tempfile.mkdtemp(prefix="piepmatz-metrics-")
        self.tables: TablesCollector | None = None
        self.workers = CollectorRegistry()
        MultiProcessCollector(self.workers, path=self.directory)  # type: ignore[no-untyped-call]

    def watch(self, hub: Hub) -> None:
        """Count ``hub``'s tables from now on."""
        self.tables = TablesCollector(hub)
        REGISTRY.register(self.tables)

    def allowed(self, address: str) -> bool:
        """Whether a client at ``address`` may read the metrics."""
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.allow)

    def exposition(self) -> bytes:
        return generate_latest(REGISTRY) + generate_latest(self.workers)

    def close(self) -> None:
        if self.tables is not None:
            REGISTRY.unregister(self.tables)
        shutil.rmtree(self.directory, ignore_errors=True)


def allow_list(text: str) -> list[str]:
    """``--metrics-allow``'s addresses and networks, or ValueError naming the one that is not."""
    found = [part.strip() for part in text.split(",") if part.strip()]
    for part in found:
        try:
            ipaddress.ip_network(part, strict=False)
        except ValueError:
            raise ValueError(f"{part!r} is not an address or a network") from None
    return found


# ---------------------------------------------------------------------- in the bot workers

_think: Any = None


def worker_started(directory: str | None) -> None:
    """In a bot worker, before anything counts: write to ``directory`` (``None``: count
    nothing). The client chooses how to keep numbers when it is first imported, which is why
    the workers import it only here."""
    global _think
    if directory is None:
        return
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = directory
    from prometheus_client import values

    values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]
    _think = Histogram(THINK_NAME, THINK_HELP, ["work"], buckets=_THINK, registry=None)


def thought(work: str, seconds: float) -> None:
    """A bot worker spent ``seconds`` on a piece of ``work``."""
    if _think is not None:
        _think.labels(work).observe(seconds)


__all__ = [
    "REGISTRY",
    "Metrics",
    "TablesCollector",
    "allow_list",
    "thought",
    "turn_off",
    "worker_started",
]
