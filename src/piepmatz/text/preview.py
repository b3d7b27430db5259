"""What a choice would do, told before it is made — without revealing any hidden card.

The preview plays the action in a *determinised* world (:func:`piepmatz.core.view.determinise`:
the hidden cards are sampled), never in the real state, and describes only the public part of
what happens: seed positions and the cards of the seed column, birds collected and promoted,
pests taken from the column. A blind draw from a deck is described as such, without its card,
and so is everything that hangs on it (the effect of a pest drawn blind, a refilled display slot,
the refilled seed column).

>>> from piepmatz.core import State, view_of
>>> state = State.new_game(players=3, seed=7)
>>> view = view_of(state, state.current_player)
>>> preview(view, state.legal_action_ids()[0]).headline
'ground 1 ≤ perch 5: no chase'
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from piepmatz.core import Action, PlayerView, ScoreSheet, determinise, score_view
from piepmatz.core.cards import BIRD_SPECIES, BIRD_VALUE, FEEDER_EGGS, SPECIES
from piepmatz.core.events import Event, EventKind
from piepmatz.core.state import COLLECT, CROW_VICTIM, DRAW, row_strength
from piepmatz.i18n import _, ngettext

from .words import bird_text, feeder, seat_name, species_name

#: Events whose cards come from a face-down deck: never described with their card.
_BLIND = frozenset(
    {"take_blind", "draw_deck", "refill_display", "refill_column", "pest_beside", "pest_out"}
)


class ChooseVictim(NamedTuple):
    """A step the preview tells that is no event of the engine: the player will choose the
    crow's victim."""

    player: int


#: What a preview tells: the engine's events and its own choose-victim step.
Told = Event | ChooseVictim


@dataclass(frozen=True)
class Preview:
    #: One line for a choice list, e.g. ``ground 7 > perch 4: takes a 3-egg seed · score +3``.
    headline: str
    #: The public steps, one sentence each.
    steps: tuple[str, ...]
    #: The player's running score before and after (as far as it is public), or None when it
    #: hangs on a card drawn blind.
    score: tuple[int, int] | None = None


def preview(
    view: PlayerView, action_id: int, seed: int = 0, names: Sequence[str] | None = None
) -> Preview:
    """Describe what ``action_id`` would do for the viewing player (whose turn it is); the
    other players by ``names`` (default "Player N"), whose scores it changes when it takes or
    ties their majority."""
    world = determinise(view, random.Random(seed), events=True)
    events = world.events
    assert events is not None
    start = len(events)
    action = Action.from_id(action_id)
    me = view.player
    strengths: tuple[int, int] | None = None
    if action.kind == "play":
        perch, ground = row_strength(view.rows[action.index - 1])
        strengths = (perch, ground + BIRD_VALUE[action.cards[0]])
    world.apply_id(action_id)
    told: list[Told] = list(events[start:])
    # A crow's victim is the player's own next decision; to tell the rest of the chase, the
    # preview picks one (any) and says that the player will choose.
    while world.phase == CROW_VICTIM and world.current_player == me:
        told.append(ChooseVictim(me))
        start = len(events)
        world.apply_id(world.legal_action_ids()[0])
        told.extend(events[start:])
    # E2: the round ends with the seat before the first player's; from there a triggered end
    # ends the game, with no last round.
    last_of_round = me == (view.first_player - 1) % view.num_players
    steps, chases = _describe(told, me, last_of_round)
    if world.current_player == me and world.phase == COLLECT:
        steps.append(_("Then you may add a bird from your hand to your collection."))
    elif world.current_player == me and world.phase == DRAW:
        steps.append(_("Then you draw."))
    change = None
    others: list[tuple[int, int, int]] = []  # another's seat, score before and after
    if _score_is_public(told):
        # Only the player's own cards change in its turn: the others' stay as the view shows
        # them (the sampled world would end the game with sampled last hands).
        collections = list(view.collections)
        # A kept pair joins the collection only once every hand is chosen (E3): count it now.
        collections[me] = (*world.collections[me], *(world.kept[me] or ()))
        seen = list(view.seeds_seen)
        taken = [
            e.seed
            for e in told
            if not isinstance(e, ChooseVictim) and e.kind == EventKind.TAKE_SEED and e.player == me
        ]
        seen[me] = (*seen[me], *taken)
        # The view's own blind seeds count, the sampled world's never (they are not the real ones).
        before = score_view(view)
        after = score_view(view, collections, seen)
        change = (before.players[me].total, after.players[me].total)
        named = list(names) if names else [seat_name(p) for p in range(view.num_players)]
        steps.extend(_majorities(before, after, me, named))
        if change[1] != change[0]:
            steps.append(
                _("Your score: {before} → {after}.").format(before=change[0], after=change[1])
            )
        # A majority taken or tied costs its holder their singles (E4): the gap is what counts.
        others = [
            (p, before.players[p].total, after.players[p].total)
            for p in range(view.num_players)
            if p != me and before.players[p].total != after.players[p].total
        ]
        for p, was, now in others:
            steps.append(
                _("{name}'s score: {before} → {after}.").format(
                    name=named[p], before=was, after=now
                )
            )
    headline = _headline(view, action, strengths, chases, steps)
    if change is None and _squirrel_in_sight(told):
        # The squirrel takes two seeds at random (T2.1d): no score to promise.
        headline += " · " + _("score: as the squirrel picks")
    if change is not None and (change[0] != change[1] or action.kind in _SCORED_CHOICES):
        headline += " · " + _("score {change:+d}").format(change=change[1] - change[0])
        for p, was, now in others:
            headline += " · " + _("{name} {change:+d}").format(name=named[p], change=now - was)
    return Preview(headline, tuple(steps), change)


