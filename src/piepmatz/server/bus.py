"""Several server processes, one set of tables: Redis publish/subscribe between them.

The database decides (a move is stored only if its number is the next one for its table); the
bus only tells the other processes what was decided, so that each can update its copy of the
table and its own connections at once. A message that is lost shows as a gap in the move numbers
at the next move, or at the next reminder of who is connected (they say how far the table is:
status, seats taken, moves), and is caught up from the database. Bots think in one process at
a time per table: the one that holds the table's lease, a Redis lock with an expiry, so that
another process takes over when the holder dies.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable, Coroutine
from typing import Any

import redis.asyncio as redis
from pydantic import ValidationError
from redis.asyncio.lock import Lock
from redis.exceptions import LockError, RedisError

from . import metrics
from .news import AnyNews, news_reader

log = logging.getLogger("piepmatz.server")

#: Seconds a bot lease lasts unless renewed; a dead holder's table waits at most this long.
LEASE = 10.0
#: Seconds between a waiting process's attempts to take a lease another process holds.
LEASE_RETRY = 1.0
#: Seconds between the reminders of who is connected where and how far each table's game is;
#: three missed reminders, and the other processes forget that process's connections.
PRESENCE_EVERY = 15.0

#: Connections a process keeps to Redis for publishing and leases (the subscription has its
#: own), and seconds a publish waits for one of them before it counts as failed.
REDIS_CONNECTIONS = 32
REDIS_WAIT = 10.0

Handler = Callable[[str, AnyNews], Coroutine[Any, Any, None]]


def channel(table_id: str) -> str:
    return f"piepmatz:table:{table_id}"


class Bus:
    """One process's link to the others: publish a table's news, hear every held table's."""

    def __init__(
        self,
        url: str,
        handler: Handler,
        on_reconnect: Callable[[], Coroutine[Any, Any, None]] | None = None,
    ) -> None:
        self.url = url
        #: This process, as the other processes see it (to ignore its own news).
        self.origin = secrets.token_hex(6)
        # Under load, hundreds of tables publish at once: they wait for one of a bounded set of
        # connections instead of failing (redis-py's default pool refuses past 100). Named, so
        # that `CLIENT LIST` on the Redis server tells which process is which.
        pool = redis.BlockingConnectionPool.from_url(
            url,
            max_connections=REDIS_CONNECTIONS,
            timeout=REDIS_WAIT,
            client_name=f"piepmatz-{self.origin}",
        )
        self.redis: redis.Redis = redis.Redis.from_pool(pool)
        self.handler = handler
        self.tables: set[str] = set()
        self._pubsub: Any = None
        self._listener: asyncio.Task[None] | None = None
        self._handling: set[asyncio.Task[None]] = set()
        #: The bot leases this process holds: any still held when it closes are given back.
        self._leases: set[Lock] = set()
        #: Called after the subscription was lost and made again: news may have been missed.
        self.on_reconnect = on_reconnect

    async def start(self) -> None:
        await self.redis.ping()  # a wrong URL fails the start, with Redis's own message
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        # A subscription needs a connection before the listener waits on it.
        await self._pubsub.subscribe(channel("_"))
        # redis-py connects again by itself when the subscription's connection drops, and
        # subscribes again; what was published meanwhile is lost, so the tables are read again.
        self._pubsub.connection.register_connect_callback(self._connected_again)
        self._listener = asyncio.create_task(self._listen(), name="bus listener")

    def _connected_again(self, _connection: object) -> None:
        log.warning("the Redis subscription was lost and is back: reading every table again")
        if self.on_reconnect is not None:
            task = asyncio.create_task(self.on_reconnect())
            self._handling.add(task)
            task.add_done_callback(self._handling.discard)

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        for task in list(self._handling):
            task.cancel()
        # A stopping process's bots gave theirs back as they stopped (``Hub.drain``); one
        # left by any other way would keep its table waiting for the lease to expire.
        for lease in list(self._leases):
            await self.release(lease)
        if self._pubsub is not None:
            with contextlib.suppress(RedisError, OSError):
                await self._pubsub.aclose()
        await self.redis.aclose()

    def listening(self) -> bool:
        """The subscription's listener runs (it subscribes again by itself after a loss)."""
        return self._listener is not None and not self._listener.done()

    async def hold(self, table_id: str) -> None:
        """Hear a table's news from now on (before its state is read from the database). With
        Redis away the table is held all the same: the listener subscribes to every held
        table again once Redis is back, and what was said meanwhile is read from the
        database."""
        if table_id not in self.tables:
            self.tables.add(table_id)
            try:
                await self._pubsub.subscribe(channel(table_id))
            except (RedisError, OSError) as exc:
                log.warning("table %s: not subscribed to its news yet: %s", table_id, exc)

    async def let_go(self, table_id: str) -> None:
        """Hear no more of a table this process no longer holds."""
        if table_id in self.tables:
            self.tables.discard(table_id)
            with contextlib.suppress(RedisError, OSError):
                await self._pubsub.unsubscribe(channel(table_id))

    async def publish(self, table_id: str, news: AnyNews) -> bool:
        """Tell every process holding ``table_id``; a failure is logged and answered False,
        not raised: the others catch up from the database when the next move shows them the
        gap."""
        message = news.model_copy(update={"origin": self.origin}).model_dump_json()
        try:
            await self.redis.publish(channel(table_id), message)
        except (RedisError, OSError) as exc:
            log.warning("table %s: could not publish %s: %s", table_id, news.kind, exc)
            return False
        metrics.BUS_SENT.inc()
        return True

    async def _listen(self) -> None:
        while True:
            try:
                async for raw in self._pubsub.listen():
                    if raw.get("type") != "message":
                        continue
                    metrics.BUS_HEARD.inc()
                    table_id = raw["channel"].decode().removeprefix("piepmatz:table:")
                    try:
                        message = news_reader.validate_json(raw["data"])
                    except ValidationError as exc:  # another version's news, or not ours
                        log.warning("table %s: news not read: %s", table_id, exc)
                        continue
                    # Each message in its own task: one slow connection does not hold up the
                    # other tables; a table's own lock keeps its messages in order.
                    task = asyncio.create_task(self.handler(table_id, message))
                    self._handling.add(task)
                    task.add_done_callback(self._handling.discard)
            except Exception as exc:  # Redis gone (or anything else): the listener must live
                log.warning("lost the Redis subscription (%s); subscribing again", exc)
                await asyncio.sleep(0.5)
                with contextlib.suppress(Exception):
                    await self._pubsub.subscribe(channel("_"), *(channel(t) for t in self.tables))
                    # Whatever was said meanwhile is in the database.
                    if self.on_reconnect is not None:
                        await self.on_reconnect()

    # ------------------------------------------------------------------ bot leases

    async def bot_lease(self, table_id: str) -> Lock | None:
        """The table's bot lease if no other process holds it, else ``None``."""
        lease = self.redis.lock(f"piepmatz:bots:{table_id}", timeout=LEASE, blocking=False)
        asking = asyncio.ensure_future(lease.acquire())
        try:
            if await asyncio.shield(asking):
                self._leases.add(lease)
                return lease
        except asyncio.CancelledError:
            # Stopped (a drain) while Redis may have granted it already: given back, or the
            # process taking the table over would wait for it to expire.
            with contextlib.suppress(LockError, RedisError, OSError):
                if await asking:
                    await self.release(lease)
            raise
        except (RedisError, OSError) as exc:
            log.warning("table %s: could not ask for the bot lease: %s", table_id, exc)
        return None

    async def release(self, lease: Lock) -> None:
        self._leases.discard(lease)
        # Expired and taken by another process meanwhile: nothing of ours to release.
        with contextlib.suppress(LockError, RedisError, OSError):
            await lease.release()
