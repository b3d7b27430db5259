"""Every page a person meets, at a phone's size (360 × 740) and a desktop's (1440 × 900): the
lobby, the join form, a table waiting, a table mid-game, the end with its score sheet, the
replay, the rules and "My games". Nothing a person must use is off-screen or cut, every control
is at least 44 × 44 px on the phone, the page never scrolls sideways; on the desktop the board
stays still from decision to decision with the display in view, and on the phone the banner
and the next decision stay in view after a move.
"""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 360, "height": 740}
PATIENCE = 30_000
#: The least a fingertip hits (WCAG 2.5.5): every control on a phone is at least this big.
TOUCH = 44

#: The problems with what a person must use on the page shown: off-screen, cut by a box that
#: hides what overflows, text cut inside its control, and (``touch``) smaller than a fingertip.
#: A checkbox counts as its line (label.check, the whole line takes the tap); links inside a
#: sentence are exempt (WCAG's inline exception); the rules text is the server's.
_REACH = """([touch, least]) => {
  const width = document.documentElement.clientWidth;
  const problems = [];
  const name = (el) => `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}`
    + ` "${(el.textContent || el.value || '').trim().replace(/\\s+/g, ' ').slice(0, 30)}"`;
  const shown = (el) => el.getClientRects().length > 0
    && getComputedStyle(el).visibility !== 'hidden';
  const things = document.querySelectorAll('button, select, label.check, a.button,'
    + ' input:not([type=checkbox]):not([type=hidden]), header.top a, .table-head a, tr[tabindex]');
  for (const el of things) {
    if (!shown(el)) continue;
    const box = el.getBoundingClientRect();
    if (box.left < -0.5 || box.right > width + 0.5) {
      problems.push(`${name(el)} off-screen at x ${Math.round(box.left)}-${Math.round(box.right)}`);
    }
    if (['LABEL', 'BUTTON', 'A'].includes(el.tagName) && el.scrollWidth > el.clientWidth + 1) {
      problems.push(`${name(el)} cut: ${el.scrollWidth} px of text in ${el.clientWidth}`);
    }
    for (let up = el.parentElement; up; up = up.parentElement) {
      const overflow = getComputedStyle(up).overflowX;
      if (overflow !== 'hidden' && overflow !== 'clip') continue;
      const frame = up.getBoundingClientRect();
      if (box.left < frame.left - 0.5 || box.right > frame.right + 0.5) {
        problems.push(`${name(el)} clipped by ${up.tagName}`);
      }
      break;
    }
    if (touch && (box.width < least - 0.5 || box.height < least - 0.5)) {
      problems.push(`${name(el)} ${Math.round(box.width)}×${Math.round(box.height)} px`);
    }
  }
  for (const box of document.querySelectorAll('input[type=checkbox]')) {
    if (shown(box) && !box.closest('label.check')) problems.push(`checkbox#${box.id} alone`);
  }
  return problems;
}"""


def reach(page: Any, touch: bool) -> None:
    """Everything a person must use on ``page`` is in reach, and the page does not scroll
    sideways."""
    problems = page.evaluate(_REACH, [touch, TOUCH])
    assert problems == [], f"{page.url}: {problems}"
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"{page.url}: {width} px wide"


def box(page: Any, selector: str) -> dict[str, float]:
    found: dict[str, float] = page.evaluate(
        "(s) => { const b = document.querySelector(s).getBoundingClientRect();"
        " return {top: b.top, bottom: b.bottom, height: b.height}; }",
        selector,
    )
    return found


@dataclass
class Prepared:
    key: str  # the browser's player key, seated at every table below but ``join``
    over: dict[str, Any]  # a finished game
    waiting: str  # a table waiting for a friend
    join: str  # a table with a free seat, opened by someone else


@pytest.fixture(scope="module")
def tables(server: Any) -> Prepared:
    key = secrets.token_urlsafe(32)
    over = server.quick(2, key)
    server.finish(over)
    waiting = server.table(["human", "human", "easy"], public=True, player=key)
    join = server.table(["human", "human", "easy"], public=True)
    return Prepared(key, over, waiting["table"], join["table"])


@pytest.fixture
def person(browser: Any, tables: Prepared, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A page of a browser whose player key is ``tables.key``, at the size asked for."""
    context = browser.new_context(viewport=request.param)
    context.add_init_script(f"localStorage.setItem('piepmatz.player', {json.dumps(tables.key)})")
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    yield page
    context.close()
    assert problems == []


@pytest.mark.parametrize("person", [PHONE, DESKTOP], ids=["phone", "desktop"], indirect=True)
def test_every_page_is_within_reach(
    person: Any, site: str, server: Any, tables: Prepared, artefacts: Path
) -> None:
    page = person
    phone = page.viewport_size == PHONE
    for path, ready in (
        ("/", "#quick-start"),
        ("/rules?rules=standard", "article.rules h1"),
        ("/games", "#games li[data-table]"),
        (f"/replay/{tables.over['table']}", "#deal-check"),
        (f"/play/{tables.join}", "#join-name"),
        (f"/play/{tables.waiting}", "#decision h2"),
        (server.url(tables.over["link"]), ".scores"),
    ):
        page.goto(path if path.startswith("http") else f"{site}{path}")
        page.wait_for_selector(ready, timeout=PATIENCE)
        reach(page, phone)
        if path == "/" and phone:
            page.screenshot(path=str(artefacts / "lobby-phone.png"), full_page=True)
    page.goto(server.url(server.quick(3)["link"]))
    rng = random.Random(4)
    decisions = 0
    phone_shot = False
    steady: set[tuple[float, float]] = set()
    while decisions < 10:
        page.wait_for_function(server.READY, timeout=PATIENCE)
        s = page.evaluate(server.STATUS)
        if s["over"]:
            break
        decisions += 1
        page.evaluate("() => window.scrollTo(0, 0)")
        if not phone:
            # The board's top and the decision's height are the same at every decision.
            steady.add((box(page, "#board")["top"], box(page, "#decision")["height"]))
            if s["phase"] == "draw":
                assert box(page, ".display .cards")["bottom"] <= DESKTOP["height"]
        # Every card's value stays legible.
        sizes = page.evaluate(
            "() => [...document.querySelectorAll('.card .value')]"
            ".map(e => parseFloat(getComputedStyle(e).fontSize))"
        )
        assert sizes and min(sizes) >= 14
        if s["phase"] == "play":
            cards = page.locator(".hand-card.usable")
            cards.nth(rng.randrange(cards.count())).click()
            reach(page, phone)  # the perches' buttons and the card's moves
            if decisions >= 6 and phone:
                page.screenshot(path=str(artefacts / "table-phone.png"), full_page=True)
                phone_shot = True
            perches = page.locator(".perch-pick")
            perches.nth(rng.randrange(perches.count())).click()
        else:
            reach(page, phone)
            options = page.locator("button.option")
            options.nth(rng.randrange(options.count())).click()
        page.wait_for_function(f"() => window.__seat.state.move !== {s['move']}", timeout=PATIENCE)
        if phone:
            # After a move the banner telling the others' moves, and then the next decision,
            # are in view (the perch clicked was further down the page).
            page.wait_for_function(server.SETTLED, timeout=PATIENCE)
            for part in ("#banner", "#decision"):
                where = box(page, part)
                assert 0 <= where["top"] < PHONE["height"], (part, where)
    assert decisions >= 6
    if phone:
        assert phone_shot
    else:
        assert len(steady) == 1, steady
