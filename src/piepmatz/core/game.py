"""A game with its history: options, seed and the actions taken — and its record format.

>>> game = Game.new(players=2, seed=11)
>>> while not game.state.is_over():
...     _ = game.apply(game.state.legal_action_ids()[0])
>>> replayed = Game.from_record(game.record())
>>> replayed.score().to_json() == game.score().to_json()
True
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any, Final

from .actions import Action
from .errors import InvalidOptionsError, InvalidRecordError, PiepmatzError
from .rules import Rules
from .scoring import ScoreSheet, score_state
from .state import State
from .view import PlayerView, view_of

RECORD_FORMAT: Final = "piepmatz-record"
#: Version 2: the squirrel strikes a seen copy for a blind pick of the same value (T2.1d).
RECORD_VERSION: Final = 2


@dataclass(frozen=True)
class GameOptions:
    """Everything that decides the deal: with the same options, the same cards come out."""

    players: int = 2
    rules: Rules = field(default_factory=Rules)
    seed: int = 0
    first_player: int | None = None
    removed_species: str | None = None

    @staticmethod
    def make(
        players: int = 2,
        preset: str = "standard",
        seed: int | None = None,
        first_player: int | None = None,
        removed_species: str | None = None,
        **flags: Any,
    ) -> GameOptions:
        """Options from a preset name and flag overrides; no seed means a fresh random one."""
        if seed is None:
            seed = secrets.randbits(63)
        return GameOptions(
            players, Rules.preset(preset, **flags), seed, first_player, removed_species
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "preset": self.rules.name,
            "rules": self.rules.to_json(),
            "seed": self.seed,
            "first_player": self.first_player,
            "removed_species": self.removed_species,
        }

    @staticmethod
    def from_json(data: Any) -> GameOptions:
        if not isinstance(data, dict):
            raise InvalidOptionsError("options must be an object")
        rules = (
            Rules.from_json(data["rules"])
            if "rules" in data
            else Rules.preset(str(data.get("preset", "standard")))
        )
        seed = data.get("seed", 0)
        if type(seed) is not int:
            raise InvalidOptionsError(f"seed must be an integer, not {seed!r}")
        return GameOptions(
            data.get("players", 2),
            rules,
            seed,
            data.get("first_player"),
            data.get("removed_species"),
        )


class Game:
    """A :class:`State` plus the options it started from and every action taken.

    ``version`` is the record version whose engine plays the game: a game replayed from an
    older record goes on as it was played, and its record keeps that version.
    """

    def __init__(self, options: GameOptions, version: int = RECORD_VERSION) -> None:
        if version not in _ENGINES:
            raise InvalidOptionsError(
                f"record version {version!r} is not supported (this reads 1-{RECORD_VERSION})"
            )
        self.options = options
        self.version = version
        self.state = _ENGINES[version].new_game(
            options.players,
            options.rules,
            options.seed,
            options.first_player,
            options.removed_species,
        )
        self.actions: list[Action] = []

    @classmethod
    def new(
        cls, players: int = 2, preset: str = "standard", seed: int | None = None, **kw: Any
    ) -> Game:
        return cls(GameOptions.make(players, preset, seed, **kw))

    def apply(self, action: Action | str | int, player: int | None = None) -> Action:
        """Check and play an action (see :meth:`State.apply`); returns it as a value."""
        checked = self.state.parse_action(action, player)
        self.state.apply_id(checked.id)
        self.actions.append(checked)
        return checked

    def view(self, player: int) -> PlayerView:
        return view_of(self.state, player)

    def score(self) -> ScoreSheet:
        return score_state(self.state)

    def record(self) -> dict[str, Any]:
        """The game record: options, seed, actions, and the score sheet once the game is over."""
        return {
            "format": RECORD_FORMAT,
            "version": self.version,
            "options": self.options.to_json(),
            "actions": [str(a) for a in self.actions],
            "result": self.score().to_json() if self.state.is_over() else None,
        }

    @classmethod
    def from_record(cls, data: Any) -> Game:
        """Replay a record; raise :class:`InvalidRecordError` at the first thing wrong."""
        if not isinstance(data, dict):
            raise InvalidRecordError(f"a record must be a JSON object, not {type(data).__name__}")
        if data.get("format") != RECORD_FORMAT:
            raise InvalidRecordError(
                f"record format must be {RECORD_FORMAT!r}, not {data.get('format')!r}"
            )
        version = data.get("version")
        if type(version) is not int or version not in _ENGINES:
            raise InvalidRecordError(
                f"record version {version!r} is not supported (this reads 1-{RECORD_VERSION})"
            )
        try:
            options = GameOptions.from_json(data.get("options"))
            game = cls(options, version)  # the deal checks the options
        except InvalidOptionsError as exc:
            raise InvalidRecordError(f"record options: {exc}") from None
        actions = data.get("actions")
        if not isinstance(actions, list):
            raise InvalidRecordError("record actions must be a list of action texts")
        game._replay(actions)
        result = data.get("result")
        if result is not None:
            if not game.state.is_over():
                raise InvalidRecordError(
                    "the record has a result but its actions do not finish the game"
                )
            if result != game.score().to_json():
                raise InvalidRecordError(
                    "the record's result differs from the replayed game's score sheet"
                )
        return game

    def _replay(self, actions: list[Any]) -> None:
        for i, text in enumerate(actions):
            try:
                self.apply(text)
            except PiepmatzError as exc:
                raise InvalidRecordError(f"record action {i + 1} ({text!r}): {exc}") from None


class _StruckAsPicked(State):
    """The engine of record version 1, before the squirrel struck by value (T2.1d): the copy
    picked leaves, seen or blind. Only for games recorded with it."""

    __slots__ = ()

    def _strike(self, seen: list[int], blind: list[int], seed: int) -> int:
        (seen if seed in seen else blind).remove(seed)
        return seed


#: The engine that plays each record version (the loader of an old version replays it as it
#: was played).
_ENGINES: Final[dict[int, type[State]]] = {1: _StruckAsPicked, 2: State}
