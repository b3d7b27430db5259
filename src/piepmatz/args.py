"""What the commands share: argument types and the early check of output paths.

Every command (``piepmatz …`` and ``benchmarks/*.py``) reads counts and output files the same
way, so that a bad value gets the same plain message everywhere, before any work starts.
"""

from __future__ import annotations

import argparse
import math
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from piepmatz.core.game import Game


class Parser(argparse.ArgumentParser):
    """Every command's parser: a mistake gets one line saying what was wrong and where the help
    is (not the whole usage block), and a command that needs a subcommand lists them. The
    subcommands' parsers are of this class too (argparse makes them of their parent's)."""

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            # Said by the command they were given to, not the top parser.
            self._chosen(parsed).error("unrecognized arguments: " + " ".join(extras))
        return parsed

    def _chosen(self, parsed: argparse.Namespace) -> argparse.ArgumentParser:
        """The (sub)command's parser ``parsed`` came through, however deep."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                chosen = action.choices.get(getattr(parsed, action.dest, None) or "")
                if isinstance(chosen, Parser):
                    return chosen._chosen(parsed)
        return self

    def error(self, message: str) -> NoReturn:
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction) and action.dest in message:
                self.exit(2, self.subcommands(action))
        # "argument --games: --games must be at least 1": the option is named once.
        message = re.sub(r"^argument (\S+): \1 ", r"\1 ", message)
        self.exit(2, f"{self.prog}: error: {message} ({self.prog} --help says more)\n")

    def subcommands(self, action: argparse._SubParsersAction[argparse.ArgumentParser]) -> str:
        """The subcommands, one a line with what each does."""
        helps = {a.dest: a.help or "" for a in action._choices_actions}
        width = max(len(name) for name in action.choices)
        lines = [f"{self.prog}: say what to do:"]
        lines += [
            f"  {self.prog} {name.ljust(width)}  {helps.get(name, '')}" for name in action.choices
        ]
        return "\n".join(lines) + "\n"


def positive(what: str) -> Callable[[str], int]:
    """An argparse type for a count: a whole number, 1 or more; ``what`` names it in errors."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{what} must be a whole number, not {text!r}"
            ) from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"{what} must be at least 1, not {value}")
        return value

    return parse


def seconds(zero: bool) -> Callable[[str], float]:
    """An argparse type for a duration: finite, and more than 0 (or 0 too, with ``zero``)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
        if not (math.isfinite(value) and (value >= 0 if zero else value > 0)):
            least = "0 or more" if zero else "more than 0"
            raise argparse.ArgumentTypeError(f"must be {least} seconds, not {text}")
        return value

    return parse


def unwritable(path: str) -> str | None:
    """Why a file cannot be written at ``path``, found before the work that fills it; or None."""
    target = Path(path)
    if target.is_dir():
        return f"{path} is a directory, not a file"
    parent = target.resolve().parent
    if not parent.is_dir() or not os.access(parent, os.W_OK):
        return f"cannot write {path}: {parent} is not a writable directory"
    return None


#: The optional dependencies of each extra, by the name they are imported as: a command whose
#: extra is not installed says so in one line instead of ending in a traceback.
EXTRAS: dict[str, tuple[str, ...]] = {
    "tui": ("textual",),
    "sim": ("openskill", "matplotlib", "tqdm"),
    "envs": ("gymnasium", "pettingzoo", "numpy", "pyspiel"),
    "review": ("matplotlib", "tqdm"),
    "server": ("fastapi", "uvicorn", "sqlalchemy", "alembic"),
}
#: The Makefile's target that installs an extra into a clone's .venv, where it is not named
#: after the extra (the terminal game's and the server's are the commands that run them).
MAKE_TARGETS: dict[str, str] = {"tui": "play", "server": "serve"}
#: Modules only some runs need (``--backend ray``): named in the message when they go missing.
OPTIONAL_MODULES: dict[str, str] = {"ray": "ray"}


def extra_of(module: str) -> str | None:
    """The extra that installs ``module`` (a dotted import name), or None."""
    top = module.partition(".")[0]
    found = [extra for extra, modules in EXTRAS.items() if top in modules]
    return found[0] if found else OPTIONAL_MODULES.get(top)


def missing_extra(extra: str) -> str | None:
    """The first module of ``extra`` that cannot be imported, or None when all are there."""
    from importlib.util import find_spec

    for module in EXTRAS[extra]:
        try:
            if find_spec(module) is None:
                return module
        except (ImportError, ValueError):
            return module
    return None


def install_hint(command: str, extra: str, module: str) -> str:
    """One line: which extra ``command`` needs and how to install it."""
    return (
        f"piepmatz {command} needs the '{extra}' extra ({module} is not installed): "
        f"pip install 'piepmatz[{extra}]' (in a clone: make {MAKE_TARGETS.get(extra, extra)})"
    )


def rules_spec(text: str) -> str:
    """An argparse type for ``--rules``: a preset, optionally with flags, checked by the core's
    one reader (:meth:`Rules.parse`) and kept as text."""
    from piepmatz.core.errors import PiepmatzError
    from piepmatz.core.rules import Rules

    try:
        Rules.parse(text)
    except PiepmatzError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def new_game(players: int, rules: str, seed: int | None) -> Game:
    """A new game under a ``--rules`` spec."""
    import dataclasses

    from piepmatz.core.game import Game, GameOptions
    from piepmatz.core.rules import Rules

    options = GameOptions.make(players, seed=seed)
    return Game(dataclasses.replace(options, rules=Rules.parse(rules)))


def add_rules(parser: argparse.ArgumentParser) -> None:
    """``--rules``: a preset, optionally with flags, read by :func:`rules_spec`."""
    parser.add_argument(
        "--rules",
        type=rules_spec,
        default="standard",
        help="preset, optionally with flags: standard (default), overview:last_hand=true",
    )


def add_plugin(parser: argparse.ArgumentParser) -> None:
    """``--plugin``, for a command that builds bots by name: the files or modules to load first
    (:func:`piepmatz.bots.load_plugins`), so that their bots can be named too."""
    parser.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="FILE_OR_MODULE",
        help="load a Python file or module that registers more bots (repeatable)",
    )


def add_language(parser: argparse.ArgumentParser) -> None:
    """``--lang``, for a command that shows a player text (else the environment decides)."""
    from piepmatz.i18n import LANGUAGE_NAMES

    names = ", ".join(f"{code} ({name})" for code, name in LANGUAGE_NAMES.items())
    parser.add_argument(
        "--lang",
        type=language,
        default=None,
        metavar="LANG",
        help=f"the language to show: {names}; default from LANGUAGE/LC_ALL/LANG, else en",
    )


def language(text: str) -> str:
    """An argparse type for ``--lang``: one of the game's languages, else a message naming them."""
    from piepmatz.i18n import UnknownLanguageError, check_language

    try:
        return check_language(text)
    except UnknownLanguageError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
