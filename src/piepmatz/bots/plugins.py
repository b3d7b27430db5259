"""Your own bots beside the built-in ones: plugin files and modules, and installed packages.

A *plugin* is a Python file or an importable module that registers bots when it is imported::

    # mybots.py
    from piepmatz.bots import register

    class FirstLegal:
        name = "first"

        def choose(self, view, legal, rng):
            return legal[0]

    register("first", lambda arg: FirstLegal())

Then ``piepmatz tournament --plugin mybots.py --bots first heuristic ismcts:1s``. The factory
gets the text after ``name:`` in a spec (``first:fast`` gives ``"fast"``) and returns the bot.
Tournament workers (local processes, Ray) load the same plugins before they build a bot, so a
plugin must be reachable from every worker: a file path on the machine, or a module installed
where the workers run.

An installed package can instead declare its bots as entry points in the group
:data:`ENTRY_POINT_GROUP`; ``make_bot`` finds them by name, in every process, with no flag::

    [project.entry-points."piepmatz.bots"]
    first = "mybots:first_factory"

A factory that cannot build a bot from its bare name (it needs ``name:something``, such as the
path of a trained policy) is marked with :func:`needs_argument`; menus that offer bots by name
leave it out (:func:`piepmatz.bots.builds_from_name`).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from collections.abc import Callable, Iterable
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

#: The entry-point group an installed package declares its bot factories in.
ENTRY_POINT_GROUP = "piepmatz.bots"

#: The attribute :func:`needs_argument` sets on a factory.
_MARK = "needs_argument"

#: Plugins loaded in this process, by canonical reference.
_LOADED: dict[str, ModuleType] = {}


class PluginError(ValueError):
    """A plugin could not be found or failed while loading; the message says which and why."""


Factory = TypeVar("Factory", bound=Callable[[str], Any])


def needs_argument(factory: Factory) -> Factory:
    """Mark a bot factory that builds nothing from its bare name: ``ppo`` needs ``ppo:PATH``.

    The bots package learns it from the factory, so it needs to know no bot by name.
    """
    setattr(factory, _MARK, True)
    return factory


def is_marked(factory: Callable[[str], Any]) -> bool:
    """Whether ``factory`` is marked by :func:`needs_argument`."""
    return getattr(factory, _MARK, False) is True


def canonical(ref: str) -> str:
    """The reference workers load: an absolute path for a file, the module name otherwise."""
    if not isinstance(ref, str) or not ref.strip():
        raise PluginError(f"a plugin is a Python file or a module name, not {ref!r}")
    ref = ref.strip()
    if _is_path(ref):
        return str(Path(ref).expanduser().resolve())
    return ref


def _is_path(ref: str) -> bool:
    return ref.endswith(".py") or "/" in ref or "\\" in ref


def load_plugin(ref: str) -> str:
    """Import the plugin ``ref`` (once per process); returns its canonical reference."""
    key = canonical(ref)
    if key in _LOADED:
        return key
    module = _load_file(ref, Path(key)) if _is_path(key) else _load_module(key)
    _LOADED[key] = module
    return key


def load_plugins(refs: Iterable[str]) -> tuple[str, ...]:
    """Load every plugin of ``refs``; returns their canonical references, in order."""
    return tuple(load_plugin(ref) for ref in refs)


def _load_file(ref: str, path: Path) -> ModuleType:
    if path.is_dir():
        raise PluginError(f"plugin {ref!r}: {path} is a directory; name a .py file in it")
    if not path.is_file():
        raise PluginError(f"plugin {ref!r}: no such file ({path})")
    if path.suffix != ".py":
        raise PluginError(f"plugin {ref!r}: a plugin file is Python source ending in .py")
    # A stable, unique module name per file, so that pickled bots can name their class.
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
    name = f"piepmatz_plugin_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise PluginError(f"plugin {ref!r}: cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit too: a plugin cannot end the program unseen
        del sys.modules[name]
        raise PluginError(f"plugin {ref!r} failed while loading: {exc!r}") from exc
    return module


def _load_module(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and name.startswith(exc.name):
            raise PluginError(
                f"plugin {name!r}: no module named {exc.name!r} (give the path of a .py file, "
                "or install the package that provides it)"
            ) from None
        raise PluginError(f"plugin {name!r} failed while loading: {exc!r}") from exc
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        raise PluginError(f"plugin {name!r} failed while loading: {exc!r}") from exc


def entry_point_names() -> list[str]:
    """Names of the bots that installed packages declare (not loaded)."""
    return sorted({ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})


def entry_point_target(name: str) -> str | None:
    """What an installed package declares for bot ``name`` (any case) as ``module:attr``, not
    loaded, or None."""
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name.lower() == name.lower():
            return f"{ep.module}:{ep.attr}"
    return None


def entry_point_factory(name: str) -> Callable[[str], Any] | None:
    """The factory an installed package declares for bot ``name``, or None."""
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            try:
                factory = ep.load()
            except Exception as exc:
                raise PluginError(
                    f"bot {name!r} of package entry point {ep.value!r} failed to load: {exc!r}"
                ) from exc
            if not callable(factory):
                raise PluginError(
                    f"entry point {ep.value!r} for bot {name!r} is not a factory: "
                    f"{type(factory).__name__}"
                )
            return factory  # type: ignore[no-any-return]
    return None


__all__ = [
    "ENTRY_POINT_GROUP",
    "PluginError",
    "canonical",
    "entry_point_factory",
    "entry_point_names",
    "entry_point_target",
    "is_marked",
    "load_plugin",
    "load_plugins",
    "needs_argument",
]
