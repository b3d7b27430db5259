"""The engine protocol: JSON lines on stdin/stdout (``docs/engine-protocol.md``).

One request per line, one response per line. Every request is an object with a ``type``; an
optional ``id`` is echoed back. A bad request gets an ``error`` response and the engine keeps
running with its state unchanged — much as UCI lets any program drive a chess engine.

>>> engine = Engine()
>>> engine.handle({"type": "new", "players": 2, "seed": 1})["type"]
'ok'
>>> engine.handle({"type": "apply", "action": "draw deck"})["message"].split(";")[0]
"draw deck: a 'draw deck' is not possible now, the decision is a 'play'"
"""

from __future__ import annotations

from typing import IO, Any, Final

from piepmatz import __version__
from piepmatz.core import (
    NUM_ACTIONS,
    PRESETS,
    Game,
    GameOptions,
    InvalidJSONError,
    PiepmatzError,
    State,
    dump_json,
    event_to_json,
    parse_json,
    state_from_json,
    state_to_json,
    view_of,
    view_to_json,
)
from piepmatz.core.actions import Action
from piepmatz.core.scoring import score_state

PROTOCOL_VERSION: Final = 1
MAX_LINE: Final = 1 << 20  # a request longer than this many characters is refused undecoded


class RequestError(ValueError):
    """A request that is not well formed."""


class Engine:
    """Holds one game and answers requests; never raises for bad input."""

    def __init__(self) -> None:
        self.game: Game | None = None
        self.state: State | None = None

    # -------------------------------------------------------------- dispatch

    def handle(self, request: Any) -> dict[str, Any]:
        """Answer one decoded request."""
        rid = request.get("id") if isinstance(request, dict) else None
        try:
            if not isinstance(request, dict):
                raise RequestError("a request must be a JSON object with a 'type'")
            kind = request.get("type")
            handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
            if handler is None:
                raise RequestError(
                    f"unknown request type {kind!r}: choose one of {', '.join(sorted(_HANDLERS))}"
                )
            response = handler(self, request)
            response = {"type": "ok", "request": kind, **response}
        except (PiepmatzError, RequestError) as exc:
            response = {"type": "error", "message": str(exc)}
        except (ValueError, TypeError, KeyError) as exc:
            response = {"type": "error", "message": f"bad request: {exc}"}
        if rid is not None:
            response["id"] = rid
        return response

    def handle_line(self, line: str) -> dict[str, Any]:
        """Answer one request line."""
        try:
            request = decode(line)
        except InvalidJSONError as exc:
            return {"type": "error", "message": str(exc)}
        return self.handle(request)

    def _need_state(self) -> State:
        if self.state is None:
            raise RequestError("no game: send a 'new', 'load' or 'replay' request first")
        return self.state

    def _position(self) -> dict[str, Any]:
        s = self._need_state()
        return {
            "phase": s.phase_name,
            "current_player": s.current_player,
            "turn": s.turn,
            "legal": [str(a) for a in s.legal_actions()],
        }

    # -------------------------------------------------------------- requests

    def _info(self, request: dict[str, Any]) -> dict[str, Any]:
        return {
            "engine": "piepmatz",
            "version": __version__,
            "protocol": PROTOCOL_VERSION,
            "presets": {name: rules.to_json() for name, rules in PRESETS.items()},
            "num_actions": NUM_ACTIONS,
        }

    def _new(self, request: dict[str, Any]) -> dict[str, Any]:
        flags = request.get("flags", {})
        if not isinstance(flags, dict):
            raise RequestError("'flags' must be an object of rule flags")
        for key in ("players", "preset", "seed", "first_player", "removed_species"):
            if key in flags:
                raise RequestError(f"{key!r} is not a rule flag: give it beside 'flags'")
        preset = request.get("preset", "standard")
        if not isinstance(preset, str):
            raise RequestError(f"'preset' must be a preset name, not {type(preset).__name__}")
        options = GameOptions.make(
            players=request.get("players", 2),
            preset=preset,
            seed=request.get("seed"),
            first_player=request.get("first_player"),
            removed_species=request.get("removed_species"),
            **flags,
        )
        game = Game(options)
        self.game, self.state = game, game.state
        return {"options": options.to_json(), **self._position()}

    def _load(self, request: dict[str, Any]) -> dict[str, Any]:
        if "state" not in request:
            raise RequestError("'load' needs a 'state' (a state document, as 'state' returns)")
        state = state_from_json(request["state"])
        self.game, self.state = None, state
        return self._position()

    def _replay(self, request: dict[str, Any]) -> dict[str, Any]:
        if "record" not in request:
            raise RequestError("'replay' needs a 'record' (a game record, as 'record' returns)")
        game = Game.from_record(request["record"])
        self.game, self.state = game, game.state
        return self._position()

    def _legal(self, request: dict[str, Any]) -> dict[str, Any]:
        s = self._need_state()
        return {
            "current_player": s.current_player,
            "actions": [{"id": a.id, "text": str(a)} for a in s.legal_actions()],
        }

    def _apply(self, request: dict[str, Any]) -> dict[str, Any]:
        s = self._need_state()
        if "action" not in request:
            raise RequestError("'apply' needs an 'action' (text such as 'play BL5m 2', or an id)")
        action = request["action"]
        if not isinstance(action, str | int) or isinstance(action, bool):
            raise RequestError("'action' must be a text or an integer id")
        player = request.get("player")
        if player is not None and type(player) is not int:
            raise RequestError("'player' must be an integer seat")
        before = len(s.events) if s.events is not None else 0
        if self.game is not None:
            played: Action = self.game.apply(action, player)
        else:
            played = s.parse_action(action, player)
            s.apply_id(played.id)
        events = [event_to_json(e) for e in (s.events or [])[before:]]
        return {"action": str(played), "events": events, **self._position()}

    def _view(self, request: dict[str, Any]) -> dict[str, Any]:
        s = self._need_state()
        player = request.get("player")
        if type(player) is not int or not 0 <= player < s.num_players:
            raise RequestError(f"'player' must be a seat 0-{s.num_players - 1}")
        return {"view": view_to_json(view_of(s, player))}

    def _state(self, request: dict[str, Any]) -> dict[str, Any]:
        return {"state": state_to_json(self._need_state())}

    def _score(self, request: dict[str, Any]) -> dict[str, Any]:
        s = self._need_state()
        sheet = score_state(s)
        return {"score": sheet.to_json()}

    def _record(self, request: dict[str, Any]) -> dict[str, Any]:
        self._need_state()
        if self.game is None:
            raise RequestError("a loaded state has no record: records start from 'new' or 'replay'")
        return {"record": self.game.record()}


