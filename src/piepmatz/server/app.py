"""The ASGI app: HTTP for tables, a WebSocket per seat for play (``docs/protocol.md``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnected

from piepmatz.args import new_game
from piepmatz.bots import load_plugins, plugin_bot_names
from piepmatz.core import PiepmatzError
from piepmatz.core.cards import SPECIES_NAMES
from piepmatz.core.commitment import new_secret, seed_from
from piepmatz.i18n import (
    LANGUAGE_NAMES,
    LANGUAGES,
    UnknownLanguageError,
    _,
    catalogue,
    check_language,
    choose_language,
    current_language,
    plural_forms,
    use_language,
)

from . import db
from .bots import BOT_TIMEOUT, Analysis, BotPool
from .collector import collect
from .limits import POLICY_CLOSE, AddressBuckets, AddressCounter, ConnectionGuard, Limits
from .logfilter import keep_tokens_out_of_logs
from .messages import (
    MAX_MESSAGE,
    PROTOCOL_VERSION,
    Act,
    Chat,
    Error,
    Hello,
    HintRequest,
    Join,
    NewTable,
    PreviewRequest,
    QuickGame,
    Sync,
    Welcome,
    explain,
    parse_client_message,
)
from .outbox import ClientGone, WebSocketClient
from .review import Reviews
from .room import Connection, Room, RoomError, Seat, new_token, token_hash
from .roster import HUMAN, BotRoster, UnknownBot
from .store import StorageUnavailable, Store

if TYPE_CHECKING:
    from .bus import Bus

log = logging.getLogger("piepmatz.server")


class CutOff(Exception):
    """The client used up its refusals: it is disconnected. (Defined once, here: a class made
    per connection would be a cycle left for the collector.)"""


#: Seconds a finished table nobody is connected to stays held before it is forgotten (its
#: record stays in the database, and the next request reads it again); and seconds between
#: the looks for such tables.
FORGET_AFTER = 600.0
FORGET_EVERY = 60.0
#: Seconds a public table stays listed once every person seated there has gone: whoever
#: joined it later would wait for nobody.
LISTED_AWAY = 600.0


class Hub:
    """Every table the server holds, by id; with a bus, the other processes hold them too."""

    def __init__(self, store: Store, bots: BotPool) -> None:
        self.store = store
        self.bots = bots
        self.rooms: dict[str, Room] = {}
        self.reviews = Reviews(bots)
        self.bus: Bus | None = None
        self._loading = asyncio.Lock()
        #: Since when (monotonic seconds) each held table has been idle, by id.
        self._idle_since: dict[str, float] = {}

    async def hear(self, table_id: str, message: dict[str, Any]) -> None:
        """News from another process (the bus calls this)."""
        room = self.rooms.get(table_id)
        if room is not None:
            try:
                await room.hear(message)
            except Exception:
                log.exception("table %s: news %s not taken; catching up", table_id, message)
                await room.catch_up()

    async def heard_nothing(self) -> None:
        """The bus lost news for a while: read every held table again."""
        for room in list(self.rooms.values()):
            await room.catch_up()

    async def tell_presence(self) -> None:
        """Every so often, each process says again who is connected to it, table by table, so
        that the connections of a process that died are forgotten by the others."""
        from .bus import PRESENCE_EVERY

        while True:
            await asyncio.sleep(PRESENCE_EVERY)
            for room in list(self.rooms.values()):
                if room.status != "over":
                    await room.refresh_presence(3 * PRESENCE_EVERY)

    async def open_tables(self, now: float, away: float = LISTED_AWAY) -> list[Room]:
        """The public tables waiting for people, but not those whose seated people have all
        been gone for ``away`` seconds as of ``now``."""
        if self.bus is None:
            rooms = list(self.rooms.values())
        else:
            # Other processes open tables too: the database knows them all. Held here from now
            # on, so that this process hears who is at them.
            rooms = [
                await self.room(stored.id)
                for stored in await self.store.load(("waiting",))
                if stored.public
            ]
        return [
            room
            for room in rooms
            if room.public
            and room.status == "waiting"
            and (room.away_since is None or now - room.away_since < away)
        ]

    async def forget_finished(self, now: float, after: float = FORGET_AFTER) -> list[str]:
        """Forget the finished tables that have been idle (see :meth:`Room.idle`) for ``after``
        seconds as of ``now``, so that a server running for months does not keep every game
        ever played; returns their ids."""
        forgotten = []
        for table_id, room in list(self.rooms.items()):
            if not room.idle():
                self._idle_since.pop(table_id, None)
            elif now - self._idle_since.setdefault(table_id, now) >= after:
                del self.rooms[table_id], self._idle_since[table_id]
                if self.bus is not None:
                    await self.bus.let_go(table_id)
                forgotten.append(table_id)
        return forgotten

    async def keep_forgetting(self) -> None:
        while True:
            await asyncio.sleep(FORGET_EVERY)
            if forgotten := await self.forget_finished(time.monotonic()):
                log.info("forgot %d finished tables nobody looks at", len(forgotten))

    async def hold(self, room: Room) -> None:
        """Hold ``room`` here (it is new, or was just read from the database)."""
        if self.bus is not None:
            room.bus = self.bus
            await self.bus.hold(room.id)
        self.rooms[room.id] = room

    async def resume(self) -> int:
        """Rebuild every unfinished table from its stored record; bots carry on."""
        unfinished = ("waiting", "playing")
        for stored in await self.store.load(unfinished):
            await self.hold(Room.from_stored(stored, self.store, self.bots))
        if self.bus is not None:
            # Moves stored by other processes while the first read ran were not heard.
            for stored in await self.store.load(unfinished):
                if (room := self.rooms.get(stored.id)) is not None:
                    await room.catch_up(stored)
            for room in self.rooms.values():
                await room.ask_presence()
        for room in self.rooms.values():
            room.wake_bots()
        return len(self.rooms)

    async def room(self, table_id: str) -> Room:
        room = self.rooms.get(table_id)
        if room is None:
            async with self._loading:
                if (room := self.rooms.get(table_id)) is not None:
                    return room
                if self.bus is not None:
                    await self.bus.hold(table_id)  # before reading: no news falls between
                # A finished table is not held after a restart; its record is still stored.
                found = await self.store.load((), table_id=table_id)
                if not found:
                    raise HTTPException(404, _("no table {table}").format(table=repr(table_id)))
                room = Room.from_stored(found[0], self.store, self.bots)
                await self.hold(room)
            if self.bus is not None:
                await room.catch_up()  # news heard while reading found no room to go to
                await room.ask_presence()
        return room


def _check_seats(kinds: list[str], roster: BotRoster) -> list[str]:
    """Each seat's kind: ``human`` or the name of a bot the server offers (never a spec)."""
    out = []
    for i, kind in enumerate(kinds):
        if kind != HUMAN:
            try:
                kind = roster.choose(kind)
            except UnknownBot as exc:
                raise HTTPException(422, f"seat {i}: {exc}") from None
        out.append(kind)
    return out


