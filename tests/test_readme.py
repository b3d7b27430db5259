"""The README's "engine in five lines" runs as a doctest, with the output it shows."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_engine_in_five_lines_runs_as_shown() -> None:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"## The engine in five lines\n\n```pycon\n(.*?)```", text, re.DOTALL)
    assert block, "README.md: no pycon block under '## The engine in five lines'"
    parser = doctest.DocTestParser()
    example = parser.get_doctest(block[1], {}, "README: the engine in five lines", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(example)
    assert runner.tries >= 5
    assert runner.failures == 0, "the README's example fails (its doctest output is above)"
