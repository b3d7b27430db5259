"""A player's view as JSON (``docs/state-format.md``, "Player view"): the state's field names
where the information is the same, written by the state's codecs (:mod:`.serial`); hidden parts
as counts. The server writes a position's views for many seats at once (:func:`views_to_json`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from .cards import (
    BIRD_SPECIES,
    FEEDER_NAMES,
    NUM_BIRDS,
    NUM_FEEDER,
    SPECIES,
    THREE_PLUS,
    species_birds,
)
from .errors import InvalidStateError
from .events import Event, event_from_json
from .scoring import majorities
from .serial import _CODECS, STATE_VERSION, _birds, _Reader
from .state import FIELDS, Field, State
from .view import PlayerView, public_view, seat_view

VIEW_FORMAT: Final = "piepmatz-view"


def _own_seeds(v: PlayerView) -> dict[str, Any]:
    own = (*v.seeds_seen[v.player], *v.own_blind)
    return {"blind_counts": list(v.blind_counts), "own_seeds": [FEEDER_NAMES[c] for c in own]}


def _nothing(v: PlayerView) -> dict[str, Any]:
    return {}


#: What a player's view writes of each field of ``FIELDS``: ``None``, the state's key and
#: value (a public field, or the filtered events), else its own keys (for a hidden field, what
#: the player knows of it).
_VIEW: Final[dict[str, Callable[[PlayerView], dict[str, Any]] | None]] = {
    **dict.fromkeys((f.name for f in FIELDS if f.view == "public"), None),
    "events": None,
    "feeder_deck": lambda v: {"feeder_deck_size": v.feeder_deck_size},
    "bird_deck": lambda v: {"bird_deck_size": v.bird_deck_size},
    "hands": lambda v: {"hand": _birds(v.hand), "hand_sizes": list(v.hand_sizes)},
    "seeds_blind": _own_seeds,
    "removed_birds": lambda v: {
        "removed_species": sorted({SPECIES[BIRD_SPECIES[b]] for b in v.removed_birds})
    },
    "kept": lambda v: {"chosen": list(v.chosen), "own_kept": _birds(v.own_kept)},
    # Left out of the view's document.
    "num_perches": _nothing,
    "chased": _nothing,
    "removed_feeder": _nothing,
    "discards": _nothing,
    "hand_facts": _nothing,
    "asked": _nothing,
    "rng": _nothing,
}


def _check_views(fields: Sequence[Field]) -> None:
    """Every field of the table has a view entry: a field added to ``FIELDS`` without one fails
    here, at import."""
    for field in fields:
        if field.name not in _VIEW:
            raise TypeError(
                f"State field {field.name!r} has no view entry in piepmatz.core.viewjson "
                "(add one to _VIEW)"
            )


_check_views(FIELDS)


def view_to_json(view: PlayerView) -> dict[str, Any]:
    """A player's view as JSON: the same field names as the state where the information is the
    same (the state's codecs write them), hidden parts as counts; in the order of ``FIELDS``."""
    doc: dict[str, Any] = {"format": VIEW_FORMAT, "version": STATE_VERSION}
    doc["player"] = view.player
    for field in FIELDS:
        own = _VIEW[field.name]
        if own is not None:
            doc.update(own(view))
        elif (key := _CODECS[field.name].key) is not None:
            doc[key] = _CODECS[field.name].write(view)
    doc["majority"] = majorities(view.collections)
    return doc


#: The fields whose part of a view's document can differ from seat to seat.
_SEAT_FIELDS: Final = tuple(
    f.name for f in FIELDS if f.view == "private" and _VIEW[f.name] is not None
)


def views_to_json(state: State, seats: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
    """The documents of several views of one position, without the log (``None``: the public
    view, a spectator's, whose ``player`` is null). What every seat sees alike is written once,
    so that a server telling each seat of a move pays for the common part once; each document
    equals ``view_to_json`` of that seat's view, ``events`` left out. The documents share the
    values they have in common: write them out, do not change them."""
    public = public_view(state, log=False)
    common = view_to_json(public)
    common.pop("events", None)
    out: dict[int | None, dict[str, Any]] = {}
    for seat in seats:
        doc = dict(common)
        if seat is None:
            doc.update(player=None, own_seeds=[])
        else:
            view = seat_view(public, state, seat)
            doc["player"] = seat
            for name in _SEAT_FIELDS:
                doc.update(_VIEW[name](view))  # type: ignore[misc]
        out[seat] = doc
    return out


def view_from_json(doc: Any, events: Sequence[Event] = ()) -> PlayerView:
    """A seat's view read back from its document, to be shown (a client of the game server
    draws the table from the ``state`` message's view); ``events`` its log. Raises
    :class:`InvalidStateError` naming the first field at fault.

    A spectator's document (``player`` null) reads back with ``player`` -1 and no hand.

    The document leaves out what the seat's screen need not show, and the view read back has
    it empty: what the others' moves told of their hands (T2.2), whether the perch played to
    chased (the log says it), the discards of the last hand and the sizes of what others
    kept. So it is a view to draw, not one to search from (a
    search samples worlds from the view the engine builds).

    >>> from piepmatz.core.state import State
    >>> from piepmatz.core.view import view_of
    >>> view = view_of(State.new_game(players=2, seed=4), 1)
    >>> view_to_json(view_from_json(view_to_json(view), view.events)) == view_to_json(view)
    True
    """
    if not isinstance(doc, dict):
        raise InvalidStateError(f"a view must be a JSON object, not {type(doc).__name__}")
    r = _Reader(doc)
    if r.get("format") != VIEW_FORMAT:
        raise r.fail("format", f"must be {VIEW_FORMAT!r}, not {doc.get('format')!r}")
    if doc.get("version") != STATE_VERSION:
        raise r.fail("version", f"version {doc.get('version')!r} is not supported")
    # The public fields have the state's names and codecs; the rest are read below.
    s = State.__new__(State)
    for field in FIELDS:
        if field.view == "public" or field.name == "num_perches":
            _CODECS[field.name].read(r, s)
    n = s.num_players
    # A spectator's document (the public view) names no seat: read back, its player is -1,
    # nobody's, so that nothing in it is drawn as a seat's own.
    player = -1 if doc.get("player", 0) is None else r.int_("player", 0, n - 1)
    counts = [r.get("hand_sizes"), r.get("blind_counts")]
    for key, value in zip(("hand_sizes", "blind_counts"), counts, strict=True):
        if not isinstance(value, list) or len(value) != n or any(type(c) is not int for c in value):
            raise r.fail(key, f"must be a list of {n} counts, one per player")
    chosen = r.get("chosen")
    if not isinstance(chosen, list) or len(chosen) != n or any(type(c) is not bool for c in chosen):
        raise r.fail("chosen", f"must be a list of {n} true or false, one per player")
    own_seeds = r.cards(r.get("own_seeds"), "own_seeds", False)
    removed = r.get("removed_species")
    if not isinstance(removed, list) or any(code not in SPECIES for code in removed):
        raise r.fail("removed_species", f"must be a list of species codes ({', '.join(SPECIES)})")
    # S2 sets aside one species and the 3+ feeder cards together (two players).
    s.removed_birds = sorted(b for code in removed for b in species_birds(SPECIES.index(code)))
    s.removed_feeder = sorted(THREE_PLUS) if removed else []
    return PlayerView(
        player=player,
        rules=s.rules,
        num_players=n,
        phase=s.phase,
        current_player=s.current_player,
        turn_player=s.turn_player,
        first_player=s.first_player,
        turn=s.turn,
        end_triggered=s.end_triggered,
        chase_perch=s.chase_perch,
        chased=s.chased,
        played_value=s.played_value,
        draws_left=s.draws_left,
        hand=tuple(sorted(r.cards(r.get("hand"), "hand", True))),
        hand_sizes=tuple(counts[0]),
        shown=tuple(tuple(x) for x in s.shown),
        rows=tuple(tuple(row) for row in s.rows),
        column=tuple(s.column),
        column_pests=tuple(s.column_pests),
        display=tuple(s.display),
        bird_deck_size=r.int_("bird_deck_size", 0, NUM_BIRDS),
        feeder_deck_size=r.int_("feeder_deck_size", 0, NUM_FEEDER),
        collections=tuple(tuple(c) for c in s.collections),
        pests=tuple(tuple(x) for x in s.pests),
        seeds_seen=tuple(tuple(x) for x in s.seeds_seen),
        blind_counts=tuple(counts[1]),
        # The seat's seeds: those everybody saw it take, then its blind ones.
        own_blind=tuple(own_seeds[len(s.seeds_seen[player]) :]) if player >= 0 else (),
        gone_birds=tuple(s.gone_birds),
        gone_feeder=tuple(s.gone_feeder),
        removed_birds=tuple(s.removed_birds),
        removed_feeder=tuple(s.removed_feeder),
        chosen=tuple(chosen),
        own_kept=tuple(r.cards(r.get("own_kept", []), "own_kept", True)),
        own_discards=(),
        kept_sizes=(0,) * n,
        discard_sizes=(0,) * n,
        events=tuple(events),
        hand_facts=(None,) * n,
    )


def events_from_json(docs: Any) -> list[Event]:
    """A log's entries read back (a ``state`` message's ``events``); ``InvalidStateError``
    naming the first one at fault."""
    if not isinstance(docs, list):
        raise InvalidStateError("events: must be a list of events")
    try:
        return [event_from_json(doc) for doc in docs]
    except ValueError as exc:
        raise InvalidStateError(f"events: {exc}") from None


__all__ = ["events_from_json", "view_from_json", "view_to_json", "views_to_json"]
