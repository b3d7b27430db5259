"""What the server adds for the browser client: previews, log sentences, the replay, the rules
and the pages themselves."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from piepmatz.cli import build_parser
from piepmatz.core import view_of
from piepmatz.core.cards import BIRD_NAMES
from piepmatz.core.events import event_from_json
from piepmatz.core.rules import PRESETS
from piepmatz.i18n import use_language
from piepmatz.server.client import SeatClient
from piepmatz.server.vocabulary import ErrorCode
from piepmatz.text.preview import preview
from piepmatz.text.words import tell
from serverplay import game_at, get, play_randomly, post, running_server, until, ws_url


def test_a_preview_answers_each_legal_action_as_the_terminal_game_would(server: str) -> None:
    async def run() -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]], str]:
        table = await post(server, "/api/quick", {"name": "Anna", "bot": "random", "seed": 11})
        async with SeatClient.connect(ws_url(server, table["table"]), table["token"]) as seat:
            state = await until(seat, "state")
            while not state["legal"]:
                state = await until(seat, "state")
            await seat.send({"type": "preview", "move": state["move"]})
            answer = await until(seat, "preview")
            errors = []
            await seat.send({"type": "preview", "move": state["move"] + 5})
            errors.append(await until(seat, "error"))
            async with SeatClient.connect(
                ws_url(server, table["table"]), table["spectator_token"]
            ) as spectator:
                await until(spectator, "state")
                await spectator.send({"type": "preview", "move": state["move"]})
                errors.append(await until(spectator, "error"))
            await seat.act(state["legal"][0], state["move"])
            await until(seat, "ack")
            await play_randomly(seat, random.Random(2))
        return state, answer, errors, table["table"]

    state, answer, errors, table_id = asyncio.run(run())
    assert [e["code"] for e in errors] == ["stale", "spectator"]
    assert answer["move"] == state["move"]
    assert [p["action"] for p in answer["previews"]] == state["legal"]
    record = asyncio.run(get(server, f"/api/tables/{table_id}/record"))
    game = game_at(record, state["move"])
    view = view_of(game.state, 0)
    for shown in answer["previews"]:
        expected = preview(view, game.state.parse_action(shown["action"]).id, seed=state["move"])
        assert (shown["headline"], shown["steps"]) == (expected.headline, list(expected.steps))


def test_state_messages_tell_each_event_in_a_sentence(server: str) -> None:
    async def run() -> dict[str, Any]:
        table = await post(server, "/api/quick", {"name": "Anna", "bot": "random", "seed": 4})
        async with SeatClient.connect(ws_url(server, table["table"]), table["token"]) as seat:
            await until(seat, "state")
            await seat.send({"type": "sync"})
            while (state := await until(seat, "state"))["events_from"] != 0:
                pass
            return state

    full = asyncio.run(run())
    assert full["events_from"] == 0 and len(full["log"]) == len(full["events"]) > 0
    names = ["Anna", "Bot 2", "Bot 3"]  # the person by name, the bots counted from 1
    for event, line in zip(full["events"], full["log"], strict=True):
        assert line == tell(event_from_json(event), names)
    assert "Player" not in " ".join(full["log"])
    seated = {p["text"] for parts in full["log_parts"] for p in parts if "seat" in p}
    assert seated and seated <= set(names)


def test_the_replay_of_a_finished_game_shows_every_position_with_every_hand(server: str) -> None:
    async def run() -> tuple[int, dict[str, Any], dict[str, Any]]:
        table = await post(server, "/api/quick", {"name": "Anna", "bot": "random", "seed": 9})
        tid = table["table"]
        refused = await get(server, f"/api/tables/{tid}/replay", status=409)
        async with SeatClient.connect(ws_url(server, tid), table["token"]) as seat:
            await play_randomly(seat, random.Random(3))
        replay = await get(server, f"/api/tables/{tid}/replay")
        return (
            len(refused["detail"]),
            replay,
            await get(server, f"/api/tables/{tid}/replay?lang=cs"),
        )

    refusal, replay, czech = asyncio.run(run())
    # the same frames, told in the language asked for
    assert [f["action"] for f in czech["frames"]] == [f["action"] for f in replay["frames"]]
    assert czech["frames"][0]["log"][-1].startswith("Tah 1: ")
    assert refusal > 0
    record = replay["record"]
    assert len(replay["frames"]) == len(record["actions"]) + 1
    assert [f["action"] for f in replay["frames"][1:]] == record["actions"]
    assert replay["seats"][0]["name"] == "Anna" and replay["rules"] == "standard"
    for moves in (0, len(record["actions"]) // 2, len(record["actions"])):
        state = game_at(record, moves).state
        frame = replay["frames"][moves]
        assert frame["state"]["hands"] == [[BIRD_NAMES[c] for c in hand] for hand in state.hands]
        assert frame["majority"] == view_of(state, 0).to_json()["majority"]
    assert replay["frames"][0]["log"][-1].startswith("Turn 1: ")
    names = {"Anna", "Bot 2", "Bot 3"}
    seats = {
        p["text"] for f in replay["frames"] for ps in f["log_parts"] for p in ps if "seat" in p
    }
    assert seats == names


def test_the_rules_of_a_preset_and_the_pages_are_served(server: str) -> None:
    async def run() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=f"http://{server}") as http:
            paths = [
                "/api/rules?spec=overview",
                "/api/rules?spec=standard:draw=one",
                "/api/rules?spec=nonsense",
                "/",
                "/play/abc",
                "/replay/abc",
                "/rules",
                "/static/app.js",
                "/static/../app.py",
            ]
            return [await http.get(p) for p in paths]

    overview, one, nonsense, *pages, escape = asyncio.run(run())
    assert "Rules in play: overview" in overview.json()["html"]
    assert "draw exactly one card" in one.json()["html"]
    assert nonsense.status_code == 422 and "nonsense" in nonsense.json()["detail"]
    assert all(p.status_code == 200 for p in pages)
    assert pages[0].text == pages[1].text == pages[2].text == pages[3].text
    assert 'src="/static/app.js"' in pages[0].text
    assert "showLobby" in pages[4].text
    assert escape.status_code == 404


def test_the_rules_are_served_in_the_language_asked_for(server: str) -> None:
    async def run() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=f"http://{server}") as http:
            paths = ["cs", "de", "en", "fr"]
            return [await http.get(f"/api/rules?spec=overview&lang={p}") for p in paths]

    czech, german, english, unknown = asyncio.run(run())
    assert "Pravidla této hry: pravidla z přehledu" in czech.json()["html"]
    assert "krmítk" in czech.json()["html"] and "Chase" not in czech.json()["html"]
    assert "Regeln dieser Partie: Regeln der Übersicht" in german.json()["html"]
    assert "genau eine Karte" in german.json()["html"]
    assert "Rules in play: overview" in english.json()["html"]
    assert unknown.status_code == 422 and "'fr'" in unknown.json()["detail"]


def test_the_browser_catalogue_in_each_language(server: str) -> None:
    async def run() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=f"http://{server}") as http:
            answers = [await http.get(f"/api/i18n/{lang}") for lang in ("en", "cs", "de", "fr")]
            answers.append(await http.get("/api/i18n", headers={"accept-language": "de;q=0.9"}))
            answers.append(await http.get("/api/i18n", headers={"accept-language": "fr, cs;q=0.3"}))
            answers.append(await http.get("/api/i18n"))
            return answers

    en, cs, de, fr, chosen_de, chosen_cs, fallback = asyncio.run(run())
    assert en.json()["lang"] == "en" and en.json()["messages"] == {}
    assert en.json()["species"]["BL"] == "Blackbird"
    czech = cs.json()
    assert czech["messages"]["Seed column"] == "Řada zrní"
    assert czech["messages"]["{count} player"] == ["{count} hráč", "{count} hráči", "{count} hráčů"]
    assert czech["plural_forms"].startswith("nplurals=3;")
    assert czech["plural_categories"] == ["one", "few", "other"]
    assert czech["presets"] == list(PRESETS)  # the lobby offers the core's presets
    assert czech["errors"] == [c.value for c in ErrorCode] and "not_yet" in czech["errors"]
    assert czech["statuses"] == ["waiting", "playing", "over"]
    assert czech["phases"][0] == "play" and "last hand" in czech["phases"]
    assert czech["cards"]["birds"]["BL5m"] == {"species": "BL", "value": 5, "sex": "m", "eggs": 3}
    assert czech["cards"]["feeder"]["CRa"] == {"kind": "crow", "eggs": 0}
    assert czech["species"]["BL"] == "kos"
    assert czech["languages"] == {"en": "English", "cs": "Čeština", "de": "Deutsch"}
    assert de.json()["messages"]["Seed column"] == "Körnerreihe"
    assert de.json()["species"]["YE"] == "Goldammer"
    # A card's badge in the page's words: Gi (Gimpel), never BU, which a German reads Buchfink.
    assert de.json()["species_short"]["BU"] == "Gi" and czech["species_short"]["BL"] == "Ko"
    assert en.json()["species_short"]["SP"] == "Sp"  # English keeps the notation's letters
    for answer in (en, cs, de):
        assert len(set(answer.json()["species_short"].values())) == 6, "each species apart"
    assert set(de.json()["messages"]) == set(czech["messages"])
    assert fr.status_code == 404 and "'fr'" in fr.json()["detail"]
    assert [chosen_de.json()["lang"], chosen_cs.json()["lang"], fallback.json()["lang"]] == [
        "de",
        "cs",
        "en",
    ]


def test_the_rules_follow_the_requests_language(server: str) -> None:
    async def run() -> list[dict[str, Any]]:
        async with httpx.AsyncClient(base_url=f"http://{server}") as http:
            asked = {"accept-language": "cs-CZ,cs;q=0.9"}
            return [
                (await http.get("/api/rules", headers=asked)).json(),
                (await http.get("/api/rules?lang=de", headers=asked)).json(),
            ]

    by_header, by_query = asyncio.run(run())
    assert by_header["lang"] == "cs" and "Pravidla této hry" in by_header["html"]
    assert by_query["lang"] == "de" and "Regeln dieser Partie" in by_query["html"]


def test_a_club_server_speaks_its_own_language_to_a_browser_that_asks_for_none(
    tmp_path: Path,
) -> None:
    """``serve --language de``: German for a browser whose languages are none of the game's;
    a browser's own language, and ``?lang=``, still come first."""
    with running_server(f"sqlite+aiosqlite:///{tmp_path / 'club.db'}", language="de") as club:

        async def run() -> list[str]:
            async with httpx.AsyncClient(base_url=f"http://{club}") as http:
                asked = [
                    {},
                    {"accept-language": "fr-FR,fr;q=0.9"},
                    {"accept-language": "en-GB,en;q=0.8"},
                    {"accept-language": "cs"},
                ]
                said = [(await http.get("/api/rules", headers=h)).json()["lang"] for h in asked]
                said.append((await http.get("/api/rules?lang=en")).json()["lang"])
                return said

        assert asyncio.run(run()) == ["de", "de", "en", "cs", "en"]
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--language", "fr"])
    assert build_parser().parse_args(["serve", "--language", "cs"]).language == "cs"


