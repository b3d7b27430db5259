"""Hints at the table and the review on the replay page, in a real Chromium.

The server runs with small search budgets (``create_app``'s hint and review budgets), so that a
hint and a whole review take a fraction of a second.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from piepmatz.bots.analysis import GRADE_NAMES
from piepmatz.core import Action
from serverplay import running_server

from .test_focus import send

DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 360, "height": 740}
PATIENCE = 30_000
HINT_BOT = "ismcts:iterations=200"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    database = tmp_path_factory.mktemp("hints") / "server.db"
    with running_server(
        f"sqlite+aiosqlite:///{database}",
        hint_bot=HINT_BOT,
        hint_iterations=60,
        review_iterations=6,
    ) as address:
        yield f"http://{address}"


def quick_game(site: str, hints: bool, seed: int) -> dict[str, Any]:
    body = {"name": "Anna", "players": 2, "bot": "random", "seed": seed, "hints": hints}
    response = httpx.post(f"{site}/api/quick", json=body)
    assert response.status_code == 201, response.text
    made: dict[str, Any] = response.json()
    return made


def open_seat(
    browser: Any,
    site: str,
    made: dict[str, Any],
    sent: list[str] | None = None,
    query: str = "",
    touch: bool = False,
) -> Any:
    """The seat's page (``query`` added to its address; ``touch``: on a phone), once it offers
    the seat a decision; ``sent`` collects its messages."""
    if touch:
        page = browser.new_page(viewport=PHONE, has_touch=True, is_mobile=True)
    else:
        page = browser.new_page(viewport=DESKTOP)
    if sent is not None:
        page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(frame)))
    link = re.sub(r"^https?://[^/]+", "", made["link"]).replace("#", f"?pace=0{query}#")
    page.goto(site + link)
    page.wait_for_function(
        """() => { const shown = document.querySelector('.table-page');
                   return shown && shown.getAttribute('aria-busy') === 'false'
                     && shown.dataset.toMove === 'true'; }""",
        timeout=PATIENCE,
    )
    return page


def test_the_hint_button_shows_the_suggestion_where_hints_are_on(
    browser: Any, site: str, artefacts: Path
) -> None:
    page = open_seat(browser, site, quick_game(site, True, 4))
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    assert page.inner_text("#hints-tag") == "Hints on"
    page.click("#hint")
    page.wait_for_selector("#hint-box", timeout=PATIENCE)
    hint = page.evaluate("() => window.__seat.last.hint")
    legal = page.evaluate("() => window.__seat.state.legal")
    assert hint["action"] in legal and hint["bot"] == HINT_BOT and hint["worlds"] == 60
    text = page.inner_text("#hint-box")
    assert f"Hint from the {HINT_BOT} bot" in text
    assert "±" in text and "60 sampled worlds" in text
    # The suggestion is marked: the hand card it plays or adds, else its listed move.
    action = Action.parse(hint["action"])
    if str(action).startswith(("play", "collect")):
        card = str(action).split()[1]
        assert page.locator(f'.hand-card.hinted[data-card="{card}"]').count() == 1
    else:
        assert page.locator(f'.hinted[data-action="{hint["action"]}"]').count() >= 1
    # Asked once per decision: the button waits for the next one.
    assert page.is_disabled("#hint")
    page.screenshot(path=str(artefacts / "hint-desktop.png"), full_page=True)
    assert problems == []
    page.close()


def test_no_hint_button_where_hints_are_off(browser: Any, site: str) -> None:
    sent: list[str] = []
    page = open_seat(browser, site, quick_game(site, False, 4), sent)
    assert page.inner_text("#hints-tag") == "Hints off"
    assert page.locator("#hint").count() == 0
    page.keyboard.press("h")
    # A message sent after the key: frames leave in order, so once it is seen, the key's is too.
    page.evaluate("() => window.__seat.socket.send(JSON.stringify({type: 'sync'}))")
    for _ in range(PATIENCE // 50):
        types = [json.loads(frame)["type"] for frame in sent]
        if "sync" in types:
            break
        page.wait_for_timeout(50)
    assert "hello" in types and "sync" in types and "hint" not in types
    assert page.locator("#hint-box").count() == 0
    page.close()


def test_a_joining_person_sees_that_hints_need_everyones_consent(browser: Any, site: str) -> None:
    body = {"seats": ["human", "human"], "name": "Anna", "hints": True}
    made = httpx.post(f"{site}/api/tables", json=body).json()
    invite = made["invites"][0]
    page = browser.new_page(viewport=DESKTOP)
    page.goto(site + re.sub(r"^https?://[^/]+", "", invite["link"]))
    page.wait_for_selector("#join-hints")
    page.fill("#join-name", "Ben")
    page.check("#join-hints")
    page.click("button[type=submit]")
    page.wait_for_selector("#hints-tag", timeout=PATIENCE)
    page.wait_for_function(
        "() => document.querySelector('#hints-tag').textContent === 'Hints on'",
        timeout=PATIENCE,
    )
    seats = httpx.get(f"{site}/api/tables/{made['table']}").json()["seats"]
    assert [s["hints"] for s in seats] == [True, True]
    page.close()


def finish(site: str, made: dict[str, Any], seed: int) -> None:
    """Play the person's seat to the end with random legal moves, over the protocol."""
    rng = random.Random(seed)
    url = site.replace("http", "ws") + f"/ws/{made['table']}"
    with connect(url) as ws:
        ws.send(json.dumps({"type": "hello", "token": made["token"]}))
        while True:
            message = json.loads(ws.recv(timeout=PATIENCE / 1000))
            if message["type"] != "state":
                continue
            if message["result"] is not None:
                return
            if message["legal"]:
                action = rng.choice(message["legal"])
                ws.send(json.dumps({"type": "action", "move": message["move"], "action": action}))