_HANDLERS = {
    "info": Engine._info,
    "new": Engine._new,
    "load": Engine._load,
    "replay": Engine._replay,
    "legal": Engine._legal,
    "apply": Engine._apply,
    "view": Engine._view,
    "state": Engine._state,
    "score": Engine._score,
    "record": Engine._record,
}


def decode(line: str) -> Any:
    """One request line, decoded; :class:`InvalidJSONError` says what is wrong with it."""
    if len(line) > MAX_LINE:
        raise InvalidJSONError(f"request longer than {MAX_LINE} characters")
    return parse_json(line)


def encode(response: dict[str, Any]) -> str:
    """One response line, strict JSON."""
    try:
        return dump_json(response)
    except ValueError as exc:  # a response that is not JSON is a bug: say so, keep serving
        return dump_json({"type": "error", "message": f"the engine could not answer: {exc}"})


def serve(stdin: IO[str], stdout: IO[str]) -> int:
    """Answer requests line by line until end of input or a ``quit`` request."""
    engine = Engine()
    for line in stdin:
        if not line.strip():
            continue
        try:
            request = decode(line)
        except InvalidJSONError as exc:
            response = {"type": "error", "message": str(exc)}
        else:
            if isinstance(request, dict) and request.get("type") == "quit":
                stdout.write(encode({"type": "ok", "request": "quit"}) + "\n")
                stdout.flush()
                break
            response = engine.handle(request)
        stdout.write(encode(response) + "\n")
        stdout.flush()
    return 0
