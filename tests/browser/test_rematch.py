"""Playing again with the same people in the browser: the first to press *Play again* opens the
table with the same seats; the others are told who asked (on the page and read out) and their
button joins them there, at their own seat."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import expect

from .test_focus import DESKTOP, PATIENCE, SHOWN, said, send


def test_the_others_are_told_and_join_at_their_seats(browser: Any, server: Any) -> None:
    made = server.table(["human", "human", "random"], name="Anna")
    invite = made["invites"][0]
    joined = httpx.post(
        f"{server.site}/api/tables/{made['table']}/join",
        json={"name": "Ben", "token": invite["token"]},
    )
    assert joined.status_code == 200, joined.text
    ben_seat = {"table": made["table"], "token": joined.json()["token"]}
    for seat in (made, ben_seat):  # both ask to abort: the game is over at once
        send(server.site, seat, {"type": "abort"})
    pages = []
    for link in (made["link"], f"/play/{made['table']}#seat=1&token={ben_seat['token']}"):
        page = browser.new_page(viewport=DESKTOP)
        page.goto(server.url(link))
        page.wait_for_function(SHOWN, timeout=PATIENCE)
        pages.append(page)
    anna, ben = pages
    expect(ben.locator("#play-again")).to_have_text("Play again")
    ben.locator("#play-again").click()
    welcomed = "() => window.__seat && window.__seat.last.welcome?.table"
    ben.wait_for_function(f"() => ({welcomed})() && ({welcomed})() !== '{made['table']}'")
    new_table = ben.evaluate(welcomed)
    # Anna is told who asked, on the page and read out; her button joins them.
    expect(anna.locator("#rematch-offer")).to_have_text("Ben wants to play again.")
    assert "Ben wants to play again." in said(anna)
    expect(anna.locator("#play-again")).to_have_text("Join them")
    anna.locator("#play-again").click()
    anna.wait_for_function(f"() => ({welcomed})() === '{new_table}'")
    info = httpx.get(f"{server.site}/api/tables/{new_table}").json()
    assert info["status"] == "playing"
    assert [s["name"] for s in info["seats"]] == ["Anna", "Ben", "random"]
    for page, seat in ((anna, 0), (ben, 1)):
        page.wait_for_function(SHOWN, timeout=PATIENCE)
        assert page.evaluate("() => window.__seat.last.welcome.seat") == seat
        page.close()