#: Choices made for their score: the preview says its change even when it is nothing.
_SCORED_CHOICES = frozenset({"collect", "pass", "crow", "keep"})


def _majorities(before: ScoreSheet, after: ScoreSheet, me: int, names: list[str]) -> list[str]:
    """What happens to the majorities (E4): the player's, and another's taken or tied."""
    said = []
    for code, holder in after.majority.items():
        was = before.majority.get(code)
        species = species_name(code)
        if was == me and holder != me:
            said.append(_("You lose the {species} majority.").format(species=species))
        elif holder == me and was is None:
            said.append(_("You take the {species} majority.").format(species=species))
        elif holder == me and was is not None and was != me:
            said.append(
                _("You take the {species} majority from {name}.").format(
                    species=species, name=names[was]
                )
            )
        elif was is not None and was != me and holder is None:
            said.append(
                _("You tie {name} for the {species} majority: nobody holds it now.").format(
                    name=names[was], species=species
                )
            )
    return said


#: Events that bring a card the player cannot know into play (or a random pick).
_UNKNOWN = frozenset({"take_blind", "refill_column", "refill_display", "pest_beside", "squirrel"})
#: Events that change a score.
_SCORING = frozenset({"take_seed", "take_pest", "crow", "squirrel", "collect_perch"})


def _score_is_public(new: Sequence[Told]) -> bool:
    """Whether the score after ``new`` follows from public cards only: nothing that scores
    comes after a card the player cannot know (a refilled column, a blind draw, the squirrel)."""
    unknown = False
    for e in new:
        if isinstance(e, ChooseVictim):
            continue
        if e.kind == "turn":
            break
        if unknown and e.kind in _SCORING:
            return False
        if e.kind in _UNKNOWN or (e.kind == EventKind.TAKE_PEST and not e.position):
            unknown = True
            if e.kind == "squirrel":
                return False
    return True


def _squirrel_in_sight(new: Sequence[Told]) -> bool:
    """Whether a squirrel the player can see coming is among ``new``: one taken before any
    card the player cannot know (else the preview would depend on the hidden cards)."""
    for e in new:
        if isinstance(e, ChooseVictim):
            continue
        if e.kind == "turn":
            break
        if e.kind == "squirrel":
            return True
        if e.kind in _UNKNOWN or (e.kind == EventKind.TAKE_PEST and not e.position):
            return False
    return False


def _headline(
    view: PlayerView,
    action: Action,
    strengths: tuple[int, int] | None,
    chases: list[str],
    steps: list[str],
) -> str:
    if strengths is None:
        return _choice_headline(view, action, steps)
    perch, ground = strengths
    if not chases:
        return _("ground {ground} ≤ perch {perch}: no chase").format(ground=ground, perch=perch)
    if len(chases) > 1:
        return ngettext(
            "ground {ground} > perch {perch}: {chase}, then {more} more",
            "ground {ground} > perch {perch}: {chase}, then {more} more",
            len(chases) - 1,
        ).format(ground=ground, perch=perch, chase=chases[0], more=len(chases) - 1)
    return _("ground {ground} > perch {perch}: {chase}").format(
        ground=ground, perch=perch, chase=chases[0]
    )


def _choice_headline(view: PlayerView, action: Action, steps: list[str]) -> str:
    """The short form for the decisions other than playing: what changes for you."""
    kind = action.kind
    if kind in ("collect", "crow"):
        bird = action.cards[0]
        species = BIRD_SPECIES[bird]
        have = sum(1 for b in view.collections[view.player] if BIRD_SPECIES[b] == species)
        after = have + 1 if kind == "collect" else have - 1
        return _("your {species} birds: {before} → {after}").format(
            species=species_name(SPECIES[species]), before=have, after=after
        )
    if kind == "pass":
        return _("your hand stays as it is")
    if kind == "draw display":
        return _("take {bird}").format(bird=bird_text(view.display[action.index - 1]))
    if kind == "draw deck":
        return _("a hidden card ({count} in the deck)").format(count=view.bird_deck_size)
    if kind == "keep":
        rest = [bird_text(b) for b in view.hand if b not in action.cards]
        if not rest:
            return _("discard nothing")
        return _("discard {birds}").format(birds=", ".join(rest))
    return steps[0] if steps else str(action)


