"""The deployment the docs describe, run: Debian's nginx with ``docs/deploy/nginx.conf`` (TLS with
a throwaway certificate) in front of two ``piepmatz serve`` processes started as
``docs/deploy/piepmatz@.service`` starts them (with ``docs/deploy/env``), on one PostgreSQL and
one Redis. Through it: invite links that keep the proxy's scheme, host and port; the
per-address limit counting each player's own address; whole games from a browser and
``SeatClient``s while one process is killed with SIGKILL, and again during a rolling restart
(SIGTERM, start, the other), each game ending with every acknowledged move.

One nginx and one pair of processes serve every check (they take seconds to start)."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from faultplay import SRC, TESTS, Player
from piepmatz.core import Game
from serverprocs import free_port

DEPLOY = Path(__file__).resolve().parents[2] / "docs" / "deploy"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
#: The per-address limit the processes run with here: small, so that a few connections show
#: whose address each process counts.
PER_ADDRESS = 8
#: The tables of the games: people and bots (a bot's lease moves to the other process when
#: its holder goes).
TABLES = [["human", "human", "random"], ["human", "human"], ["human", "random", "human"]]
#: Seconds a client waits for the TCP connection to end after the closing handshake: nginx lingers
#: (up to its lingering_timeout, 5 s) for the client to end it first, which a browser does at
#: once; the tests' clients would otherwise wait for each other.
CLOSE = 0.2


# ---------------------------------------------------------------------- the pieces


def _certificate(folder: Path) -> tuple[Path, Path]:
    """A throwaway self-signed certificate for 127.0.0.1 and localhost."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "fullchain.pem", folder / "privkey.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def _replaced(text: str, changes: dict[str, str]) -> str:
    """``text`` with each of ``changes`` made; each must be there (the file is the docs')."""
    for old, new in changes.items():
        assert old in text, f"{old!r} is no longer in the documented file"
        text = text.replace(old, new)
    return text


