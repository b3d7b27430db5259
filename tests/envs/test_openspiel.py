"""The OpenSpiel binding ``python_piepmatz``: OpenSpiel's own checks, chance, and no leaks."""

from __future__ import annotations

import gc
import pickle
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
import pytest

import piepmatz.envs.openspiel as binding
import piepmatz.envs.openspiel_observer as observer
from piepmatz.core.actions import Action
from piepmatz.core.cards import BIRD_NAMES, IS_PEST
from piepmatz.core.chance import POOLS, Chance, Pool
from piepmatz.core.errors import IllegalActionError, InvalidActionError
from piepmatz.core.rules import Rules
from piepmatz.core.serial import state_to_json
from piepmatz.core.state import State
from piepmatz.envs.encoding import OBSERVATION_SIZE

HERE = Path(__file__).parent
CHECKS = HERE / "openspiel_checks.py"
PLAYTHROUGH = HERE / "playthroughs" / "python_piepmatz.txt"
#: Events that reveal a card drawn blind from a deck.
BLIND_DRAWS = (
    "draw_deck",
    "refill_display",
    "take_blind",
    "refill_column",
    "pest_beside",
    "pest_out",
)
CONFIGS = [(n, preset) for n in (2, 3, 4) for preset in ("standard", "overview")]


def _load(players: int = 2, preset: str = "standard") -> Any:
    return pyspiel.load_game("python_piepmatz", {"players": players, "preset": preset})


def _paused(state: Any) -> bool:
    """A chance node in play (not in the deal): the engine waits for a card or a pick."""
    return bool(state.is_chance_node() and not state.position.dealing)


def _drawing(state: Any) -> Pool:
    """What the paused engine of ``state`` draws from."""
    return POOLS[state.position.engine.asked.draw]


def _deal_length(history: list[Any]) -> int:
    """The chance nodes of the deal: those before the first player's decision."""
    return next(i for i, item in enumerate(history) if item.player >= 0)


def _run_checks(*args: str) -> None:
    result = subprocess.run(
        [sys.executable, str(CHECKS), *args],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=HERE.parent.parent,
    )
    tail = (result.stdout[-4000:] + "\n" + result.stderr[-4000:]).strip()
    assert result.returncode == 0, tail
    assert result.stdout.strip().splitlines()[-1].startswith("passed"), tail


def _step(state: Any, rng: random.Random) -> None:
    """One uniformly random action or chance outcome (the outcomes are equally likely)."""
    if state.is_chance_node():
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    else:
        state.apply_action(rng.choice(state.legal_actions()))


def _replayed(game: Any, history: list[int]) -> Any:
    """A new state of ``game`` after the actions and outcomes of ``history``."""
    state = game.new_initial_state()
    for action in history:
        state.apply_action(action)
    return state


def _random_game(game: Any, rng: random.Random) -> list[Any]:
    """Every state along one random game, the terminal one included."""
    state = game.new_initial_state()
    states = []
    while not state.is_terminal():
        states.append(state.clone())
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probabilities)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    states.append(state)
    return states


# ---------------------------------------------------------------------------- OpenSpiel's checks


@pytest.mark.slow
@pytest.mark.parametrize(("players", "preset"), CONFIGS)
def test_random_sim_test(players: int, preset: str) -> None:
    _run_checks("random-sim", str(players), preset, "30")


@pytest.mark.slow
def test_openspiel_api_test() -> None:
    _run_checks("api")


def test_playthrough_replays_identically() -> None:
    from absl import flags
    from open_spiel.python.algorithms import generate_playthrough

    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()
    original, replayed = generate_playthrough.replay(str(PLAYTHROUGH))
    assert original.count("# State") > 100  # a whole game, not just the deal
    assert "IsTerminal() = True" in original
    assert replayed == original


# ---------------------------------------------------------------------------- the game


@pytest.mark.parametrize(("players", "preset"), CONFIGS)
def test_game_info_follows_the_parameters(players: int, preset: str) -> None:
    game = _load(players, preset)
    assert game.num_players() == players
    assert game.num_distinct_actions() == 2921
    assert game.max_chance_outcomes() == 118
    assert game.max_utility() == 1.0
    assert game.min_utility() == pytest.approx(-1 / (players - 1))
    assert game.max_game_length() == binding.max_game_length(players)
    assert game.get_parameters() == {"players": players, "preset": preset, "reward": "win"}
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.information_state_tensor_size() == observer.INFO_STATE_SIZE
    assert game.observation_tensor_size() == OBSERVATION_SIZE


