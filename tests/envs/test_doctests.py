"""The examples in the docstrings of ``piepmatz.envs`` hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "piepmatz.envs.encoding",
    "piepmatz.envs.text",
    "piepmatz.envs.pettingzoo",
    "piepmatz.envs.piepmatz_v0",
    "piepmatz.envs.gymnasium",
    "piepmatz.envs.openspiel",
    "piepmatz.envs.openspiel_bot",
    "piepmatz.envs.rewards",
    "piepmatz.envs.opponents",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted >= 1
    assert result.failed == 0
