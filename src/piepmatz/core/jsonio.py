"""JSON from and to the outside world: strict in both directions.

Python's ``json`` accepts and writes ``NaN`` and ``Infinity``, which strict parsers (JavaScript's
``JSON.parse``, Go's) refuse, and its decoder fails on hostile input in ways that are not
``JSONDecodeError`` (deep nesting, very long integers, undecodable bytes). Every reader of files
and requests goes through :func:`parse_json`, so each of those ends in one
:class:`~piepmatz.core.errors.InvalidJSONError` that says what was wrong.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from .errors import InvalidJSONError


def _refuse_constant(name: str) -> Any:
    raise InvalidJSONError(f"not strict JSON: {name} is not a number JSON allows")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise InvalidJSONError(f"not strict JSON: the number {text[:40]} is out of range")
    return value


def parse_json(text: str | bytes) -> Any:
    """``json.loads`` for input from outside; raises only :class:`InvalidJSONError`."""
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except InvalidJSONError:
        raise
    except json.JSONDecodeError as exc:
        raise InvalidJSONError(f"not JSON: {exc}") from None
    except RecursionError:
        raise InvalidJSONError("not JSON this program reads: nested too deeply") from None
    except UnicodeDecodeError as exc:
        raise InvalidJSONError(f"not JSON: not UTF-8 text ({exc.reason})") from None
    except ValueError:  # the one left: an integer of more digits than Python converts
        raise InvalidJSONError("not JSON this program reads: a number too long to read") from None


def read_json(path: str | Path) -> Any:
    """The JSON document in the file at ``path``; ``OSError`` if it cannot be read."""
    return parse_json(Path(path).read_bytes())


def dump_json(value: Any, **options: Any) -> str:
    """``json.dumps`` that never writes ``NaN`` or ``Infinity`` (``ValueError`` instead)."""
    return json.dumps(value, allow_nan=False, **options)
