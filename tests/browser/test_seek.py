"""Find a game in the browser (issue 46): two people in two browsers each ask the lobby for a
game of two; the page shows the wait, the server seats them together, and both pages sit down at
the same table, whose game starts."""

from __future__ import annotations

from typing import Any

from axe_playwright_python.base import AXE_FILE_PATH
from playwright.sync_api import expect
from tests.browser.test_access import no_violations

DESKTOP = {"width": 1440, "height": 900}
PATIENCE = 30_000


def _seek(browser: Any, site: str, name: str) -> Any:
    """A person's own browser at the lobby (asking every half second), seeking a game of two at
    the live pace."""
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(path=AXE_FILE_PATH)
    page = context.new_page()
    page.goto(f"{site}/?poll=0.5")
    page.fill("#name", name)
    page.select_option("#seek-players", "2")
    page.select_option("#seek-pace", "live")
    page.click("#seek-start")
    return page


def test_two_people_find_each_other_and_sit_at_one_table(browser: Any, site: str) -> None:
    anna = _seek(browser, site, "Anna")
    expect(anna.locator("#seek-wait")).to_contain_text("waiting", timeout=PATIENCE)
    expect(anna.locator("#seek-news")).to_have_text(
        "Nobody else is waiting for this game yet.", timeout=PATIENCE
    )
    expect(anna.locator("#seek-cancel")).to_be_visible()
    # Bots are offered only after the server's wait (45 s); until then it says when.
    expect(anna.locator("#seek-bots")).to_be_hidden()
    expect(anna.locator("#seek-note")).to_contain_text("After 45 s")
    # Asking again keeps the keyboard's focus where it was.
    anna.focus("#seek-cancel")
    anna.wait_for_timeout(1200)
    assert anna.evaluate("() => document.activeElement.id") == "seek-cancel"
    no_violations(anna, "the lobby while finding a game", both_sizes=False)
    ben = _seek(browser, site, "Ben")
    for page in (anna, ben):
        page.wait_for_url("**/play/*", timeout=PATIENCE)
        # Both seated, the game is dealt: each page has its first state.
        page.wait_for_function("() => !!(window.__seat && window.__seat.state)", timeout=PATIENCE)
    assert anna.url.split("#")[0].split("/play/")[1] == ben.url.split("#")[0].split("/play/")[1]
    seats = [page.evaluate("() => window.__seat.last.welcome.seat") for page in (anna, ben)]
    assert sorted(seats) == [0, 1]
    names = anna.locator(".player .name").all_inner_texts()
    assert sorted(n.removesuffix(" (you)") for n in names) == ["Anna", "Ben"]
    for page in (anna, ben):
        page.context.close()


def test_the_lobby_asks_about_a_seek_only_while_this_browser_seeks(browser: Any, site: str) -> None:
    """A reload (or another tab) picks the wait back up; a lobby that never sought, or whose
    search was given up, asks the server nothing about it (no refused question on every
    visit)."""
    page = _seek(browser, site, "Clara")
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.method) if r.url.endswith("/api/seek") else None)
    expect(page.locator("#seek-wait")).to_contain_text("waiting", timeout=PATIENCE)
    page.reload()
    expect(page.locator("#seek-wait")).to_contain_text("waiting", timeout=PATIENCE)
    other = page.context.new_page()  # another tab of the same browser
    other.goto(f"{site}/?poll=0.5")
    expect(other.locator("#seek-wait")).to_contain_text("waiting", timeout=PATIENCE)
    other.close()
    page.click("#seek-cancel")
    expect(page.locator("#seek-start")).to_be_visible(timeout=PATIENCE)
    assert "DELETE" in asked
    asked.clear()
    page.reload()
    expect(page.locator("#seek-start")).to_be_visible(timeout=PATIENCE)
    page.wait_for_timeout(1500)  # three of the page's half-second rounds
    assert asked == []
    page.context.close()

    stranger = browser.new_context(viewport=DESKTOP).new_page()
    seen: list[str] = []
    stranger.on("request", lambda r: seen.append(r.url) if "/api/seek" in r.url else None)
    stranger.goto(f"{site}/?poll=0.5")
    expect(stranger.locator("#seek-start")).to_be_visible(timeout=PATIENCE)
    stranger.wait_for_timeout(1500)
    assert seen == []
    stranger.context.close()
