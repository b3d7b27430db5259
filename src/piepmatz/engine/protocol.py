"""The engine protocol: JSON lines on stdin/stdout (``docs/engine-protocol.md``).

One request per line, one response per line. Every request is an object with a ``type``; an
optional ``id`` is echoed back, an optional ``viewer`` seat answers as that seat may know (events
filtered by :func:`piepmatz.core.view.filter_event`, no ``state``). A bad request gets an
``error`` response and the engine keeps running with its state unchanged — much as UCI lets any
program drive a chess engine.

>>> engine = Engine()
>>> engine.handle({"type": "new", "players": 2, "seed": 1})["type"]
'ok'
>>> engine.handle({"type": "apply", "action": "draw deck"})["message"].split(";")[0]
"draw deck: a 'draw deck' is not possible now, the decision is a 'play'"
"""

from __future__ import annotations

import json
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
    score_view,
    state_from_json,
    state_to_json,
    view_of,
    view_to_json,
)
from piepmatz.core.actions import Action
from piepmatz.core.scoring import score_state
from piepmatz.core.view import filter_event

PROTOCOL_VERSION: Final = 1
MAX_LINE: Final = 1 << 20  # a request longer than this many characters is refused undecoded


class RequestError(ValueError):
    """A request that is not well formed."""