@pytest.mark.parametrize(
    "params",
    [{"players": 5}, {"players": 1}, {"preset": "nonsense"}, {"speed": 3}, {"reward": "eggs"}],
)
def test_bad_parameters_are_refused(params: dict[str, Any]) -> None:
    with pytest.raises((ValueError, RuntimeError)):
        pyspiel.load_game("python_piepmatz", params)


@pytest.mark.parametrize(
    ("preset", "written"),
    [
        ("standard:last_hand=false,draw=one", "standard+draw:one+last_hand:false"),
        ("overview+last_hand:true", "overview+last_hand:true"),
    ],
)
def test_flagged_rules_survive_the_game_string_and_pickles(preset: str, written: str) -> None:
    """OpenSpiel splits a game string at ``=`` and ``,``: flags are written without them, so
    ``load_game(str(game))``, pickles and serialize_game_and_state keep the rules."""
    game = _load(2, preset)
    assert game.get_parameters()["preset"] == written
    rules = game.rules
    assert rules != Rules.parse(preset.partition(":")[0].partition("+")[0])
    assert pyspiel.load_game(str(game)).rules == rules
    state = game.new_initial_state()
    rng = random.Random(5)
    for _ in range(40):
        _step(state, rng)
    restored = pickle.loads(pickle.dumps(state))
    assert restored.get_game().rules == rules
    assert str(restored) == str(state)
    _, deserialized = pyspiel.deserialize_game_and_state(
        pyspiel.serialize_game_and_state(game, state)
    )
    assert str(deserialized) == str(state)


def test_a_flag_without_a_value_is_refused() -> None:
    with pytest.raises(ValueError, match="rule flag 'last_hand' needs a value"):
        _load(2, "standard+last_hand")


@pytest.mark.parametrize(("players", "preset"), CONFIGS)
def test_lengths_stay_within_the_announced_bounds(players: int, preset: str) -> None:
    game = _load(players, preset)
    for seed in range(3):
        states = _random_game(game, random.Random(seed))
        history = states[-1].full_history()
        decisions = sum(1 for item in history if item.player >= 0)
        chances = len(history) - decisions
        assert decisions <= game.max_game_length()
        assert chances <= game.max_chance_nodes_in_history()


def test_the_deal_is_one_chance_node_per_card() -> None:
    game = _load(3)
    state = game.new_initial_state()
    # First player, four seeds, two perch birds, four cards for each of three hands, display.
    expected = 1 + 4 + 2 + 12 + 3
    for _ in range(expected):
        assert state.is_chance_node()
        outcomes = state.chance_outcomes()
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        state.apply_action(outcomes[0][0])
    assert not state.is_chance_node()
    engine = state.position.engine
    assert [len(h) for h in engine.hands] == [4, 4, 4]
    assert len(engine.bird_deck) == 72 - 2 - 12 - 3
    assert len(engine.feeder_deck) == 36 - 4
    assert all(b >= 0 for b in engine.display)
    engine.card_places()  # every card in exactly one place


def test_two_players_set_a_species_aside_by_chance() -> None:
    state = _load(2).new_initial_state()
    outcomes = [o for o, _ in state.chance_outcomes()]
    assert outcomes == [binding.SPECIES_OUTCOME + s for s in range(6)]
    state.apply_action(binding.SPECIES_OUTCOME + 3)  # GR
    assert state.action_to_string(-1, binding.FIRST_OUTCOME + 1) == "first seat 1"
    state.apply_action(binding.FIRST_OUTCOME + 1)
    column = [o - binding.FEEDER_OUTCOME for o, _ in state.chance_outcomes()]
    assert len(column) == 36 - 5  # pests too (S3), without the five 3+ cards (S2, C4)
    birds_left = [o for o, _ in _advance_to_birds(state)]
    assert not any(36 <= b < 48 for b in birds_left)  # no greenfinch in play


def _advance_to_birds(state: Any) -> list[tuple[int, float]]:
    while state.chance_outcomes()[0][0] >= binding.FEEDER_OUTCOME:
        state.apply_action(state.chance_outcomes()[0][0])
    outcomes: list[tuple[int, float]] = state.chance_outcomes()
    return outcomes


