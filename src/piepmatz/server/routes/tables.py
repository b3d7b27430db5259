"""HTTP for tables: open one (with friends or against bots), list the open ones, join, and once
a game is over its record, replay and review (``docs/protocol.md``, "HTTP")."""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.responses import JSONResponse
from sqlalchemy.ext.asyncio import AsyncConnection

from piepmatz.core.actions import Action
from piepmatz.i18n import _

from .. import archive
from ..hub import NoTable, Opened, TableRefused
from ..limits import AddressBuckets
from ..messages import PLAYER_KEY, Join, NewTable, QuickGame, Rematch
from ..moderation import Refused
from ..news import RematchNews
from ..pace import TableSetup
from ..players import KeyOf
from ..room import Room
from ..roster import HUMAN, UnknownBot
from ..seats import RoomError, new_token
from ..store import RematchTaken
from ..vocabulary import TableStatus
from . import Site, SiteOf, TableOf

router = APIRouter(prefix="/api")


def _count(buckets: AddressBuckets, request: Request, what: str) -> None:
    """Count one request from its client's address; past the limit, ``429`` saying ``what``
    (e.g. "10 tables") an address may ask for a minute."""
    if not buckets.take(request.client.host if request.client else "?"):
        raise HTTPException(
            429,
            f"more than {what} a minute from your address: wait a moment",
            headers={"Retry-After": str(buckets.retry_after())},
        )


def count_opened(request: Request, site: Site) -> None:
    """Count a table opened (or sought) from the request's address (``--tables-per-minute``)."""
    _count(site.opened, request, f"{site.limits.tables_per_minute:g} tables")


def _seat_link(request: Request, table: str, seat: int | None, token: str) -> str:
    """A seat's link to ``table`` (``seat`` None: a spectator's): the fragment carries the
    token, which browsers never send."""
    base = str(request.base_url).rstrip("/")
    where = f"seat={seat}&" if seat is not None else ""
    return f"{base}/play/{table}#{where}token={token}"


def _links(request: Request, opened: Opened) -> dict[str, Any]:
    """The answer to a table opened: each person's link and the spectators'."""

    def link(seat: int | None, token: str) -> str:
        return _seat_link(request, opened.room.id, seat, token)

    mine = opened.tokens[opened.seat]
    return {
        "table": opened.room.id,
        "seat": opened.seat,
        "token": mine,
        "link": link(opened.seat, mine),
        "invites": [
            {"seat": i, "token": t, "link": link(i, t)}
            for i, t in opened.tokens.items()
            if i != opened.seat
        ],
        "spectate": link(None, opened.spectator),
        "spectator_token": opened.spectator,
    }


