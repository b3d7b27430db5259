"""The browser page reconnects by itself, with backoff, to a server killed with SIGKILL and
started again, and the game goes on to the record's score sheet."""

from __future__ import annotations

import itertools
import re
import time
from pathlib import Path
from typing import Any

import httpx

from faultplay import server_process
from piepmatz.core import Game

PATIENCE = 60_000

#: Every WebSocket the page opens is noted with its time (performance.now(), milliseconds).
_NOTE_CONNECTIONS = """
window.__connections = [];
const Native = window.WebSocket;
window.WebSocket = function (url, protocols) {
  window.__connections.push(performance.now());
  return new Native(url, protocols);
};
window.WebSocket.prototype = Native.prototype;
Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
"""

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

        srv.kill()
        page.wait_for_function(
            "() => document.querySelector('#banner').textContent.includes('reconnecting')",
            timeout=PATIENCE,
        )
        lost = page.evaluate("() => performance.now()")
        time.sleep(4)  # long enough for a few attempts to fail
        srv.start()
        back = _play(page, moves=before["move"] + 1)
        assert back["move"] >= before["move"], "every acknowledged move is still there"

        attempts = page.evaluate("() => window.__connections")
        gaps = [b - a for a, b in itertools.pairwise(attempts) if a >= lost]
        assert len(gaps) >= 3, attempts
        # Each wait at least as long as the one before (doubling, with jitter of at most half).
        assert all(b >= a * 0.99 for a, b in itertools.pairwise(gaps)), gaps

        end = _play(page, moves=None)
        table = re.search(r"/play/([\w-]+)", page.url)
        assert table is not None
        record = httpx.get(f"http://{srv.address}/api/tables/{table.group(1)}/record").json()
        assert end["result"] == record["result"] == Game.from_record(record).score().to_json()
        assert problems == []
        page.close()
