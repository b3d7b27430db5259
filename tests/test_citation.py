"""The release's metadata agree: the version and licence that pyproject.toml, the package,
CITATION.cff and LICENSE state are one."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import piepmatz

ROOT = Path(__file__).resolve().parents[1]


def test_the_citation_names_this_version_and_licence() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    citation = (ROOT / "CITATION.cff").read_text()
    fields = dict(re.findall(r'^([a-z-]+): "?([^"\n]+)"?$', citation, re.M))
    assert fields["cff-version"] == "1.2.0"
    assert fields["version"] == project["version"] == piepmatz.__version__
    assert fields["license"] == project["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")
