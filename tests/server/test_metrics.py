"""``/metrics``: what a whole game through a real ``piepmatz serve`` counts (the bot workers'
thinking too, from their own processes), who may read it, and that it names no table or token."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families
from websockets.asyncio.client import connect

from piepmatz.server.client import SeatClient
from serverplay import play_randomly, post, running_server, until, ws_url
from serverprocs import free_port, serve_process


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_a_game_is_counted_bots_in_their_workers_too_and_nothing_names_a_table(
    tmp_path: Path,
) -> None:
    port = free_port()
    address = f"127.0.0.1:{port}"
    database = ("--database-url", f"sqlite+aiosqlite:///{tmp_path / 'server.db'}")
    with serve_process(port, *database, "--bot-workers", "1"):

        async def play() -> tuple[dict[str, str], int, int]:
            made = await post(address, "/api/quick", {"name": "Ann", "bot": "random", "players": 3})
            url = ws_url(address, made["table"])
            async with SeatClient.connect(url, made["token"]) as seat:
                await seat.send("not json")  # refused: malformed
                last = await play_randomly(seat, random.Random(1))
                acks = sum(m["type"] == "ack" for m in seat.received)
                during = httpx.get(f"http://{address}/metrics").text
                assert _samples(during)[("piepmatz_connections", ())] == 1
            return made, acks, last["move"]

        made, acks, moves = asyncio.run(play())
        response = httpx.get(f"http://{address}/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    found = _samples(text)
    assert found[("piepmatz_moves_total", (("by", "person"),))] == acks
    assert found[("piepmatz_moves_total", (("by", "bot"),))] == moves - acks
    assert found[("piepmatz_move_ack_seconds_count", ())] == acks
    assert found[("piepmatz_bot_decisions_total", ())] == moves - acks
    assert found[("piepmatz_bot_decision_seconds_count", ())] == moves - acks
    # Counted in the worker process, in its own file: the multiprocess mode.
    assert found[("piepmatz_bot_think_seconds_count", (("work", "move"),))] == moves - acks
    assert found[("piepmatz_refusals_total", (("code", "malformed"),))] == 1
    assert found[("piepmatz_tables", (("status", "over"),))] == 1
    assert found[("piepmatz_tables", (("status", "playing"),))] == 0
    assert found[("piepmatz_connections", ())] == 0
    assert found[("piepmatz_database_commit_seconds_count", ())] >= 1
    assert found[("piepmatz_database_errors_total", ())] == 0
    assert found[("process_cpu_seconds_total", ())] > 0
    for secret in (made["table"], made["token"], made["spectator_token"]):
        assert secret not in text
    assert "Ann" not in text


def test_metrics_are_for_the_allowed_addresses_behind_the_proxy_too(sqlite_url: str) -> None:
    with running_server(sqlite_url) as address:
        assert httpx.get(f"http://{address}/metrics").status_code == 200
        # A player's request through the trusted proxy on this machine (uvicorn takes the
        # address it forwards): refused, as from anywhere else.
        player = {"X-Forwarded-For": "203.0.113.9"}
        refused = httpx.get(f"http://{address}/metrics", headers=player)
        assert refused.status_code == 403
        assert refused.json() == {"detail": "the metrics are for the addresses in --metrics-allow"}
    with running_server(sqlite_url, metrics_allow=["203.0.113.0/24"]) as address:
        assert httpx.get(f"http://{address}/metrics", headers=player).status_code == 200
        assert httpx.get(f"http://{address}/metrics").status_code == 403
    with running_server(sqlite_url, metrics_allow=None) as address:
        assert httpx.get(f"http://{address}/metrics").status_code == 404


def test_a_refused_connection_is_counted_by_its_code(sqlite_url: str) -> None:
    from piepmatz.server.limits import Limits

    with running_server(sqlite_url, limits=Limits(connections_per_address=1)) as address:

        async def run() -> None:
            made = await post(address, "/api/quick", {"name": "Ann", "bot": "random"})
            url = ws_url(address, made["table"])
            async with SeatClient.connect(url, made["token"]) as first:
                await until(first, "welcome")
                async with connect(url) as second:  # refused before it could say hello
                    assert json.loads(await second.recv())["code"] == "too_many_connections"

        before = _samples(httpx.get(f"http://{address}/metrics").text)
        key = ("piepmatz_refusals_total", (("code", "too_many_connections"),))
        asyncio.run(run())
        after = _samples(httpx.get(f"http://{address}/metrics").text)
        assert after[key] == before.get(key, 0) + 1


def test_the_sample_dashboard_asks_only_for_metrics_the_server_has() -> None:
    from piepmatz.server import metrics

    dashboard = Path(__file__).parents[2] / "docs" / "grafana-dashboard.json"
    exprs = [
        target["expr"]
        for panel in json.loads(dashboard.read_text())["panels"]
        for target in panel["targets"]
    ]
    asked = {
        re.sub(r"_(total|bucket|count|sum)$", "", name)
        for expr in exprs
        for name in re.findall(r"\b((?:piepmatz|process)_[a-z_]+)\b", expr)
    }
    have = {family.name for family in metrics.REGISTRY.collect()} | {
        metrics.THINK_NAME,
        metrics.TABLES_NAME,
    }
    assert asked <= have, asked - have
    assert {"piepmatz_moves", "piepmatz_move_ack_seconds", "piepmatz_bot_think_seconds"} <= asked
