"""The ASGI app: HTTP for tables, a WebSocket per seat for play (``docs/protocol.md``). The app
only wires things together: the routes live in :mod:`.routes` by area, the tables in
:mod:`.hub` and :mod:`.room`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Sequence

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles

from piepmatz.bots import load_plugins, plugin_bot_names
from piepmatz.core import PiepmatzError

from . import db, logs
from .accounts import AccountsSetting
from .clocks import Clock
from .collector import collect
from .headers import SecurityHeaders
from .hub import Hub
from .language import LanguageMiddleware
from .limits import Limits
from .logfilter import keep_tokens_out_of_logs
from .messages import explain
from .metrics import Metrics
from .pace import PaceRoster
from .pairing import PairingRules
from .pool import BOT_TIMEOUT, Analysis, BotPool
from .roster import BotRoster
from .routes import Site, moderation, ops, pages, play, seek, tables, tutorial
from .routes import accounts as account_routes
from .store import StorageUnavailable, Store

log = logging.getLogger("piepmatz.server")

#: Who may read ``/metrics`` unless the operator says otherwise: this machine.
METRICS_ALLOW = ("127.0.0.1", "::1")
#: Seconds a stopping server waits for its connections to finish what they asked, and then
#: for the bots' moves being stored (``serve --drain-timeout``).
DRAIN = 10.0


def create_app(
    database_url: str | None = None,
    bot_workers: int = 2,
    *,
    hint_bot: str | None = None,
    hint_iterations: int | None = None,
    review_iterations: int | None = None,
    limits: Limits | None = None,
    redis_url: str | None = None,
    bot_timeout: float = BOT_TIMEOUT,
    plugins: Sequence[str] = (),
    roster: BotRoster | None = None,
    paces: PaceRoster | None = None,
    clock: Clock | None = None,
    metrics_allow: Sequence[str] | None = METRICS_ALLOW,
    drain: float = DRAIN,
    accounts: str = "passwords",
    pairing: PairingRules | None = None,
    language: str = "en",
    chat: bool = True,
) -> FastAPI:
    """The app; the schema is migrated and unfinished games resumed when it starts. ``limits``
    bound what one client may send (``piepmatz.server.limits``; the defaults when absent).

    ``hint_bot``, ``hint_iterations`` and ``review_iterations`` set the budgets of hints and
    reviews (default: the hard bot and :mod:`piepmatz.bots.analysis`'s budgets); a bot that fails
    or thinks longer than ``bot_timeout`` seconds is replaced for the move (``plugins`` are
    loaded in the server and its bot workers); hints and reviews are cut off there too.
    ``roster`` is the bots a request may name (default: the levels and the plugins' bots),
    ``paces`` the paces (default: ``pace.PACES``); ``clock`` is the tables' time (the system's
    by default; tests run faster ones). ``/metrics`` answers the clients in ``metrics_allow``
    (addresses and networks; ``None``: there is no ``/metrics``). When it stops, the bots'
    moves being stored are waited for up to ``drain`` seconds. ``pairing`` is the operator's
    settings of "Find a game" (the wait before bots, the bot; :mod:`.pairing`'s defaults).
    ``accounts`` is what players may have beside their browser's key (``off``, ``passwords``);
    ``language`` the pages' language for a browser that asks for none of the game's; without
    ``chat`` nobody writes to a table (a class of children, a tournament's quiet).

    With ``redis_url``, several processes serve the same tables from one database (PostgreSQL),
    telling each other the news over Redis (``bus.py``).
    """
    url = database_url or db.default_database_url()
    defaults = Analysis()
    analysis = Analysis(
        hint_bot or defaults.hint_bot,
        hint_iterations or defaults.hint_iterations,
        review_iterations or defaults.review_iterations,
    )
    if roster is None:
        load_plugins(plugins)
        roster = BotRoster.build(plugin_bots=plugin_bot_names())
    offered = roster

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        keep_tokens_out_of_logs()
        engine = db.make_engine(url)
        before, after = await db.upgrade(engine)
        # Which database, named: with the default one nothing else in the log says where.
        if before == after:
            log.info("database %s: schema is current (migration %s)", db.describe(url), after)
        else:
            log.info(
                "database %s: schema migrated from %s to %s",
                db.describe(url),
                before or "nothing",
                after,
            )
        # Shared by the processes that tell each other the news over Redis (SQLite's own lock
        # is the command line's: serve takes it before it starts).
        held = await db.hold_server_lock(engine, shared=redis_url is not None)
        counted = None if metrics_allow is None else Metrics(metrics_allow)
        bots = BotPool(
            bot_workers,
            analysis,
            bot_timeout,
            plugins,
            offered,
            metrics_dir=None if counted is None else counted.directory,
        )
        hub = Hub(Store(engine), bots, paces, clock)
        if counted is not None:
            counted.watch(hub)
        presence: asyncio.Task[None] | None = None
        if redis_url is not None:
            from .bus import Bus

            hub.bus = Bus(redis_url, hub.hear, hub.heard_nothing)
            await hub.bus.start()
            presence = asyncio.create_task(hub.tell_presence(), name="presence")
        resumed = await hub.resume()
        if resumed:
            log.info("resumed %d unfinished tables", resumed)
        app.state.site = Site(
            hub,
            offered,
            limits or Limits(),
            counted,
            seeking=pairing or PairingRules(),
            accounts_setting=AccountsSetting(accounts),
            chat=chat,
        )
        # The collector's passes run on the event loop's clock, short and often (collector.py).
        collector = asyncio.create_task(collect(), name="collector")
        forgetting = asyncio.create_task(hub.keep_forgetting(), name="forgetting")
        held_back = asyncio.create_task(logs.keep_telling_held_back(), name="held back")
        try:
            yield
        finally:
            collector.cancel()
            forgetting.cancel()
            held_back.cancel()
            await hub.drain(drain)
            hub.reviews.close()
            bots.close()
            if presence is not None:
                presence.cancel()
            if hub.bus is not None:
                await hub.bus.close()
            await hub.store.close()
            await db.let_go_server_lock(held)
            await engine.dispose()
            if counted is not None:
                counted.close()
            logs.tell_held_back(stopping=True)

    app = FastAPI(title="Piepmatz", lifespan=lifespan)
    app.add_middleware(LanguageMiddleware, fallback=language)
    app.add_middleware(SecurityHeaders)

    @app.exception_handler(StorageUnavailable)
    async def _unavailable(_request: Request, exc: StorageUnavailable) -> JSONResponse:
        # 503 with Retry-After: nothing was stored, and the same request may be sent again.
        detail = f"{exc}: nothing was changed; try again in a moment"
        return JSONResponse({"detail": detail}, status_code=503, headers={"Retry-After": "2"})

    @app.exception_handler(RequestValidationError)
    async def _invalid_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        # FastAPI's own answer echoes the body, which fails (a 500) for a NaN it cannot encode.
        return JSONResponse({"detail": explain(exc.errors())}, status_code=422)

    @app.exception_handler(PiepmatzError)
    async def _piepmatz_error(_request: Request, exc: PiepmatzError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)

    routers = (
        tables.router,
        pages.router,
        play.router,
        ops.router,
        tutorial.router,
        seek.router,
        moderation.router,
        account_routes.router,
    )
    for router in routers:
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=str(pages.STATIC)), name="static")
    return app


__all__ = ["create_app"]
