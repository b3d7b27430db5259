"""What the packages that two interfaces share may import: the terminal game's words, previews
and rules text serve the game server too, so they stay free of Textual and of the terminal game."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import piepmatz

SRC = Path(piepmatz.__file__).parent.parent

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
    assert {"piepmatz.text.words", "piepmatz.text.preview", "piepmatz.text.rules"} <= set(
        loaded["text"]
    )
    for side in ("text", "server"):
        for package in ("textual", "rich", "piepmatz.tui"):
            assert not [m for m in loaded[side] if _is(m, package)], (side, package)
