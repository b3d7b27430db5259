"""The package's layers point inward, as docs/architecture.md says: every import
of every module under ``src/piepmatz`` (at module level and inside functions, read with ``ast``)
goes only where :data:`ALLOWED` lets it; an interface imports another only along an arrow of
:data:`SIDEWAYS`, each with its reason. And what two interfaces share (the terminal game's words,
previews and rules text serve the game server too) loads neither Textual nor the terminal game.
And each extra alone runs what it is for, every package outside it refused as if not installed.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import piepmatz

PACKAGE = Path(piepmatz.__file__).parent
SRC = PACKAGE.parent

#: The interfaces: each translates between the core and people or programs. ``cli`` finds the
#: others' commands by name (``INTERFACE_COMMANDS``), and imports none of them.
INTERFACES = ("cli", "engine", "envs", "jax", "review", "rl", "server", "sim", "tui")
#: What every interface may import: the core, the bots, what people read (``text``, ``i18n``,
#: the first game's lesson ``tutorial``), what the commands share (``args``, ``records``) and the
#: package itself (its version).
_INWARD = frozenset({"piepmatz", "core", "bots", "text", "i18n", "tutorial", "args", "records"})

#: Each part of the package (a subpackage or a top-level module) and the parts it may import.
ALLOWED: dict[str, frozenset[str]] = {
    "piepmatz": frozenset(),  # __init__: the version only
    "__main__": frozenset({"cli"}),  # python -m piepmatz: the command
    "core": frozenset(),  # the rules engine: nothing of the project, only the standard library
    "i18n": frozenset(),  # languages and catalogues
    "bots": frozenset({"core"}),  # they play from a view
    "text": frozenset({"core", "i18n"}),  # the game told in the player's language
    "args": frozenset({"core", "i18n"}),  # argument types every command shares
    "records": frozenset({"core", "i18n", "text"}),  # games in files, for every command
    "tutorial": frozenset({"core", "i18n", "text"}),  # the first game's script and its texts
    **{name: _INWARD for name in INTERFACES},
}

#: The arrows from one interface to another that the architecture allows, and why. Each must be
#: in use: an arrow nobody draws any more goes from here and from docs/architecture.md.
SIDEWAYS: dict[tuple[str, str], str] = {
    ("rl", "envs"): "rl trains on the Gymnasium environment and its observation encoding",
    ("jax", "envs"): "the JAX environment builds the other environments' observation encoding "
    "(its layout) and their win reward; the differential check compares with them",
    ("rl", "sim"): "rl measures a checkpoint with tournament games: the learning curve is "
    "what a tournament plays",
    ("rl", "jax"): "rl trains inside one compiled function on the JAX environment, and "
    "thousands of games at once (--backend jax)",
    ("tui", "server"): "the terminal sits at an online table through the server's protocol "
    "client (server.client, which needs only websockets)",
}


def _part(module: str) -> str | None:
    """The part of the package ``module`` belongs to; None outside the project."""
    names = module.split(".")
    if names[0] != "piepmatz":
        return None
    return names[1] if len(names) > 1 else "piepmatz"


def _module_name(path: Path, root: Path) -> tuple[str, bool]:
    names = list(path.relative_to(root).with_suffix("").parts)
    package = names[-1] == "__init__"
    return ".".join(names[:-1] if package else names), package


def _imports(path: Path, root: Path = SRC) -> list[tuple[int, str]]:
    """Every module ``path`` imports, anywhere in it (functions and type-checking blocks too),
    relative imports resolved: ``(line, module)``."""
    name, package = _module_name(path, root)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                names = name.split(".") if package else name.split(".")[:-1]
                names = names[: len(names) - node.level + 1]
                base = ".".join([*names, *filter(None, [node.module])])
            if base == "piepmatz":  # from piepmatz import tui: the part is what is imported
                top = root / "piepmatz"
                found += [
                    (node.lineno, f"piepmatz.{a.name}")
                    if (top / a.name).is_dir() or (top / f"{a.name}.py").is_file()
                    else (node.lineno, base)
                    for a in node.names
                ]
            else:
                found.append((node.lineno, base))
    return found


def _wrong_imports(root: Path = SRC) -> tuple[list[str], set[tuple[str, str]]]:
    """The imports that break the rule, as ``module:line imports …``, and every arrow drawn
    between two parts."""
    wrong, drawn = [], set()
    for path in sorted((root / "piepmatz").rglob("*.py")):
        module, _package = _module_name(path, root)
        source = _part(module)
        assert source in ALLOWED, f"{module}: a new part of the package, give it its place"
        for line, imported in _imports(path, root):
            target = _part(imported)
            if target is None or target == source:
                continue
            drawn.add((source, target))
            if target not in ALLOWED[source] and (source, target) not in SIDEWAYS:
                wrong.append(f"{module}:{line} imports {imported} ({source} -> {target})")
    return wrong, drawn


def test_every_import_points_inward_or_along_an_allowed_arrow() -> None:
    wrong, drawn = _wrong_imports()
    assert wrong == []
    assert set(SIDEWAYS) <= drawn, "an allowed arrow nobody draws any more"


def test_the_core_imports_only_the_standard_library() -> None:
    outside = [
        f"{path.relative_to(SRC)}:{line} imports {imported}"
        for path in sorted((PACKAGE / "core").rglob("*.py"))
        for line, imported in _imports(path)
        if _part(imported) is None and imported.split(".")[0] not in sys.stdlib_module_names
    ]
    assert outside == []


def test_a_sideways_import_anywhere_in_a_module_is_caught(tmp_path: Path) -> None:
    sim = tmp_path / "piepmatz" / "sim"
    sim.mkdir(parents=True)
    (sim / "__init__.py").write_text("from . import late\nfrom ..tui.session import Session\n")
    (sim / "late.py").write_text("def f():\n    from piepmatz import __version__, tui\n")
    (tmp_path / "piepmatz" / "tui").mkdir()
    wrong, drawn = _wrong_imports(tmp_path)
    assert wrong == [
        "piepmatz.sim:2 imports piepmatz.tui.session (sim -> tui)",
        "piepmatz.sim.late:2 imports piepmatz.tui (sim -> tui)",
    ]
    assert drawn == {("sim", "tui"), ("sim", "piepmatz")}  # __version__: the package itself


# A fresh interpreter, so that nothing another test imported counts.
_LOADED = """
import json, pkgutil, importlib, sys
import piepmatz.text
for module in pkgutil.iter_modules(piepmatz.text.__path__, "piepmatz.text."):
    importlib.import_module(module.name)
