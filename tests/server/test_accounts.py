"""Accounts over HTTP: sign up (the browser's games stay the player's), sign in on another
browser (a new key naming the same player), sign out, change the password, delete the account
(the games stay, anonymised); bad input refused saying what was wrong; attempts rate-limited;
``--accounts off``. And a player's page, which tells nothing hidden."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from argon2 import PasswordHasher
from sqlalchemy import select

from piepmatz.server import db
from piepmatz.server.accounts import FORMER_PLAYER, Accounts
from piepmatz.server.players import Players
from piepmatz.server.seats import token_hash
from piepmatz.server.store import Store
from serverplay import running_server

ANNA, BEN, OTHER = "a" * 43, "b" * 43, "o" * 43


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def call(
    http: httpx.AsyncClient,
    method: str,
    path: str,
    key: str | None = None,
    body: dict[str, Any] | None = None,
    status: int = 200,
    language: str = "en",
) -> Any:
    headers = {"Accept-Language": language} | (bearer(key) if key else {})
    response = await http.request(method, path, json=body, headers=headers)
    assert response.status_code == status, response.text
    return None if status == 204 else response.json()


async def game_against_bot(http: httpx.AsyncClient, key: str, name: str = "Anna") -> str:
    opened = await call(
        http, "POST", "/api/quick", body={"name": name, "player": key, "players": 2}, status=201
    )
    return str(opened["table"])


def test_sign_up_in_out_and_a_new_key_names_the_same_player(database_url: str) -> None:
    async def run() -> None:
        with running_server(database_url) as address:
            async with httpx.AsyncClient(base_url=f"http://{address}") as http:
                table = await game_against_bot(http, ANNA)
                before = await call(http, "GET", "/api/account", ANNA)
                assert before["username"] is None and before["accounts"] == "passwords"
                made = await call(
                    http,
                    "POST",
                    "/api/account",
                    ANNA,
                    {"username": "Anna.B", "password": "correct horse"},
                    201,
                )
                assert made["username"] == "Anna.B" and made["rating"] == 1000
                # Case-insensitively unique; one account per player.
                taken = await call(
                    http,
                    "POST",
                    "/api/account",
                    BEN,
                    {"username": "anna.b", "password": "12345678"},
                    409,
                )
                assert "taken" in taken["detail"]
                again = await call(
                    http,
                    "POST",
                    "/api/account",
                    ANNA,
                    {"username": "Other", "password": "12345678"},
                    409,
                )
                assert "already" in again["detail"]
                # Another browser signs in and is given a key of its own for the same player.
                wrong = await call(
                    http,
                    "POST",
                    "/api/account/sign-in",
                    body={"username": "anna.b", "password": "wrong horse"},
                    status=401,
                )
                assert "do not match" in wrong["detail"]
                nobody = await call(
                    http,
                    "POST",
                    "/api/account/sign-in",
                    body={"username": "nobody", "password": "wrong horse"},
                    status=401,
                )
                assert nobody["detail"] == wrong["detail"], "no account is told apart"
                signed = await call(
                    http,
                    "POST",
                    "/api/account/sign-in",
                    body={"username": "ANNA.B", "password": "correct horse"},
                )
                key = signed["key"]
                assert len(key) == 43 and key != ANNA and signed["username"] == "Anna.B"
                games = await call(http, "GET", "/api/games", key)
                assert [g["table"] for g in games["playing"]] == [table]
                # When it was opened, with its zone whichever the database (SQLite keeps none).
                opened = datetime.fromisoformat(games["playing"][0]["created"])
                assert opened.utcoffset() == timedelta(0)
                assert abs(datetime.now(UTC) - opened) < timedelta(minutes=5)
                # A table opened with the new key is the player's under either key.
                second = await game_against_bot(http, key)
                mine = await call(http, "GET", "/api/games", ANNA)
                assert {g["table"] for g in mine["playing"]} == {table, second}
                # Signing out forgets the new key: it names nobody any more.
                await call(http, "POST", "/api/account/sign-out", key, status=204)
                gone = await call(http, "GET", "/api/account", key)
                assert gone["username"] is None
                assert (await call(http, "GET", "/api/games", key))["playing"] == []
                assert (await call(http, "GET", "/api/account", ANNA))["username"] == "Anna.B"

    asyncio.run(run())


def test_bad_usernames_and_passwords_are_refused_in_the_requests_language(
    sqlite_url: str,
) -> None:
    async def run() -> None:
        with running_server(sqlite_url) as address:
            async with httpx.AsyncClient(base_url=f"http://{address}") as http:
                for username in ("ab", "a" * 25, "anna b", "_anna", "änna", "anna<b>"):
                    refused = await call(
                        http,
                        "POST",
                        "/api/account",
                        ANNA,
                        {"username": username, "password": "12345678"},
                        422,
                    )
                    assert "3 to 24 characters" in refused["detail"]
                for password in ("short", "x" * 257):
                    refused = await call(
                        http,
                        "POST",
                        "/api/account",
                        ANNA,
                        {"username": "anna", "password": password},
                        422,
                    )
                    assert "8 to 256 characters" in refused["detail"]
                huge = await call(
                    http,
                    "POST",
                    "/api/account",
                    ANNA,
                    {"username": "anna", "password": "x" * 5000},
                    422,
                )
                assert "x" * 100 not in json.dumps(huge), "the input is not echoed"
                german = await call(
                    http,
                    "POST",
                    "/api/account",
                    ANNA,
                    {"username": "anna", "password": "kurz"},
                    422,
                    language="de",
                )
                assert "8 to 256" not in german["detail"] and "8" in german["detail"]
                no_key = await call(
                    http,
                    "POST",
                    "/api/account",
                    None,
                    {"username": "anna", "password": "12345678"},
                    401,
                )
                assert "Bearer" in no_key["detail"]
                assert (await call(http, "GET", "/api/account", ANNA))["username"] is None

    asyncio.run(run())


def test_change_password_and_delete_the_account_its_games_anonymised(database_url: str) -> None:
    async def run() -> None:
        with running_server(database_url) as address:
            async with httpx.AsyncClient(base_url=f"http://{address}") as http:
                sign_up = {"username": "anna", "password": "first password"}
                await call(http, "POST", "/api/account", ANNA, sign_up, 201)
                refused = await call(
                    http,
                    "POST",
                    "/api/account/password",
                    ANNA,
                    {"old": "not it at all", "new": "second password"},
                    403,
                )
                assert "current password" in refused["detail"]
                await call(
                    http,
                    "POST",
                    "/api/account/password",
                    ANNA,
                    {"old": "first password", "new": "second password"},
                    204,
                )
                await call(http, "POST", "/api/account/sign-in", body=sign_up, status=401)
                # A game with Ben, with chat, resigned: over.
                opened = await call(
                    http,
                    "POST",
                    "/api/tables",
                    body={"seats": ["human", "human"], "name": "Anna", "player": ANNA},
                    status=201,
                )
                table = opened["table"]
                await call(
                    http,
                    "POST",
                    f"/api/tables/{table}/join",
                    body={"name": "Ben", "token": opened["invites"][0]["token"], "player": BEN},
                )
                delete = {"password": "second password"}
                busy = await call(http, "DELETE", "/api/account", ANNA, delete, 409)
                assert "resign" in busy["detail"]
                wrong = await call(
                    http, "DELETE", "/api/account", ANNA, {"password": "first password"}, 403
                )
                assert "password" in wrong["detail"]
                from piepmatz.server.client import SeatClient

                async with SeatClient.connect(
                    f"ws://{address}/ws/{table}", opened["token"]
                ) as seat:
                    await seat.until("welcome")
                    await seat.send({"type": "chat", "text": "hello from Anna"})
                    await seat.until("chat")
                    await seat.send({"type": "mute", "seat": 1, "muted": True})
                    assert (await seat.until("muted"))["seats"] == [1]
                    await seat.send({"type": "resign"})
                    while (await seat.until("table"))["status"] != "over":
                        pass
                deleted = await call(http, "DELETE", "/api/account", ANNA, delete)
                assert deleted == {"deleted": True, "games": 1}
                info = await call(http, "GET", f"/api/tables/{table}")
                assert [s["name"] for s in info["seats"]] == [FORMER_PLAYER, "Ben"]
                record = await call(http, "GET", f"/api/tables/{table}/record")
                assert "Anna" not in json.dumps(record)
                # Ben still has the game; Anna's key names nobody now.
                bens = await call(http, "GET", "/api/games", BEN)
                assert [g["players"] for g in bens["finished"]] == [[FORMER_PLAYER, "Ben"]]
                assert (await call(http, "GET", "/api/games", ANNA))["finished"] == []
                await call(
                    http,
                    "POST",
                    "/api/account/sign-in",
                    body={"username": "anna", "password": "second password"},
                    status=401,
                )
                # The name is free again.
                await call(
                    http,
                    "POST",
                    "/api/account",
                    OTHER,
                    {"username": "Anna", "password": "12345678"},
                    201,
                )
        engine = db.make_engine(database_url)
        try:
            async with engine.connect() as conn:
                lines = list(await conn.scalars(select(db.chat.c.name)))
                ids = list(await conn.scalars(select(db.players.c.id)))
                seats = list(await conn.execute(select(db.seats.c.name, db.seats.c.player_hash)))
                muted = list(await conn.execute(select(db.mutes)))
        finally:
            await engine.dispose()
        assert lines == [FORMER_PLAYER]
        assert muted == [], "a deleted player's mutes go"
        assert token_hash(ANNA) not in ids
        assert (FORMER_PLAYER, None) in [(s.name, s.player_hash) for s in seats]

    asyncio.run(run())


def test_sign_ins_are_limited_per_username_and_per_address(sqlite_url: str) -> None:
    async def run() -> None:
        with running_server(sqlite_url) as address:
            async with httpx.AsyncClient(base_url=f"http://{address}") as http:
                guess = {"username": "anna", "password": "guess 000"}
                for _ in range(5):
                    await call(http, "POST", "/api/account/sign-in", body=guess, status=401)
                response = await http.post("/api/account/sign-in", json=guess)
                assert response.status_code == 429
                assert "this username" in response.json()["detail"]
                assert int(response.headers["Retry-After"]) >= 1
                # Ten attempts a minute from one address, whatever the username: the
                # eleventh is refused, unless the minute's trickle refilled one meanwhile.
                others = {"username": "bert", "password": "guess 000"}
                statuses = []
                for _ in range(8):
                    response = await http.post("/api/account/sign-in", json=others)
                    statuses.append(response.status_code)
                    if response.status_code == 429:
                        break
                assert statuses[:4] == [401] * 4 and statuses[-1] == 429, statuses
                assert "your address" in response.json()["detail"]
                # Signing up checks a password too: counted with them.
                response = await http.post(
                    "/api/account",
                    json={"username": "clara", "password": "12345678"},
                    headers=bearer(OTHER),
                )
                assert response.status_code == 429

    asyncio.run(run())


def test_accounts_off_refuses_passwords_but_not_deleting_ones_data(sqlite_url: str) -> None:
    async def run() -> None:
        with running_server(sqlite_url, accounts="off") as address:
            async with httpx.AsyncClient(base_url=f"http://{address}") as http:
                account = await call(http, "GET", "/api/account", ANNA)
                assert account["accounts"] == "off"
                for path, key in (("/api/account", ANNA), ("/api/account/sign-in", None)):
                    refused = await call(
                        http,
                        "POST",
                        path,
                        key,
                        {"username": "anna", "password": "12345678"},
                        403,
                    )
                    assert "no accounts" in refused["detail"]
                await game_against_bot(http, ANNA)
                busy = await call(http, "DELETE", "/api/account", ANNA, {}, 409)
                assert "not over" in busy["detail"]

    asyncio.run(run())


def test_a_password_is_hashed_again_when_the_costs_change(tmp_path: Any) -> None:
    async def run() -> None:
        engine = db.make_engine(f"sqlite+aiosqlite:///{tmp_path / 's.db'}")
        await db.upgrade(engine)
        store = Store(engine)
        try:
            cheap = PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1)
            accounts = Accounts(store, Players(store), hasher=cheap)
            await accounts.sign_up(ANNA, "anna", "a good password", "here")
            stored = await _password(store)
            assert stored.startswith("$argon2id$") and "m=8192" in stored
            accounts.hasher = PasswordHasher()
            await accounts.sign_in("anna", "a good password", "here")
            rehashed = await _password(store)
            assert rehashed != stored and f"m={PasswordHasher().memory_cost}" in rehashed
            assert "a good password" not in rehashed
        finally:
            await store.close()
            await engine.dispose()

    asyncio.run(run())


async def _password(store: Store) -> str:
    async with store.reading() as conn:
        return str(await conn.scalar(select(db.players.c.password)))


def test_the_hashing_is_bounded(tmp_path: Any) -> None:
    """More sign-ins at once than the hashing takes are refused (503), not queued without end."""

    async def run() -> None:
        engine = db.make_engine(f"sqlite+aiosqlite:///{tmp_path / 's.db'}")
        await db.upgrade(engine)
        store = Store(engine)
        try:
            accounts = Accounts(store, Players(store))
            accounts.by_address.rate = 0  # this test is about the hashing alone
            accounts.by_username.rate = 0
            from piepmatz.server import accounts as module

            results = await asyncio.gather(
                *(
                    accounts.sign_in(f"user{i}", "12345678", "here")
                    for i in range(module.HASHING_AT_ONCE + module.HASHING_WAITING + 4)
                ),
                return_exceptions=True,
            )
            statuses = sorted(getattr(r, "status", 0) for r in results)
            assert statuses.count(503) == 4 and statuses.count(401) == len(results) - 4
        finally:
            await store.close()
            await engine.dispose()

    asyncio.run(run())
