"""The rules as JAX functions, for learners that run thousands of games inside one compiled
function (``piepmatz[jax]``): :class:`~piepmatz.jax.env.PiepmatzEnv`, a ``pgx.Env``.

A second implementation of :mod:`piepmatz.core`, with the same action ids and observation
encoding as the other environments (:mod:`piepmatz.envs.encoding`); the differential test holds
it to the core. Import :mod:`piepmatz.jax.env` (or this package) only where JAX is installed.
"""

from piepmatz.jax.env import PiepmatzEnv, State

__all__ = ["PiepmatzEnv", "State"]
