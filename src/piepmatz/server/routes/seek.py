"""HTTP for "Find a game" (``docs/protocol.md``, "Find a game"): seek, ask where it stands,
give up, or fill the empty seats with bots after the wait. The player is the Bearer player key;
the rules are :mod:`..pairing`'s."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response

from ..messages import Seek, SeekBots
from ..pairing import Refusal, SeekRefused
from ..players import KeyOf
from . import SiteOf
from .tables import count_opened

router = APIRouter(prefix="/api")

#: The HTTP status of each refusal.
_STATUS = {
    Refusal.BANNED: 403,
    Refusal.SEEKING: 409,
    Refusal.NOT_SEEKING: 404,
    Refusal.TOO_SOON: 409,
    Refusal.BAD: 422,
}


def _refused(exc: SeekRefused) -> HTTPException:
    return HTTPException(_STATUS[exc.why], str(exc))


@router.post("/seek", status_code=201)
async def seek(body: Seek, key: KeyOf, request: Request, site: SiteOf) -> dict[str, Any]:
    """Look for a game: where it stands at once (waiting, or already seated)."""
    count_opened(request, site)
    player = await site.players.identify(key)
    try:
        return await site.pairing.seek(player, body.name, body.players, body.pace)
    except SeekRefused as exc:
        raise _refused(exc) from None


@router.get("/seek")
async def where(key: KeyOf, site: SiteOf) -> dict[str, Any]:
    """Where the player's seek stands; asking keeps it on the list (the page asks every few
    seconds)."""
    try:
        return await site.pairing.status(await site.players.identify(key))
    except SeekRefused as exc:
        raise _refused(exc) from None


@router.delete("/seek", status_code=204)
async def give_up(key: KeyOf, site: SiteOf) -> Response:
    try:
        await site.pairing.cancel(await site.players.identify(key))
    except SeekRefused as exc:
        raise _refused(exc) from None
    return Response(status_code=204)


@router.post("/seek/bots", status_code=201)
async def with_bots(body: SeekBots, key: KeyOf, request: Request, site: SiteOf) -> dict[str, Any]:
    """After the wait: sit down at once, with whoever else waits for the same game and bots in
    the seats left; the answer is the seat, as a join's."""
    count_opened(request, site)
    try:
        opened = await site.pairing.with_bots(await site.players.identify(key), key, body.deal_part)
    except SeekRefused as exc:
        raise _refused(exc) from None
    return {"table": opened.room.id, "seat": opened.seat, "token": opened.tokens[opened.seat]}
