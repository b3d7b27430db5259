"""The Ray backend on a local two-CPU Ray instance gives the same games as the other backends.

Ray starts slowly (10–30 s), so this module starts it once and runs one test (one test, so that
``pytest -n`` cannot start a second Ray on another worker); teardown shuts it down.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import piepmatz.bots
import piepmatz.bots.plugins
from botfiles import plugin_file
from piepmatz.cli import main
from piepmatz.sim import BotFailure, MatchConfig, run_games


def ray_descendants() -> list[str]:
    """Ray's processes below this one (gcs_server, raylet, ray:: workers, Ray's helper scripts)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # the process ended meanwhile
            continue
        pid, ppid = int(text.split()[0]), int(text[text.rindex(")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(pid)
    found, todo = [], [os.getpid()]
    while todo:
        for pid in children.get(todo.pop(), []):
            todo.append(pid)
            try:
                comm = Path(f"/proc/{pid}/comm").read_text().strip()
                args = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            # Ray's own binaries and workers, and Python running one of Ray's scripts (not, say,
            # multiprocessing's forkserver, whose arguments merely list Ray on sys.path).
            script = any(a.endswith(".py") and "/ray/" in a for a in args.split("\0"))
            if comm in ("gcs_server", "raylet") or comm.startswith("ray::") or script:
                found.append(f"{pid} {comm}")
    return found


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    import ray

    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        object_store_memory=80 * 1024 * 1024,
    )
    try:
        assert ray_descendants()  # the check below can see Ray's processes
        yield ray
    finally:
        ray.shutdown()
    assert not ray.is_initialized()
    deadline = time.monotonic() + 20
    while ray_descendants() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ray_descendants() == [], "Ray left processes behind"


@pytest.mark.slow
def test_ray_matches_inline_and_process(
    local_ray: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = MatchConfig(3, ("random", "random", "random"), 18, seed=4)
    inline = run_games(config, backend="inline")
    seen: list[int] = []
    on_ray = run_games(config, backend="ray", batch_size=4, progress=seen.append)
    assert on_ray == inline
    assert sum(seen) == 18 and max(seen) <= 4
    assert run_games(config, backend="process", workers=2, batch_size=5) == inline
    assert local_ray.is_initialized()  # an instance we did not start is left running

    # The command line on Ray writes the same report as in-process.
    base = ["tournament", "--players", "3", "--bots", "random", "random", "random"]
    base += ["--games", "18", "--seed", "4", "--quiet"]
    assert main([*base, "--backend", "ray", "--json", str(tmp_path / "ray.json")]) == 0
    assert main([*base, "--backend", "inline", "--json", str(tmp_path / "inline.json")]) == 0
    assert json.loads((tmp_path / "ray.json").read_text()) == json.loads(
        (tmp_path / "inline.json").read_text()
    )
    out = capsys.readouterr().out.split("Piepmatz tournament")
    assert out[1] == out[2]

    # A plugin's bot: Ray's workers load the plugin file before they build it. (This process
    # loads it too, for the inline run: on a registry of its own, left as it was.)
    monkeypatch.setattr(piepmatz.bots, "_FACTORIES", dict(piepmatz.bots._FACTORIES))
    monkeypatch.setattr(piepmatz.bots.plugins, "_LOADED", {})
    plugin = plugin_file(tmp_path / "raybots.py", "last", pick=-1)
    with_plugin = MatchConfig(2, ("last", "random"), 6, seed=2, plugins=(str(plugin),))
    assert run_games(with_plugin, backend="ray", batch_size=2) == run_games(
        with_plugin, backend="inline"
    )

    # A bot that fails on a Ray worker: its own error, with the game to replay, not Ray's
    # wrapping of it (which carries the remote traceback).
    crash = tmp_path / "crash.py"
    crash.write_text(
        "from piepmatz.bots import register\n\n\n"
        "class Crash:\n"
        "    name = 'crash'\n\n"
        "    def choose(self, view, legal, rng):\n"
        "        raise RuntimeError('out of feathers')\n\n\n"
        "register('crash', lambda arg: Crash())\n"
    )
    failing = MatchConfig(2, ("crash", "random"), 4, seed=2, plugins=(str(crash),))
    with pytest.raises(BotFailure) as caught:
        run_games(failing, backend="ray", batch_size=1)
    assert type(caught.value) is BotFailure and caught.value.seed == 2
    assert str(caught.value).startswith(f"game {caught.value.index} of tournament seed 2: bot")
    assert "raised RuntimeError('out of feathers')" in str(caught.value)
