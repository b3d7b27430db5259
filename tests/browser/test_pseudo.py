"""The browser in a pseudo-locale: the page loads the language ``qps``, whose catalogue (served
here in place of the server's) is every text of the ``web`` domain marked ``⟦…⟧``, and the
server's own sentences (the log, the previews, the replay's) are marked on their way to the
page. Every visible text a person reads on every page must carry the mark: a text the page
writes without ``_()``, or one missing from the catalogues, fails. Names, numbers and the
cards' faces are exempt, and the rules text and the guide's (the server's HTML)."""

from __future__ import annotations

import json
import re
import secrets
import time
from typing import Any

import httpx
import pytest
from babel.messages.pofile import read_po

from piepmatz.i18n import LOCALE_DIR

DESKTOP = {"width": 1440, "height": 900}
PATIENCE = 30_000
PSEUDO = "qps"
#: Names on the pages (the person's, the game's, each language's own, the players of the
#: guide's scoring example): not translated.
NAMES = ["Pia", "Ola", "Piepmatz", "English", "Čeština", "Deutsch", "Anna", "Ben"]


def mark(text: str) -> str:
    return f"⟦{text}⟧"


@pytest.fixture(scope="module")
def catalogue(site: str) -> dict[str, Any]:
    """The server's answer for English, with every text of the ``web`` domain marked (the
    entries of a translated catalogue: every text the page marks for translation)."""
    with (LOCALE_DIR / "de" / "LC_MESSAGES" / "web.po").open("rb") as po:
        entries = [m for m in read_po(po) if m.id]
    messages: dict[str, str | list[str]] = {}
    for entry in entries:
        if isinstance(entry.id, tuple):
            messages[entry.id[0]] = [mark(entry.id[0]), mark(entry.id[1])]
        else:
            messages[entry.id] = mark(entry.id)
    english: dict[str, Any] = httpx.get(f"{site}/api/i18n/en").json()
    return english | {"lang": PSEUDO, "messages": messages, "plural_categories": ["one", "other"]}


def marked_sentences(data: dict[str, Any]) -> dict[str, Any]:
    """A message or replay frame with the server's sentences marked (a seat's name and a bird
    are drawn by the page: left as they are)."""
    if "log" in data:
        data["log"] = [mark(line) for line in data["log"]]
    if "log_parts" in data:
        data["log_parts"] = [
            [p if "seat" in p or "bird" in p else p | {"text": mark(p["text"])} for p in parts]
            for parts in data["log_parts"]
        ]
    if data.get("explained"):
        data["explained"] = [[mark(line) for line in lines] for lines in data["explained"]]
    for preview in data.get("previews", []):
        preview["headline"] = mark(preview["headline"])
        preview["steps"] = [mark(step) for step in preview["steps"]]
    if data.get("type") == "error":
        data["message"] = mark(data["message"])
    return data


