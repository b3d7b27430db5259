"""Plugins: your own bots from a file, a module or an installed package's entry points."""

from __future__ import annotations

import json
import random
import sys
import textwrap
from pathlib import Path

import pytest

import piepmatz.bots
import piepmatz.bots.plugins
from piepmatz.bots import (
    bot_names,
    builds_from_name,
    load_plugins,
    make_bot,
    needs_argument,
    register,
)
from piepmatz.bots.plugins import ENTRY_POINT_GROUP, PluginError, load_plugin
from piepmatz.cli import main
from piepmatz.sim import MatchConfig, run_games
from piepmatz.sim.play import BotFailure

#: A bot that takes the highest legal action id, with a seeded choice among the two highest when
#: its option asks, so a tournament shows whether its generator is the one the seat was given.
PLUGIN = """\
from piepmatz.bots import register

LOADS = globals().setdefault("LOADS", [])
LOADS.append(1)


class Last:
    def __init__(self, arg):
        self.name = "last:" + arg if arg else "last"
        self.coin = arg == "coin"

    def choose(self, view, legal, rng):
        if self.coin and len(legal) > 1:
            return legal[-1 - rng.randrange(2)]
        return legal[-1]


register("last", Last)
"""


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with the built-in bots only and no plugin loaded."""
    monkeypatch.setattr(piepmatz.bots, "_FACTORIES", dict(piepmatz.bots._FACTORIES))
    monkeypatch.setattr(piepmatz.bots.plugins, "_LOADED", {})


def _plugin(tmp_path: Path, text: str = PLUGIN, name: str = "mybots.py") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_plugin_file_adds_its_bots_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _plugin(tmp_path)
    with pytest.raises(ValueError, match="unknown bot 'last'"):
        make_bot("last")
    monkeypatch.chdir(tmp_path)
    key = load_plugin("mybots.py")
    assert key == str(path.resolve())  # what workers elsewhere load
    assert load_plugins(["mybots.py", str(path)]) == (key, key)
    module = piepmatz.bots.plugins._LOADED[key]
    assert module.LOADS == [1]  # imported once, however it is named
    assert "last" in bot_names()
    bot = make_bot("last:coin")
    picks = {bot.choose(None, [3, 5, 8], random.Random(i)) for i in range(20)}  # type: ignore[arg-type]
    assert bot.name == "last:coin" and picks == {5, 8}
    assert make_bot("last").choose(None, [3, 5, 8], None) == 8  # type: ignore[arg-type]


def test_a_plugin_module_on_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _plugin(tmp_path, name="piepmatz_test_modbots.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "piepmatz_test_modbots", raising=False)
    assert load_plugin("piepmatz_test_modbots") == "piepmatz_test_modbots"
    assert make_bot("last").choose(None, [1, 2], None) == 2  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("ref", "text", "message"),
    [
        ("missing.py", None, r"plugin 'missing.py': no such file \(.*missing.py\)"),
        ("dir/notes.txt", "x", "a plugin file is Python source ending in .py"),
        ("broken.py", "1 / 0\n", r"plugin 'broken.py' failed while loading: ZeroDivisionError"),
        ("syntax.py", "def (:\n", "failed while loading: SyntaxError"),
        ("quits.py", "import sys\nsys.exit(3)\n", r"failed while loading: SystemExit\(3\)"),
        ("sub/dir.py/", None, r"sub/dir.py is a directory; name a .py file in it"),
        ("no_such_module_here", None, "no module named 'no_such_module_here'"),
        ("", None, "a Python file or a module name"),
    ],
)
def test_bad_plugins_say_what_is_wrong(
    ref: str, text: str | None, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    if text is not None:
        (tmp_path / ref).parent.mkdir(exist_ok=True)
        (tmp_path / ref).write_text(text)
    elif ref.endswith("/"):
        (tmp_path / ref).mkdir(parents=True)
    modules = set(sys.modules)
    with pytest.raises(PluginError, match=message):
        load_plugin(ref)
    assert set(sys.modules) == modules  # a failed plugin leaves no half-loaded module behind
    assert piepmatz.bots.plugins._LOADED == {}


def test_register_refuses_taken_and_bad_names() -> None:
    def factory(arg: str) -> piepmatz.bots.Bot:
        return piepmatz.bots.RandomBot()

    with pytest.raises(ValueError, match="bot name 'heuristic' is taken"):
        register("heuristic", factory)
    with pytest.raises(ValueError, match="one word without ':'"):
        register("my:bot", factory)
    with pytest.raises(ValueError, match="one word without ':'"):
        register("", factory)
    with pytest.raises(ValueError, match="must be callable"):
        register("mine", "not a factory")  # type: ignore[arg-type]
    register("mine", factory)
    register("mine", factory)  # the same factory again (a module imported twice) is fine
    assert make_bot("mine").name == "random"


def test_factories_that_fail_or_return_no_bot_are_named() -> None:
    def crash(arg: str) -> piepmatz.bots.Bot:
        raise RuntimeError("no feathers")

    register("crashing", crash)
    register("nothing", lambda arg: object())  # type: ignore[arg-type, return-value]
    with pytest.raises(ValueError, match=r"bot 'crashing:x' could not be built: RuntimeError"):
        make_bot("crashing:x")
    with pytest.raises(ValueError, match="returned object, which has no choose"):
        make_bot("nothing")

    def silent(arg: str) -> piepmatz.bots.Bot:
        raise ValueError

    register("silent", silent)
    with pytest.raises(ValueError, match=r"bot 'silent' could not be built: ValueError\(\)"):
        make_bot("silent")


def test_a_factory_marked_as_needing_an_argument_is_not_offered_bare() -> None:
    @needs_argument
    def from_file(arg: str) -> piepmatz.bots.Bot:
        return FirstLegal()

    register("fromfile", from_file)
    register("first", lambda arg: FirstLegal())
    assert make_bot("fromfile:weights.npz").name == "first"
    assert not builds_from_name("fromfile") and builds_from_name("first")
    assert not builds_from_name("ppo")  # the package's own checkpoint bot, an entry point


def test_installed_packages_declare_bots_as_entry_points(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A package as pip installs it: a module and a dist-info with entry_points.txt.
    (tmp_path / "piepmatz_test_epbots.py").write_text(
        textwrap.dedent(
            """\
            from piepmatz.bots import RandomBot

            def factory(arg):
                bot = RandomBot()
                bot.name = "ep:" + arg
                return bot

            not_callable = 3
            """
        )
    )
    info = tmp_path / "piepmatz_test_epbots-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: piepmatz-test-epbots\n")
    (info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\n"
        "epbot = piepmatz_test_epbots:factory\n"
        "epbroken = piepmatz_test_epbots:missing\n"
        "epthree = piepmatz_test_epbots:not_callable\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert {"epbot", "epbroken", "epthree"} <= set(bot_names())
    assert builds_from_name("epbot") and builds_from_name("epbroken")  # the seat says why
    assert make_bot("epbot:x").name == "ep:x"
    with pytest.raises(ValueError, match="bot name 'epthree' is taken"):
        register("epthree", lambda arg: FirstLegal())  # declared, if not loadable
    with pytest.raises(PluginError, match="bot 'epbroken' of package entry point"):
        make_bot("epbroken")
    with pytest.raises(PluginError, match="is not a factory: int"):
        make_bot("epthree")
    config = MatchConfig(2, ("epbot", "random"), 4, seed=2)
    assert len(run_games(config, backend="inline")) == 4


def test_tournaments_load_plugins_in_every_worker(tmp_path: Path) -> None:
    path = _plugin(tmp_path)
    config = MatchConfig(2, ("last:coin", "random"), 12, seed=5, plugins=(str(path),))
    assert config.plugins == (str(path.resolve()),)
    assert config.to_json()["plugins"] == [str(path.resolve())]
    inline = run_games(config, backend="inline")
    # Fresh worker processes (forkserver) have not imported the plugin: they load it by path.
    pooled = run_games(config, backend="process", workers=2, batch_size=2)
    assert [r.actions for r in pooled] == [r.actions for r in inline]
    assert [r.sheet for r in pooled] == [r.sheet for r in inline]


def test_a_bot_registered_at_run_time_needs_a_plugin_to_reach_workers() -> None:
    register("first", lambda arg: FirstLegal())
    config = MatchConfig(2, ("first", "random"), 2, seed=1)
    assert len(run_games(config, backend="inline")) == 2
    with pytest.raises(BotFailure, match=r"unknown bot 'first'.*only from a plugin"):
        run_games(config, backend="process", workers=1)


class FirstLegal:
    name = "first"

    def choose(self, view: object, legal: list[int], rng: random.Random) -> int:
        return legal[0]


def test_shipped_names_cannot_be_taken_before_they_are_loaded() -> None:
    """``ppo`` (the package's entry point) and ``openspiel`` (a shipped plugin) are refused to a
    plugin in any case, loaded yet or not, so their specs still build the shipped bots."""

    def factory(arg: str) -> piepmatz.bots.Bot:
        return piepmatz.bots.RandomBot()

    piepmatz.bots._FACTORIES.pop("ppo", None)
    piepmatz.bots._FACTORIES.pop("openspiel", None)
    for name in ("ppo", "PPO", "openspiel", "Heuristic"):
        with pytest.raises(ValueError, match=f"bot name '{name}' is taken"):
            register(name, factory)
    with pytest.raises(ValueError, match="cannot read the checkpoint"):
        make_bot("ppo:run/final.npz")
    # The shipped module registers its own name.
    factory.__module__ = "piepmatz.envs.openspiel_ismcts"
    register("openspiel", factory)
    assert make_bot("openspiel").name == "random"


def test_a_shipped_plugin_bot_not_loaded_says_which_plugin() -> None:
    piepmatz.bots._FACTORIES.pop("openspiel", None)
    with pytest.raises(ValueError, match=r"--plugin piepmatz\.envs\.openspiel_ismcts"):
        make_bot("openspiel:time=1")
    with pytest.raises(ValueError, match="choose one of") as refused:
        make_bot("nosuchbot")
    # Any other name: how a bot of one's own is loaded, naming no plugin of ours.
    assert str(refused.value).endswith("(a bot of your own: load its file with --plugin FILE)")


def test_cli_plugin_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _plugin(tmp_path)
    assert main(["compare", "--rules", "standard", "--bots", "last", "--quiet"]) == 2
    assert "argument --bots: unknown bot 'last'" in capsys.readouterr().err
    bad = ["tournament", "--bots", "last", "--plugin", str(tmp_path / "nope.py"), "--quiet"]
    assert main([*bad, "--csv", str(tmp_path / "x.csv")]) == 2
    err = capsys.readouterr().err
    assert "argument --plugin: plugin" in err and "no such file" in err
    assert not (tmp_path / "x.csv").exists()

    args = ["tournament", "--players", "2", "--bots", "last", "random", "--games", "6"]
    args += ["--seed", "4", "--backend", "inline", "--quiet", "--plugin", str(path)]
    args += ["--json", str(tmp_path / "r.json")]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "last " in out
    # The report names its plugins, under the lines saying what was played.
    assert out.splitlines()[2] == f"plugins: {path.resolve()}"
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["config"]["plugins"] == [str(path.resolve())]
    assert {b["bot"] for b in data["bots"]} == {"last", "random"}

    compare = ["compare", "--players", "2", "--rules", "standard", "--bots", "last", "random"]
    compare += ["--games", "2", "--seed", "4", "--backend", "inline", "--quiet"]
    assert main([*compare, "--plugin", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[2] == f"plugins: {path.resolve()}"
    plain = ["tournament", "--players", "2", "--bots", "random", "--games", "2"]
    assert main([*plain, "--backend", "inline", "--quiet"]) == 0
    assert capsys.readouterr().out.splitlines()[2] == ""  # no plugins, no line
