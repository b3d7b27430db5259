"""HTTP for moderation among strangers (``docs/protocol.md``, "Moderation"): a player's blocks,
made from a table's seat or from a player's page, listed and removed, and a table
reported to the operator. Every route names the player by their key (``Authorization:
Bearer KEY``); a seat is named by its number, never by the player sitting there. A mute is a
WebSocket message (``routes/play.py``): it is the seat's connection that stops hearing.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import Field

from ..messages import _Strict
from ..moderation import Refused
from ..plaintext import ChatText
from ..players import KeyOf
from ..vocabulary import ErrorCode, ReportReason
from . import SiteOf, TableOf

router = APIRouter(prefix="/api")

#: Far above any table's seats: a seat beyond a table's is told in words by the moderation.
SEAT_NUMBERS = 1000

#: The HTTP status of each refusal: not yours to ask (403), no such thing (404), too many (429);
#: the rest is a request that names something wrong (422).
_STATUS = {
    ErrorCode.NOT_AT_TABLE: 403,
    ErrorCode.BANNED: 403,
    ErrorCode.NO_PLAYER: 404,
    ErrorCode.RATE_LIMITED: 429,
}


def refused(exc: Refused) -> HTTPException:
    """A moderation refusal as the HTTP error the client is answered with."""
    return HTTPException(_STATUS.get(exc.code, 422), str(exc))


class BlockSeat(_Strict):
    """Block the player at ``seat`` (counted from 0) of the table."""

    seat: int = Field(ge=0, le=SEAT_NUMBERS)


class BlockPlayer(_Strict):
    """Block the player whose page (``/players/PAGE``) this is."""

    page: str = Field(pattern=r"^[A-Za-z0-9_-]{1,32}$")


class Report(_Strict):
    """Report the table to the operator: why (one of the reasons offered), in your own words
    if you like, and the seat you report, if one."""

    reason: ReportReason = Field(strict=False)  # by its value, from the offered list
    note: ChatText | None = None
    seat: int | None = Field(default=None, ge=0, le=SEAT_NUMBERS)


@router.post("/tables/{table_id}/blocks", status_code=201)
async def block_seat(body: BlockSeat, key: KeyOf, room: TableOf, site: SiteOf) -> dict[str, Any]:
    """Block the player at a seat of a table you sit at: you are never paired with them, and
    you hear their chat at no table."""
    try:
        return (await site.moderation.block(room, key, body.seat)).to_json()
    except Refused as exc:
        raise refused(exc) from None


@router.post("/blocks", status_code=201)
async def block_player(body: BlockPlayer, key: KeyOf, site: SiteOf) -> dict[str, Any]:
    """Block a player from their page."""
    try:
        return (await site.moderation.block_player(key, body.page)).to_json()
    except Refused as exc:
        raise refused(exc) from None


@router.get("/blocks")
async def my_blocks(key: KeyOf, site: SiteOf) -> dict[str, list[dict[str, Any]]]:
    """The players you blocked, the latest first: the name you saw and a reference to remove
    the block by (never their id)."""
    return {"blocks": [block.to_json() for block in await site.moderation.blocks_of(key)]}


@router.delete("/blocks/{ref}", status_code=204)
async def unblock(ref: str, key: KeyOf, site: SiteOf) -> Response:
    try:
        await site.moderation.unblock(key, ref)
    except Refused as exc:
        raise refused(exc) from None
    return Response(status_code=204)


@router.post("/tables/{table_id}/reports", status_code=201)
async def report(
    body: Report, key: KeyOf, request: Request, room: TableOf, site: SiteOf
) -> dict[str, Any]:
    """Report a table you sit at to the operator, with its record and chat as they are now;
    nothing changes at the table."""
    address = request.client.host if request.client else "?"
    try:
        await site.moderation.report(room, key, address, body.reason, body.note, body.seat)
    except Refused as exc:
        raise refused(exc) from None
    return {"table": room.id, "seat": body.seat, "reason": body.reason.value}