text = set(sys.modules)
import piepmatz.server.app, piepmatz.server.room, piepmatz.server.routes.pages
piepmatz.server.routes.pages.rules_html("standard")
print(json.dumps({"text": sorted(text), "server": sorted(sys.modules)}))
"""


def _is(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_shared_text_and_the_server_import_neither_textual_nor_the_terminal_game() -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    out = subprocess.run(
        [sys.executable, "-c", _LOADED], env=env, capture_output=True, text=True, check=True
    ).stdout
    loaded = json.loads(out)
    assert {"piepmatz.text.words", "piepmatz.text.preview", "piepmatz.text.rulebook"} <= set(
        loaded["text"]
    )
    for side in ("text", "server"):
        for package in ("textual", "rich", "piepmatz.tui"):
            assert not [m for m in loaded[side] if _is(m, package)], (side, package)


#: A command run with only one extra's packages importable: the others fail as if they were not
#: installed (a finder put first refuses them), as after ``pip install 'piepmatz[EXTRA]'``.
_ONLY = """
import importlib.abc, json, sys
blocked = set(json.loads(sys.argv[1]))

class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NotInstalled())
from piepmatz.cli import main
sys.exit(main(sys.argv[2:]))
"""


def _installed_by(extra: str) -> set[str]:
    """The distributions ``pip install 'piepmatz[extra]'`` installs (as installed here), with
    what they need in turn, their own extras' needs included."""
    import tomllib
    from importlib.metadata import PackageNotFoundError, requires

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    project = tomllib.loads((SRC.parent / "pyproject.toml").read_text(encoding="utf-8"))
    todo = [Requirement(f"piepmatz[{extra}]")]
    extras = project["project"]["optional-dependencies"]
    found: set[tuple[str, frozenset[str]]] = set()
    while todo:
        requirement = todo.pop()
        name, wanted = canonicalize_name(requirement.name), frozenset(requirement.extras)
        if (name, wanted) in found:
            continue
        found.add((name, wanted))
        if name == "piepmatz":  # this checkout's pyproject, not an installed copy's metadata
            todo += [Requirement(text) for e in wanted for text in extras[e]]
            continue
        try:
            needs = requires(name) or []
        except PackageNotFoundError:
            continue
        for text in needs:
            need = Requirement(text)
            if need.marker is None or any(
                need.marker.evaluate({"extra": e}) for e in ("", *wanted)
            ):
                todo.append(need)
    return {name for name, _ in found}