@pytest.mark.parametrize(("players", "preset"), CONFIGS)
def test_every_blind_card_and_squirrel_pick_is_a_chance_node(players: int, preset: str) -> None:
    game = _load(players, preset)
    for seed in range(4):
        final = _random_game(game, random.Random(100 + seed))[-1]
        position = final.position
        deal = _deal_length(final.full_history())
        chance_in_play = sum(1 for item in final.full_history()[deal:] if item.player < 0)
        revealed = 0
        for event in position.engine.events:
            kind = event.kind
            # A pest drawn from the deck.
            blind_pest = event.kind == "take_pest" and event.position == 0
            if kind in BLIND_DRAWS or blind_pest:
                revealed += 1
            elif event.kind == "squirrel":
                revealed += len(event.seeds)
        assert chance_in_play == revealed
        # Every outcome chance gave went to the engine; none waits for it.
        assert position.engine.asked is None


class _Noting(Chance):
    """The engine's seeded chance, each outcome noted with what it was drawn from."""

    __slots__ = ("outcomes",)

    def __init__(self) -> None:
        self.outcomes: list[tuple[Pool, int]] = []

    def species(self, state: State) -> int:
        self.outcomes.append((Pool.SPECIES, super().species(state)))
        return self.outcomes[-1][1]

    def first_player(self, state: State) -> int:
        self.outcomes.append((Pool.SEATS, super().first_player(state)))
        return self.outcomes[-1][1]

    def bird(self, state: State) -> int:
        self.outcomes.append((Pool.BIRD_DECK, super().bird(state)))
        return self.outcomes[-1][1]

    def feeder(self, state: State) -> int:
        self.outcomes.append((Pool.FEEDER_DECK, super().feeder(state)))
        return self.outcomes[-1][1]


class _Scripted(Chance):
    """Chance that gives the outcomes it holds, in order (a deck's card taken out of it)."""

    __slots__ = ("outcomes",)

    def __init__(self, outcomes: list[int]) -> None:
        self.outcomes = iter(outcomes)

    def species(self, state: State) -> int:
        return next(self.outcomes)

    def first_player(self, state: State) -> int:
        return next(self.outcomes)

    def shuffle(self, state: State, deck: list[int]) -> None:
        pass  # the script says which card comes

    def bird(self, state: State) -> int:
        bird = next(self.outcomes)
        state.bird_deck.remove(bird)
        return bird

    def feeder(self, state: State) -> int:
        card = next(self.outcomes)
        state.feeder_deck.remove(card)
        return card

    def squirrel(self, state: State, player: int, pile: list[int]) -> int:
        return next(self.outcomes)


def _with_chance(chance: Chance) -> type[State]:
    return type("Chanced", (State,), {"__slots__": (), "chance": chance})


def _comparable(state: State) -> dict[str, Any]:
    doc = state_to_json(state)
    doc.pop("rng")  # the seeded chance's generator, unused by the binding
    # The binding keeps unseen cards unordered: compare the decks as sets.
    doc["bird_deck"] = sorted(doc["bird_deck"])
    doc["feeder_deck"] = sorted(doc["feeder_deck"])
    return doc


@pytest.mark.parametrize(("players", "preset"), CONFIGS)
def test_the_binding_deals_as_the_engine(players: int, preset: str) -> None:
    """S2–S5 are the engine's alone: for many seeds, the binding given the outcomes the
    engine's seeded deal drew (each a chance node of the binding, equally likely among those
    still possible) reaches the engine's state, field by field; unseen cards in no order."""
    game = _load(players, preset)
    pests = 0
    for seed in range(60):
        noting = _Noting()
        dealt = _with_chance(noting).new_game(players, preset, seed)
        state = game.new_initial_state()
        for pool, outcome in noting.outcomes:
            assert state.position.dealing
            action = binding.POOL_OUTCOMES[pool] + outcome
            chances = state.chance_outcomes()
            assert (action, 1.0 / len(chances)) in chances
            state.apply_action(action)
        assert not state.is_chance_node()
        assert _comparable(state.position.engine) == _comparable(dealt)
        pests += any(pool == Pool.FEEDER_DECK and IS_PEST[o] for pool, o in noting.outcomes)
    assert pests > 10  # deals where S3 turned up a pest and shuffled it back


