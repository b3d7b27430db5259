"""A plugin file for tests: one bot that always takes the first (or last) legal action."""

from __future__ import annotations

from pathlib import Path


def plugin_file(path: Path, name: str, pick: int = 0) -> Path:
    """Write a plugin registering bot ``name`` that plays ``legal[pick]``; returns ``path``."""
    path.write_text(
        "from piepmatz.bots import register\n\n\n"
        "class Bot:\n"
        f"    name = {name!r}\n\n"
        "    def choose(self, view, legal, rng):\n"
        f"        return legal[{pick}]\n\n\n"
        f"register({name!r}, lambda arg: Bot())\n"
    )
    return path