def _only(extra: str, argv: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``piepmatz argv`` with only ``extra``'s packages importable."""
    from importlib.metadata import packages_distributions

    from packaging.utils import canonicalize_name

    allowed = _installed_by(extra)
    blocked = [
        module
        for module, dists in packages_distributions().items()
        if not {canonicalize_name(d) for d in dists} & allowed
    ]
    assert {"textual", "pytest", "hypothesis"} <= set(blocked) or extra == "tui"
    return subprocess.run(
        [sys.executable, "-c", _ONLY, json.dumps(blocked), *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_terminal_extra_alone_runs_the_game_and_names_what_else_is_missing(
    tmp_path: Path,
) -> None:
    """``make play`` installs the ``tui`` extra only: with nothing more, every command's help
    is built, a demo and the game in plain lines run, and the server says which extra it needs."""
    shown = _only("tui", ["--help"])
    assert shown.returncode == 0, shown.stderr
    assert "tournament" in shown.stdout and "serve" in shown.stdout
    record = tmp_path / "game.json"
    demo = _only("tui", ["demo", "--players", "2", "--seed", "3", "--record", str(record)])
    assert demo.returncode == 0, demo.stderr
    assert json.loads(record.read_text())["options"]["seed"] == 3
    game = _only("tui", ["play", "--text", "--seats", "human,random", "--seed", "3"])
    assert game.returncode == 0, game.stderr
    assert "YOUR HAND" in game.stdout and "Traceback" not in game.stderr
    for command in (["serve", "--database-url", "sqlite:///x.db"], ["db", "upgrade"]):
        served = _only("tui", command)
        assert served.returncode == 2, served.stderr
        assert served.stderr.count("\n") == 1, served.stderr
        named = " ".join(c for c in command if not c.startswith(("-", "sqlite")))
        assert served.stderr.startswith(f"piepmatz {named} needs"), served.stderr
        assert "needs the 'server' extra" in served.stderr and "make serve" in served.stderr


def test_each_extra_alone_runs_its_commands(tmp_path: Path) -> None:
    """What each extra is for works with that extra alone: the server migrates a database and
    lists its tables, a tournament and a rules comparison play, the environments' layout shows."""
    database = f"sqlite:///{tmp_path / 'server.db'}"
    tournament = ["tournament", "--players", "2", "--bots", "random", "greedy", "--games", "2"]
    compare = ["compare", "--rules", "standard", "overview", "--games", "2"]
    inline = ["--backend", "inline", "--quiet"]
    runs = [
        ("server", ["db", "upgrade", "--database-url", database], "database"),
        ("server", ["admin", "tables", "--database-url", database], "no tables yet"),
        ("sim", [*tournament, *inline], "Piepmatz tournament"),
        ("sim", [*compare, *inline], "Piepmatz rules compared"),
        ("envs", ["envs", "layout"], "observation"),
    ]
    for extra, argv, says in runs:
        done = _only(extra, argv)
        assert done.returncode == 0, (extra, argv, done.stderr)
        assert says in done.stdout + done.stderr, (extra, argv, done.stdout, done.stderr)