@contextmanager
def nginx(folder: Path, backends: list[int], cert: Path, key: Path) -> Iterator[tuple[int, int]]:
    """Debian's nginx with the documented site, on two free ports (plain, TLS) instead of 80
    and 443 and in front of ``backends`` instead of 8001 and 8002; yields the ports."""
    if not Path(NGINX).exists():
        pytest.fail(
            "no nginx: the deployment test runs Debian's nginx (`make test` installs it with "
            "apt-get; or apt-get install -y nginx-light)"
        )
    plain, tls = free_port(), free_port()
    site = _replaced(
        (DEPLOY / "nginx.conf").read_text(),
        {
            "server 127.0.0.1:8001 ": f"server 127.0.0.1:{backends[0]} ",
            "server 127.0.0.1:8002 ": f"server 127.0.0.1:{backends[1]} ",
            "listen 80;": f"listen 127.0.0.1:{plain};",
            "listen 443 ssl;": f"listen 127.0.0.1:{tls} ssl;",
            "/etc/ssl/piepmatz/fullchain.pem": str(cert),
            "/etc/ssl/piepmatz/privkey.pem": str(key),
        },
    )
    (folder / "piepmatz.conf").write_text(site)
    # What Debian's /etc/nginx/nginx.conf gives a site, in the test's own folder.
    user = "user root;" if os.geteuid() == 0 else ""
    temp = " ".join(
        f"{kind}_temp_path {folder / kind};" for kind in ("client_body", "proxy", "fastcgi")
    )
    (folder / "nginx.conf").write_text(
        f"{user} daemon off; worker_processes 1; pid {folder / 'nginx.pid'};\n"
        f"error_log {folder / 'error.log'} warn;\n"
        "events { worker_connections 1024; }\n"
        f"http {{ access_log {folder / 'access.log'}; {temp} uwsgi_temp_path {folder / 'u'}; "
        f"scgi_temp_path {folder / 's'}; include {folder / 'piepmatz.conf'}; }}\n"
    )
    process = subprocess.Popen(
        [NGINX, "-c", str(folder / "nginx.conf"), "-p", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", tls), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    log = (
                        (folder / "error.log").read_text()
                        if (folder / "error.log").exists()
                        else ""
                    )
                    pytest.fail(f"nginx did not start: {log}")
                time.sleep(0.05)
        yield plain, tls
    finally:
        process.terminate()
        process.wait(30)


def _unit() -> tuple[list[str], dict[str, str]]:
    """The command and the environment ``piepmatz@.service`` gives a process (``%i``: its port)."""
    command: list[str] = []
    environment: dict[str, str] = {}
    for line in (DEPLOY / "piepmatz@.service").read_text().splitlines():
        key, _, value = line.partition("=")
        if key == "ExecStart":
            command = value.split()
        elif key == "Environment":
            name, _, setting = value.partition("=")
            environment[name] = setting
    assert command[:2] == ["/opt/piepmatz/.venv/bin/piepmatz", "serve"], command
    return command, environment


def _env_file(changes: dict[str, str]) -> dict[str, str]:
    """The documented ``/etc/piepmatz/env``, with ``changes`` to settings it has."""
    settings = dict(
        line.split("=", 1)
        for line in (DEPLOY / "env").read_text().splitlines()
        if line and not line.startswith("#")
    )
    for name in changes:
        assert name in settings, f"{name} is no longer in docs/deploy/env"
    return settings | changes


class Backend:
    """``piepmatz@PORT``: the unit's command and environment, the env file's settings."""

    def __init__(self, port: int, settings: dict[str, str], log: Path) -> None:
        self.port = port
        command, unit_env = _unit()
        # The unit's piepmatz is the one installed in /opt; here, this checkout's.
        self.command = [sys.executable, "-m", "piepmatz.cli", *command[1:]]
        self.env = (
            os.environ
            | settings
            | {k: v.replace("%i", str(port)) for k, v in unit_env.items()}
            | {"PYTHONPATH": f"{SRC}{os.pathsep}{TESTS}"}
        )
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start it; return once it is ready (``/readyz``)."""
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(self.command, env=self.env, stdout=out, stderr=out)
        deadline = time.monotonic() + 60
        while not self.ready():
            if self.process.poll() is not None or time.monotonic() > deadline:
                return  # said by whoever waits for it
            time.sleep(0.1)

    def ready(self) -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{self.port}/readyz", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    def terminate(self) -> float:
        """SIGTERM, as systemd stops it; the seconds until it exited, having shut down in
        order (uvicorn raises the signal again once done: an exit systemd counts as clean)."""
        assert self.process is not None
        logged = self.log.stat().st_size
        began = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        assert self.process.wait(60) == -signal.SIGTERM
        took = time.monotonic() - began
        with self.log.open("rb") as log:
            log.seek(logged)
            assert b"Application shutdown complete" in log.read()
        return took

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(60)


class Site:
    """The deployment: the proxy's ports and the two processes behind it."""

    def __init__(self, plain: int, tls: int, backends: list[Backend], cert: Path) -> None:
        self.plain = plain
        self.tls = tls
        self.backends = backends
        self.base = f"https://127.0.0.1:{tls}"
        self.tls_context = ssl.create_default_context(cafile=str(cert))

    def http(self, local: str | None = None) -> httpx.AsyncClient:
        transport = httpx.AsyncHTTPTransport(verify=self.tls_context, local_address=local)
        return httpx.AsyncClient(base_url=self.base, transport=transport, timeout=30)

    def ws(self, table: str) -> str:
        return f"wss://127.0.0.1:{self.tls}/ws/{table}"


@pytest.fixture(scope="module")
def site(
    tmp_path_factory: pytest.TempPathFactory, module_postgres_url: str, redis_url: str
) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("deployment")
    cert, key = _certificate(folder)
    settings = _env_file(
        {
            "PIEPMATZ_DATABASE_URL": module_postgres_url,
            "PIEPMATZ_REDIS": redis_url,
            "PIEPMATZ_DRAIN_TIMEOUT": "5",
        }
    ) | {
        "PIEPMATZ_BOT_WORKERS": "1",
        "PIEPMATZ_CONNECTIONS_PER_ADDRESS": str(PER_ADDRESS),
        # The test opens its tables from one address; the limit of new tables is not its point.
        "PIEPMATZ_TABLES_PER_MINUTE": "0",
    }
    backends = [Backend(free_port(), settings, folder / f"serve-{i}.log") for i in range(2)]
    try:
        # Started together, as systemd starts them: one migrates the fresh database, the other
        # waits for its lock and finds it current.
        starting = [threading.Thread(target=b.start) for b in backends]
        for thread in starting:
            thread.start()
        for thread in starting:
            thread.join()
        for backend in backends:
            assert backend.ready(), f"piepmatz serve did not start: see {backend.log}"
        with nginx(folder, [b.port for b in backends], cert, key) as (plain, tls):
            yield Site(plain, tls, backends, cert)
    finally:
        for backend in backends:
            backend.stop()


# ---------------------------------------------------------------------- the checks


async def _seat_everyone(site: Site, seats: list[str]) -> tuple[str, list[str], dict[str, Any]]:
    async with site.http() as http:
        opened = (await http.post("/api/tables", json={"seats": seats, "name": "P0"})).json()
        tokens = [opened["token"]]
        for i, invite in enumerate(opened["invites"]):
            body = {"name": f"P{i + 1}", "token": invite["token"]}
            joined = await http.post(f"/api/tables/{opened['table']}/join", json=body)
            tokens.append(joined.json()["token"])
    return opened["table"], tokens, opened


def _links_and_headers(site: Site) -> None:
    async def run() -> None:
        _table, _tokens, opened = await _seat_everyone(site, ["human", "human", "random"])
        # The player's scheme, host and port, as nginx passed them on ($http_host,
        # X-Forwarded-Proto): a link a friend can open.
        for invite in opened["invites"]:
            assert invite["link"].startswith(f"https://127.0.0.1:{site.tls}/play/"), invite
        async with site.http() as http:
            assert (await http.get("/readyz")).status_code == 200
            assert (await http.get("/metrics")).status_code == 404  # the proxy's answer
        plain = await httpx.AsyncClient().get(f"http://127.0.0.1:{site.plain}/games")
        assert plain.status_code == 308
        assert plain.headers["location"] == "https://127.0.0.1/games"

    asyncio.run(run())


def _limits_count_each_players_address(site: Site) -> None:
    async def hello(url: str, token: str, local: str) -> str:
        """``welcome``, or the reason of the close that refused it."""
        ws = await connect(url, ssl=site.tls_context, local_addr=(local, 0), close_timeout=CLOSE)
        try:
            await ws.send(json.dumps({"type": "hello", "token": token}))
            first = json.loads(await ws.recv())
            if first["type"] == "welcome":
                opened.append(ws)  # kept open: it counts
                return "welcome"
            await ws.recv()
            raise AssertionError(first)
        except ConnectionClosed as exc:
            assert exc.rcvd is not None and exc.rcvd.code == 1008, exc
            return exc.rcvd.reason

    opened: list[Any] = []

    async def run() -> None:
        table, _tokens, made = await _seat_everyone(site, ["human", "random"])
        url, token = site.ws(table), made["spectator_token"]
        # Twenty players, each from an address of their own: every one is let in, though each
        # process lets in at most PER_ADDRESS from one address and nginx connects from one.
        answers = [await hello(url, token, f"127.0.0.{10 + i}") for i in range(20)]
        assert answers == ["welcome"] * 20
        # Closed at once, not in turn: each close waits up to CLOSE for nginx.
        await asyncio.gather(*(ws.close() for ws in opened))
        opened.clear()
        # Twenty from one address: each process lets in PER_ADDRESS (nginx shares the
        # connections out in turn), and refuses the rest by name.
        answers = [await hello(url, token, "127.0.0.3") for _ in range(20)]
        assert answers.count("welcome") == 2 * PER_ADDRESS, answers
        refused = {a for a in answers if a != "welcome"}
        assert refused == {f"too many connections from your address (at most {PER_ADDRESS})"}
        await asyncio.gather(*(ws.close() for ws in opened))

    asyncio.run(run())


async def _play_through(
    site: Site, fault: Any, first: int, also: threading.Event | None = None
) -> tuple[list[Player], float]:
    """Games of :data:`TABLES` played by reconnecting clients (each from an address of its
    own) while ``fault()`` runs once ``first`` moves were acknowledged (and ``also`` is set);
    checks every game
    against its record and returns the players and the longest wait for any acknowledgement
    while the fault ran."""
    tables: dict[str, list[Player]] = {}
    n = 0
    for seats in TABLES:
        table, tokens, _made = await _seat_everyone(site, seats)
        tables[table] = []
        for token in tokens:
            n += 1
            options = {
                "ssl": site.tls_context,
                "local_addr": (f"127.0.1.{n}", 0),
                "close_timeout": CLOSE,
            }
            tables[table].append(Player(site.ws(table), token, seed=n, options=options))
    players = [p for seated in tables.values() for p in seated]
    acks: list[float] = []
    begun = asyncio.Event()

    def acked() -> int:
        return sum(len(p.acked) for p in players)

    async def gate() -> None:
        # Past ``first`` moves the players wait for the fault, so that it falls mid-game
        # however long ``also`` takes (a browser starting on a busy machine).
        if acked() >= first:
            await begun.wait()

    async def watch() -> None:
        seen = 0
        while not all(p.final for p in players):
            if (now := acked()) != seen:
                acks.append(time.monotonic())
                seen = now
            await asyncio.sleep(0.01)

    async def at_fault() -> tuple[float, float]:
        while acked() < first:
            await asyncio.sleep(0.01)
        if also is not None:
            assert await asyncio.to_thread(also.wait, 120), "the browser's game began"
        began = time.monotonic()
        begun.set()
        await asyncio.to_thread(fault)
        return began, time.monotonic()

    watching = asyncio.create_task(watch())
    _, (began, ended) = await asyncio.wait_for(
        asyncio.gather(
            asyncio.gather(*(p.play(pause=0.05, gate=gate) for p in players)), at_fault()
        ),
        240,
    )
    await watching
    during = [t for t in acks if began <= t <= ended + 10]
    gaps = [b - a for a, b in zip([began, *during], during, strict=False)]
    async with site.http() as http:
        for table, seated in tables.items():
            record = (await http.get(f"/api/tables/{table}/record")).json()
            for player in seated:
                assert player.final is not None, "the game ended for every seat"
                for move, action in player.acked:
                    assert record["actions"][move] == action, "an acknowledged move is kept"
                assert player.final["result"] == record["result"]
                assert player.final["move"] == len(record["actions"])
            assert Game.from_record(record).score().to_json() == record["result"]
    return players, max(gaps, default=0.0)


def _browser_game(
    site: Site, problems: list[str], going: threading.Event
) -> tuple[str, dict[str, Any]]:
    """A person plays a whole quick game against two bots in Chromium, through the proxy's
    TLS (the throwaway certificate accepted), setting ``going`` after a few moves; returns the
    table and the page's last state."""
    from playwright.sync_api import sync_playwright

    chromium = Path(os.environ.get("PIEPMATZ_CHROMIUM") or "/usr/bin/chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium), args=["--no-sandbox"])
        try:
            context = browser.new_context(ignore_https_errors=True)
            context.add_init_script(_SEAT)
            page = context.new_page()
            page.on("pageerror", lambda error: problems.append(str(error)))
            page.goto(f"{site.base}/?pace=0")
            page.fill("#name", "Anna")
            page.select_option("#quick-players", "3")
            page.select_option("#quick-bot", "random")
            page.click("#quick-start")
            page.wait_for_url(re.compile(r"/play/"))
            while True:
                page.wait_for_function(
                    "() => { const s = window.__seat; return s.state && s.socket.readyState === 1"
                    " && (s.state.result !== null || s.state.legal.length > 0); }",
                    timeout=120_000,
                )
                state: dict[str, Any] = page.evaluate("() => window.__seat.state")
                if state["result"] is not None:
                    break
                sockets = page.evaluate(
                    "([move, action]) => { window.__seat.socket.send("
                    "JSON.stringify({type: 'action', move, action})); "
                    "return window.__seat.sockets; }",
                    [state["move"], state["legal"][0]],
                )
                # Played, or the connection was lost (with the action, if it had not reached
                # the server: the state the next connection gets asks for it again).
                page.wait_for_function(
                    "([move, sockets]) => { const s = window.__seat; return s.sockets !== sockets"
                    " || (s.state !== null && s.state.move !== move); }",
                    arg=[state["move"], sockets],
                    timeout=120_000,
                )
                if state["move"] >= 6:
                    going.set()  # the kill may come: it falls mid-game
            table = re.search(r"/play/([\w-]+)", page.url)
            assert table is not None
            return table.group(1), state
        finally:
            browser.close()


#: The page's table connection and last state, noted for the test (the page has no hook).
_SEAT = """
(() => {
  const Native = window.WebSocket;
  const seat = { socket: null, state: null, sockets: 0 };
  window.__seat = seat;
  window.WebSocket = function (url, protocols) {
    const ws = new Native(url, protocols);
    if (String(url).includes("/ws/")) {
      // A new connection: what the last one said is not this one's to answer.
      Object.assign(seat, { socket: ws, state: null, sockets: seat.sockets + 1 });
      ws.addEventListener("message", (event) => {
        const message = JSON.parse(event.data);
        if (message.type === "state") seat.state = message;
      });
    }
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
})();
"""


def _games_while_a_process_is_killed(site: Site) -> None:
    killed = site.backends[1]

    def kill() -> None:
        killed.kill()
        time.sleep(1)
        killed.start()
        assert killed.ready(), f"piepmatz serve did not start again: see {killed.log}"

    outcome: dict[str, Any] = {}

    going = threading.Event()

    def seat_clients() -> None:
        outcome["players"], _ = asyncio.run(_play_through(site, kill, 15, going))

    # The SeatClients play in a thread of their own (Playwright's API holds this one's loop).
    clients = threading.Thread(target=seat_clients)
    clients.start()
    problems: list[str] = []
    table, state = _browser_game(site, problems, going)
    clients.join(300)
    assert "players" in outcome, "the SeatClients' games ended"
    record = httpx.get(f"{site.base}/api/tables/{table}/record", verify=site.tls_context).json()
    assert state["result"] == record["result"] == Game.from_record(record).score().to_json()
    assert problems == []
    assert any(p.reconnects for p in outcome["players"]), "the killed process had players"
    # The process that lived through it told the other its news and heard the other's, as its
    # metrics say (asked directly: the proxy does not pass /metrics on).
    metrics = httpx.get(f"http://127.0.0.1:{site.backends[0].port}/metrics").text
    for direction in ("sent", "heard"):
        found = re.search(
            rf'^piepmatz_bus_messages_total{{direction="{direction}"}} (\S+)$', metrics, re.M
        )
        assert found is not None and float(found[1]) > 0, direction


def _rolling_restart(site: Site) -> None:
    exits: list[float] = []

    def restart_both() -> None:
        # As docs/deployment.md says: the next process once this one answers /readyz.
        for backend in site.backends:
            exits.append(backend.terminate())
            backend.start()
            assert backend.ready(), f"piepmatz serve did not start again: see {backend.log}"

    players, longest = asyncio.run(_play_through(site, restart_both, first=10))
    # Their processes asked them to come back (1012), and they did: nobody saw a crash.
    assert sum(p.restarts for p in players) >= 1
    assert all(p.restarts == p.reconnects for p in players), [
        (p.restarts, p.reconnects) for p in players
    ]
    # Each process exited within its drain's bound (twice --drain-timeout, and a moment).
    assert all(seconds < 2 * 5 + 5 for seconds in exits), exits
    # Every game kept moving: no move waited for its acknowledgement even for seconds.
    assert longest < 3, longest
    print(f"rolling restart: exits {exits} s, longest wait for an ack {longest:.2f} s")


def test_nginx_in_front_of_two_processes(site: Site) -> None:
    for step in (
        _links_and_headers,
        _limits_count_each_players_address,
        _games_while_a_process_is_killed,
        _rolling_restart,
    ):
        began = time.monotonic()
        step(site)
        print(f"{step.__name__}: {time.monotonic() - began:.1f} s")