def spell(value: Any) -> str:
    """A value as the request wrote it, in JSON (``true``, ``null``, ``"x"``), for messages."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _integer(request: dict[str, Any], key: str, what: str) -> int | None:
    """An optional integer field; a JSON ``true`` is not a number."""
    value = request.get(key)
    if value is not None and type(value) is not int:
        raise RequestError(f"'{key}' must be {what}, not {spell(value)}")
    return value


class Engine:
    """Holds one game and answers requests; never raises for bad input."""

    def __init__(self) -> None:
        self.game: Game | None = None
        self.state: State | None = None
        #: The seat the request at hand is answered for (its ``viewer``), or None: everything.
        self.viewer: int | None = None

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
                choose = f"choose one of {', '.join(sorted(_HANDLERS))}"
                if "type" not in request:
                    raise RequestError(f"the request has no 'type': {choose}")
                raise RequestError(f"unknown request type {json.dumps(kind)}: {choose}")
            self.viewer = self._viewer(request)
            response = handler(self, request)
            response = {"type": "ok", "request": kind, **response}
        except (PiepmatzError, RequestError) as exc:
            response = {"type": "error", "message": str(exc)}
        finally:
            self.viewer = None
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

    def _viewer(self, request: dict[str, Any]) -> int | None:
        viewer = request.get("viewer")
        if viewer is None:
            return None
        players = self.state.num_players if self.state is not None else 4
        if request.get("type") in ("new", "replay", "load"):
            players = 4  # checked against the new game once it is made
        if type(viewer) is not int or not 0 <= viewer < players:
            raise RequestError(f"'viewer' must be a seat 0-{players - 1}, not {spell(viewer)}")
        return viewer

    def _hidden_from_viewer(self, what: str) -> None:
        if self.viewer is not None:
            raise RequestError(
                f"'{what}' shows the hidden cards: not for a request with a 'viewer' "
                "(ask for 'view')"
            )

    def _position(self) -> dict[str, Any]:
        s = self._need_state()
        # A seat that is not to act does not see the other's options (they name hand cards).
        mine = self.viewer is None or self.viewer == s.current_player
        return {
            "phase": s.phase_name,
            "current_player": s.current_player,
            "turn": s.turn,
            "legal": [str(a) for a in s.legal_actions()] if mine else [],
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
            raise RequestError(f"'preset' must be a preset name, not {spell(preset)}")
        players = _integer(request, "players", "2, 3 or 4")
        seed = _integer(request, "seed", "an integer")
        first = _integer(request, "first_player", "a seat")
        removed = request.get("removed_species")
        if removed is not None and not isinstance(removed, str):
            raise RequestError(f"'removed_species' must be a species code, not {spell(removed)}")
        try:
            options = GameOptions.make(
                players=2 if players is None else players,
                preset=preset,
                seed=seed,
                first_player=first,
                removed_species=removed,
                **flags,
            )
            game = Game(options)
        except PiepmatzError:
            raise
        except ValueError as exc:  # the options' own checks: bad input, said as they say it
            raise RequestError(str(exc)) from None
        if self.viewer is not None and self.viewer >= options.players:
            raise RequestError(f"'viewer' must be a seat 0-{options.players - 1}")
        self.game, self.state = game, game.state
        shown = options.to_json()
        if self.viewer is not None:
            del shown["seed"]  # the seed replays every hidden card
        return {"options": shown, **self._position()}

    def _load(self, request: dict[str, Any]) -> dict[str, Any]:
        if "state" not in request:
            raise RequestError("'load' needs a 'state' (a state document, as 'state' returns)")
        state = state_from_json(request["state"])
        if self.viewer is not None and self.viewer >= state.num_players:
            raise RequestError(f"'viewer' must be a seat 0-{state.num_players - 1}")
        self.game, self.state = None, state
        return self._position()

    def _replay(self, request: dict[str, Any]) -> dict[str, Any]:
        if "record" not in request:
            raise RequestError("'replay' needs a 'record' (a game record, as 'record' returns)")
        game = Game.from_record(request["record"])
        if self.viewer is not None and self.viewer >= game.options.players:
            raise RequestError(f"'viewer' must be a seat 0-{game.options.players - 1}")
        self.game, self.state = game, game.state
        return self._position()

    def _legal(self, request: dict[str, Any]) -> dict[str, Any]:
        s = self._need_state()
        mine = self.viewer is None or self.viewer == s.current_player
        return {
            "current_player": s.current_player,
            "actions": [{"id": a.id, "text": str(a)} for a in s.legal_actions()] if mine else [],
        }

    def _apply(self, request: dict[str, Any]) -> dict[str, Any]:
        s = self._need_state()
        if "action" not in request:
            raise RequestError("'apply' needs an 'action' (text such as 'play BL5m 2', or an id)")
        action = request["action"]
        if not isinstance(action, str | int) or isinstance(action, bool):
            raise RequestError(f"'action' must be a text or an integer id, not {spell(action)}")
        player = _integer(request, "player", "a seat")
        if self.viewer is not None:
            if player is not None and player != self.viewer:
                raise RequestError(f"seat {self.viewer} may act for itself only, not seat {player}")
            # Checked as a 'player' is, before the action: refused for the seat's turn, the
            # message cannot tell whether the action is in another seat's hand.
            player = self.viewer
        before = len(s.events) if s.events is not None else 0
        if self.game is not None:
            played: Action = self.game.apply(action, player)
        else:
            played = s.parse_action(action, player)
            s.apply_id(played.id)
        new = (s.events or [])[before:]
        if self.viewer is not None:
            new = [filter_event(e, self.viewer) for e in new]
        return {
            "action": str(played),
            "events": [event_to_json(e) for e in new],
            **self._position(),
        }

    def _view(self, request: dict[str, Any]) -> dict[str, Any]:
        s = self._need_state()
        player = request.get("player", self.viewer)
        if type(player) is not int or not 0 <= player < s.num_players:
            raise RequestError(
                f"'player' must be a seat 0-{s.num_players - 1}, not {spell(player)}"
            )
        if self.viewer is not None and player != self.viewer:
            raise RequestError(f"seat {self.viewer} may see its own view only, not seat {player}'s")
        return {"view": view_to_json(view_of(s, player))}

    def _state(self, request: dict[str, Any]) -> dict[str, Any]:
        s = self._need_state()
        self._hidden_from_viewer("state")
        return {"state": state_to_json(s)}

    def _score(self, request: dict[str, Any]) -> dict[str, Any]:
        s = self._need_state()
        if self.viewer is None or s.is_over():
            sheet = score_state(s)
        else:
            sheet = score_view(view_of(s, self.viewer))
        return {"score": sheet.to_json()}

    def _record(self, request: dict[str, Any]) -> dict[str, Any]:
        s = self._need_state()
        if not s.is_over():
            self._hidden_from_viewer("record")
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


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    twice = sorted({key for key in keys if keys.count(key) > 1})
    if twice:
        raise InvalidJSONError(f"a key given twice in one object: {', '.join(map(spell, twice))}")
    return dict(pairs)


def decode(line: str) -> Any:
    """One request line, decoded; :class:`InvalidJSONError` says what is wrong with it."""
    if len(line) > MAX_LINE:
        raise InvalidJSONError(f"request longer than {MAX_LINE} characters")
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:  # bytes that were not UTF-8, read with surrogateescape
        raise InvalidJSONError("not JSON: not UTF-8 text") from None
    request = parse_json(line)
    # Strict JSON read, now the keys: which of two values a request meant is not guessed.
    json.loads(line, object_pairs_hook=_no_duplicates)
    return request


def encode(response: dict[str, Any]) -> str:
    """One response line, strict JSON."""
    try:
        return dump_json(response)
    except ValueError as exc:  # a response that is not JSON is a bug: say so, keep serving
        return dump_json({"type": "error", "message": f"the engine could not answer: {exc}"})


def serve(stdin: IO[str], stdout: IO[str]) -> int:
    """Answer requests line by line until end of input or a ``quit`` request; a blank line
    gets no response."""
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
                # Answered as every request is: its id echoed.
                said = {"type": "ok", "request": "quit"}
                if request.get("id") is not None:
                    said["id"] = request["id"]
                stdout.write(encode(said) + "\n")
                stdout.flush()
                break
            response = engine.handle(request)
        stdout.write(encode(response) + "\n")
        stdout.flush()
    return 0