def pseudo_page(browser: Any, catalogue: dict[str, Any], key: str) -> Any:
    """A page that loads the pseudo-locale, whose server speaks it too (see above)."""
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(f"localStorage.setItem('piepmatz.player', {json.dumps(key)})")
    page = context.new_page()
    page.route(f"**/api/i18n/{PSEUDO}", lambda route: route.fulfill(json=catalogue))

    def replay(route: Any) -> None:
        data = route.fetch().json()
        for frame in data.get("frames", []):
            marked_sentences(frame)
        route.fulfill(json=data)

    page.route(re.compile(r"/api/tables/[\w-]+/replay"), replay)

    def guide(route: Any) -> None:
        # The guide's sentences the server writes beside its HTML: the scoring example's.
        data = route.fetch().json()
        for block in data["blocks"]:
            if block.get("picture", {}).get("kind") == "score":
                score = block["picture"]
                score["verdict"] = mark(score["verdict"])
                for player in score["players"]:
                    player["explained"] = [mark(line) for line in player["explained"]]
        route.fulfill(json=data)

    page.route(re.compile(r"/api/guide"), guide)

    def lesson(route: Any) -> None:
        # The lesson's texts and its state's sentences, as parts (a bird drawn by the page).
        data = route.fetch().json()

        def parts(texts: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return [p if "bird" in p else p | {"text": mark(p["text"])} for p in texts]

        data["lesson"] = {name: parts(text) for name, text in data["lesson"].items()}
        if data["step"]:
            data["step"]["do"] = parts(data["step"]["do"])
        if "message" in data:
            data["message"] = parts(data["message"])
        marked_sentences(data["state"])
        route.fulfill(json=data)

    page.route(re.compile(r"/api/tutorial"), lesson)

    def socket(ws: Any) -> None:
        server = ws.connect_to_server()
        server.on_message(lambda text: ws.send(json.dumps(marked_sentences(json.loads(text)))))

    page.route_web_socket(re.compile(r"/ws/"), socket)
    return page


#: The visible texts without the mark: each text node (and each option of a list) with its
#: marked parts and the names in it taken out must be empty, numbers or punctuation.
_UNMARKED = """(names) => {
  const out = [];
  const exempt = 'script, style, noscript, [hidden], article.rules, .guide-text, .card, .chip,'
    + ' .mini, .who';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || el.closest(exempt)) continue;
    if (!el.closest('option') && !el.getClientRects().length) continue;
    let rest = node.textContent;  // marks nest: a text filled into a text
    while (/⟦[^⟦⟧]*⟧/.test(rest)) rest = rest.replace(/⟦[^⟦⟧]*⟧/g, '');
    for (const name of names) rest = rest.split(name).join('');
    if (/^[\\p{N}\\p{P}\\p{S}\\s]*$/u.test(rest)) continue;
    out.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}: ${node.textContent.trim()}`);
  }
  return out;
}"""


def check(page: Any) -> None:
    unmarked = page.evaluate(_UNMARKED, NAMES)
    assert unmarked == [], f"{page.url}: {unmarked}"


def test_every_text_of_every_page_is_translated(
    browser: Any, server: Any, catalogue: dict[str, Any]
) -> None:
    key = secrets.token_urlsafe(32)
    over = server.quick(2, key, name="Pia")
    server.finish(over)
    waiting = server.table(["human", "human", "easy"], name="Pia", player=key)
    join = server.table(["human", "human", "easy"], name="Pia")
    going = server.quick(3, key, name="Pia")
    rated = server.quick(2, key, name="Pia", rated=True, hints=False)
    server.finish(rated)
    page = pseudo_page(browser, catalogue, key)
    site = server.site
    mine: dict[str, Any] = {}
    for _ in range(100):  # rated just after its end is stored
        mine = httpx.get(f"{site}/api/account", headers={"Authorization": f"Bearer {key}"}).json()
        if mine["rated_games"]:
            break
        time.sleep(0.05)
    for address, ready in (
        (f"{site}/?lang={PSEUDO}", "#quick-start"),
        (f"{site}/rules?rules=standard", "article.rules h1"),
        (f"{site}/play/{join['table']}", "#join-name"),
        (f"{site}/play/{waiting['table']}", "#commitment"),
        (f"{site}/play/no-such-table", ".dead-end"),
        (server.url(over["link"]), "#sheet-legend"),
        (f"{site}/replay/{over['table']}", "#deal-check[data-outcome]"),
        (f"{site}/account", "#sign-up"),
        (f"{site}/players/{mine['page']}", "#rated-games"),
        (server.url(rated["link"]), "#seat-ratings"),
    ):
        page.goto(address)
        page.wait_for_selector(ready, timeout=PATIENCE)
        assert page.evaluate("document.documentElement.lang") == PSEUDO
        check(page)
    # The lesson: its first step, a bird chosen and played, and what happened told.
    page.goto(f"{site}/tutorial")
    for _ in range(3):
        page.wait_for_selector(".tutorial-page[aria-busy=false] .lesson-target", timeout=PATIENCE)
        check(page)
        page.locator(".lesson-target:visible").first.click()
    # A table mid-game: each decision, with the previews and a chosen card's moves shown.
    page.goto(server.url(going["link"]))
    for _ in range(6):
        page.wait_for_function(server.READY, timeout=PATIENCE)
        s = page.evaluate(server.STATUS)
        if s["over"]:
            break
        if s["phase"] == "play":
            page.locator(".hand-card.usable").first.click()
        page.wait_for_selector("#decision .option .headline", timeout=PATIENCE)
        check(page)
        page.locator("#decision button.option").first.click()
        page.wait_for_function(f"() => window.__seat.state.move !== {s['move']}")
    page.context.close()
    # "My games" names a bot's seat only when the server says which seats are bots (``seats``
    # in GET /api/games): here a game of two people, whose names it has.
    friends = secrets.token_urlsafe(32)
    made = server.table(["human", "human"], name="Pia", player=friends)
    invite = made["invites"][0]["link"].split("token=")[1]
    joined = httpx.post(
        f"{site}/api/tables/{made['table']}/join", json={"name": "Ola", "token": invite}
    )
    assert joined.status_code == 200, joined.text
    page = pseudo_page(browser, catalogue, friends)
    page.goto(f"{site}/games?lang={PSEUDO}")
    page.wait_for_selector("#games li[data-table]", timeout=PATIENCE)
    check(page)
    page.context.close()
