"""Typed errors. All are ``ValueError`` so that callers catching bad input catch them all."""

from __future__ import annotations


class PiepmatzError(ValueError):
    """Base class of every error the engine raises for bad input.

    The message is English. Where a player may read it, the error also says what was wrong as
    data: ``reason``, an id an interface translates (``not_in_hand``), and ``params``, the values
    that fill it (``bird="BL5m"``, ``rule="T1.1"``).
    """

    def __init__(self, message: str, reason: str | None = None, **params: object) -> None:
        super().__init__(message)
        self.reason = reason
        self.params = params


class InvalidOptionsError(PiepmatzError):
    """Options that describe no game: a player count, seat, seed, species, preset or rule flag
    the game does not have."""


class InvalidActionError(PiepmatzError):
    """The text or id is not an action at all (syntax)."""


class IllegalActionError(PiepmatzError):
    """A well-formed action that the rules forbid in this state; the message names the rule."""


class GameOverError(IllegalActionError):
    """An action was given after the game ended."""


class InvalidStateError(PiepmatzError):
    """A state document that is malformed or describes an impossible position."""


class InvalidRecordError(PiepmatzError):
    """A game record that is malformed or does not replay."""


class InvalidJSONError(PiepmatzError):
    """Text from outside that is not JSON, or JSON this project does not accept (NaN, Infinity,
    nesting deeper than the parser allows, an integer too long to convert)."""
