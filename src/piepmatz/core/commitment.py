"""A deal nobody could choose: the seed of an online game from a commitment and people's parts.

When a table is opened the server draws a secret and shows everyone its commitment (a salted
SHA-256 of it); each person adds a part of their own randomness when they sit down; once the
last seat is taken the deal's seed is derived from the secret and every part. When the game is
over the record carries the secret and the parts (a :class:`DealProof`), and
:func:`verify_record` checks that the secret is the one committed to, that every person's part
went in and that the record replays to its result.

>>> proof = DealProof("a" * 64, (None, "first-persons-part", "second-persons-part"))
>>> proof.commitment == commit("a" * 64)
True
>>> proof.seed == seed_from("a" * 64, [None, "first-persons-part", "second-persons-part"])
True
>>> 0 <= proof.seed < 2**63
True
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: The name of this derivation, part of every hash: a later scheme gets a new name.
SCHEME = "piepmatz-deal-1"
#: A person's part: 16-128 characters of URL-safe base64 or hex (the browser sends 43: 32
#: random bytes).
PART = re.compile(r"[A-Za-z0-9_-]{16,128}")
_SECRET = re.compile(r"[0-9a-f]{64}")


def new_secret() -> str:
    """The server's part: 256 bits from :mod:`secrets`, as 64 hex digits."""
    return secrets.token_hex(32)


def commit(secret: str) -> str:
    """The commitment shown before anyone sits down: SHA-256 of the scheme's name and the
    secret (the secret's 256 random bits are its own salt)."""
    return hashlib.sha256(f"{SCHEME}:commit:{secret}".encode()).hexdigest()


def seed_from(secret: str, parts: Sequence[str | None]) -> int:
    """The deal's seed (0 <= seed < 2**63) from the secret and each seat's part, in seat order
    (``None`` at a bot's seat or where a person gave none). Each part is length-prefixed, so no
    two lists of parts hash alike."""
    digest = hashlib.sha256(f"{SCHEME}:seed:{secret}".encode())
    for part in parts:
        data = (part or "").encode()
        digest.update(len(data).to_bytes(2, "big") + data)
    return int.from_bytes(digest.digest()[:8], "big") >> 1


def check_part(part: Any) -> str:
    """A person's part as sent; raises ``ValueError`` saying what it must be (never echoing)."""
    if not isinstance(part, str) or not PART.fullmatch(part):
        raise ValueError(
            "a part of the deal is 16-128 characters of letters, digits, '-' and '_' "
            "(e.g. 32 random bytes in URL-safe base64)"
        )
    return part


@dataclass(frozen=True)
class DealProof:
    """What a finished online game's record says of its deal: the server's secret and, seat by
    seat, the part each person added (``None`` at a bot's seat or where a person gave none)."""

    secret: str
    parts: tuple[str | None, ...]

    @property
    def commitment(self) -> str:
        return commit(self.secret)

    @property
    def seed(self) -> int:
        return seed_from(self.secret, self.parts)

    def to_json(self, people: Sequence[int]) -> dict[str, Any]:
        """The record's ``deal`` entry; ``people`` are the seats of persons (the rest bots)."""
        return {
            "scheme": SCHEME,
            "commitment": self.commitment,
            "secret": self.secret,
            "people": list(people),
            "parts": list(self.parts),
        }


@dataclass(frozen=True)
class Check:
    """One thing :func:`verify_record` checked, and whether it holds."""

    name: str
    holds: bool
    detail: str


def verify_record(record: Any) -> list[Check]:
    """Check a finished online game's record: the deal's commitment, every person's part, the
    seed derived from them, and the replay. Never raises for a bad record: a check fails and
    says why."""
    from .errors import PiepmatzError
    from .game import Game

    deal = record.get("deal") if isinstance(record, dict) else None
    checks: list[Check] = []
    if not isinstance(deal, dict) or deal.get("scheme") != SCHEME:
        chosen = isinstance(deal, dict) and deal.get("chosen") is True
        detail = (
            "its only person chose the seed (a table nobody else sat at)"
            if chosen
            else f"the record carries no deal of scheme {SCHEME!r}: nothing shows who chose it"
        )
        checks.append(Check("deal", False, detail))
    else:
        checks += _check_deal(deal, record)
    try:
        game = Game.from_record(record)
    except PiepmatzError as exc:
        checks.append(Check("replay", False, str(exc)))
    else:
        if record.get("result") is None:
            checks.append(Check("replay", False, "the record has no result: the game is not over"))
        else:
            moves = len(game.actions)
            checks.append(Check("replay", True, f"{moves} actions replay to the record's result"))
    return checks


def _check_deal(deal: dict[str, Any], record: dict[str, Any]) -> list[Check]:
    secret, commitment = deal.get("secret"), deal.get("commitment")
    parts, people = deal.get("parts"), deal.get("people")
    if not isinstance(secret, str) or not _SECRET.fullmatch(secret):
        return [Check("commitment", False, "the deal's secret is not 64 hex digits")]
    if not isinstance(commitment, str) or not hmac.compare_digest(commit(secret), commitment):
        return [Check("commitment", False, "the secret does not match the commitment")]
    out = [Check("commitment", True, f"the secret matches the commitment {commitment[:16]}…")]
    options = record.get("options")
    players = options.get("players") if isinstance(options, dict) else None
    if (
        not isinstance(parts, list)
        or not isinstance(people, list)
        or len(parts) != players
        or not all(p is None or isinstance(p, str) for p in parts)
        or not all(type(i) is int and 0 <= i < len(parts) for i in people)
    ):
        return [*out, Check("parts", False, "the deal's parts are not one per seat")]
    missing = [i for i in people if not parts[i]]
    extra = [i for i, p in enumerate(parts) if p and i not in people]
    if missing or extra:
        said = [f"seat {i + 1}'s person added no part" for i in missing]
        said += [f"seat {i + 1} is a bot's and has a part" for i in extra]
        out.append(Check("parts", False, "; ".join(said)))
    elif len(people) == 1:
        # The server drew its secret after it saw this part (both came with the one request
        # that opened the table): the commitment binds it to nothing.
        out.append(Check("parts", True, f"seat {people[0] + 1}'s part went in (the only person)"))
    else:
        seats = ", ".join(str(i + 1) for i in people)
        out.append(Check("parts", True, f"a part from every person (seats {seats}) went in"))
    seed = seed_from(secret, parts)
    if isinstance(options, dict) and options.get("seed") == seed:
        out.append(Check("seed", True, f"the deal's seed {seed} comes from the secret and parts"))
    else:
        out.append(Check("seed", False, "the record's seed is not the one the parts give"))
    return out


__all__ = [
    "PART",
    "SCHEME",
    "Check",
    "DealProof",
    "check_part",
    "commit",
    "new_secret",
    "seed_from",
    "verify_record",
]