def _choices(review: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every action a review names, as fields by its text (the page reads no notation)."""
    texts = {d["played"] for d in review["decisions"]} | {d["best"] for d in review["decisions"]}
    texts |= {o["action"] for d in review["decisions"] for o in d.get("options", [])}
    return {text: Action.parse(text).to_json() for text in texts}


async def refuse_banned(site: Site, key: str | None) -> None:
    """403 with the operator's reason for a player the operator banned (by their key)."""
    try:
        await site.moderation.refuse_banned(key)
    except Refused as exc:
        raise HTTPException(403, str(exc)) from None


async def _open(
    request: Request, site: Site, kinds: list[str], rules: str, **options: Any
) -> dict[str, Any]:
    """Open a table (:meth:`Hub.open`) and answer with its links; 422 saying what was wrong;
    403 for a banned player."""
    await refuse_banned(site, options.get("player"))
    try:
        opened = await site.hub.open(kinds, rules, **options)
    except TableRefused as exc:
        raise HTTPException(422, str(exc)) from None
    return _links(request, opened)


@router.post("/tables", status_code=201)
async def new_table(body: NewTable, request: Request, site: SiteOf) -> dict[str, Any]:
    _count(site.opened, request, f"{site.limits.tables_per_minute:g} tables")
    return await _open(
        request,
        site,
        body.seats,
        body.rules,
        name=body.name,
        creator=body.seat,
        seed=body.seed,
        public=body.public,
        hints=body.hints,
        part=body.deal_part,
        pace=body.pace,
        stand_in=body.stand_in,
        resign=body.resign,
        player=body.player,
        rated=body.rated,
    )


@router.post("/quick", status_code=201)
async def quick(body: QuickGame, request: Request, site: SiteOf) -> dict[str, Any]:
    _count(site.opened, request, f"{site.limits.tables_per_minute:g} tables")
    try:
        bot = site.roster.choose(body.bot)
    except UnknownBot as exc:
        raise HTTPException(422, f"bot: {exc}") from None
    return await _open(
        request,
        site,
        [HUMAN] + [bot] * (body.players - 1),
        body.rules,
        name=body.name,
        creator=0,
        seed=body.seed,
        hints=body.hints,
        part=body.deal_part,
        pace=body.pace,
        player=body.player,
        rated=body.rated,
    )


@router.get("/bots")
async def bots_offered(site: SiteOf) -> list[str]:
    """The bots a table's seat or a quick game may name, the levels first."""
    return site.roster.names()


@router.get("/paces")
async def paces_offered(site: SiteOf) -> list[dict[str, Any]]:
    """The paces a table may be opened at (``docs/protocol.md``, "Paces"), the defaults first."""
    return [pace.to_json() for pace in site.hub.paces.paces.values()]


#: Finished games "My games" lists, the latest first.
FINISHED_LISTED = 50


@router.get("/games")
async def my_games(key: KeyOf, site: SiteOf) -> dict[str, list[dict[str, Any]]]:
    """The tables the player key (``Authorization: Bearer KEY``) sits at: those still going,
    where it is the player's turn first, and the latest finished ones."""
    playing: list[dict[str, Any]] = []
    finished: list[dict[str, Any]] = []
    for game in await site.hub.store.games_of(await site.players.identify(key), FINISHED_LISTED):
        entry: dict[str, Any] = {
            "table": game.table_id,
            "seat": game.seat,
            "status": game.status,
            "players": game.players,
            "seats": game.seats,
            "your_turn": False,
            "move": None if game.ending is None else game.ending["move"],
            "pace": TableSetup.from_json(game.setup, len(game.players)).pace.name,
            "ending": game.ending,
            "created": game.created.isoformat(),
        }
        if game.status == TableStatus.OVER:
            finished.append(entry)
            continue
        # Held here from now on (a finished one need not be read): whose turn it is is the
        # game's to say.
        room = await site.hub.room(game.table_id)
        state = room.game.state
        entry["status"], entry["move"] = room.status, room.move
        # A stand-in plays the seat now (its time ran out, away, resigned): said in the list.
        entry["absent"] = room.seats[game.seat].absent
        entry["your_turn"] = (
            room.status == TableStatus.PLAYING
            and not state.is_over()
            and state.current_player == game.seat
            and room.seats[game.seat].absent is None
        )
        (finished if room.status == TableStatus.OVER else playing).append(entry)
    playing.sort(key=lambda e: not e["your_turn"])  # stable: newest first within each
    return {"playing": playing, "finished": finished}


@router.get("/tables")
async def open_tables(site: SiteOf) -> list[dict[str, Any]]:
    """Public tables waiting for people (see :meth:`Hub.open_tables`)."""
    rooms = await site.hub.open_tables(time.monotonic())
    return [room.info().model_dump() for room in rooms]


@router.get("/tables/{table_id}")
async def table_info(room: TableOf) -> dict[str, Any]:
    return room.info().model_dump() | {"move": room.move}


# The pages show these refusals to the player (lobby, invite, replay): each is in the
# request's language.
@router.post("/tables/{table_id}/join")
async def join(body: Join, room: TableOf, site: SiteOf) -> dict[str, Any]:
    if room.status == TableStatus.OVER:
        raise HTTPException(409, _("the game at this table is over"))
    seat: int | None = None
    token = body.token
    #: The player "Find a game" reserved the seat for, sitting down with their player key.
    reserved: str | None = None
    if body.token is not None:
        seat = room.seat_for(body.token)
        if seat is None:
            raise HTTPException(403, _("this invite is not for a seat at this table"))
    elif not room.public and body.player is not None:
        reserved = await site.players.identify(body.player)
        seat = await site.pairing.reserved(room.id, reserved)
        if seat is None:
            raise HTTPException(403, _("no seat at this table is reserved for you"))
        token = new_token()
    elif not room.public:
        raise HTTPException(403, _("this table is joined by invite only"))
    await refuse_banned(site, body.player)
    if room.setup.rated and body.player is None:
        raise HTTPException(422, _("a rated table needs your player key (player)"))
    # Two Lenas at one table would read as one in every sentence of the log. (Strangers
    # seated by "Find a game" keep their names: they chose them before they met.)
    same = body.name.casefold()
    if not room.setup.rated and any(s.name and s.name.casefold() == same for s in room.seats):
        raise HTTPException(
            422,
            _("{name} sits at this table already: choose a name the others can tell apart").format(
                name=body.name
            ),
        )
    try:
        seat, token = await room.take_seat(
            seat, body.name, token, body.hints, body.deal_part, body.player
        )
    except RoomError as exc:
        raise HTTPException(409, str(exc)) from None
    if reserved is not None:
        await site.pairing.sat(room.id, reserved)
    return {"table": room.id, "seat": seat, "token": token}


@router.post("/tables/{table_id}/rematch")
async def rematch(
    body: Rematch, request: Request, response: Response, room: TableOf, site: SiteOf
) -> dict[str, Any]:
    """Play again with the same people: the first to ask opens a table with the same seats,
    rules, pace, stand-in and resign rule (not stored if another was first), and this table
    tells everyone at it; each of the others sits down there at their own seat by asking
    too. The answer is the asker's seat there, as opening or joining gives it."""
    if room.status != TableStatus.OVER:
        raise HTTPException(409, _("the game at this table is not over yet"))
    seat = room.seat_for(body.token)
    if seat is None and PLAYER_KEY.fullmatch(body.token):
        # A player key (the terminal's): the seat of the player it names, as at hello.
        seat = room.seat_for(body.token, await site.players.identify(body.token))
    if seat is None:
        raise HTTPException(403, _("this link is not for a seat at this table"))
    name = room.seats[seat].name
    if name is None:  # an invite nobody took before the table closed
        raise HTTPException(409, _("nobody sat at this seat: there is no game to play again"))
    await refuse_banned(site, body.player)
    if room.rematch is None:
        _count(site.opened, request, f"{site.limits.tables_per_minute:g} tables")
        store = site.hub.store

        async def claim(conn: AsyncConnection, table_id: str) -> None:
            await store.claim_rematch(conn, room.id, {"table": table_id, "by": seat})

        try:
            opened = await site.hub.open(
                [s.kind for s in room.seats],
                room.rules_spec,
                name=name,
                creator=seat,
                hints=body.hints,
                part=body.deal_part,
                pace=room.setup.pace.name,
                stand_in=room.setup.stand_in,
                resign=room.setup.resign,
                player=body.player,
                rated=room.setup.rated,
                claim=claim,
            )
        except TableRefused as exc:
            raise HTTPException(422, str(exc)) from None
        except RematchTaken as exc:  # another person (at another process) asked first
            await told_rematch(room, exc.args[0], news=False)
        else:
            await told_rematch(room, {"table": opened.room.id, "by": seat}, news=True)
            response.status_code = 201  # a table opened, as POST /api/tables answers
            return _links(request, opened)
    assert room.rematch is not None
    try:
        again = await site.hub.room(str(room.rematch["table"]))
    except NoTable:
        raise HTTPException(404, _("the table to play again at is gone")) from None
    if again.status == TableStatus.OVER:
        raise HTTPException(409, _("the game at this table is over"))
    try:
        seat, token = await again.take_seat(
            seat, name, new_token(), body.hints, body.deal_part, body.player
        )
    except RoomError as exc:
        raise HTTPException(409, str(exc)) from None
    link = _seat_link(request, again.id, seat, token)
    return {"table": again.id, "seat": seat, "token": token, "link": link}


async def told_rematch(room: Room, rematch: dict[str, Any], news: bool) -> None:
    """``room``'s people play again at ``rematch``: everyone at it is told (the other server
    processes too, when this one stored it)."""
    async with room.lock:
        if room.rematch is None:
            room.rematch = rematch
            if news:
                await room.replica.tell(RematchNews(rematch=rematch))
            await room.audience.announce_table()


@router.get("/tables/{table_id}/record")
async def record(room: TableOf) -> dict[str, Any]:
    if room.status != TableStatus.OVER:
        raise HTTPException(
            409, _("the game is not over: its record, which names hidden cards, comes after")
        )
    return archive.record(room)


@router.get("/tables/{table_id}/replay")
async def replay(room: TableOf) -> dict[str, Any]:
    """A finished game step by step for the replay page: every state (hands shown) and the
    sentences of what each action did."""
    if room.status != TableStatus.OVER:
        raise HTTPException(
            409, _("the game is not over: its replay, which shows every hand, comes after")
        )
    return archive.replay(room) | {"seats": room.info().model_dump()["seats"]}


@router.get("/tables/{table_id}/review")
async def review(player: int, request: Request, room: TableOf, site: SiteOf) -> JSONResponse:
    """``player``'s decisions in a finished game graded by the search (computed in the bot
    pool): 202 with the progress while it is computed, then 200 with the review."""
    reviews, limits = site.hub.reviews, site.limits
    if room.status != TableStatus.OVER:
        raise HTTPException(409, _("the game is not over: it is reviewed once it has ended"))
    if not 0 <= player < len(room.seats):
        raise HTTPException(
            422,
            _("no player {player} at this table (players are 0-{last})").format(
                player=player, last=len(room.seats) - 1
            ),
        )
    if not reviews.known(room.id, player):
        _count(site.reviewed, request, f"{limits.reviews_per_minute:g} reviews")
        if limits.reviews_at_once and reviews.computing() >= limits.reviews_at_once:
            raise HTTPException(
                503,
                "the server is computing other reviews: ask again in a minute",
                headers={"Retry-After": "60"},
            )
    job = reviews.get(room.id, room.game, player)
    if job.result is not None:
        return JSONResponse(job.result | {"choices": _choices(job.result)})
    if job.error is not None:
        raise HTTPException(503, job.error)
    return JSONResponse(job.progress(), status_code=202)
