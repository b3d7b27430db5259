"""Every Python example in docs/research.md runs, and the documented layout is the code's."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

import piepmatz.bots
from piepmatz.envs.encoding import describe_fields

DOC = Path(__file__).resolve().parents[2] / "docs" / "research.md"
TEXT = DOC.read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", TEXT, flags=re.DOTALL)


def test_the_page_has_the_examples_the_issue_asks_for() -> None:
    joined = "\n".join(BLOCKS)
    assert len(BLOCKS) >= 6
    assert "piepmatz_v0.env(" in joined  # a random agent in PettingZoo
    assert "ISMCTSBot" in joined  # an OpenSpiel algorithm on the game
    assert 'gymnasium.make("Piepmatz-v0"' in joined  # a Gymnasium loop against bots
    assert 'register("blind"' in joined  # your own bot in a tournament


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_example_runs(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Examples may register bots: each runs with the built-in bots only, and leaves them so.
    monkeypatch.setattr(piepmatz.bots, "_FACTORIES", dict(piepmatz.bots._FACTORIES))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(BLOCKS[index], f"{DOC.name} example {index + 1}", "exec"), {})
    assert out.getvalue().strip()  # every example shows something


def test_the_field_table_matches_the_encoding() -> None:
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \| (\d+) \| (\d+) \| (.*) \|$", TEXT, re.MULTILINE)
    documented = [(name, int(o), int(n), int(top), text) for name, o, n, top, text in rows]
    assert documented == describe_fields()


def test_the_size_table_gives_the_encoders_sizes() -> None:
    import pyspiel

    from piepmatz.core.actions import NUM_ACTIONS
    from piepmatz.envs.encoding import OBSERVATION_SIZE
    from piepmatz.envs.openspiel_observer import INFO_STATE_SIZE, PRIVATE_SIZE

    game = pyspiel.load_game("python_piepmatz", {"players": 3})
    actual = {
        "`observation`": OBSERVATION_SIZE,
        "`action_mask`": NUM_ACTIONS,
        "`observation_tensor`": game.observation_tensor_size(),
        "`information_state_tensor`": game.information_state_tensor_size(),
        "the private observation's tensor": PRIVATE_SIZE,
    }
    assert game.information_state_tensor_size() == INFO_STATE_SIZE
    assert game.num_distinct_actions() == NUM_ACTIONS
    rows = dict(re.findall(r"^\| ([^|]+?) \| (\d+) \|$", TEXT, re.MULTILINE))
    assert {name: int(n) for name, n in rows.items()} == actual
