"""The table as plain text, drawn from one player's view (for ``render_mode="ansi"``).

>>> from piepmatz.core.state import State
>>> from piepmatz.core.view import view_of
>>> print(draw_table(view_of(State.new_game(players=2, seed=3), 0)).splitlines()[0])
Piepmatz, 2 players, standard rules — turn 1, seat 1 to play (seen by seat 0)
"""

from __future__ import annotations

from piepmatz.core.cards import (
    BIRD_NAMES,
    BIRD_SPECIES,
    FEEDER_EGGS,
    FEEDER_KIND,
    FEEDER_NAMES,
    SPECIES,
)
from piepmatz.core.state import GAME_OVER, PHASE_NAMES, shown_row
from piepmatz.core.view import PlayerView

_PEST_NAMES = {1: "crow", 2: "squirrel"}


def birds_text(cards: tuple[int, ...] | list[int]) -> str:
    """Birds by name, ``-`` for none."""
    return " ".join(BIRD_NAMES[c] for c in cards) or "-"


def feeder_text(cards: tuple[int, ...] | list[int]) -> str:
    """Feeder cards by name, ``-`` for none."""
    return " ".join(FEEDER_NAMES[c] for c in cards) or "-"


def draw_table(view: PlayerView, private: bool = True) -> str:
    """A few lines of text: perches, seed column, display, decks, every player's tableau.

    With ``private=False`` the viewer's hand and blind seeds are left out (public information
    only).
    """
    me = view.player
    head = f"Piepmatz, {view.num_players} players, {view.rules.name} rules — "
    if view.phase == GAME_OVER:
        head += f"game over after turn {view.turn}"
    else:
        head += f"turn {view.turn}, seat {view.current_player} to {PHASE_NAMES[view.phase]}"
    lines = [f"{head} (seen by seat {me})" if private else f"{head} (public)"]
    for k, row in enumerate(view.rows):
        bird, birds, _perch, _ground = shown_row(row, k == view.chase_perch)
        ground = " ".join(BIRD_NAMES[b] for b in birds) or "-"
        lines.append(
            f"  perch {k + 1}: {BIRD_NAMES[bird] if bird is not None else '-'} | ground: {ground}"
        )
    column = []
    for i, seed in enumerate(view.column):
        pest = view.column_pests[i]
        beside = f"+{_PEST_NAMES[FEEDER_KIND[pest]]}" if pest >= 0 else ""
        column.append(f"{i + 1}:{FEEDER_EGGS[seed]}{beside}")
    lines.append(f"  seed column: {' '.join(column) or '-'}")
    display = " ".join(BIRD_NAMES[c] if c >= 0 else "--" for c in view.display)
    lines.append(
        f"  display: {display}   bird deck: {view.bird_deck_size}   "
        f"feeder deck: {view.feeder_deck_size}"
    )
    if view.removed_birds:
        lines.append(f"  set aside: {SPECIES[BIRD_SPECIES[view.removed_birds[0]]]}")
    for q in range(view.num_players):
        seen = view.seeds_seen[q]
        seeds = f"{len(seen) + view.blind_counts[q]} seeds ({sum(FEEDER_EGGS[s] for s in seen)}"
        seeds += f" eggs seen, {view.blind_counts[q]} blind)"
        pests = " ".join(FEEDER_NAMES[x] for x in view.pests[q])
        hand = birds_text(view.hand) if q == me and private else f"{view.hand_sizes[q]} cards"
        if view.shown[q] and not (q == me and private):
            # Drawn face up (T3.1); after the last-hand choice kept or discarded (E3).
            among = " among kept/discarded" if view.chosen[q] else " incl."
            hand += f"{among} {birds_text(view.shown[q])}"
        mark = "*" if q == view.current_player else " "
        lines.append(
            f" {mark}seat {q}: hand {hand} | collection {birds_text(view.collections[q])} | "
            f"{seeds}{' | pests ' + pests if pests else ''}"
        )
    if private and view.own_blind:
        lines.append(f"  own blind seeds: {feeder_text(view.own_blind)}")
    return "\n".join(lines)
