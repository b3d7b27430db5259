"""What one client may ask of the server: message rate, refused messages, open connections.

A person makes a move every few seconds and a page sends a handful of messages per move, so the
limits sit far above honest play and far below what would let one client slow a table down.
Every limit is answered first with an ``error`` (the message is not processed); a client that
keeps going past that is disconnected with close code 1008 and a reason.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

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
#: The close code of a connection cut off for breaking a limit (RFC 6455: policy violation).
POLICY_CLOSE = 1008
#: Errors that are answered but not held against the connection: ``stale`` is what an honest
#: client gets when two of its connections (or a double click) race for one move.
UNCOUNTED_ERRORS = frozenset({"stale"})


@dataclass(frozen=True)
class Limits:
    """The limits of one server; ``0`` turns one off (benchmarks, tests that play flat out)."""

    message_rate: float = MESSAGE_RATE
    message_burst: int = MESSAGE_BURST
    refused_rate: float = REFUSED_RATE
    refused_burst: int = REFUSED_BURST
    connections_per_address: int = CONNECTIONS_PER_ADDRESS

    def __post_init__(self) -> None:
        for name in (
            "message_rate",
            "message_burst",
            "refused_rate",
            "refused_burst",
            "connections_per_address",
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


__all__ = [
    "CONNECTIONS_PER_ADDRESS",
    "MESSAGE_BURST",
    "MESSAGE_RATE",
    "POLICY_CLOSE",
    "REFUSED_BURST",
    "REFUSED_RATE",
    "UNCOUNTED_ERRORS",
    "AddressCounter",
    "ConnectionGuard",
    "Limits",
    "TokenBucket",
]
