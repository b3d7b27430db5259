"""Hand-made states with known deck order, for the rule tests.

``scenario`` writes a state document (the documented state format) and reads it back, so every
scenario also goes through the format's validation. Cards a scenario does not mention go to the
bottom of their deck (``fill="deck"``) or out of the game (``fill="gone"``), so that the decks hold
exactly the named cards on top.
"""

from __future__ import annotations

import random
from typing import Any

from piepmatz.core import Rules, State, state_from_json
from piepmatz.core.cards import BIRD_NAMES, FEEDER_NAMES, SPECIES, THREE_PLUS

Cards = list[str]


def scenario(
    players: int = 2,
    rules: str | Rules = "standard",
    *,
    rows: list[Cards],
    column: list[str | tuple[str, str | None]] | None = None,
    feeder_deck: Cards = (),  # type: ignore[assignment]
    bird_deck: Cards = (),  # type: ignore[assignment]
    display: list[str | None] | None = None,
    hands: list[Cards] | None = None,
    collections: list[Cards] | None = None,
    seeds_seen: list[Cards] | None = None,
    seeds_blind: list[Cards] | None = None,
    pests: list[Cards] | None = None,
    turn_player: int = 0,
    first_player: int = 0,
    phase: str = "play",
    current_player: int | None = None,
    removed_species: str = "YE",
    end_triggered: str | None = None,
    turn: int = 1,
    rng: int = 0,
    fill_birds: str = "deck",
    fill_feeder: str = "deck",
    **extra: Any,
) -> State:
    n = players
    if isinstance(rules, str):
        rules = Rules.preset(rules)
    if column is None:
        column = ["S1a", "S1b", "S2a", "S3a"]
    col = [
        {"seed": c, "pest": None} if isinstance(c, str) else {"seed": c[0], "pest": c[1]}
        for c in column
    ]
    doc: dict[str, Any] = {
        "format": "piepmatz-state",
        "version": 1,
        "players": n,
        "rules": rules.to_json(),
        "first_player": first_player,
        "turn": turn,
        "turn_player": turn_player,
        "current_player": turn_player if current_player is None else current_player,
        "phase": phase,
        "end_triggered": end_triggered,
        "rows": rows,
        "column": col,
        "display": display if display is not None else [None, None, None],
        "hands": hands or [[] for _ in range(n)],
        "collections": collections or [[] for _ in range(n)],
        "seeds_seen": seeds_seen or [[] for _ in range(n)],
        "seeds_blind": seeds_blind or [[] for _ in range(n)],
        "pests": pests or [[] for _ in range(n)],
        "rng": rng,
        **extra,
    }
    if n == 2:
        s = SPECIES.index(removed_species)
        doc["removed_birds"] = list(BIRD_NAMES[s * 12 : s * 12 + 12])
        doc["removed_feeder"] = [FEEDER_NAMES[f] for f in sorted(THREE_PLUS)]
    used = set(doc.get("removed_birds", []) + doc.get("removed_feeder", []))
    used.update(c for row in rows for c in row)
    used.update(c["seed"] for c in col)
    used.update(c["pest"] for c in col if c["pest"])
    used.update(c for c in doc["display"] if c)
    for key in ("hands", "collections", "seeds_seen", "seeds_blind", "pests", "discards"):
        for cards in doc.get(key, []):
            used.update(cards)
    for key in ("gone_birds", "gone_feeder"):
        used.update(doc.get(key, []))
    for kept in doc.get("kept", []) or []:
        used.update(kept or [])
    used.update(feeder_deck)
    used.update(bird_deck)
    rest_birds = [b for b in BIRD_NAMES if b not in used]
    rest_feeder = [f for f in FEEDER_NAMES if f not in used]
    if fill_birds == "deck":
        doc["bird_deck"] = list(bird_deck) + rest_birds
    else:
        doc["bird_deck"] = list(bird_deck)
        doc["gone_birds"] = doc.get("gone_birds", []) + rest_birds
    if fill_feeder == "deck":
        doc["feeder_deck"] = list(feeder_deck) + rest_feeder
    else:
        doc["feeder_deck"] = list(feeder_deck)
        doc["gone_feeder"] = doc.get("gone_feeder", []) + rest_feeder
    return state_from_json(doc)


def names(cards: list[int] | tuple[int, ...], feeder: bool = False) -> list[str]:
    table = FEEDER_NAMES if feeder else BIRD_NAMES
    return [table[c] for c in cards]


def kinds(state: State, start: int = 0) -> list[str]:
    """The kinds of the events logged since index ``start``."""
    return [e.kind for e in (state.events or [])[start:]]


def played(players: int, seed: int, steps: int) -> State:
    """A game after ``steps`` uniformly random decisions (fewer if it ends first)."""
    state = State.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_over():
            break
        ids = state.legal_action_ids()
        state.apply_id(ids[rng.randrange(len(ids))])
    return state