def _count(buckets: AddressBuckets, request: Request, what: str) -> None:
    """Count one request from its client's address; past the limit, ``429`` saying ``what``
    (e.g. "10 tables") an address may ask for a minute."""
    if not buckets.take(request.client.host if request.client else "?"):
        raise HTTPException(
            429,
            f"more than {what} a minute from your address: wait a moment",
            headers={"Retry-After": str(buckets.retry_after())},
        )


#: Which name of ``SPECIES_NAMES`` (English, German, Czech) is each language's.
_SPECIES_NAME_INDEX = {"en": 0, "de": 1, "cs": 2}


def request_language(scope: Scope) -> str:
    """The language a request is answered in: ``?lang=``, else ``Accept-Language``, else en.

    A WebSocket cannot set headers from a page's script, so its address carries ``?lang=``.
    """
    from urllib.parse import parse_qs

    asked = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("lang", [""])[0]
    if asked:
        try:
            return check_language(asked)
        except UnknownLanguageError:
            pass  # the endpoints that take ``lang`` refuse it themselves; the rest fall back
    headers = dict(scope.get("headers") or [])
    accept = headers.get(b"accept-language", b"").decode("latin-1")
    return choose_language(None, {}, accept or None)


class LanguageMiddleware:
    """Every request is answered in its own language (texts from the server: errors, the
    replay's sentences); a WebSocket's connection keeps the language it opened with."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        with use_language(request_language(scope)):
            await self.app(scope, receive, send)


def web_catalogue(lang: str) -> dict[str, Any]:
    """What the browser client needs to show ``lang``: its ``web`` texts and plural rule, the
    species' names and the languages to switch to."""
    lang = check_language(lang)
    index = _SPECIES_NAME_INDEX[lang]
    return {
        "lang": lang,
        "messages": catalogue(lang, "web"),
        "plural_forms": plural_forms(lang),
        "species": {code: names[index] for code, names in SPECIES_NAMES.items()},
        "languages": {code: LANGUAGE_NAMES[code] for code in LANGUAGES},
    }