def test_each_connection_hears_the_game_in_its_own_language(server: str) -> None:
    async def run() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        table = await post(server, "/api/quick", {"name": "Anna", "bot": "random", "seed": 5})
        url = ws_url(server, table["table"])
        async with (
            SeatClient.connect(f"{url}?lang=de", table["token"]) as seat,
            SeatClient.connect(f"{url}?lang=cs", table["spectator_token"]) as spectator,
        ):
            state = await until(seat, "state")
            while not state["legal"]:
                state = await until(seat, "state")
            await seat.act("pass", state["move"])  # not a move of this phase: refused
            refused = await until(seat, "error")
            await spectator.send({"type": "sync"})
            while (watched := await until(spectator, "state"))["events_from"] != 0:
                pass
            await seat.send({"type": "sync"})
            while (played := await until(seat, "state"))["events_from"] != 0:
                pass
            return refused, played, watched

    refused, played, watched = asyncio.run(run())
    assert refused["code"] == "illegal"
    # the reason is told in the refused seat's language, in words: what the decision asks
    assert refused["message"] == (
        "du kannst jetzt nicht passen: spiele einen Vogel aus deiner Hand an eine Sitzstange"
    )
    names = ["Anna", "Bot 2", "Bot 3"]
    for message, lang in ((played, "de"), (watched, "cs")):
        with use_language(lang):
            told = [tell(event_from_json(e), names) for e in message["events"]]
        assert message["log"] == told and len(told) > 0
    assert any(line.startswith("Zug 1: ") for line in played["log"])
    assert any(line.startswith("Tah 1: ") for line in watched["log"])
    assert not any("Zug" in line or "Turn" in line for line in watched["log"])