@pytest.mark.parametrize(("players", "preset"), CONFIGS)
def test_the_binding_plays_by_the_engines_rules(players: int, preset: str) -> None:
    """Replay binding games in the engine (checked path) whose chance gives the outcomes the
    binding's chance nodes had, deal and squirrel picks included: both reach the same state."""
    game = _load(players, preset)
    decisions = 0
    for seed in range(6):
        states = _random_game(game, random.Random(seed))
        history = states[-1].full_history()
        outcomes = [
            item.action - binding.POOL_OUTCOMES[_drawing(states[k])]
            for k, item in enumerate(history)
            if item.player < 0
        ]
        replay = _with_chance(_Scripted(outcomes)).new_game(players, preset)
        for item in history:
            if item.player >= 0:
                replay.apply(Action.from_id(item.action), player=item.player)
                decisions += 1
        assert _comparable(states[-1].position.engine) == _comparable(replay)
    assert decisions >= 300


# ---------------------------------------------------------------------------- information


@pytest.mark.parametrize(("players", "preset"), CONFIGS)
def test_resampling_leaks_nothing(players: int, preset: str) -> None:
    """Port of OpenSpiel's C++ ResampleInfostateTest: along random games, resampling for any
    player keeps that player's information state (string and tensor) and the player to move."""
    game = _load(players, preset)
    rng = random.Random(players * 10 + len(preset))
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    state = game.new_initial_state()
    checked = 0
    changed_hidden = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probabilities)[0])
            continue
        for p in range(players):
            other = state.resample_from_infostate(p, sampler)
            assert other.information_state_string(p) == state.information_state_string(p)
            assert other.information_state_tensor(p) == state.information_state_tensor(p)
            assert other.current_player() == state.current_player()
            assert other.legal_actions() == (
                state.legal_actions() if state.current_player() == p else other.legal_actions()
            )
            mine, theirs = state.position.engine, other.position.engine
            q = (p + 1) % players
            changed_hidden += mine.hands[q] != theirs.hands[q]
            checked += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 40
    assert changed_hidden > checked // 2  # the hidden cards really were dealt anew


def test_resampling_refuses_chance_nodes_and_unknown_players() -> None:
    state = _load(2).new_initial_state()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    with pytest.raises((ValueError, RuntimeError)):
        state.resample_from_infostate(0, sampler)
    states = _random_game(_load(2), random.Random(3))
    decision = next(s for s in states if not s.is_chance_node())
    with pytest.raises((ValueError, RuntimeError)):
        decision.resample_from_infostate(2, sampler)


def test_information_states_differ_exactly_where_the_player_can_tell() -> None:
    game = _load(2)
    state = _random_game(game, random.Random(8))[40]
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    p = state.current_player()
    world = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    other = 1 - p
    # The other player sees the sampled hand as their own: their information differs.
    assert world.information_state_string(other) != state.information_state_string(other)
    # Perfect recall: the log the player saw so far is part of every later information state.
    before = state.information_state_string(p)
    log = before.split("\n", 1)[1].rsplit("\nPiepmatz, ", 1)[0]
    state.apply_action(state.legal_actions()[0])
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert log in state.information_state_string(p)


def test_observations_hold_the_view_and_nothing_else() -> None:
    from piepmatz.core.view import view_of
    from piepmatz.envs.encoding import encode

    states = _random_game(_load(3), random.Random(4))
    for state in states[30::15]:
        if state.is_chance_node():
            continue
        engine = state.position.engine
        for p in range(3):
            expected = encode(view_of(engine, p)).astype(np.float32)
            assert np.array_equal(np.array(state.observation_tensor(p)), expected)
            tensor = np.array(state.information_state_tensor(p))
            assert np.array_equal(tensor[:OBSERVATION_SIZE], expected)
            hand = " ".join(BIRD_NAMES[b] for b in engine.hands[p]) or "-"
            assert f"hand {hand} |" in state.observation_string(p)
            for q in range(3):
                if q != p and engine.hands[q]:
                    other = " ".join(BIRD_NAMES[b] for b in engine.hands[q])
                    assert other not in state.observation_string(p)


