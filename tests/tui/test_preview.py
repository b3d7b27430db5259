"""Previews tell what a choice would do, agree with what then happens, and leak nothing."""

from __future__ import annotations

import random
import re

from piepmatz.core import Action, PlayerView, State, view_of
from piepmatz.core.cards import FEEDER_EGGS
from piepmatz.text.preview import preview
from scenarios import scenario


def positions(games: int = 12) -> list[State]:
    """States along random games (every decision kind turns up)."""
    out = []
    for seed in range(games):
        state = State.new_game(players=2 + seed % 3, seed=seed)
        rng = random.Random(seed)
        while not state.is_over():
            out.append(state.copy())
            legal = state.legal_action_ids()
            state.apply_id(legal[rng.randrange(len(legal))])
    return out


def choices(phase: str, games: int) -> list[tuple[PlayerView, int]]:
    """Each legal action of each ``phase`` decision along random games, with its view."""
    out = []
    for state in positions(games):
        if state.phase_name == phase:
            view = view_of(state, state.current_player)
            out += [(view, action_id) for action_id in state.legal_action_ids()]
    return out


def test_previews_do_not_depend_on_the_hidden_cards() -> None:
    # Two different samplings of the hidden cards must give the very same words: the preview
    # describes public facts only.
    checked = 0
    for state in positions()[::3]:
        view = view_of(state, state.current_player)
        for action_id in state.legal_action_ids():
            assert preview(view, action_id, seed=1) == preview(view, action_id, seed=2)
            checked += 1
    assert checked > 500


def test_play_previews_agree_with_the_real_chase() -> None:
    chases = quiet = 0
    for state in positions():
        if state.phase_name != "play":
            continue
        view = view_of(state, state.current_player)
        for action_id in state.legal_action_ids():
            real = state.copy()
            start = len(real.events or [])
            real.apply_id(action_id)
            # The preview tells the whole chase, past the player's own choice of a crow victim.
            while real.phase_name == "crow" and real.current_player == view.player:
                real.apply_id(real.legal_action_ids()[0])
            new = (real.events or [])[start:]
            headline = preview(view, action_id).headline
            steps = [e for e in new if e.kind == "chase"]
            if not steps:
                assert "no chase" in headline
                quiet += 1
                continue
            chases += 1
            first = next(
                e for e in new if e.kind in ("take_seed", "take_blind", "take_pest", "feeder_empty")
            )
            if first.kind == "take_seed":
                eggs = FEEDER_EGGS[first.seed]
                said = f"takes a {eggs}-egg seed"
                assert said in headline
            elif first.kind == "feeder_empty":
                assert "no seed" in headline
            else:
                assert "blind draw from the deck" in headline
            if len(steps) > 1:
                assert f"then {len(steps) - 1} more" in headline
            perch = Action.from_id(action_id).index
            assert headline.startswith("ground ") and "> perch" in headline
            assert steps[0].perch == perch
    assert chases > 50 and quiet > 50


def test_deck_draw_preview_names_no_card() -> None:
    seen = 0
    for state in positions(6):
        if state.phase_name != "draw" or 292 not in state.legal_action_ids():
            continue
        view = view_of(state, state.current_player)
        p = preview(view, 292)
        assert p.headline.startswith("a hidden card")
        assert not re.search(r"[A-Z]{2}\d[mf]", " ".join(p.steps))
        seen += 1
    assert seen > 10


def test_previews_tell_the_score_change_of_collect_crow_and_keep() -> None:
    from piepmatz.core import score_view

    pairs = crows = unknown = kept = theirs = 0
    for state in positions(20):
        if state.phase_name not in ("collect", "crow", "last hand"):
            continue
        me = state.current_player
        view = view_of(state, me)
        for action_id in state.legal_action_ids():
            shown = preview(view, action_id)
            if shown.score is None:  # the chase went on into cards the player cannot know
                unknown += 1
                continue
            action = Action.from_id(action_id)
            before = score_view(view).players[me].total
            if action.kind == "keep":
                # The kept pair counts in the collection; the others' hands are theirs (E3).
                collections = list(view.collections)
                collections[me] = (*view.collections[me], *action.cards)
                sheet = score_view(view, collections)
                after = sheet.players[me].total
                kept += after != before
            else:
                real = state.copy()
                real.apply_id(action_id)
                while real.phase_name == "crow" and real.current_player == me:
                    real.apply_id(real.legal_action_ids()[0])  # as the preview picks
                sheet = score_view(view_of(real, me))
                after = sheet.players[me].total
            # These choices hide nothing: the preview's change is the real one.
            assert shown.score == (before, after)
            # Then each other player's change, when this one changes it (a majority).
            own, *others = shown.headline.split(" · score ", 1)[1].split(" · ")
            assert own == f"{after - before:+d}"
            was = score_view(view)
            changed = [
                f"Player {p + 1} {sheet.players[p].total - was.players[p].total:+d}"
                for p in range(view.num_players)
                if p != me and sheet.players[p].total != was.players[p].total
            ]
            assert others == changed
            theirs += bool(changed)
            crows += action.kind == "crow"
            if action.kind == "collect" and after - before >= 5:
                pairs += 1  # a mated pair made: 5 points, not "your BU birds: 2 → 3"
    assert pairs and crows and kept and theirs and unknown < crows


