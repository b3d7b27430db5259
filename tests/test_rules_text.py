"""The rules text ships once, in the package, and is the project's rules spec."""

from __future__ import annotations

import difflib
from importlib import resources
from pathlib import Path

import pytest


def _repository() -> Path:
    """The repository's main checkout (a linked worktree's ``.git`` file points into it)."""
    root = Path(__file__).resolve().parents[1]
    git = root / ".git"
    if git.is_file():  # "gitdir: <main>/.git/worktrees/<name>"
        return Path(git.read_text().partition(":")[2].strip()).parents[2]
    return root


#: The spec lives beside the repository (``shared/spec/``), in every clone and in CI.
SPEC = _repository().parent / "shared" / "spec" / "RULES.md"


def test_the_shipped_rules_text_is_the_spec() -> None:
    if not SPEC.is_file():
        pytest.fail(f"the rules spec is missing: expected {SPEC} (shared/ beside the repository)")
    shipped = resources.files("piepmatz").joinpath("RULES.md").read_text(encoding="utf-8")
    spec = SPEC.read_text(encoding="utf-8")
    if shipped != spec:
        diff = difflib.unified_diff(
            spec.splitlines(), shipped.splitlines(), str(SPEC), "src/piepmatz/RULES.md", lineterm=""
        )
        pytest.fail(
            "src/piepmatz/RULES.md differs from the spec; copy the spec over it:\n"
            + "\n".join(list(diff)[:40])
        )
