"""How people are told the game: seats counted from 1, the core's event sentences in those words.

The engine numbers seats from 0 (its formats and protocol keep that); people count from 1. The
sentences themselves are the core's (:func:`piepmatz.core.describe_event`); only the seat names
and the seed cards are put the way a player says them.

>>> from piepmatz.core.events import Squirrel, TakeSeed, Turn
>>> tell(Turn(player=0, turn=1))
'Turn 1: Player 1.'
>>> tell(TakeSeed(player=2, seed=7, position=3))
'Player 3 takes a 1-egg seed from position 3.'
>>> tell(Squirrel(player=0, seeds=(7, 12)))
"The squirrel takes from Player 1's seeds: S1, S2."
"""

from __future__ import annotations

import re

from piepmatz.core import describe_event
from piepmatz.core.events import Event

_SEAT = re.compile(r"\b[Pp]layer (\d)\b")
#: ``S3b (seed (3 eggs))``: a copy letter that means nothing to a player, brackets in brackets.
_SEED = re.compile(r"\bS\d[a-z] \(seed \((\d) eggs?\)\)")
#: A seed named alone (the squirrel's loot): by its eggs, as the table shows it.
_SEED_CARD = re.compile(r"\bS(\d)[a-z]\b")


def seat_name(player: int) -> str:
    """A seat as people count: ``Player 1`` for seat 0."""
    return f"Player {player + 1}"


def tell(event: Event) -> str:
    """The core's sentence for ``event``, seats counted from 1 and seeds by their eggs."""
    text = describe_event(event)
    text = _SEAT.sub(lambda m: seat_name(int(m.group(1))), text)
    text = _SEED.sub(lambda m: f"a {m.group(1)}-egg seed", text)
    return _SEED_CARD.sub(r"S\1", text)
