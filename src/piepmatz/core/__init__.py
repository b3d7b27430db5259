"""The rules engine of Piepmatz: pure, seeded, standard library only.

>>> from piepmatz.core import Game
>>> game = Game.new(players=3, preset="standard", seed=7)
>>> [str(a) for a in game.state.legal_actions()][:2]
['play BU1f 1', 'play BU1f 2']
"""

from .actions import NUM_ACTIONS, Action
from .cards import BIRD_NAMES, FEEDER_NAMES, SPECIES, parse_bird, parse_feeder
from .errors import (
    GameOverError,
    IllegalActionError,
    InvalidActionError,
    InvalidJSONError,
    InvalidOptionsError,
    InvalidRecordError,
    InvalidStateError,
    PiepmatzError,
)
from .events import Event, EventKind, describe_event, event_to_json
from .game import Game, GameOptions
from .jsonio import dump_json, parse_json, read_json
from .rules import PRESETS, Rules
from .scoring import PlayerScore, ScoreSheet, score, score_view
from .serial import state_from_json, state_to_json
from .state import PHASE_NAMES, State
from .view import PlayerView, Sampler, determinise, filter_event, view_of
from .viewjson import view_to_json, views_to_json

__all__ = [
    "BIRD_NAMES",
    "FEEDER_NAMES",
    "NUM_ACTIONS",
    "PHASE_NAMES",
    "PRESETS",
    "SPECIES",
    "Action",
    "Event",
    "EventKind",
    "Game",
    "GameOptions",
    "GameOverError",
    "IllegalActionError",
    "InvalidActionError",
    "InvalidJSONError",
    "InvalidOptionsError",
    "InvalidRecordError",
    "InvalidStateError",
    "PiepmatzError",
    "PlayerScore",
    "PlayerView",
    "Rules",
    "Sampler",
    "ScoreSheet",
    "State",
    "describe_event",
    "determinise",
    "dump_json",
    "event_to_json",
    "filter_event",
    "parse_bird",
    "parse_feeder",
    "parse_json",
    "read_json",
    "score",
    "score_view",
    "state_from_json",
    "state_to_json",
    "view_of",
    "view_to_json",
    "views_to_json",
]