def _describe(new: list[Told], me: int, last_of_round: bool) -> tuple[list[str], list[str]]:
    """Sentences for the public part of ``new``; also the short form of each chase step.
    ``last_of_round``: ``me`` plays the round's last turn."""
    steps: list[str] = []
    chases: list[str] = []
    blind_pest = False  # the last card taken came blind: its effect is unknown
    refilled = False  # the column's refill is told once
    for e in new:
        if isinstance(e, ChooseVictim):
            if not blind_pest:  # else the card drawn blind is unknown, so is its effect
                steps.append(
                    _("The crow: you choose a bird of your most numerous species to lose.")
                )
            continue
        kind = e.kind
        if kind == "turn":
            break  # the next player's turn: the preview ends with this one
        if e.kind == EventKind.CHASE:
            blind_pest = False
            steps.append(
                _("Perch {perch}: the ground beats the perch by {difference} — a chase.").format(
                    perch=e.perch, difference=e.difference
                )
            )
        elif e.kind == EventKind.TAKE_SEED:
            eggs = FEEDER_EGGS[e.seed]
            chases.append(
                # The seed by its eggs, as the log tells it ("seed 3" read as a seed worth 3);
                # the steps below name its position.
                ngettext("takes a {eggs}-egg seed", "takes a {eggs}-egg seed", eggs).format(
                    eggs=eggs
                )
            )
            steps.append(
                ngettext(
                    "You take the {eggs}-egg seed at seed column position {position}.",
                    "You take the {eggs}-egg seed at seed column position {position}.",
                    eggs,
                ).format(eggs=eggs, position=e.position)
            )
        elif e.kind == EventKind.TAKE_PEST and e.position:
            if chases:
                chases[-1] += f" + {feeder(e.pest)}"
            steps.append(
                _("…and the crow beside it.") if e.pest < 33 else _("…and the squirrel beside it.")
            )
        elif kind in ("take_pest", "take_blind"):
            blind_pest = True
            chases.append(_("blind draw from the deck"))
            steps.append(_("You draw a feeder card blind (the column is too short)."))
        elif kind == "feeder_empty":
            chases.append(_("no seed (feeder deck empty)"))
            steps.append(_("The feeder deck is empty: no seed."))
        elif e.kind == EventKind.COLLECT_PERCH:
            steps.append(_("You collect the chased {bird}.").format(bird=bird_text(e.bird)))
        elif kind in ("crow", "crow_nothing", "squirrel") and blind_pest:
            continue  # the card drawn blind is unknown, so is its effect
        elif e.kind == EventKind.CROW and e.player == me:
            steps.append(_("The crow scares away your {bird}.").format(bird=bird_text(e.bird)))
        elif kind == "squirrel":
            steps.append(_("The squirrel takes two random seeds of your pile."))
        elif e.kind == EventKind.PROMOTE:
            steps.append(
                _("{bird} then sits at perch {perch}.").format(
                    bird=bird_text(e.bird), perch=e.perch
                )
            )
        elif e.kind == EventKind.COLLECT:
            steps.append(_("You add {bird} to your collection.").format(bird=bird_text(e.bird)))
        elif kind == "pass":
            steps.append(_("You add no bird."))
        elif e.kind == EventKind.DRAW_DISPLAY:
            steps.append(
                _("You take {bird} from display slot {slot}.").format(
                    bird=bird_text(e.bird), slot=e.slot
                )
            )
        elif kind == "draw_deck":
            steps.append(_("You take the top card of the bird deck."))
        elif kind == "refill_column" and not refilled:
            refilled = True
            steps.append(_("The seed column is refilled from the feeder deck."))
        elif kind == "end_triggered" and last_of_round:
            steps.append(
                _("This triggers the end of the game, and yours is the round's last turn.")
            )
        elif kind == "end_triggered":
            steps.append(_("This triggers the end of the game: the last round starts."))
        elif e.kind == EventKind.KEEP and e.player == me:
            first, second = (bird_text(b) if b is not None else "?" for b in e.birds)
            steps.append(
                _("You keep {first} and {second}; the rest of your hand is discarded.").format(
                    first=first, second=second
                )
            )
        elif kind in _BLIND or kind in ("crow", "reveal", "game_over"):
            continue
    return steps, chases
