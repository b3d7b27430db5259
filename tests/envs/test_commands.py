"""``piepmatz envs``: the conformance checks and the layout, through the real CLI."""

from __future__ import annotations

import pytest

from piepmatz.cli import main
from piepmatz.envs.encoding import describe_fields
from piepmatz.envs.openspiel_observer import describe_history


def test_envs_layout_lists_every_field(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["envs", "layout"]) == 0
    out = capsys.readouterr().out
    observation, history = out.split("\n\n")
    lines = observation.splitlines()
    assert "1461 entries" in lines[0]
    # A row's meaning goes on in its own column (lines starting blank), within 80 columns.
    assert max(map(len, out.splitlines())) <= 80
    names = [line.split()[0] for line in lines[2:] if not line.startswith(" ")]
    assert names == [field[0] for field in describe_fields()]
    meaning = lines[1].index("meaning")
    assert all(line[:meaning].isspace() for line in lines[2:] if line.startswith(" "))
    # Then the information-state tensor's history, field by field, at the observer's offsets.
    rows = [line.split()[:2] for line in history.splitlines()[3:] if not line.startswith(" ")]
    assert rows == [[name, str(offset)] for name, offset, _, _ in describe_history()]


def test_envs_check_runs_the_three_frameworks_checks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["envs", "check", "--players", "2", "--sims", "1"]) == 0
    out = capsys.readouterr().out
    for name in (
        "PettingZoo api_test + seed_test",
        "Gymnasium check_env",
        "OpenSpiel random_sim_test",
    ):
        assert f"ok   {name}, 2 players, standard" in out
    # One line a check, nothing of the frameworks' own chatter between them.
    assert len(out.splitlines()) == 3, out


def test_envs_check_reports_a_failure(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import piepmatz.envs.commands as commands

    def broken(players: int, preset: str, sims: int) -> None:
        raise RuntimeError("random_sim_test aborted")

    monkeypatch.setattr(commands, "_openspiel", broken)
    assert main(["envs", "check", "--players", "2", "--sims", "1"]) == 1
    assert "FAIL OpenSpiel random_sim_test, 2 players, standard: random_sim_test aborted" in (
        capsys.readouterr().out
    )


@pytest.mark.parametrize("sims", ["0", "-3", "few"])
def test_envs_check_needs_at_least_one_simulated_game(
    sims: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["envs", "check", "--sims", sims])
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert "error: --sims must be" in captured.err and captured.out == ""
