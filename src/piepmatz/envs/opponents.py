"""Opponents that the environments play themselves: bots, policies over observations, pools.

The Gymnasium environment's ``opponents`` and the PettingZoo environment's ``opponents`` take,
for each seat they fill, any of:

- a bot spec (``"heuristic"``, ``"ismcts:time=0.5"``, ``"ppo:run/final.npz"``;
  :func:`piepmatz.bots.make_bot`);
- a bot: any object with a ``name`` and ``choose(view, legal, rng)`` (:class:`piepmatz.bots.Bot`);
- a policy: a callable given the observation a learner in that seat would get (the dict of
  ``observation`` and ``action_mask``) that returns an action id (:class:`ObservationPolicy`);
- an :class:`OpponentPool`, from which the seat draws one of the above at every reset (self-play
  against past checkpoints).

Whatever it is, it sees only its seat's view, and what it returns is held to the protocol
(:func:`piepmatz.bots.base.decide`): an integer among the legal ids.

>>> import numpy as np
>>> def first_legal(observation):
...     return int(np.flatnonzero(observation["action_mask"])[0])
>>> pool = OpponentPool(["random", first_legal])
>>> [member.name for member in pool.members]
['random', 'first_legal']
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeAlias

from piepmatz.bots import Bot, make_bot
from piepmatz.core.view import PlayerView

from .encoding import action_mask, encode

#: A policy over observations: ``{"observation": …, "action_mask": …}`` to an action id.
Policy: TypeAlias = Callable[[dict[str, Any]], Any]
#: What fills one seat once: a bot spec, a bot or a policy.
Member: TypeAlias = str | Bot | Policy


class ObservationPolicy:
    """A policy over the environments' observations, playing as a bot.

    Each decision it gets the observation a learner would get in its seat, built from that
    seat's view (:func:`~piepmatz.envs.encoding.encode` and
    :func:`~piepmatz.envs.encoding.action_mask`), and returns an action id. A policy that samples
    brings its own generator.
    """

    def __init__(self, policy: Policy, name: str | None = None) -> None:
        if not callable(policy):
            raise ValueError(f"a policy must be callable, not {policy!r}")
        self.policy = policy
        self.name: str = name or str(getattr(policy, "__name__", type(policy).__name__))

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        observation = {"observation": encode(view), "action_mask": action_mask(legal)}
        choice: int = self.policy(observation)
        return choice


def as_bot(member: Member) -> Bot:
    """The bot that plays ``member``: a spec built, a bot as it is, a policy wrapped."""
    if isinstance(member, str):
        return make_bot(member)  # an unknown name raises ValueError
    if isinstance(member, type):
        raise ValueError(f"give an opponent bot, not its class {member.__name__}")
    if callable(getattr(member, "choose", None)) and isinstance(getattr(member, "name", None), str):
        return member  # type: ignore[return-value]
    if callable(member):
        return ObservationPolicy(member)
    raise ValueError(
        f"an opponent is a bot spec, a bot (name and choose), a policy over observations or an "
        f"OpponentPool, not {member!r}"
    )


class OpponentPool:
    """Opponents to draw from: every seat the pool fills draws one at every reset.

    ``weights`` (one per member, default equal) set how often each is drawn; :meth:`add` adds
    members while training goes on, as checkpoints are saved. The draws follow the
    environment's seed.
    """

    def __init__(self, members: Iterable[Member], weights: Iterable[float] | None = None) -> None:
        self.members: list[Bot] = []
        self.weights: list[float] = []
        given = list(members)
        chances = [1.0] * len(given) if weights is None else [float(w) for w in weights]
        if len(chances) != len(given):
            raise ValueError(f"give one weight per member: {len(given)} members, {len(chances)}")
        for member, weight in zip(given, chances, strict=True):
            self.add(member, weight)

    def add(self, member: Member, weight: float = 1.0) -> None:
        """Add a member (a spec, a bot or a policy) drawn with ``weight``."""
        if isinstance(member, OpponentPool):
            raise ValueError("a pool's members are bots, specs or policies, not pools")
        if not weight > 0:
            raise ValueError(f"a weight must be positive, not {weight!r}")
        self.members.append(as_bot(member))
        self.weights.append(float(weight))

    def draw(self, rng: random.Random) -> Bot:
        """One member, drawn by weight."""
        if not self.members:
            raise ValueError("the opponent pool is empty: add a member before reset()")
        return rng.choices(self.members, self.weights)[0]

    def __repr__(self) -> str:
        return f"OpponentPool({[m.name for m in self.members]!r}, weights={self.weights!r})"


#: What fills one seat for a whole environment: a bot, or a pool to draw from at every reset.
Seat: TypeAlias = Bot | OpponentPool
#: The environments' ``opponents`` option: one for every seat it fills, or one per seat.
Opponents: TypeAlias = Member | OpponentPool | Sequence[Member | OpponentPool]


def seat_opponents(opponents: Opponents, seats: int) -> list[Seat]:
    """The environments' ``opponents`` option, one entry per seat it fills.

    One opponent (a spec, a bot, a policy or a pool) fills every seat, a spec building a bot per
    seat; a list or tuple gives one per seat, in seat order.
    """
    if isinstance(opponents, list | tuple):
        if len(opponents) != seats:
            raise ValueError(f"give one opponent or {seats} of them, not {len(opponents)}")
        return [as_seat(o) for o in opponents]
    if isinstance(opponents, str):
        return [as_bot(opponents) for _ in range(seats)]  # as many bots as seats, as always
    one = as_seat(opponents)
    return [one] * seats


def as_seat(opponent: Any) -> Seat:
    """What fills one seat: a pool as it is, anything else as a bot (:func:`as_bot`)."""
    if isinstance(opponent, OpponentPool):
        return opponent
    return as_bot(opponent)


def draw_opponents(seats: Sequence[Seat], rng: random.Random) -> list[Bot]:
    """The bots of one episode: each pool drawn from, every other seat's bot as it is."""
    return [s.draw(rng) if isinstance(s, OpponentPool) else s for s in seats]
