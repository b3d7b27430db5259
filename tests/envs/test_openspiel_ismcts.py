"""OpenSpiel's ISMCTS as the Piepmatz bot ``openspiel`` (the plugin module
``piepmatz.envs.openspiel_ismcts``): legal moves from a view, in a tournament, clear refusals."""

from __future__ import annotations

import random
from types import ModuleType

import pytest

import piepmatz.bots
from piepmatz.bots import make_bot, plugins, register
from piepmatz.core.rules import Rules
from piepmatz.core.state import State
from piepmatz.core.view import view_of
from piepmatz.sim import MatchConfig, run_games

PLUGIN = "piepmatz.envs.openspiel_ismcts"


@pytest.fixture(autouse=True)
def plugin(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The plugin, registered in a copy of the registry: the other tests (in this process too)
    see the built-in bots alone."""
    monkeypatch.setattr(piepmatz.bots, "_FACTORIES", dict(piepmatz.bots._FACTORIES))
    monkeypatch.setattr(plugins, "_LOADED", dict(plugins._LOADED))
    from piepmatz.envs import openspiel_ismcts

    # Imported once per process: its own registration may have gone into an earlier copy.
    register("openspiel", openspiel_ismcts.build)
    return openspiel_ismcts


@pytest.mark.parametrize("players", [2, 3])
def test_it_plays_legal_moves_from_the_view_alone(players: int) -> None:
    bot = make_bot("openspiel:sims=10")
    state = State.new_game(players=players, seed=players)
    rng = random.Random(0)
    for _ in range(6):
        legal = state.legal_action_ids()
        choice = bot.choose(view_of(state, state.current_player), legal, rng)
        assert type(choice) is int and choice in legal
        state.apply_id(choice)


def test_it_plays_a_tournament_as_a_plugin_and_outplays_random() -> None:
    # Seeded throughout (the deals, the bots' generators, OpenSpiel's from them): the same games
    # every run.
    config = MatchConfig(2, ("openspiel:sims=25", "random"), 2, seed=3, plugins=(PLUGIN,))
    results = run_games(config, backend="inline")
    assert [r.lineup for r in results] == [(0, 1), (1, 0)]
    assert all(r.lineup[r.winners[0]] == 0 for r in results)


def test_custom_rules_reach_the_binding_whole(plugin: ModuleType) -> None:
    rules = Rules.parse("overview:last_hand=true")
    assert rules.name == "custom"
    assert Rules.parse(plugin.preset_of(rules)) == rules
    assert plugin.preset_of(Rules()) == "standard"


@pytest.mark.parametrize(
    "spec", ["openspiel", "openspiel:sims=0", "openspiel:time=x", "openspiel:depth=3"]
)
def test_a_bad_spec_says_what_to_give(spec: str) -> None:
    with pytest.raises(ValueError, match="openspiel:time=SECONDS or openspiel:sims=N"):
        make_bot(spec)
