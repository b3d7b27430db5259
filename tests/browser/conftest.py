"""Fixtures of the browser tests: the system's Chromium driven by Playwright, and the server on
uvicorn on a free loopback port with a throwaway SQLite database.

Playwright's own browser download is not used: the tests launch Debian's ``chromium``
(``make test`` installs it when it is missing). Without it they fail, never skip.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from serverplay import running_server

#: The system's Chromium; ``PIEPMATZ_CHROMIUM`` names another.
CHROMIUM = Path(
    os.environ.get("PIEPMATZ_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
)
#: Screenshots for people to look at (git-ignored).
ARTEFACTS = Path(__file__).resolve().parents[2] / "artefacts" / "browser"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module (Playwright's sync API holds an event loop while
    it runs, so it must not outlive the module: other modules use ``asyncio.run``)."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"no Chromium at {CHROMIUM}: the browser tests need Debian's chromium package "
            "(`make test` installs it with apt-get; or set PIEPMATZ_CHROMIUM)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # --no-sandbox: Chromium refuses to start its sandbox as root (CI runs as root).
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The server's address, ``http://127.0.0.1:PORT``."""
    database = tmp_path_factory.mktemp("browser") / "server.db"
    with running_server(f"sqlite+aiosqlite:///{database}") as address:
        yield f"http://{address}"


@pytest.fixture(scope="session")
def artefacts() -> Path:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    return ARTEFACTS