def test_the_replay_page_shows_the_review_of_a_finished_game(
    browser: Any, site: str, artefacts: Path
) -> None:
    made = quick_game(site, False, 9)
    finish(site, made, 3)
    page = browser.new_page(viewport=DESKTOP)
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(f"{site}/replay/{made['table']}")
    page.click("#review-0")
    page.wait_for_selector("#review-summary", timeout=PATIENCE)
    # The page shows what the endpoint answers (kept: asked again, it is there at once).
    answer = httpx.get(f"{site}/api/tables/{made['table']}/review", params={"player": 0})
    assert answer.status_code == 200
    review = answer.json()
    s = review["summary"]
    assert page.inner_text("#review-summary").startswith(
        f"Accuracy {round(100 * s['accuracy'])}% ({s['grades']['best'] + s['grades']['good']} "
        f"of {s['decisions']} decisions best or good)"
    )
    rows = page.locator("#review-decisions tbody tr")
    assert rows.count() == len(review["decisions"]) == s["decisions"] > 0
    grades = page.locator("#review-decisions tbody .grade").all_inner_texts()
    assert grades == [d["grade"] for d in review["decisions"]]
    assert set(grades) <= set(GRADE_NAMES)
    kinds = page.locator("#review-kinds tbody th").all_inner_texts()
    assert kinds == [k for k, c in s["categories"].items() if c["decisions"]]
    # A row takes the replay to that move, and the move tells its grade.
    decision = review["decisions"][len(review["decisions"]) // 2]
    rows.nth(len(review["decisions"]) // 2).click()
    assert page.inner_text("#where").startswith(f"Move {decision['index'] + 1} of ")
    assert page.inner_text("#move-grade").startswith(f"Grade: {decision['grade']}.")
    assert "current" in (rows.nth(len(review["decisions"]) // 2).get_attribute("class") or "")
    page.screenshot(path=str(artefacts / "review-desktop.png"), full_page=True)
    # On a phone the review fits the width (its long table scrolls inside its box).
    page.set_viewport_size({"width": 360, "height": 740})
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
    # There each grade shows beside the move played without scrolling sideways; the kind
    # (which the move's words tell) is left out.
    box = page.locator(".review-scroll").evaluate("(el) => el.getBoundingClientRect().right")
    shown = page.locator("#review-decisions tbody .grade").evaluate_all(
        "(els) => els.map((el) => el.getBoundingClientRect().right)"
    )
    assert len(shown) == len(grades) and max(shown) <= box, (shown, box)
    assert not page.locator("#review-decisions td.kind").first.is_visible()
    page.set_viewport_size(DESKTOP)
    assert page.locator("#review-decisions td.kind").first.is_visible()
    page.set_viewport_size({"width": 360, "height": 740})
    page.screenshot(path=str(artefacts / "review-phone.png"), full_page=True)
    assert problems == []
    page.close()


#: The review's grades as the Czech page names them.
CZECH_GRADES = {
    "best": "nejlepší",
    "good": "dobrý",
    "inaccuracy": "nepřesnost",
    "mistake": "chyba",
    "blunder": "hrubá chyba",
}


def test_hints_and_the_review_read_in_czech(browser: Any, site: str) -> None:
    page = open_seat(browser, site, quick_game(site, True, 5), query="&lang=cs")
    assert page.inner_text("#hints-tag") == "Rady zapnuté"
    assert page.inner_text("#hint") == "Rada (H)"
    page.keyboard.press("h")
    page.wait_for_selector("#hint-box", timeout=PATIENCE)
    text = page.inner_text("#hint-box")
    assert f"Rada (bot {HINT_BOT}):" in text
    assert "šance na výhru" in text and "vzorkované světy: 60" in text
    page.close()
    # A touch screen has no H to press: the button is the word alone.
    phone = open_seat(browser, site, quick_game(site, True, 6), query="&lang=cs", touch=True)
    assert phone.inner_text("#hint") == "Rada"
    assert phone.get_attribute("#hint", "aria-keyshortcuts") == "h"  # a keyboard may come
    phone.close()

    made = quick_game(site, False, 9)
    finish(site, made, 3)
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{site}/replay/{made['table']}?lang=cs")
    assert page.inner_text("#review-title") == "Rozbor hry"
    page.click("#review-0")
    page.wait_for_selector("#review-summary", timeout=PATIENCE)
    review = httpx.get(f"{site}/api/tables/{made['table']}/review", params={"player": 0}).json()
    accuracy = round(100 * review["summary"]["accuracy"])
    # Czech writes a percentage with a no-break space before the sign (Intl.NumberFormat).
    assert page.inner_text("#review-summary").startswith(f"Přesnost {accuracy}\u00a0%")
    grades = page.locator("#review-decisions tbody .grade").all_inner_texts()
    assert grades == [CZECH_GRADES[d["grade"]] for d in review["decisions"]]
    page.close()


def test_joining_an_open_table_from_the_lobby_says_whether_one_allows_hints(
    browser: Any, site: str
) -> None:
    for allow in (True, False):
        body = {"seats": ["human", "human"], "name": "Anna", "public": True}
        made = httpx.post(f"{site}/api/tables", json=body | {"hints": True}).json()
        page = browser.new_page(viewport=DESKTOP)
        page.goto(site + "/")
        page.fill("#name", "Ben")
        # Three hint boxes in the lobby (against bots, a table opened, a table joined), each
        # named for what it does: the one beside the open tables is no filter of the list.
        named = page.evaluate(
            "() => ['quick-hints', 'hints', 'join-hints']"
            ".map((id) => document.getElementById(id).labels[0].innerText)"
        )
        assert len(set(named)) == 3, named
        if allow:
            page.check("#join-hints")
        page.wait_for_selector(f"#open-tables li:has-text('{made['table']}') button")
        page.click(f"#open-tables li:has-text('{made['table']}') button")
        page.wait_for_url(re.compile(rf"/play/{made['table']}"), timeout=PATIENCE)
        seats = httpx.get(f"{site}/api/tables/{made['table']}").json()["seats"]
        assert [s["hints"] for s in seats] == [True, allow]
        expected = "Hints on" if allow else "Hints off"
        page.wait_for_function(
            f"() => document.querySelector('#hints-tag')?.textContent === '{expected}'",
            timeout=PATIENCE,
        )
        page.close()


def test_the_replay_says_which_moves_a_stand_in_made(browser: Any, site: str) -> None:
    """Ben resigns at once and the table's stand-in plays his seat to the end: each move it
    made says so in the replay, and none of the people's own moves does."""
    opened = httpx.post(
        f"{site}/api/tables",
        json={
            "seats": ["human", "human"],
            "name": "Anna",
            "stand_in": "random",
            "resign": "play_on",
        },
    )
    assert opened.status_code == 201, opened.text
    made = opened.json()
    joined = httpx.post(
        f"{site}/api/tables/{made['table']}/join",
        json={"name": "Ben", "token": made["invites"][0]["token"]},
    )
    assert joined.status_code == 200, joined.text
    send(site, {"table": made["table"], "token": joined.json()["token"]}, {"type": "resign"})
    finish(site, made, 5)
    record = httpx.get(f"{site}/api/tables/{made['table']}/record").json()
    by_bot = {s["move"] for s in record["stand_ins"]}
    assert by_bot and {(s["seat"], s["bot"]) for s in record["stand_ins"]} == {(1, "random")}
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{site}/replay/{made['table']}")
    page.wait_for_selector("#replay-log", timeout=PATIENCE)
    page.keyboard.press("Home")
    for move in range(12):
        page.keyboard.press("ArrowRight")
        where = page.inner_text("#where")
        assert where.startswith(f"Move {move + 1} of "), where
        assert where.endswith(" The random bot played it for Ben.") == (move in by_bot), where
    page.close()