def test_a_refused_join_or_record_is_told_in_the_requests_language(server: str) -> None:
    """The pages show these refusals to the player as the server words them."""

    async def run() -> dict[str, tuple[int, str]]:
        body = {"seats": ["human", "human", "human"], "name": "Anna", "public": True}
        public = await post(server, "/api/tables", body)
        private = await post(server, "/api/tables", body | {"public": False})
        invite = public["invites"][0]["token"]
        answers: dict[str, tuple[int, str]] = {}
        async with httpx.AsyncClient(base_url=f"http://{server}") as http:

            async def ask(key: str, lang: str, method: str, path: str, **body: Any) -> None:
                response = await http.request(
                    method, path, json=body or None, headers={"accept-language": lang}
                )
                answers[key] = (response.status_code, response.json()["detail"])

            join = f"/api/tables/{public['table']}/join"
            await ask("invite only", "cs", "POST", f"/api/tables/{private['table']}/join", name="B")
            await ask("not this table", "de", "POST", join, name="B", token=private["token"])
            await post(server, join, {"name": "B", "token": invite}, 200)
            await ask("taken", "cs", "POST", join, name="B2", token=invite)
            await post(server, join, {"name": "C"}, 200)  # the last free seat
            await ask("full", "de", "POST", join, name="D")
            await ask("record", "cs", "GET", f"/api/tables/{public['table']}/record")
            await ask("no table", "de", "GET", "/api/tables/nonesuch")
            await ask("english", "en", "POST", join, name="E")
        return answers

    answers = asyncio.run(run())
    assert answers == {
        "invite only": (403, "k tomuto stolu se lze přidat jen na pozvánku"),
        "not this table": (403, "diese Einladung gilt für keinen Platz an diesem Tisch"),
        "taken": (409, "místo 2 je už obsazené"),
        "full": (409, "alle Plätze an diesem Tisch sind besetzt"),
        "record": (
            409,
            "hra ještě neskončila: její záznam, který jmenuje skryté karty, bude k dispozici až "
            "po konci",
        ),
        "no table": (404, "kein Tisch 'nonesuch'"),
        "english": (409, "every seat at this table is taken"),
    }


def test_a_finished_game_explains_each_score_in_the_seats_language(server: str) -> None:
    async def run() -> dict[str, Any]:
        table = await post(server, "/api/quick", {"name": "Anna", "bot": "random", "seed": 5})
        url = ws_url(server, table["table"]) + "?lang=cs"
        async with SeatClient.connect(url, table["token"]) as seat:
            return await play_randomly(seat, random.Random(5))

    final = asyncio.run(run())
    sheet, explained = final["result"], final["explained"]
    assert len(explained) == len(sheet["players"])
    for lines, player in zip(explained, sheet["players"], strict=True):
        assert lines[0].startswith(f"Zrní {player['seeds']}")  # in the seat's language
        assert lines[-1] == f"Celkem {player['total']}"
