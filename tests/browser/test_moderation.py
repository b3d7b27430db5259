"""Moderation in the browser (issue 46): at a table a person opens the menu of another seat by
keyboard, mutes their chat (the lines shown go, the later ones never come) and reports them
with a reason and their own words; the page confirms it, the report reaches the operator, and
every state of it passes axe with no violation. Banned, the page says why and stops."""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect
from tests.browser.test_access import DESKTOP, no_violations, person
from websockets.sync.client import connect

from piepmatz.cli import main
from serverplay import running_server

PATIENCE = 30_000


@pytest.fixture(scope="module")
def site_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("moderation") / "server.db"


@pytest.fixture(scope="module")
def site(site_database: Path) -> Iterator[str]:
    """The server of this module, on a database the test reads the reports from."""
    with running_server(f"sqlite+aiosqlite:///{site_database}") as address:
        yield f"http://{address}"


def test_a_person_mutes_and_reports_another_seat_from_the_table_page(
    browser: Any, server: Any, site_database: Path
) -> None:
    anna, ben = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    made = server.table(["human", "human"], name="Ben", player=ben)
    joined = httpx.post(
        f"{server.site}/api/tables/{made['table']}/join",
        json={"name": "Anna", "token": made["invites"][0]["token"], "player": anna},
    )
    assert joined.status_code == 200, joined.text
    with connect(server.site.replace("http", "ws") + f"/ws/{made['table']}") as ws:
        ws.send(json.dumps({"type": "hello", "token": ben}))
        ws.send(json.dumps({"type": "chat", "text": "a rude line"}))
        page = person(browser, DESKTOP, "en", anna)
        page.goto(f"{server.site}/play/{made['table']}?pace=0")
        chat = page.locator("#chat li")
        expect(chat).to_have_text(["Ben: a rude line"], timeout=PATIENCE)

        # The menu of Ben's seat, by keyboard: a disclosure named by him.
        menu = page.get_by_role("group", name="Options for Ben")
        page.locator("#people summary").focus()
        page.keyboard.press("Enter")
        expect(menu).to_be_visible()
        no_violations(page, "a seat's menu open", both_sizes=False)
        menu.get_by_role("button", name="Mute Ben's chat").click()
        page.wait_for_function("() => window.__seat.last.muted?.seats.includes(0)")
        expect(chat.first).to_be_hidden()
        expect(menu.get_by_role("button", name="Hear Ben's chat again")).to_be_visible()
        ws.send(json.dumps({"type": "chat", "text": "another rude line"}))
        page.locator("#chat-input").fill("please stop")
        page.locator("#chat-input").press("Enter")
        expect(chat).to_have_count(2, timeout=PATIENCE)  # her line came; his never does
        expect(chat.last).to_have_text("Anna: please stop")

        # Reported: a reason from the list, her words, and the page says it was sent.
        menu.get_by_role("button", name="Report Ben").click()
        form = page.locator("#report-form")
        expect(page.locator("#report-reason")).to_be_focused()
        page.get_by_label("Why").select_option("abuse")
        page.get_by_label("In your own words (optional)").fill("insults in the chat")
        no_violations(page, "the report form", both_sizes=False)
        form.get_by_role("button", name="Send report").click()
        expect(page.locator("#toast")).to_contain_text("Report sent.", timeout=PATIENCE)
        expect(form).to_have_count(0)
        with sqlite3.connect(site_database) as conn:
            rows = conn.execute("SELECT table_id, seat, reason, note FROM reports").fetchall()
        assert rows == [(made["table"], 0, "abuse", "insults in the chat")]

        # From a player's page: Ben's (he has one once he has a row: he blocks her).
        made_block = httpx.post(
            f"{server.site}/api/tables/{made['table']}/blocks",
            json={"seat": 1},
            headers={"Authorization": f"Bearer {ben}"},
        )
        assert made_block.status_code == 201, made_block.text
        ben_id, anna_id = (hashlib.sha256(k.encode()).hexdigest() for k in (ben, anna))
        with sqlite3.connect(site_database) as conn:
            (ben_page,) = conn.execute(
                "SELECT page FROM players WHERE id = ?", (ben_id,)
            ).fetchone()
        page.goto(f"{server.site}/players/{ben_page}?pace=0")
        page.get_by_role("button", name="Block this player").click()
        expect(page.locator("#toast")).to_contain_text("is blocked", timeout=PATIENCE)
        with sqlite3.connect(site_database) as conn:
            blocked = conn.execute("SELECT blocked_id FROM blocks WHERE player_id = ?", (anna_id,))
            assert blocked.fetchall() == [(ben_id,)]

        # Banned by the operator: the page says why and does not knock again.
        ban = ["admin", "ban", anna_id[:12], "--reason", "spam in the chat"]
        ban += ["--database-url", f"sqlite+aiosqlite:///{site_database}"]
        with ThreadPoolExecutor(1) as aside:  # Playwright's loop holds this thread
            assert aside.submit(main, ban).result() == 0
        page.goto(f"{server.site}/play/{made['table']}?pace=0")
        expect(page.locator("h1")).to_have_text("You cannot play on this server", timeout=PATIENCE)
        expect(page.locator(".dead-end p")).to_have_text(
            "you are banned from this server: spam in the chat"
        )
        page.wait_for_timeout(2000)  # a reconnection would have opened a new socket by now
        assert page.evaluate("() => window.__seat.socket.readyState") == 3  # closed
        page.close()
