"""The deal's commitment (core/commitment.py): the seed from a secret and people's parts, and
the check of a finished record that carries them."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from piepmatz.core import Game, GameOptions
from piepmatz.core.commitment import (
    SCHEME,
    DealProof,
    check_part,
    commit,
    new_secret,
    seed_from,
    verify_record,
)

PARTS = (None, "anna-randomness-0001", "ben-randomness-00002")


def _finished(players: int = 3, parts: tuple[str | None, ...] = PARTS) -> dict[str, Any]:
    """A finished game's record as the server writes it: seat 0 a bot, the others people."""
    proof = DealProof(new_secret(), parts)
    game = Game(GameOptions.make(players, seed=proof.seed))
    rng = random.Random(1)
    while not game.state.is_over():
        game.apply(rng.choice(game.state.legal_action_ids()))
    return game.record() | {"deal": proof.to_json([i for i, p in enumerate(parts) if p])}


def _holds(record: Any) -> dict[str, bool]:
    return {check.name: check.holds for check in verify_record(record)}


def test_the_seed_depends_on_the_secret_and_every_part_in_its_seat() -> None:
    secret = "ab" * 32
    seed = seed_from(secret, PARTS)
    assert 0 <= seed < 2**63
    assert seed == seed_from(secret, list(PARTS))
    assert seed != seed_from("cd" * 32, PARTS)
    assert seed != seed_from(secret, (None, "ben-randomness-00002", "anna-randomness-0001"))
    assert seed != seed_from(secret, (None, "anna-randomness-0001", "ben-randomness-00003"))
    # Parts are length-prefixed: moving a character from one part to the next is another seed.
    assert seed_from(secret, ("ab", "c")) != seed_from(secret, ("a", "bc"))
    assert commit(secret) != commit("cd" * 32) and len(commit(secret)) == 64


def test_a_person_s_part_is_url_safe_and_bounded() -> None:
    assert check_part("x" * 16) == "x" * 16
    for bad in ("short", "x" * 129, "has spaces in it!!", None, 12345678901234567):
        with pytest.raises(ValueError, match="16-128 characters") as refused:
            check_part(bad)
        assert str(bad) not in str(refused.value)


def test_a_record_whose_deal_is_as_committed_is_verified() -> None:
    record = _finished()
    assert _holds(record) == {"commitment": True, "parts": True, "seed": True, "replay": True}
    assert record["deal"]["scheme"] == SCHEME and record["deal"]["people"] == [1, 2]


@pytest.mark.parametrize(
    ("tamper", "fails"),
    [
        (lambda r: r["deal"].update(secret="0" * 64), "commitment"),
        (lambda r: r["deal"].update(secret="not hex"), "commitment"),
        (lambda r: r["deal"].update(commitment="f" * 64), "commitment"),
        (lambda r: r["deal"]["parts"].__setitem__(2, "someone-elses-part-0"), "seed"),
        (lambda r: r["deal"]["parts"].__setitem__(2, None), "parts"),
        (lambda r: r["deal"]["parts"].__setitem__(0, "a-bot-has-no-part-00"), "parts"),
        (lambda r: r["deal"].update(parts=["x"]), "parts"),
        (lambda r: r["deal"].update(people="all"), "parts"),
        (lambda r: r["options"].update(seed=r["options"]["seed"] ^ 1), "seed"),
        (lambda r: r["actions"].pop(), "replay"),
        (lambda r: r.update(result=None), "replay"),
    ],
)
def test_a_tampered_record_fails_the_check_it_breaks(tamper: Any, fails: str) -> None:
    record = copy.deepcopy(_finished())
    tamper(record)
    assert _holds(record)[fails] is False


@pytest.mark.parametrize(
    ("deal", "says"),
    [
        ({"chosen": True}, "chose the seed"),
        (None, "carries no deal"),
        ("nonsense", "carries no deal"),
    ],
)
def test_a_record_without_a_commitment_is_not_verified(deal: Any, says: str) -> None:
    record = _finished()
    record["deal"] = deal
    first = verify_record(record)[0]
    assert (first.name, first.holds) == ("deal", False) and says in first.detail


def test_a_record_that_is_no_record_fails_without_raising() -> None:
    for junk in (None, [], "text", {"deal": {"scheme": SCHEME}}):
        checks = verify_record(junk)
        assert checks and not all(c.holds for c in checks)


def test_a_record_with_its_deal_matches_the_record_schema() -> None:
    import json
    from importlib import resources

    import jsonschema

    text = resources.files("piepmatz.core").joinpath("schema/record.schema.json").read_text()
    schema = json.loads(text)
    record = _finished()
    jsonschema.validate(record, schema)
    jsonschema.validate(record | {"deal": {"chosen": True}}, schema)
    record["deal"]["secret"] = "not hex"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(record, schema)
