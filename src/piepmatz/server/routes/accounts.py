"""HTTP for accounts and players' pages (``docs/protocol.md``, "Accounts" and "Players"): sign
up, in and out, change a password, delete an account; a player's rating and rated games. The
rules are :mod:`..accounts`' and :mod:`..ratings`'."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response

from piepmatz.i18n import _

from ..accounts import FORMER_PLAYER, Account, AccountError
from ..messages import DeleteAccount, NewPassword, SignIn, SignUp
from ..players import KeyOf
from ..ratings import bot_shown, shown
from . import Site, SiteOf, TableOf

router = APIRouter(prefix="/api")


def _address(request: Request) -> str:
    return request.client.host if request.client else "?"


def _refused(exc: AccountError) -> HTTPException:
    headers = None if exc.retry_after is None else {"Retry-After": str(exc.retry_after)}
    return HTTPException(exc.status, str(exc), headers=headers)


async def _described(site: Site, account: Account) -> dict[str, Any]:
    """What the browser shows of its own player: the username, the page and the rating."""
    page = await site.ratings.page(account.page) if account.page else None
    return {
        "accounts": site.accounts.setting.value,
        "username": account.username,
        "page": account.page,
        "rating": shown(None, None) if page is None else page["rating"],
        "rated_games": 0 if page is None else page["rated_games"],
        "provisional": True if page is None else page["provisional"],
    }


@router.get("/account")
async def account(key: KeyOf, site: SiteOf) -> dict[str, Any]:
    """Who the request's player key is."""
    return await _described(site, await site.accounts.account(key))


@router.post("/account", status_code=201)
async def sign_up(body: SignUp, key: KeyOf, request: Request, site: SiteOf) -> dict[str, Any]:
    try:
        made = await site.accounts.sign_up(key, body.username, body.password, _address(request))
    except AccountError as exc:
        raise _refused(exc) from None
    return await _described(site, made)


@router.post("/account/sign-in")
async def sign_in(body: SignIn, request: Request, site: SiteOf) -> dict[str, Any]:
    """A new player key for the account, which the browser keeps as its own."""
    try:
        key, found = await site.accounts.sign_in(body.username, body.password, _address(request))
    except AccountError as exc:
        raise _refused(exc) from None
    return {"key": key} | await _described(site, found)


@router.post("/account/sign-out", status_code=204)
async def sign_out(key: KeyOf, site: SiteOf) -> Response:
    await site.accounts.sign_out(key)
    return Response(status_code=204)


@router.post("/account/password", status_code=204)
async def change_password(
    body: NewPassword, key: KeyOf, request: Request, site: SiteOf
) -> Response:
    try:
        await site.accounts.change_password(key, body.old, body.new, _address(request))
    except AccountError as exc:
        raise _refused(exc) from None
    return Response(status_code=204)


@router.delete("/account")
async def delete_account(
    body: DeleteAccount, key: KeyOf, request: Request, site: SiteOf
) -> dict[str, Any]:
    """Delete the player and their data; their games stay, anonymised."""
    try:
        player, renamed = await site.accounts.delete(key, body.password, _address(request))
    except AccountError as exc:
        raise _refused(exc) from None
    # The finished tables held here read the new names now (elsewhere once read again).
    for table_id in renamed:
        room = site.hub.rooms.get(table_id)
        for seat in room.seats if room is not None else ():
            if seat.player_hash == player:
                seat.name, seat.player_hash, seat.token_hash = FORMER_PLAYER, None, None
    return {"deleted": True, "games": len(renamed)}


@router.get("/players/{page}")
async def player_page(page: str, site: SiteOf) -> dict[str, Any]:
    """A player's page: their username, rating and rated games; nothing hidden."""
    found = await site.ratings.page(page[:64])
    if found is None:
        raise HTTPException(404, _("no player has this page"))
    return found


@router.get("/tables/{table_id}/ratings")
async def table_ratings(room: TableOf, site: SiteOf) -> dict[str, Any]:
    """Each seat's rating as shown, for a rated table (a bot's is fixed); and each person's
    page."""
    if not room.setup.rated:
        return {"rated": False, "seats": []}
    ids = [s.player_hash if s.is_human and s.name is not None else None for s in room.seats]
    pages = await site.ratings.pages_of(ids)
    ratings = await site.ratings.shown_for(ids)
    return {
        "rated": True,
        "seats": [
            {
                "seat": i,
                "rating": bot_shown(s.kind) if not s.is_human else ratings[i],
                "page": pages[i],
            }
            for i, s in enumerate(room.seats)
        ],
    }


__all__ = ["router"]
