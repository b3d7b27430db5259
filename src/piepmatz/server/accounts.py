"""Accounts a community can choose (issue 46): a username and a password beside the browser's
player key, so that a player can sign in on another browser as the same player.

Signing up names the player of the browser's key (its games stay theirs); signing in elsewhere
checks the password and mints a new player key for that player (stored hashed in ``keys``).
Passwords are hashed with argon2id (``argon2-cffi``'s :class:`~argon2.PasswordHasher`), in a
thread, since the hash is slow on purpose: a few at once, with sign-ins counted per address and
per username, so that nobody can make the server burn its CPU or guess passwords fast. Deleting
an account takes the player's data and leaves their games, anonymised (:meth:`Accounts.delete`).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from piepmatz.i18n import _

from .db import blocks, chat, keys, mutes, players, rating_history, seats, seeks, tables
from .limits import AddressBuckets
from .players import Players
from .seats import new_token, token_hash
from .store import Store
from .vocabulary import Absence, TableStatus


class AccountsSetting(StrEnum):
    """``serve --accounts``: what a player may have beside their browser's key."""

    OFF = "off"  # the browser's key alone
    PASSWORDS = "passwords"  # a username and a password too


#: A username: 3 to 24 letters (a-z, A-Z), digits, ``_``, ``.`` and ``-``, starting with a letter
#: or digit. Latin letters only, so that no two names look alike in another alphabet.
USERNAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{2,23}")
#: A password's length in characters: at least 8, and at most 256 (argon2's input is bounded).
PASSWORD_MIN = 8
PASSWORD_MAX = 256
#: Passwords hashed at once in this process (each takes ~64 MiB and tens of milliseconds), and
#: how many more may wait their turn before the next is refused.
HASHING_AT_ONCE = 2
HASHING_WAITING = 16
#: Attempts that check a password (signing up, in, changing it) per client address a minute, and
#: at once; and sign-ins per username, whoever asks.
ATTEMPTS_PER_MINUTE = 10.0
ATTEMPTS_BURST = 10
SIGN_INS_PER_USERNAME = 5.0
SIGN_INS_BURST = 5
#: A deleted player's seats and chat lines are named so (the same for everyone; not translated,
#: as a name is not).
FORMER_PLAYER = "Former player"


class AccountError(Exception):
    """A request about an account refused; ``status`` is its HTTP status, the message says why
    (in the request's language)."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


@dataclass(frozen=True)
class Account:
    """Who a player key is: the player's id, their username (``None``: no account) and page."""

    player: str
    username: str | None
    page: str | None


def check_username(username: str) -> str:
    """The username's login (case-folded); :class:`AccountError` saying what was wrong."""
    if not USERNAME.fullmatch(username):
        raise AccountError(
            422,
            _(
                "a username has 3 to 24 characters: letters a-z, digits, _ . and -, "
                "starting with a letter or a digit"
            ),
        )
    return username.lower()


def check_password(password: str) -> None:
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise AccountError(
            422,
            _("a password has {low} to {high} characters").format(
                low=PASSWORD_MIN, high=PASSWORD_MAX
            ),
        )


