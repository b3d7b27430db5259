"""The guided first game over HTTP, and the rule behind each kind of log entry: the server keeps
no lesson (the page says how many steps are done), refuses any other move with the rule in
words and changes nothing, and bounds what a request names."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from piepmatz.tutorial import LEARNER, steps

LEARNER_STEPS = [s for s in steps() if s.seat == LEARNER]


def _calls(server: str, calls: list[tuple[str, str, Any]], lang: str = "en") -> list[Any]:
    async def run() -> list[httpx.Response]:
        headers = {"Accept-Language": lang}
        async with httpx.AsyncClient(base_url=f"http://{server}", headers=headers) as http:
            out = []
            for method, path, body in calls:
                if method == "GET":
                    out.append(await http.get(path))
                else:
                    out.append(await http.post(path, json=body))
            return out

    return asyncio.run(run())


def test_a_whole_lesson_played_by_its_own_highlights(server: str) -> None:
    lesson = _calls(server, [("GET", "/api/tutorial", None)])[0].json()
    assert lesson["done"] == 0 and lesson["steps"] == len(LEARNER_STEPS)
    assert lesson["step"]["highlight"]["action"] == "play BU3m 1"
    assert lesson["names"] == ["Player 1", "Bot 2"]
    while lesson["step"] is not None:
        # Follow the step's own highlight: no list of moves is written here.
        move = {"done": lesson["done"], "action": lesson["step"]["highlight"]["action"]}
        answer = _calls(server, [("POST", "/api/tutorial", move)])[0].json()
        assert answer["accepted"] and answer["done"] == move["done"] + 1
        assert answer["message"] and answer["state"]["log_parts"]
        lesson = answer
    state = lesson["state"]
    assert state["result"]["winners"] == [0] and state["legal"] == []
    assert state["explained"][0][-1] == f"Total {state['result']['players'][0]['total']}"


def test_another_move_is_refused_with_the_rule_and_nothing_changes(server: str) -> None:
    before, refused, again = _calls(
        server,
        [
            ("GET", "/api/tutorial?done=0", None),
            ("POST", "/api/tutorial", {"done": 0, "action": "play GR2m 2"}),
            ("GET", "/api/tutorial?done=0", None),
        ],
        lang="de",
    )
    answer = refused.json()
    assert not answer["accepted"] and answer["done"] == 0
    said = "".join(p["text"] for p in answer["message"])
    assert "ohne Verjagen" in said and any(p.get("bird") == "BU3m" for p in answer["message"])
    assert answer["state"] == before.json()["state"] == again.json()["state"]


def test_what_a_request_names_is_bounded(server: str) -> None:
    answers = _calls(
        server,
        [
            ("GET", "/api/tutorial?done=13", None),
            ("GET", "/api/tutorial?done=-1", None),
            ("POST", "/api/tutorial", {"done": 1, "action": "x" * 101}),
            ("POST", "/api/tutorial", {"done": 10**9, "action": "pass"}),
            ("POST", "/api/tutorial", {"done": 0, "action": "¿"}),
        ],
    )
    assert [a.status_code for a in answers] == [422, 422, 422, 422, 200]
    assert "has 12 steps" in answers[0].json()["detail"]
    assert answers[4].json()["accepted"] is False


def test_the_rule_behind_each_kind_of_entry_in_the_language(server: str) -> None:
    standard, overview, nonsense = _calls(
        server,
        [
            ("GET", "/api/why", None),
            ("GET", "/api/why?spec=overview", None),
            ("GET", "/api/why?spec=nonsense", None),
        ],
        lang="cs",
    )
    kinds = standard.json()["kinds"]
    assert kinds["promote"]["rule"] == "T2.1e" and "bidýlko" in kinds["promote"]["text"]
    assert kinds["draw_deck"] != overview.json()["kinds"]["draw_deck"]
    assert set(standard.json()["end"]) == {"feeder", "birds", "skip"}
    assert nonsense.status_code == 422


def test_the_guide_comes_as_html_with_its_pictures_as_fields(server: str) -> None:
    german = _calls(server, [("GET", "/api/guide", None)], lang="de")[0].json()
    assert german["lang"] == "de"
    html = "".join(b["html"] for b in german["blocks"] if "html" in b)
    assert "<h1>So wird gespielt</h1>" in html and 'href="#rule-T2.1"' in html
    pictures = [b["picture"] for b in german["blocks"] if "picture" in b]
    assert [p["kind"] for p in pictures] == ["column", "row", "row", "score"]
    assert pictures[1] == {"kind": "row", "perch": "BL6m", "ground": ["BU3m"]}
    score = pictures[3]
    anna = score["players"][0]
    assert anna["name"] == "Anna" and anna["seeds"] == [3, 1]
    assert anna["explained"][-1] == f"Gesamt {score['sheet']['players'][0]['total']}"
    assert score["verdict"] == "Anna gewinnt"
