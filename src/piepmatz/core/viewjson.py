"""A player's view as JSON (``docs/state-format.md``, "Player view"): the state's field names
where the information is the same, written by the state's codecs (:mod:`.serial`); hidden parts
as counts. The server writes a position's views for many seats at once (:func:`views_to_json`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from .cards import BIRD_SPECIES, FEEDER_NAMES, SPECIES
from .scoring import majorities
from .serial import _CODECS, STATE_VERSION, _birds
from .state import FIELDS, Field, State
from .view import PlayerView, public_view, seat_view


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
    doc: dict[str, Any] = {"format": "piepmatz-view", "version": STATE_VERSION}
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


__all__ = ["view_to_json", "views_to_json"]