class Accounts:
    """Sign up, sign in and out, change a password, delete an account."""

    def __init__(
        self,
        store: Store,
        players: Players,
        setting: AccountsSetting = AccountsSetting.PASSWORDS,
        hasher: PasswordHasher | None = None,
    ) -> None:
        self.store = store
        self.players = players
        self.setting = setting
        self.hasher = hasher or PasswordHasher()
        self._hashing = asyncio.Semaphore(HASHING_AT_ONCE)
        self._waiting = 0
        self.by_address = AddressBuckets(ATTEMPTS_PER_MINUTE, ATTEMPTS_BURST)
        self.by_username = AddressBuckets(SIGN_INS_PER_USERNAME, SIGN_INS_BURST)

    # ------------------------------------------------------------------ the pieces

    def _passwords_allowed(self) -> None:
        if self.setting != AccountsSetting.PASSWORDS:
            raise AccountError(
                403, _("this server has no accounts: your browser's key is who you are")
            )

    def count(self, address: str) -> None:
        """Count one attempt that checks a password from ``address``; 429 past the limit."""
        if not self.by_address.take(address):
            raise AccountError(
                429,
                _("too many attempts from your address: wait a minute"),
                self.by_address.retry_after(),
            )

    async def _in_thread(self, work: Any, *args: Any) -> Any:
        """Run the hasher's ``work`` in a thread, a few at once; 503 when too many wait."""
        if self._waiting >= HASHING_AT_ONCE + HASHING_WAITING:
            raise AccountError(503, _("the server is busy: try again in a moment"), 2)
        self._waiting += 1
        try:
            async with self._hashing:
                return await asyncio.to_thread(work, *args)
        finally:
            self._waiting -= 1

    async def _hash(self, password: str) -> str:
        hashed: str = await self._in_thread(self.hasher.hash, password)
        return hashed

    async def _verify(self, hashed: str | None, password: str) -> bool:
        """Whether ``password`` is the one ``hashed`` holds (with no hash, one is still checked
        against a dummy, so that the answer takes as long)."""

        def verify() -> bool:
            try:
                return bool(self.hasher.verify(hashed or _DUMMY.get(self.hasher), password))
            except (VerificationError, InvalidHashError):
                return False

        ok: bool = await self._in_thread(verify)
        return ok and hashed is not None

    async def account(self, key: str) -> Account:
        """Who the player key ``key`` is."""
        player = await self.players.identify(key)
        async with self.store.reading() as conn:
            row = (
                await conn.execute(
                    select(players.c.username, players.c.page).where(players.c.id == player)
                )
            ).first()
        if row is None:
            return Account(player, None, None)
        return Account(player, row.username, row.page)

    # ------------------------------------------------------------------ the requests

    async def sign_up(self, key: str, username: str, password: str, address: str) -> Account:
        """Give the player of ``key`` a username and password; their games stay theirs."""
        self._passwords_allowed()
        login = check_username(username)
        check_password(password)
        self.count(address)
        player = await self.players.identify(key)
        await self.players.ensure(player)
        hashed = await self._hash(password)
        try:
            async with self.store.writing() as conn:
                done = await conn.execute(
                    update(players)
                    .where(players.c.id == player, players.c.login.is_(None))
                    .values(username=username, login=login, password=hashed)
                )
        except IntegrityError:
            raise AccountError(409, _("this username is taken: choose another")) from None
        if done.rowcount != 1:
            raise AccountError(409, _("you have an account already: sign out first"))
        return await self.account(key)

    async def sign_in(self, username: str, password: str, address: str) -> tuple[str, Account]:
        """A new player key for the account ``username`` if ``password`` is its password."""
        self._passwords_allowed()
        check_password(password)
        login = username.lower()
        self.count(address)
        if not self.by_username.take(login[:64]):
            raise AccountError(
                429,
                _("too many sign-ins for this username: wait a minute"),
                self.by_username.retry_after(),
            )
        async with self.store.reading() as conn:
            row = (
                await conn.execute(
                    select(players.c.id, players.c.password).where(players.c.login == login)
                )
            ).first()
        if not await self._verify(None if row is None else row.password, password):
            raise AccountError(401, _("this username and password do not match an account"))
        assert row is not None
        if self.hasher.check_needs_rehash(row.password):
            # The operator's hashing costs changed since: the password is hashed anew.
            rehashed = await self._hash(password)
            async with self.store.writing() as conn:
                await conn.execute(
                    update(players).where(players.c.id == row.id).values(password=rehashed)
                )
        key = new_token()
        async with self.store.writing() as conn:
            await conn.execute(
                insert(keys).values(
                    key_hash=token_hash(key), player_id=row.id, created=datetime.now(UTC)
                )
            )
        return key, await self.account(key)

    async def sign_out(self, key: str) -> None:
        """Forget the player key ``key`` (a key a sign-in minted; a browser's first key has no
        row, and the browser forgets it alone)."""
        async with self.store.writing() as conn:
            await conn.execute(delete(keys).where(keys.c.key_hash == token_hash(key)))

    async def change_password(self, key: str, old: str, new: str, address: str) -> None:
        self._passwords_allowed()
        check_password(new)
        self.count(address)
        player = await self.players.identify(key)
        async with self.store.reading() as conn:
            row = (
                await conn.execute(select(players.c.password).where(players.c.id == player))
            ).first()
        if row is None or row.password is None:
            raise AccountError(409, _("you have no account: create one first"))
        if not await self._verify(row.password, old):
            raise AccountError(403, _("this is not your current password"))
        hashed = await self._hash(new)
        async with self.store.writing() as conn:
            await conn.execute(
                update(players).where(players.c.id == player).values(password=hashed)
            )

    async def delete(self, key: str, password: str | None, address: str) -> tuple[str, list[str]]:
        """Delete the player of ``key``: their row, keys, rating history, blocks, mutes and
        seeks. Their games stay, anonymised: seats and chat lines named
        :data:`FORMER_PLAYER`, no player id, no seat credential. An account's password must
        be given. Refused while they play a game not yet over (they resign it first). Returns
        the player's id and the tables whose seats were renamed."""
        player = await self.players.identify(key)
        async with self.store.reading() as conn:
            row = (
                await conn.execute(select(players.c.password).where(players.c.id == player))
            ).first()
            going = await conn.scalar(
                select(seats.c.table_id)
                .join(tables, tables.c.id == seats.c.table_id)
                .where(
                    seats.c.player_hash == player,
                    tables.c.status != TableStatus.OVER,
                    or_(seats.c.absent.is_(None), seats.c.absent != Absence.RESIGNED),
                )
                .limit(1)
            )
        if row is not None and row.password is not None:
            self.count(address)
            if password is None or not await self._verify(row.password, password):
                raise AccountError(403, _("give your current password to delete your account"))
        if going is not None:
            raise AccountError(
                409, _("you are playing a game that is not over: finish or resign it first")
            )
        async with self.store.writing() as conn:
            renamed = list(
                await conn.scalars(
                    select(seats.c.table_id).where(seats.c.player_hash == player).distinct()
                )
            )
            places = (
                await conn.execute(
                    select(seats.c.table_id, seats.c.seat).where(seats.c.player_hash == player)
                )
            ).all()
            for place in places:
                await conn.execute(
                    update(chat)
                    .where(chat.c.table_id == place.table_id, chat.c.seat == place.seat)
                    .values(name=FORMER_PLAYER)
                )
            await conn.execute(
                update(seats)
                .where(seats.c.player_hash == player)
                .values(name=FORMER_PLAYER, player_hash=None, token_hash=None)
            )
            await conn.execute(delete(keys).where(keys.c.player_id == player))
            await conn.execute(
                delete(blocks).where(
                    or_(blocks.c.player_id == player, blocks.c.blocked_id == player)
                )
            )
            await conn.execute(delete(mutes).where(mutes.c.player_id == player))
            await conn.execute(delete(seeks).where(seeks.c.player_id == player))
            # The rating history goes with the row (ON DELETE CASCADE), said here too for a
            # database that does not enforce it.
            await conn.execute(delete(rating_history).where(rating_history.c.player_id == player))
            await conn.execute(delete(players).where(players.c.id == player))
        return player, renamed


class _Dummy:
    """A hash of a password nobody has, made once per hasher's costs, checked when a username
    has no account so that a wrong username takes as long to refuse as a wrong password."""

    def __init__(self) -> None:
        self.hashes: dict[int, str] = {}

    def get(self, hasher: PasswordHasher) -> str:
        found = self.hashes.get(id(hasher))
        if found is None:
            found = self.hashes[id(hasher)] = hasher.hash(new_token())
        return found


_DUMMY = _Dummy()


__all__ = [
    "FORMER_PLAYER",
    "Account",
    "AccountError",
    "Accounts",
    "AccountsSetting",
    "check_password",
    "check_username",
]
