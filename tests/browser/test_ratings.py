"""An account and a rating in real Chromium: a person creates an account, plays a rated quick game
against a bot (resigned: the fastest way to its end), and finds the rating on their player page
(docs/online.md, "Accounts" and "Ratings")."""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

import httpx
from axe_playwright_python.base import AXE_FILE_PATH
from playwright.sync_api import expect
from tests.browser.test_access import DESKTOP, no_violations

#: No wait for one step takes longer than this (milliseconds).
PATIENCE = 20_000


def test_a_rated_game_against_a_bot_ends_with_the_rating_on_the_players_page(
    browser: Any, site: str
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    page.context.add_init_script(path=AXE_FILE_PATH)  # accessibility checked on the way
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(f"{site}/?pace=0")
    # My games says the way to these games from another device: an account.
    page.goto(f"{site}/games")
    expect(page.locator("#other-device")).to_contain_text(
        "Playing on another device too? Create an account here", timeout=PATIENCE
    )
    expect(page.get_by_role("link", name="Create account")).to_have_attribute("href", "/account")
    # An account, from the header's link.
    page.locator("#account-link").click()
    page.wait_for_url(re.compile(r"/account$"))
    expect(page.locator("#sign-up")).to_be_visible(timeout=PATIENCE)
    no_violations(page, "the account page, no account yet")
    page.fill("#new-username", "Wren")
    page.fill("#new-password", "a song at dawn")
    page.locator("#sign-up button[type=submit]").click()
    expect(page.locator("#account-link")).to_have_text("Wren", timeout=PATIENCE)
    expect(page.locator("#my-rating")).to_contain_text("Your rating: 1000 (provisional)")
    no_violations(page, "the account page, signed in")
    page.goto(f"{site}/games")
    expect(page.locator("#other-device")).to_have_text(
        "You are signed in as Wren: sign in with it on another device, and these games are "
        "yours there too.",
        timeout=PATIENCE,
    )
    # A rated game against one bot: hints go off with it.
    page.goto(f"{site}/?pace=0")
    page.fill("#name", "Wren")
    page.select_option("#quick-players", "2")
    page.select_option("#quick-bot", "random")
    page.check("#quick-rated")
    expect(page.locator("#quick-hints")).not_to_be_checked()
    expect(page.locator("#quick-hints")).to_be_disabled()
    page.click("#quick-start")
    page.wait_for_url(re.compile(r"/play/"))
    table = page.url.split("/play/")[1].split("?")[0].split("#")[0]
    expect(page.locator("#rated-tag")).to_have_text("Rated", timeout=PATIENCE)
    expect(page.locator("#seat-ratings")).to_contain_text("1000", timeout=PATIENCE)
    no_violations(page, "a rated table")
    page.get_by_role("button", name="Resign").click()
    page.get_by_role("button", name="Yes, resign").click()
    expect(page.locator("#ending")).to_contain_text("resigned", timeout=PATIENCE)
    # The player's page: the rating after the game, and the game in its list.
    page.goto(f"{site}/account?pace=0")
    page.locator("#my-page").click()
    page.wait_for_url(re.compile(r"/players/[\w-]+$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Wren")
    rating = page.locator("#player-rating")
    expect(rating).to_contain_text("1 rated game", timeout=PATIENCE)
    shown = int(re.search(r"Rating: (\d+)", rating.inner_text()).group(1))  # type: ignore[union-attr]
    assert shown < 1000, "a resignation is a loss"
    entries = page.locator("#rated-games li")
    expect(entries).to_have_count(1)
    expect(entries.first).to_contain_text("Place 2 of 2")
    expect(entries.first.get_by_role("link", name="Replay")).to_have_attribute(
        "href", f"/replay/{table}"
    )
    expect(page.locator("#header-rating")).to_have_text(str(shown))
    no_violations(page, "a player's page with its chart")
    page_id = page.url.rsplit("/", 1)[1]
    assert httpx.get(f"{site}/api/players/{page_id}").json()["rating"] == shown
    assert not problems, problems
    page.close()
    # Another browser asks for the same name: refused in a sentence (from its capital).
    other = browser.new_page(viewport=DESKTOP)
    other.goto(f"{site}/account?pace=0")
    other.fill("#new-username", "wren")
    other.fill("#new-password", "another song")
    other.locator("#sign-up button[type=submit]").click()
    expect(other.locator("#toast")).to_have_text(
        "This username is taken: choose another", timeout=PATIENCE
    )
    other.close()


def test_a_rated_table_shows_the_rating_of_whoever_sits_down_after_the_page_opened(
    browser: Any, site: str
) -> None:
    anna, ben = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    body = {"seats": ["human", "human"], "name": "Anna", "rated": True, "player": anna}
    made = httpx.post(f"{site}/api/tables", json=body)
    assert made.status_code == 201, made.text
    opened = made.json()
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(f"localStorage.setItem('piepmatz.player', {json.dumps(anna)})")
    page = context.new_page()
    page.goto(opened["link"])  # Anna's page opens while the table waits for Ben
    expect(page.locator("#seat-ratings")).to_have_text("Ratings: Anna (you) 1000", timeout=PATIENCE)
    join = {"name": "Ben", "token": opened["invites"][0]["token"], "player": ben}
    joined = httpx.post(f"{site}/api/tables/{opened['table']}/join", json=join)
    assert joined.status_code == 200, joined.text
    expect(page.locator("#seat-ratings")).to_have_text(
        "Ratings: Anna (you) 1000, Ben 1000", timeout=PATIENCE
    )
    context.close()
