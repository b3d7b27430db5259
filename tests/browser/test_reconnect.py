"""The browser page reconnects by itself, with backoff, to a server killed with SIGKILL and
started again, and the game goes on to the record's score sheet."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import httpx

from faultplay import server_process
from piepmatz.core import Game

PATIENCE = 60_000

#: Every WebSocket the page opens to its table is noted with the page's time
#: (performance.now(), milliseconds) when it was opened and when it closed.
_NOTE_CONNECTIONS = """
window.__connections = [];
const Native = window.WebSocket;
window.WebSocket = function (url, protocols) {
  const ws = new Native(url, protocols);
  if (String(url).includes("/ws/")) {
    const noted = {opened: performance.now(), closed: null};
    window.__connections.push(noted);
    ws.addEventListener("close", () => { noted.closed = performance.now(); });
  }
  return ws;
};
window.WebSocket.prototype = Native.prototype;
Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
"""

#: The page's table connections so far, once the last one has closed.
_ALL_CLOSED = """(count) => window.__connections.length >= count
    && window.__connections.every((c) => c.closed !== null)"""

#: Refused attempts to reconnect the test waits for: the waits before them all come before
#: the backoff's cap (0.5 s doubling up to 10 s), so each is at least as long as the last.
ATTEMPTS = 5
#: Milliseconds of the page's time moved on at a time: past any one wait of its backoff.
STEP = 10_000

# The last state the page's connection received (the tests' hook, conftest.SEAT_HOOK).
_STATE = """() => {
  const seat = window.__seat;
  const shown = document.querySelector('.table-page');
  if (!seat || !seat.state || !shown) return null;
  const s = seat.state;
  return {move: s.move, legal: s.legal, over: s.result !== null, result: s.result,
          open: seat.socket.readyState === 1,
          idle: shown.getAttribute('aria-busy') === 'false'
                && shown.dataset.move === String(s.move)};
}"""


def _play(page: Any, moves: int | None) -> dict[str, Any]:
    """Send this seat's first legal action (as the page's own script would) until ``moves``
    actions have been taken or the game is over; returns the page's state."""
    while True:
        page.wait_for_function(
            f"() => {{ const s = ({_STATE})(); return s && s.open && "
            "(s.over || s.legal.length > 0) && s.idle; }",
            timeout=PATIENCE,
        )
        state: dict[str, Any] = page.evaluate(_STATE)
        if state["over"] or (moves is not None and state["move"] >= moves):
            return state
        page.evaluate(
            "([move, action]) => window.__seat.socket.send("
            "JSON.stringify({type: 'action', move, action}))",
            [state["move"], state["legal"][0]],
        )
        page.wait_for_function(
            f"() => {{ const s = ({_STATE})(); return s && s.move !== {state['move']}; }}",
            timeout=PATIENCE,
        )


def test_the_page_reconnects_with_backoff_to_a_restarted_server(
    browser: Any, tmp_path: Path
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'server.db'}"
    with server_process(tmp_path / "serve.log", "--database-url", url, "--bot-workers", "0") as srv:
        page = browser.new_page()
        page.clock.install()  # the test's to pause once the server is gone
        problems: list[str] = []
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.add_init_script(_NOTE_CONNECTIONS)
        page.goto(f"http://{srv.address}/?pace=0")
        page.fill("#name", "Anna")
        page.select_option("#quick-players", "3")
        page.select_option("#quick-bot", "random")
        page.click("#quick-start")
        page.wait_for_url(re.compile(r"/play/"))
        before = _play(page, moves=10)

        # From here the page's timers run only when the test moves its clock on: each wait
        # between attempts is then exactly what the page chose, however slow the machine.
        page.clock.pause_at(page.evaluate("() => Date.now()") / 1000 + 1)  # seconds
        srv.kill()
        page.wait_for_function(
            "() => document.querySelector('#banner').textContent.includes('reconnecting')",
            timeout=PATIENCE,
        )
        lost = len(page.evaluate("() => window.__connections"))  # the last one is lost
        for attempt in range(1, ATTEMPTS + 1):
            page.wait_for_function(_ALL_CLOSED, arg=lost + attempt - 1, timeout=PATIENCE)
            page.clock.run_for(STEP)  # the next attempt, refused: no server
        page.wait_for_function(_ALL_CLOSED, arg=lost + ATTEMPTS, timeout=PATIENCE)
        srv.start()
        page.clock.run_for(STEP)  # the attempt that finds the server back
        page.clock.resume()
        back = _play(page, moves=before["move"] + 1)
        assert back["move"] >= before["move"], "every acknowledged move is still there"

        noted = page.evaluate("() => window.__connections")[lost - 1 :]
        # From each close to the next attempt: the backoff's waits, before the server was back.
        waits = [b["opened"] - a["closed"] for a, b in itertools.pairwise(noted)][:ATTEMPTS]
        assert len(waits) == ATTEMPTS, noted
        # Each wait at least as long as the one before (doubling, with jitter of at most half),
        # and far longer by the last.
        assert all(b >= a for a, b in itertools.pairwise(waits)), waits
        assert waits[-1] >= 4 * waits[0], waits

        end = _play(page, moves=None)
        table = re.search(r"/play/([\w-]+)", page.url)
        assert table is not None
        record = httpx.get(f"http://{srv.address}/api/tables/{table.group(1)}/record").json()
        assert end["result"] == record["result"] == Game.from_record(record).score().to_json()
        assert problems == []
        page.close()
