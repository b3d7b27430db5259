"""Research environments: PettingZoo, Gymnasium and OpenSpiel bindings (``piepmatz[envs]``).

Import the binding you need; each imports its own framework, nothing is imported here:

- :mod:`piepmatz.envs.piepmatz_v0` (PettingZoo AEC, ``env()`` / ``raw_env()``);
- :mod:`piepmatz.envs.gymnasium` (registers ``Piepmatz-v0`` with Gymnasium);
- :mod:`piepmatz.envs.openspiel` (registers ``python_piepmatz`` with OpenSpiel), and
  :mod:`piepmatz.envs.openspiel_bot`, Piepmatz bots as OpenSpiel bots.

What they share: :mod:`piepmatz.envs.rewards` (the ``reward`` option, from the score sheet) and
:mod:`piepmatz.envs.opponents` (opponents as bots, policies and pools).

All observations are built from :func:`piepmatz.core.view.view_of` only; see
:mod:`piepmatz.envs.encoding` and ``docs/research.md``.
"""
