"""Fixtures of the browser tests: the system's Chromium driven by Playwright, and the server on
uvicorn on a free loopback port with a throwaway SQLite database.

Playwright's own browser download is not used: the tests launch Debian's ``chromium``
(``make test`` installs it when it is missing). Without it they fail, never skip.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from serverplay import running_server

#: The system's Chromium; ``PIEPMATZ_CHROMIUM`` names another.
CHROMIUM = Path(
    os.environ.get("PIEPMATZ_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
)
#: Screenshots for people to look at (git-ignored).
ARTEFACTS = Path(__file__).resolve().parents[2] / "artefacts" / "browser"


#: What the tests know of a page's seat connection (the page ships no hook of its own): each
#: page gets this script first; it keeps the last message of each type the page received, the
#: last ``state`` and the socket, to send as a tampered page would.
SEAT_HOOK = """
(() => {
  const Native = window.WebSocket;
  const seat = { socket: null, state: null, last: {} };
  window.__seat = seat;
  window.WebSocket = function (url, protocols) {
    const ws = new Native(url, protocols);
    if (String(url).includes("/ws/")) {
      seat.socket = ws;
      ws.addEventListener("message", (event) => {
        const message = JSON.parse(event.data);
        seat.last[message.type] = message;
        if (message.type === "state") seat.state = message;
      });
    }
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
})();
"""


class HookedBrowser:
    """The browser, whose every new page runs :data:`SEAT_HOOK` before the page's scripts."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser

    def new_context(self, **options: Any) -> Any:
        context = self.browser.new_context(**options)
        context.add_init_script(SEAT_HOOK)
        return context

    def new_page(self, **options: Any) -> Any:
        context = self.new_context(**options)
        page = context.new_page()
        page.on("close", lambda _page: context.close())
        return page

    def __getattr__(self, name: str) -> Any:
        return getattr(self.browser, name)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module (Playwright's sync API holds an event loop while
    it runs, so it must not outlive the module: other modules use ``asyncio.run``)."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"no Chromium at {CHROMIUM}: the browser tests need Debian's chromium package "
            "(`make test` installs it with apt-get; or set PIEPMATZ_CHROMIUM)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # --no-sandbox: Chromium refuses to start its sandbox as root (CI runs as root).
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            yield HookedBrowser(chromium)
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The server's address, ``http://127.0.0.1:PORT``."""
    database = tmp_path_factory.mktemp("browser") / "server.db"
    with running_server(f"sqlite+aiosqlite:///{database}") as address:
        yield f"http://{address}"


@pytest.fixture(scope="session")
def artefacts() -> Path:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    return ARTEFACTS


class Server:
    """Tables made on the test server over HTTP and the protocol, for the pages to show, and
    what the tests ask a table page (through :data:`SEAT_HOOK`)."""

    #: The table page has drawn the last state it received and is telling nothing.
    SETTLED = """() => { const s = window.__seat && window.__seat.state;
      const shown = document.querySelector('.table-page');
      return !!(s && shown && shown.getAttribute('aria-busy') === 'false'
        && shown.dataset.move === String(s.move)); }"""
    #: ... and it is the page's decision, whose previews have come (the page draws the moves
    #: again then: a click meanwhile could be lost), or the game is over.
    READY = f"""() => ({SETTLED})() && (window.__seat.state.result !== null
      || (window.__seat.state.legal.length > 0
          && window.__seat.last.preview?.move === window.__seat.state.move))"""
    #: The last state the page received, in brief.
    STATUS = """() => { const s = window.__seat.state;
      return {move: s.move, legal: s.legal, phase: s.view.phase, over: s.result !== null}; }"""

    def __init__(self, site: str) -> None:
        self.site = site

    def quick(
        self, players: int = 2, key: str | None = None, name: str = "Anna", **options: Any
    ) -> dict[str, Any]:
        """A game against random bots; ``key``: the browser's player key, seated there."""
        body = {"name": name, "players": players, "bot": "random"} | options
        made = httpx.post(f"{self.site}/api/quick", json=body | ({"player": key} if key else {}))
        assert made.status_code == 201, made.text
        answer: dict[str, Any] = made.json()
        return answer

    def table(self, seats: list[str], name: str = "Finn", **options: Any) -> dict[str, Any]:
        """A table with friends (``seats``: human or a bot) that ``name`` opened."""
        made = httpx.post(f"{self.site}/api/tables", json={"seats": seats, "name": name} | options)
        assert made.status_code == 201, made.text
        answer: dict[str, Any] = made.json()
        return answer

    def finish(self, made: dict[str, Any], seed: int = 1) -> None:
        """Play the person's seat of ``made`` to the end with random legal moves."""
        rng = random.Random(seed)
        for state, act in self._seat(made):
            if state["result"] is not None:
                return
            if state["legal"]:
                act(rng.choice(state["legal"]))

    def advance(self, made: dict[str, Any], phases: set[str]) -> None:
        """Play the person's seat of ``made`` by its first legal moves, beside the page, until
        its decision is of a kind in ``phases`` (the moves between are no test's business)."""
        for state, act in self._seat(made):
            if not state["legal"]:
                continue
            if state["view"]["phase"] in phases or state["result"] is not None:
                return
            act(state["legal"][0])

    def _seat(self, made: dict[str, Any]) -> Iterator[tuple[dict[str, Any], Any]]:
        """The seat's ``state`` messages, each with a function that sends an action for it. A
        refused action (this script playing faster than the server's message rate allows) is
        answered by asking for the state again (``sync``: a second ``hello`` on one connection
        is refused too, and would never end); a silence says what came last."""
        errors: list[str] = []
        with connect(self.site.replace("http", "ws") + f"/ws/{made['table']}") as ws:
            hello = json.dumps({"type": "hello", "token": made["token"]})
            ws.send(hello)
            last = None
            while True:
                try:
                    message = json.loads(ws.recv(timeout=30))
                except TimeoutError:
                    seen = last and (last["move"], last["legal"])
                    raise AssertionError(
                        f"nothing for 30 s: last state {seen}, errors {errors}"
                    ) from None
                if message["type"] == "error":
                    errors.append(message["code"])
                    time.sleep(1)
                    ws.send(json.dumps({"type": "sync"}))
                if message["type"] != "state":
                    continue
                last = message

                def act(action: str, move: int = message["move"]) -> None:
                    ws.send(json.dumps({"type": "action", "move": move, "action": action}))

                yield message, act

    def url(self, link: str, query: str = "?pace=0") -> str:
        """An invite link on this server, ``query`` before its fragment."""
        return self.site + re.sub(r"^https?://[^/]+", "", link).replace("#", f"{query}#", 1)


@pytest.fixture(scope="module")
def server(site: str) -> Server:
    return Server(site)