def rules_html(spec: str, lang: str = "en") -> str:
    """The rules text for players (the terminal game's rules screen) in ``lang``, as HTML."""
    from markdown_it import MarkdownIt

    from piepmatz.core.rules import Rules
    from piepmatz.text.rules import rules_markdown

    try:
        rules = Rules.parse(spec)
    except ValueError as exc:
        raise HTTPException(422, f"rules {spec!r}: {exc}") from None
    try:
        text = rules_markdown(rules, lang)
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    html: str = MarkdownIt("commonmark", {"html": False}).enable("table").render(text)
    return html


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
) -> FastAPI:
    """The app; the schema is migrated and unfinished games resumed when it starts. ``limits``
    bound what one client may send (``piepmatz.server.limits``; the defaults when absent).

    ``hint_bot``, ``hint_iterations`` and ``review_iterations`` set the budgets of hints and
    reviews (default: the hard bot and :mod:`piepmatz.bots.review`'s budgets); a bot that fails
    or thinks longer than ``bot_timeout`` seconds is replaced for the move (``plugins`` are
    loaded in the server and its bot workers); hints and reviews are cut off there too.
    ``roster`` is the bots a request may name (default: the levels).

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
    limits = limits or Limits()
    addresses = AddressCounter(limits.connections_per_address)
    opened = AddressBuckets(limits.tables_per_minute, limits.tables_burst)
    reviewed = AddressBuckets(limits.reviews_per_minute, limits.reviews_burst)
    if roster is None:
        load_plugins(plugins)
        roster = BotRoster.build(plugin_bots=plugin_bot_names())

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        keep_tokens_out_of_logs()
        engine = db.make_engine(url)
        await db.upgrade(engine)
        bots = BotPool(bot_workers, analysis, bot_timeout, plugins, roster)
        hub = Hub(Store(engine), bots)
        presence: asyncio.Task[None] | None = None
        if redis_url is not None:
            from .bus import Bus

            hub.bus = Bus(redis_url, hub.hear, hub.heard_nothing)
            await hub.bus.start()
            presence = asyncio.create_task(hub.tell_presence(), name="presence")
        resumed = await hub.resume()
        if resumed:
            log.info("resumed %d unfinished tables", resumed)
        app.state.hub = hub
        # The collector's passes run on the event loop's clock, short and often (collector.py).
        collector = asyncio.create_task(collect(), name="collector")
        forgetting = asyncio.create_task(hub.keep_forgetting(), name="forgetting")
        try:
            yield
        finally:
            collector.cancel()
            forgetting.cancel()
            for room in hub.rooms.values():
                if room.bot_task is not None:
                    room.bot_task.cancel()
            hub.reviews.close()
            bots.close()
            if presence is not None:
                presence.cancel()
            if hub.bus is not None:
                await hub.bus.close()
            await hub.store.close()
            await engine.dispose()

    app = FastAPI(title="Piepmatz", lifespan=lifespan)
    app.add_middleware(LanguageMiddleware)

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

    def hub_of(request: Request | WebSocket) -> Hub:
        hub: Hub = request.app.state.hub
        return hub

    def links(request: Request, room: Room, seat: int | None, token: str) -> str:
        base = str(request.base_url).rstrip("/")
        where = f"seat={seat}&" if seat is not None else ""
        return f"{base}/play/{room.id}#{where}token={token}"

    async def open_table(
        request: Request,
        kinds: list[str],
        rules: str,
        seed: int | None,
        public: bool,
        name: str,
        creator: int | None,
        hints: bool,
        part: str | None,
    ) -> dict[str, Any]:
        hub = hub_of(request)
        kinds = _check_seats(kinds, roster)
        humans = [i for i, k in enumerate(kinds) if k == HUMAN]
        if not humans:
            raise HTTPException(422, "a table needs at least one person's seat ('human')")
        seat = humans[0] if creator is None else creator
        if seat not in humans:
            raise HTTPException(422, f"seat {seat} is not a person's seat")
        if seed is not None and len(humans) > 1:
            # Whoever chose the seed could deal the game at home and know every hand.
            raise HTTPException(
                422,
                "seed: a chosen seed is only for a table with one person; with others at the "
                "table the deal is the server's secret",
            )
        _count(opened, request, f"{limits.tables_per_minute:g} tables")
        # The deal: a seed the only person chose, or the server's secret and the people's parts
        # (core/commitment.py), dealt once the last part is in.
        parts: list[str | None] = [part if i == seat else None for i in range(len(kinds))]
        deal: dict[str, Any] = {"chosen": True} if seed is not None else {"secret": new_secret()}
        if seed is None and len(humans) == 1:
            seed = seed_from(deal["secret"], parts)
        try:
            # Waiting for people: a stand-in nobody is shown, dealt again when they are in.
            game = new_game(len(kinds), rules, 0 if seed is None else seed)
        except ValueError as exc:
            raise HTTPException(422, f"rules {rules!r}: {exc}") from None
        tokens = {i: new_token() for i in humans}
        spectator = new_token()
        room = Room(
            secrets.token_urlsafe(9),
            game,
            [
                Seat(
                    k,
                    name if i == seat else None,
                    token_hash(tokens[i]) if i in tokens else None,
                    hints and i == seat,
                    part=parts[i],
                )
                for i, k in enumerate(kinds)
            ],
            rules_spec=rules,
            public=public,
            spectator_hash=token_hash(spectator),
            status="playing" if len(humans) == 1 else "waiting",
            store=hub.store,
            bots=hub.bots,
            deal=deal,
        )
        await hub.store.create(room.to_stored())
        await hub.hold(room)
        room.wake_bots()
        return {
            "table": room.id,
            "seat": seat,
            "token": tokens[seat],
            "link": links(request, room, seat, tokens[seat]),
            "invites": [
                {"seat": i, "token": t, "link": links(request, room, i, t)}
                for i, t in tokens.items()
                if i != seat
            ],
            "spectate": links(request, room, None, spectator),
            "spectator_token": spectator,
        }

    @app.post("/api/tables", status_code=201)
    async def new_table(body: NewTable, request: Request) -> dict[str, Any]:
        return await open_table(
            request,
            body.seats,
            body.rules,
            body.seed,
            body.public,
            body.name,
            body.seat,
            body.hints,
            body.deal_part,
        )

    @app.post("/api/quick", status_code=201)
    async def quick(body: QuickGame, request: Request) -> dict[str, Any]:
        try:
            bot = roster.choose(body.bot)
        except UnknownBot as exc:
            raise HTTPException(422, f"bot: {exc}") from None
        kinds = [HUMAN] + [bot] * (body.players - 1)
        return await open_table(
            request, kinds, body.rules, body.seed, False, body.name, 0, body.hints, body.deal_part
        )

    @app.get("/api/bots")
    async def bots_offered() -> list[str]:
        """The bots a table's seat or a quick game may name, the levels first."""
        return roster.names()

    @app.get("/api/tables")
    async def open_tables(request: Request) -> list[dict[str, Any]]:
        """Public tables waiting for people (see :meth:`Hub.open_tables`)."""
        rooms = await hub_of(request).open_tables(time.monotonic())
        return [room.info().model_dump() for room in rooms]

    @app.get("/api/tables/{table_id}")
    async def table(table_id: str, request: Request) -> dict[str, Any]:
        room = await hub_of(request).room(table_id)
        return room.info().model_dump() | {"move": room.move}

    # The pages show these refusals to the player (lobby, invite, replay): each is in the
    # request's language.
    @app.post("/api/tables/{table_id}/join")
    async def join(table_id: str, body: Join, request: Request) -> dict[str, Any]:
        room = await hub_of(request).room(table_id)
        if room.status == "over":
            raise HTTPException(409, _("the game at this table is over"))
        seat: int | None = None
        if body.token is not None:
            seat = room.seat_for(body.token)
            if seat is None:
                raise HTTPException(403, _("this invite is not for a seat at this table"))
        elif not room.public:
            raise HTTPException(403, _("this table is joined by invite only"))
        try:
            seat, token = await room.take_seat(
                seat, body.name, body.token, body.hints, body.deal_part
            )
        except RoomError as exc:
            raise HTTPException(409, str(exc)) from None
        return {"table": room.id, "seat": seat, "token": token}

    @app.get("/api/tables/{table_id}/record")
    async def record(table_id: str, request: Request) -> dict[str, Any]:
        room = await hub_of(request).room(table_id)
        if room.status != "over":
            raise HTTPException(
                409,
                _("the game is not over: its record, which names hidden cards, comes after"),
            )
        return room.record()

    @app.get("/api/tables/{table_id}/replay")
    async def replay(table_id: str, request: Request) -> dict[str, Any]:
        """A finished game step by step for the replay page: every state (hands shown) and the
        sentences of what each action did."""
        room = await hub_of(request).room(table_id)
        if room.status != "over":
            raise HTTPException(
                409, _("the game is not over: its replay, which shows every hand, comes after")
            )
        return room.replay() | {"seats": room.info().model_dump()["seats"]}

    @app.get("/api/tables/{table_id}/review")
    async def review(table_id: str, player: int, request: Request) -> JSONResponse:
        """``player``'s decisions in a finished game graded by the search (computed in the bot
        pool): 202 with the progress while it is computed, then 200 with the review."""
        hub = hub_of(request)
        room = await hub.room(table_id)
        if room.status != "over":
            raise HTTPException(409, _("the game is not over: it is reviewed once it has ended"))
        if not 0 <= player < len(room.seats):
            raise HTTPException(
                422,
                _("no player {player} at this table (players are 0-{last})").format(
                    player=player, last=len(room.seats) - 1
                ),
            )
        if not hub.reviews.known(room.id, player):
            _count(reviewed, request, f"{limits.reviews_per_minute:g} reviews")
            if limits.reviews_at_once and hub.reviews.computing() >= limits.reviews_at_once:
                raise HTTPException(
                    503,
                    "the server is computing other reviews: ask again in a minute",
                    headers={"Retry-After": "60"},
                )
        job = hub.reviews.get(room.id, room.game, player)
        if job.result is not None:
            return JSONResponse(job.result)
        if job.error is not None:
            raise HTTPException(503, job.error)
        return JSONResponse(job.progress(), status_code=202)

    @app.get("/api/rules")
    async def rules(spec: str = "standard", lang: str | None = None) -> dict[str, str]:
        """The rules of ``spec`` (a preset, flags allowed) as HTML, in ``lang`` (else the
        request's language)."""
        lang = lang or current_language()
        return {"rules": spec, "lang": lang, "html": rules_html(spec, lang)}

    @app.get("/api/i18n")
    async def i18n_chosen() -> dict[str, Any]:
        """The browser client's texts in the language the browser asks for (Accept-Language)."""
        return web_catalogue(current_language())

    @app.get("/api/i18n/{lang}")
    async def i18n(lang: str) -> dict[str, Any]:
        """The browser client's texts in ``lang``: messages (msgid → text, or the plural forms)
        and the plural rule, as gettext writes it."""
        try:
            return web_catalogue(lang)
        except UnknownLanguageError as exc:
            raise HTTPException(404, str(exc)) from None

    # The browser client: one page whose script shows the lobby, a table, a replay or the rules
    # by the address (``docs/protocol.md``, "The browser client").
    static = resources.files("piepmatz.server").joinpath("static")
    app.mount("/static", StaticFiles(directory=str(static)), name="static")
    page = str(static.joinpath("index.html"))

    @app.get("/", include_in_schema=False)
    @app.get("/rules", include_in_schema=False)
    async def lobby_page() -> FileResponse:
        return FileResponse(page)

    @app.get("/play/{table_id}", include_in_schema=False)
    @app.get("/replay/{table_id}", include_in_schema=False)
    async def table_page(table_id: str) -> FileResponse:
        return FileResponse(page)

    @app.websocket("/ws/{table_id}")
    async def play(websocket: WebSocket, table_id: str) -> None:
        await websocket.accept()
        address = websocket.client.host if websocket.client else "?"
        if not addresses.enter(address):
            reason = (
                f"too many connections from your address (at most {limits.connections_per_address})"
            )
            await websocket.send_text(
                Error(code="too_many_connections", message=reason).model_dump_json()
            )
            await websocket.close(code=POLICY_CLOSE, reason=reason)
            return
        try:
            await _play(websocket, table_id)
        finally:
            addresses.leave(address)

    async def _play(websocket: WebSocket, table_id: str) -> None:
        hub = hub_of(websocket)
        client = WebSocketClient(websocket)
        room: Room | None = None
        conn: Connection | None = None
        # Hints are worked out beside the conversation, so that the seat can play meanwhile.
        hinting: set[asyncio.Task[None]] = set()

        async def send_hint(room: Room, conn: Connection, seat: int, move: int) -> None:
            try:
                await conn.send(await room.hint(seat, move))
            except RoomError as exc:
                await conn.send(exc.message())

        guard = ConnectionGuard(limits)
        hello_by = asyncio.get_running_loop().time() + limits.hello_within

        async def refuse(code: str, message: str) -> None:
            await client.send(Error(code=code, message=message).model_dump_json())
            if guard.refused(code):
                raise CutOff

        try:
            while True:
                if conn is None and limits.hello_within:
                    # A connection that never says hello holds a socket and a slot of its
                    # address for nothing.
                    try:
                        async with asyncio.timeout_at(hello_by):
                            received = await websocket.receive()
                    except TimeoutError:
                        await client.close(
                            POLICY_CLOSE, f"no hello within {limits.hello_within:g} s"
                        )
                        break
                else:
                    received = await websocket.receive()
                if received["type"] == "websocket.disconnect":
                    raise WebSocketDisconnect(received.get("code", 1000))
                if not guard.admit():
                    await refuse(
                        "rate_limited",
                        f"more than {limits.message_rate:g} messages a second: "
                        "this one was not read",
                    )
                    continue
                text = received.get("text")
                if text is None:
                    await refuse("malformed", "a binary frame: messages are JSON text frames")
                    continue
                try:
                    message = parse_client_message(text)
                except ValueError as exc:
                    code = "too_long" if len(text) > MAX_MESSAGE else "malformed"
                    await refuse(code, str(exc))
                    continue
                if conn is None:
                    if not isinstance(message, Hello):
                        await refuse("hello_first", "say hello with your seat's token first")
                        continue
                    # Looked up at the hello, not before: a finished table may have been
                    # forgotten since the socket opened (it is read again).
                    try:
                        room = await hub.room(table_id)
                    except HTTPException:
                        await refuse("no_table", f"no table {table_id!r}")
                        continue
                    except StorageUnavailable as exc:
                        await refuse("unavailable", f"{exc}: say hello again in a moment")
                        continue
                    seat = room.seat_for(message.token)
                    if seat is None and not room.is_spectator_token(message.token):
                        await refuse("bad_token", "this token is no seat's or spectator's here")
                        continue
                    if seat is not None and room.seats[seat].name is None:
                        await refuse("not_joined", "join the table (choose a name) first")
                        continue
                    conn = Connection(client, seat, lang=current_language())
                    await client.send(
                        Welcome(
                            table=room.id, seat=seat, protocol=PROTOCOL_VERSION
                        ).model_dump_json()
                    )
                    await room.connect(conn)
                    continue
                assert room is not None
                if isinstance(message, Hello):
                    await refuse("hello_again", "this connection has already said hello")
                elif isinstance(message, Sync):
                    # Nothing is dealt while a table waits for people: its news is who is there.
                    sync = room.info().model_dump_json() if room.status == "waiting" else None
                    await conn.send(sync or room.state_message(conn, full=True))
                elif isinstance(message, PreviewRequest):
                    if conn.seat is None:
                        await refuse("spectator", "a spectator has no moves to preview")
                        continue
                    try:
                        await conn.send(room.previews(conn.seat, message.move))
                    except RoomError as exc:
                        await refuse(exc.code, str(exc))
                elif isinstance(message, HintRequest):
                    if conn.seat is None:
                        await refuse("spectator", "a spectator has no decision to hint")
                        continue
                    task = asyncio.create_task(send_hint(room, conn, conn.seat, message.move))
                    hinting.add(task)
                    task.add_done_callback(hinting.discard)
                elif conn.seat is None:
                    await refuse("spectator", "a spectator cannot act or chat")
                elif isinstance(message, Act):
                    try:
                        await room.act(conn.seat, message.move, message.action, conn)
                    except RoomError as exc:
                        await refuse(exc.code, str(exc))
                elif isinstance(message, Chat):
                    try:
                        await room.chat(conn.seat, message.text)
                    except StorageUnavailable as exc:
                        await refuse("unavailable", f"{exc}: the line was not sent")
        except CutOff:
            await client.flush()
            await client.close(POLICY_CLOSE, "too many refused messages: talk the protocol")
        except (WebSocketDisconnect, WebSocketDisconnected, ClientGone):
            pass  # gone, or closed by the room for not reading its messages
        finally:
            for task in hinting:
                task.cancel()
            client.stop()
            if conn is not None and room is not None:
                await room.disconnect(conn)

    return app


__all__ = ["Hub", "create_app"]