def _trigger(first_player: int) -> str:
    """The preview of seat 0's play whose chase finds the feeder deck empty (E1)."""
    state = scenario(
        rows=[["BL4m", "CH3m", "BU1f"], ["SP6m"]],
        column=[],
        hands=[["SP3f", "GR1m"], ["CH6f"]],
        fill_feeder="gone",
        first_player=first_player,
    )
    action = Action.parse("play SP3f 1").id
    return " ".join(preview(view_of(state, 0), action).steps)


def test_an_end_triggered_in_the_rounds_last_turn_starts_no_last_round() -> None:
    # Seat 0 plays first: the round goes on with seat 1 (E2).
    assert "the last round starts" in _trigger(first_player=0)
    # Seat 1 plays first: seat 0's is the round's last turn, and the game ends with it.
    ends = _trigger(first_player=1)
    assert "yours is the round's last turn" in ends and "last round starts" not in ends


def test_the_last_hand_preview_names_each_bird_discarded_apart() -> None:
    """ "discard Yellowhammer 4♂, Yellowhammer 4♀": in words, birds need a comma between them."""
    from piepmatz.text.words import bird_words

    told = 0
    for view, action_id in choices("last hand", 12):
        kept = Action.from_id(action_id).cards
        rest = [bird_words(c) for c in view.hand if c not in kept]
        if len(rest) > 1:
            assert preview(view, action_id).headline.startswith(f"discard {', '.join(rest)} ·")
            told += 1
    assert told


def _last_hand(mine: list[str], hand: list[str]) -> State:
    """Seat 0's last hand; Ben (seat 1) holds the Greenfinch majority, two birds to ``mine``."""
    return scenario(
        rows=[["BL4m"], ["SP6m"]],
        hands=[hand, ["CH6f", "BL2m", "SP1f"]],
        collections=[mine, ["GR3m", "GR1f"]],
        phase="last hand",
        end_triggered="feeder",
        fill_feeder="gone",
    )


def test_a_choice_that_takes_or_ties_anothers_majority_says_what_it_costs_them() -> None:
    """E4: the majority's holder alone scores its singles; a choice that ties it or takes it
    costs them those points, and the preview says so beside the player's own change."""
    from piepmatz.core import score_view

    def told(state: State, keep: str) -> tuple[str, tuple[str, ...], int]:
        view = view_of(state, 0)
        shown = preview(view, Action.parse(keep).id, names=["Anna", "Ben"])
        collections = list(view.collections)
        collections[0] = (*view.collections[0], *Action.parse(keep).cards)
        lost = score_view(view, collections).players[1].total - score_view(view).players[1].total
        return shown.headline, shown.steps, lost

    headline, steps, lost = told(_last_hand(["GR2m"], ["GR2f", "CH3m", "BU1f"]), "keep CH3m GR2f")
    assert lost < 0
    assert headline.endswith(f" · Ben {lost:+d}")
    assert "You tie Ben for the Greenfinch majority: nobody holds it now." in steps
    assert f"Ben's score: 3 → {3 + lost}." in steps
    headline, steps, lost = told(_last_hand(["GR4f"], ["GR2f", "GR5m", "BU1f"]), "keep GR2f GR5m")
    assert lost < 0 and headline.endswith(f" · Ben {lost:+d}")
    assert "You take the Greenfinch majority from Ben." in steps
    # A choice that leaves Ben's majority alone says nothing of him.
    headline, steps, _lost = told(_last_hand(["GR2m"], ["GR2f", "CH3m", "BU1f"]), "keep BU1f CH3m")
    assert "Ben" not in headline and not any("Ben" in step for step in steps)


def test_a_choice_whose_squirrel_picks_at_random_says_so_in_place_of_a_score() -> None:
    """T2.1d: the squirrel takes two of another's seeds at random: no score can be promised,
    and the headline says why there is none."""
    told = 0
    for view, action_id in choices("play", 30):
        shown = preview(view, action_id)
        if "squirrel" in shown.headline.split(" · ")[0]:
            told += 1
            assert shown.score is None
            assert shown.headline.endswith(" · score: as the squirrel picks")
    assert told