def test_public_and_private_observers() -> None:
    from open_spiel.python.observation import make_observation

    state = _random_game(_load(2), random.Random(6))[60]
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    engine = state.position.engine
    public = make_observation(
        _load(2),
        pyspiel.IIGObservationType(
            public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE
        ),
    )
    private = make_observation(
        _load(2),
        pyspiel.IIGObservationType(
            public_info=False,
            perfect_recall=False,
            private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER,
        ),
    )
    hand = " ".join(BIRD_NAMES[b] for b in engine.hands[0])
    assert hand not in public.string_from(state, 0)
    assert public.string_from(state, 0) == public.string_from(state, 1)
    assert private.string_from(state, 0).startswith(f"hand {hand};")
    private.set_from(state, 0)
    assert sorted(np.flatnonzero(private.dict["hand"])) == engine.hands[0]


# ---------------------------------------------------------------------------- algorithms


def test_openspiel_ismcts_plays_a_whole_game() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = _load(2)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    bot = ismcts.ISMCTSBot(
        game, evaluator, uct_c=2.0, max_simulations=3, random_state=np.random.RandomState(2)
    )
    rng = np.random.RandomState(3)
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        elif state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            moves += 1
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert moves > 10
    assert sum(state.returns()) == pytest.approx(0.0)
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])


def test_a_copy_paused_at_a_chance_node_goes_on_like_the_original() -> None:
    """The engine pauses in the middle of an action at a chance node; a copy made there is a
    copy of the paused engine and, given the same outcomes, ends where the original does."""
    state = _load(3).new_initial_state()
    rng = random.Random(4)
    copies = []
    while not state.is_terminal():
        if _paused(state):
            copies.append((state.clone(), len(state.history())))
        _step(state, rng)
    assert len(copies) > 20
    history = state.history()
    for copy, at in copies[::5]:
        assert copy.is_chance_node() and not copy.is_terminal()
        for action in history[at:]:
            copy.apply_action(action)
        assert str(copy) == str(state)
        assert copy.returns() == state.returns()


# ---------------------------------------------------------------------------- answered in Python


@pytest.mark.parametrize("players", [2, 3, 4])
def test_python_answers_agree_with_pyspiels_own(players: int) -> None:
    """is_chance_node, legal_actions and chance_outcomes are answered without crossing into
    C++: at every node of random games they give what pyspiel's own would, and the chance
    outcomes are the fresh uniform pairs over the outcomes still possible."""
    game = _load(players)
    nodes = 0
    for seed in range(3):
        for state in _random_game(game, random.Random(200 + seed)):
            nodes += 1
            assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
            assert state.legal_actions() == pyspiel.State.legal_actions(state)
            for player in range(players):
                expected = pyspiel.State.legal_actions(state, player)
                assert state.legal_actions(player) == expected
            if state.is_chance_node():
                ids = state.position.chance_ids()
                assert ids == sorted(set(ids))
                assert state.chance_outcomes() == [(o, 1.0 / len(ids)) for o in ids]
                assert state.legal_actions() == ids
    assert nodes > 300


def test_texts_follow_every_move_of_one_state() -> None:
    """The texts a position keeps (OpenSpiel asks for them several times a move) are dropped
    whenever it changes: at every node of a game played on one state object, after decisions
    and chance alike, they equal those of the same history applied to a new state."""
    game = _load(3)
    rng = random.Random(21)
    state = game.new_initial_state()
    nodes = 0
    while not state.is_terminal():
        nodes += 1
        texts = [str(state)] + [state.observation_string(p) for p in range(3)]
        if nodes % 7 == 0:
            fresh = _replayed(game, state.history())
            assert texts == [str(fresh)] + [fresh.observation_string(p) for p in range(3)]
        _step(state, rng)
    assert nodes > 150


def test_the_new_games_copied_for_each_game_stay_new() -> None:
    """Every game starts from a new engine paused at the deal's first chance node, shared until
    the game's first move copies it: playing games changes nothing in the new engines."""
    for players in (2, 3, 4):
        game = _load(players)
        for seed in range(3):
            _random_game(game, random.Random(300 + seed))
    assert binding._NEW_GAMES
    for (players, rules), engine in binding._NEW_GAMES.items():
        fresh = binding._ChanceState.new_game(players, rules)
        assert [getattr(engine, f) for f in State.__slots__] == [
            getattr(fresh, f) for f in State.__slots__
        ]


