"""Who a player is among strangers (issue 46).

A browser makes a random player key and sends it where it matters ("My games", sitting down).
The key's SHA-256 is the player's id, as ``seats.player_hash`` stores it. A player who signs in
with a password on another browser is given a new key, stored (hashed) in ``keys`` with the
player's id, so every key a player holds names the same player. A player's row in ``players``
holds their account, rating and ban; it is made when first needed.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from piepmatz.i18n import _

from .db import keys, players
from .messages import PLAYER_KEY
from .seats import token_hash
from .store import Store


def new_page() -> str:
    """A player's page's id: random and public (a player id is a key's hash, never shown)."""
    return secrets.token_urlsafe(12)


class Players:
    """The players' rows and keys in the database."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def identify(self, key: str) -> str:
        """The id of the player whose key ``key`` is: the player a sign-in minted it for, or,
        for a key with no row in ``keys``, its own hash."""
        hashed = token_hash(key)
        async with self.store.reading() as conn:
            row = (
                await conn.execute(select(keys.c.player_id).where(keys.c.key_hash == hashed))
            ).first()
        return hashed if row is None else str(row.player_id)

    async def ensure(self, player_id: str) -> None:
        """Make ``player_id``'s row if it has none yet (idempotent, across processes)."""
        async with self.store.reading() as conn:
            found = (
                await conn.execute(select(players.c.id).where(players.c.id == player_id))
            ).first()
        if found is not None:
            return
        try:
            async with self.store.writing() as conn:
                await conn.execute(
                    insert(players).values(id=player_id, created=datetime.now(UTC), page=new_page())
                )
        except IntegrityError:
            pass  # made meanwhile, here or by another process

    async def ban(self, player_id: str) -> str | None:
        """Why the operator banned ``player_id``, or ``None`` if they are not banned."""
        async with self.store.reading() as conn:
            row = (
                await conn.execute(
                    select(players.c.banned, players.c.ban_reason).where(players.c.id == player_id)
                )
            ).first()
        if row is None or row.banned is None:
            return None
        return str(row.ban_reason or "")


def player_key(request: Request) -> str:
    """The player key a request carries (``Authorization: Bearer KEY``); 401 if none."""
    scheme, _sep, key = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not PLAYER_KEY.fullmatch(key):
        raise HTTPException(
            401,
            _("say who you are: the header Authorization: Bearer and your player key"),
            headers={"WWW-Authenticate": "Bearer"},
        )
    return key


KeyOf = Annotated[str, Depends(player_key)]
