"""What one client may ask of the server: message rate, refused messages, open connections,
tables opened, reviews started, and when a player finding a game may ask for bots.

A person makes a move every few seconds and a page sends a handful of messages per move, so the
limits sit far above honest play and far below what would let one client slow a table down.
Every limit is answered first with an ``error`` (the message is not processed); a client that
keeps going past that is disconnected with close code 1008 and a reason.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from .vocabulary import ErrorCode

#: Messages a connection may send per second, sustained: twenty times what a quick player clicks.
MESSAGE_RATE = 20.0
#: Messages a connection may send at once (a page catching up after a reconnect sends a few).
MESSAGE_BURST = 40
#: Refused messages (errors) a connection may cause in a burst; refilled at one a second. Past
#: it the client is not talking the protocol (flooding, fuzzing) and is cut off.
REFUSED_BURST = 20
REFUSED_RATE = 1.0
#: Open WebSocket connections per client address: a family behind one router playing a few
#: tables, each with a few tabs, stays far below; one machine cannot hold thousands.
CONNECTIONS_PER_ADDRESS = 32
#: Tables (quick games included) one client address may open per minute, and at once: a
#: person starts a game every few minutes; a script opening hundreds fills the database.
TABLES_PER_MINUTE = 10.0
TABLES_BURST = 10
#: Game reviews one client address may start per minute, and at once: a review keeps a bot
#: worker busy for some 20 s (one search per decision of a whole game).
REVIEWS_PER_MINUTE = 2.0
REVIEWS_BURST = 4
#: Reviews being computed at once on the whole server; past it a new one is refused (503) until
#: one is done, so that nobody can queue hours of work.
REVIEWS_AT_ONCE = 4
#: Seconds a player finding a game waits before they may fill the empty seats with bots (here,
#: beside the other limits, so that the command line reads it without loading the database).
BOTS_AFTER = 45.0
#: Seconds a WebSocket may stay open without saying hello (the page says it at once).
HELLO_WITHIN = 10.0
#: The close code of a connection cut off for breaking a limit (RFC 6455: policy violation).
POLICY_CLOSE = 1008
#: Errors that are answered but not held against the connection: ``stale`` is what an honest
#: client gets when two of its connections (or a double click) race for one move.
UNCOUNTED_ERRORS = frozenset({ErrorCode.STALE})


@dataclass(frozen=True)
class Limits:
    """The limits of one server; ``0`` turns one off (benchmarks, tests that play flat out)."""

    message_rate: float = MESSAGE_RATE
    message_burst: int = MESSAGE_BURST
    refused_rate: float = REFUSED_RATE
    refused_burst: int = REFUSED_BURST
    connections_per_address: int = CONNECTIONS_PER_ADDRESS
    tables_per_minute: float = TABLES_PER_MINUTE
    tables_burst: int = TABLES_BURST
    reviews_per_minute: float = REVIEWS_PER_MINUTE
    reviews_burst: int = REVIEWS_BURST
    reviews_at_once: int = REVIEWS_AT_ONCE
    hello_within: float = HELLO_WITHIN

    def __post_init__(self) -> None:
        for name in (
            "message_rate",
            "message_burst",
            "refused_rate",
            "refused_burst",
            "connections_per_address",
            "tables_per_minute",
            "tables_burst",
            "reviews_per_minute",
            "reviews_burst",
            "reviews_at_once",
            "hello_within",
        ):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be 0 (no limit) or more, not {getattr(self, name)}")


@dataclass
class TokenBucket:
    """``rate`` tokens a second up to ``burst``; a rate of 0 never runs dry."""

    rate: float
    burst: float
    clock: Callable[[], float] = time.monotonic
    tokens: float = field(init=False)
    stamp: float = field(init=False)

    def __post_init__(self) -> None:
        self.tokens = self.burst
        self.stamp = self.clock()

    def take(self) -> bool:
        """Take one token if there is one; ``False`` when the bucket is empty."""
        if self.rate <= 0:
            return True
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class ConnectionGuard:
    """One connection's budget: its messages and the refusals they earned."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.messages = TokenBucket(limits.message_rate, limits.message_burst, clock)
        self.refusals = TokenBucket(limits.refused_rate, limits.refused_burst, clock)

    def admit(self) -> bool:
        """Whether the next message may be processed (else it is answered ``rate_limited``)."""
        return self.messages.take()

    def refused(self, code: str) -> bool:
        """Count a message refused with error ``code`` (unless it is one of
        :data:`UNCOUNTED_ERRORS`); ``True`` once the connection has used up its refusals."""
        return code not in UNCOUNTED_ERRORS and not self.refusals.take()


class AddressCounter:
    """Open connections per client address."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open: Counter[str] = Counter()

    def enter(self, address: str) -> bool:
        """Count a new connection from ``address``; ``False`` (and not counted) when it has
        as many open as allowed."""
        if self.limit and self.open[address] >= self.limit:
            return False
        self.open[address] += 1
        return True

    def leave(self, address: str) -> None:
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]


class AddressBuckets:
    """A :class:`TokenBucket` per client address, for requests over HTTP (tables opened, reviews
    started): ``per_minute`` a minute, up to ``burst`` at once; 0 turns it off. Addresses whose
    bucket has filled up again are forgotten, so the map stays as small as the recent clients."""

    #: Addresses held before the full buckets are swept out.
    SWEEP_AT = 1024

    def __init__(
        self, per_minute: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = per_minute / 60
        self.burst = max(1, burst)
        self.clock = clock
        self.buckets: dict[str, TokenBucket] = {}

    def take(self, address: str) -> bool:
        """Count one request from ``address``; ``False`` (and not counted) when it is over."""
        if self.rate <= 0:
            return True
        if len(self.buckets) >= self.SWEEP_AT:
            self._sweep()
        bucket = self.buckets.get(address)
        if bucket is None:
            bucket = self.buckets[address] = TokenBucket(self.rate, self.burst, self.clock)
        return bucket.take()

    def retry_after(self) -> int:
        """Whole seconds until one more request is allowed (the ``Retry-After`` header)."""
        return max(1, math.ceil(1 / self.rate)) if self.rate > 0 else 1

    def _sweep(self) -> None:
        now = self.clock()
        for address, bucket in list(self.buckets.items()):
            if bucket.tokens + (now - bucket.stamp) * bucket.rate >= bucket.burst:
                del self.buckets[address]


__all__ = [
    "CONNECTIONS_PER_ADDRESS",
    "HELLO_WITHIN",
    "MESSAGE_BURST",
    "MESSAGE_RATE",
    "POLICY_CLOSE",
    "REFUSED_BURST",
    "REFUSED_RATE",
    "REVIEWS_AT_ONCE",
    "REVIEWS_BURST",
    "REVIEWS_PER_MINUTE",
    "TABLES_BURST",
    "TABLES_PER_MINUTE",
    "UNCOUNTED_ERRORS",
    "AddressBuckets",
    "AddressCounter",
    "ConnectionGuard",
    "Limits",
    "TokenBucket",
]