def test_an_outcome_chance_cannot_give_is_refused() -> None:
    """A card already dealt or drawn is no outcome: applying it fails instead of taking another
    card out of the deck in its place."""
    game = _load(3)
    state = game.new_initial_state()
    while not state.position.engine.rows:
        state.apply_action(state.chance_outcomes()[-1][0])
    dealt = state.position.engine.rows[0][0]  # a perch bird; the hands are dealt next
    with pytest.raises((ValueError, RuntimeError)):
        state.clone().apply_action(dealt)
    while state.position.dealing:
        state.apply_action(state.chance_outcomes()[-1][0])
    rng = random.Random(3)
    while not (_paused(state) and _drawing(state) == Pool.BIRD_DECK):
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    deck = state.position.engine.bird_deck[:]
    with pytest.raises((ValueError, RuntimeError)):
        state.clone().apply_action(dealt)
    assert state.position.engine.bird_deck == deck


def test_an_illegal_action_is_refused_naming_the_rule_and_changes_nothing() -> None:
    """OpenSpiel trusts its caller; a wrong id still gets the engine's sentence, not a failure
    from inside it, and the position stays as it was (a clone of it, too)."""
    state = _load(3).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    hand = state.position.engine.hands[state.current_player()]
    absent = next(b for b in range(len(BIRD_NAMES)) if b not in hand and not IS_PEST[b])
    before = (str(state), state.legal_actions(), state.history())
    wrong = Action.parse(f"play {BIRD_NAMES[absent]} 1").id
    with pytest.raises(IllegalActionError, match=r"is not in player 0's hand \(T1.1\)"):
        state.apply_action(wrong)
    with pytest.raises(InvalidActionError, match="999999 is not an action id"):
        state.apply_action(999999)
    assert (str(state), state.legal_actions(), state.history()) == before
    state.apply_action(before[1][0])  # and the game goes on
    assert len(state.history()) == len(before[2]) + 1


def test_a_finished_game_is_freed_without_the_garbage_collector() -> None:
    """No reference cycle holds a game: dropped, it is freed at once (a cycle would leave
    every game to the collector, which then dominates the binding's time)."""
    game = _load(3)
    _random_game(game, random.Random(9))  # the first game builds the caches
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        states = _random_game(game, random.Random(10))
        assert states[-1].is_terminal()
        del states
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()


def test_a_copy_paused_at_a_chance_node_is_independent_of_the_original() -> None:
    """Copy and original paused at the same chance node go their own ways: another outcome
    applied to the copy changes nothing in the original, and the copy is the position its
    own history reaches."""
    game = _load(3)
    state = game.new_initial_state()
    rng = random.Random(8)
    paused = 0
    while not state.is_terminal():
        if _paused(state) and len(state.chance_outcomes()) > 1:
            paused += 1
            before = str(state)
            copy = state.clone()
            first, last = state.chance_outcomes()[0][0], state.chance_outcomes()[-1][0]
            copy.apply_action(last)
            assert str(state) == before
            state.apply_action(first)
            assert str(copy) != str(state)
            fresh = _replayed(game, copy.history())
            assert str(fresh) == str(copy)
        else:
            _step(state, rng)
    assert paused > 40


def test_serialized_positions_go_on_like_the_original() -> None:
    """serialize and deserialize_state (a pickle of the position) at decisions, at chance nodes
    mid-action and in the deal: each restored state ends where the original does."""
    game = _load(3)
    state = game.new_initial_state()
    rng = random.Random(11)
    restored = []
    while not state.is_terminal():
        if len(state.history()) % 7 == 0:
            restored.append((game.deserialize_state(state.serialize()), len(state.history())))
        _step(state, rng)
    assert any(_paused(s) for s, _ in restored)
    history = state.history()
    for copy, at in restored[::3]:
        for action in history[at:]:
            copy.apply_action(action)
        assert str(copy) == str(state)
        assert copy.returns() == state.returns()


def test_dropped_copies_paused_at_chance_nodes_are_freed() -> None:
    """A copy of a state paused at a chance node holds no reference cycle: dropped, it is freed
    at once, without the garbage collector."""
    state = _load(3).new_initial_state()
    rng = random.Random(12)
    while not _paused(state):
        _step(state, rng)
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(200):
            copy = state.clone()
            copy.apply_action(copy.chance_outcomes()[0][0])
            del copy
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
    state.apply_action(state.chance_outcomes()[0][0])  # the original goes on
    assert not state.is_terminal()
