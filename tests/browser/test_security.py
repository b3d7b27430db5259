"""Markup in display names and chat stays text on every page, and an invite link's token leaves
the address bar once the page has it (real Chromium against a real server)."""

from __future__ import annotations

import json
import random
import threading
import time
from typing import Any

import httpx
from websockets.sync.client import connect

PATIENCE = 30_000
#: At most 32 characters, as a display name must be.
EVIL_NAME = "<img src=x onerror=pwned=1>"
EVIL_CHAT = '<img src=x onerror="window.pwned=1"><script>window.pwned=1</script><b>bold</b>'

#: What markup would have made of the page: an image, a script run, a bold element.
_INERT = """(texts) => ({
  pwned: typeof window.pwned,
  images: document.querySelectorAll("img").length,
  bold: [...document.querySelectorAll("b")].filter((b) => b.textContent === "bold").length,
  inlineScripts: [...document.scripts].filter((s) => !s.src).length,
  shown: texts.map((t) => document.body.innerText.includes(t)),
})"""


def assert_inert(page: Any, *texts: str) -> None:
    found = page.evaluate(_INERT, list(texts))
    assert found == {
        "pwned": "undefined",
        "images": 0,
        "bold": 0,
        "inlineScripts": 0,
        "shown": [True] * len(texts),
    }, f"{page.url}: {found}"


def _play_seat(address: str, table: str, token: str, seed: int, errors: list[str]) -> None:
    """Play a seat with random legal moves until the game ends (a script, not the page)."""
    rng = random.Random(seed)
    try:
        with connect(f"ws://{address}/ws/{table}") as ws:
            ws.send(json.dumps({"type": "hello", "token": token}))
            while True:
                message = json.loads(ws.recv(timeout=PATIENCE / 1000))
                if message["type"] == "error":
                    errors.append(message["message"])
                if message["type"] != "state":
                    continue
                if message["result"] is not None:
                    return
                if message["legal"]:
                    time.sleep(0.02)  # within the message rate
                    action = rng.choice(message["legal"])
                    ws.send(
                        json.dumps({"type": "action", "move": message["move"], "action": action})
                    )
    except Exception as exc:  # reported by the test, which runs in another thread
        errors.append(repr(exc))


def test_names_and_chat_are_plain_text_on_every_page(browser: Any, site: str) -> None:
    made = httpx.post(
        f"{site}/api/tables",
        json={"seats": ["human", "human", "random"], "name": EVIL_NAME, "public": True},
    ).json()
    table = made["table"]
    context = browser.new_context()
    lobby = context.new_page()
    lobby.goto(f"{site}/?pace=0")
    lobby.wait_for_selector(f"#open-tables li:has-text('{table}')", timeout=PATIENCE)
    assert_inert(lobby, EVIL_NAME)

    joined = httpx.post(f"{site}/api/tables/{table}/join", json={"name": "Ben"}).json()
    ben = browser.new_context().new_page()
    ben.goto(f"{site}/play/{table}?pace=0#seat={joined['seat']}&token={joined['token']}")
    ben.wait_for_selector("#board", timeout=PATIENCE)
    watcher = browser.new_context().new_page()
    watcher.goto(made["spectate"].replace("#", "?pace=0#", 1))
    watcher.wait_for_selector("#board", timeout=PATIENCE)
    evil = browser.new_context().new_page()
    evil.goto(made["link"].replace("#", "?pace=0#", 1))
    evil.wait_for_selector("#chat-input", timeout=PATIENCE)
    evil.fill("#chat-input", EVIL_CHAT)
    evil.press("#chat-input", "Enter")
    for page in (ben, watcher):
        page.wait_for_selector("#chat li", timeout=PATIENCE)
        assert EVIL_CHAT in page.inner_text("#chat li")
        assert_inert(page, EVIL_NAME, EVIL_CHAT)

    for page in (ben, watcher, evil):
        page.close()  # the rest of the game is played by scripts: no page need draw it
    address = site.removeprefix("http://")
    errors: list[str] = []
    players = [
        threading.Thread(target=_play_seat, args=(address, table, token, seat, errors))
        for seat, token in ((0, made["token"]), (1, joined["token"]))
    ]
    for player in players:
        player.start()
    for player in players:
        player.join(120)
    assert not errors, errors
    replay = context.new_page()
    replay.goto(f"{site}/replay/{table}")
    replay.wait_for_selector("#board", timeout=PATIENCE)
    assert_inert(replay, EVIL_NAME)


def test_the_invite_token_leaves_the_address_bar_for_the_tabs_storage(
    browser: Any, site: str
) -> None:
    made = httpx.post(
        f"{site}/api/tables", json={"seats": ["human", "human"], "name": "Anna"}
    ).json()
    table, invite = made["table"], made["invites"][0]
    page = browser.new_context().new_page()
    page.goto(invite["link"].replace("#", "?pace=0#", 1))
    page.fill("#join-name", "Ben")
    page.click("text=Take my seat")
    page.wait_for_selector("#board", timeout=PATIENCE)
    stored = page.evaluate(f"sessionStorage.getItem('piepmatz:seat:{table}')")
    assert json.loads(stored) == {"seat": 1, "token": invite["token"]}
    for token in (invite["token"], made["token"]):
        assert token not in page.url
        assert token not in page.evaluate("JSON.stringify([location.href, history.length])")
    assert page.url == f"{site}/play/{table}?pace=0"
    page.reload()
    page.wait_for_selector("#board", timeout=PATIENCE)
    assert page.evaluate("window.__seat.last.welcome.seat") == 1, "the tab keeps its seat"

    watcher = browser.new_context().new_page()
    watcher.goto(made["spectate"])
    watcher.wait_for_selector("#board", timeout=PATIENCE)
    assert watcher.url == f"{site}/play/{table}"
    watcher.reload()
    watcher.wait_for_selector("#board", timeout=PATIENCE)
    assert watcher.evaluate("window.__seat.last.welcome.seat") is None, "still a spectator"


def test_every_page_runs_under_a_policy_that_forbids_inline_script_and_eval(
    browser: Any, site: str
) -> None:
    """The server sends a Content-Security-Policy without 'unsafe-inline' or 'unsafe-eval', and
    no page breaks it: the lobby, the rules, a table in Czech (plural forms without eval), a
    replay of a finished game."""
    answer = httpx.get(site + "/")
    policy = answer.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe" not in policy
    assert answer.headers["x-content-type-options"] == "nosniff"
    made = httpx.post(f"{site}/api/quick", json={"name": "Anna", "bot": "random", "players": 2})
    table = made.json()
    page = browser.new_page()
    refused: list[str] = []
    page.on(
        "console",
        lambda message: (
            refused.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(f"{site}/?lang=cs")
    page.wait_for_selector("#quick-start")
    # The lobby offers the bots and presets the server has, not a list of its own.
    offered = page.eval_on_selector_all("#quick-bot option", "els => els.map((e) => e.value)")
    assert offered == httpx.get(site + "/api/bots").json()
    presets = page.eval_on_selector_all("#preset option", "els => els.map((e) => e.value)")
    assert presets == httpx.get(site + "/api/i18n/cs").json()["presets"]
    page.goto(f"{site}/rules?lang=cs")
    page.wait_for_selector("main h1, main .rules")
    link = table["link"].replace("#", "?lang=cs&pace=0#", 1)
    page.goto(link)
    page.wait_for_selector("#board", timeout=PATIENCE)
    # A Czech plural through Intl.PluralRules: "2 hráči" (2 players) in the table's head.
    page.wait_for_function(
        "() => document.querySelector('main').innerText.includes('2 hráči')", timeout=PATIENCE
    )
    assert refused == [] and problems == [], (refused, problems)
    page.close()
