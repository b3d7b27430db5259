"""Research environments: PettingZoo, Gymnasium and OpenSpiel bindings (``piepmatz[envs]``).

Import the binding you need; each imports its own framework, nothing is imported here:

- :mod:`piepmatz.envs.piepmatz_v0` (PettingZoo AEC, ``env()`` / ``raw_env()``);
- :mod:`piepmatz.envs.gymnasium` (registers ``Piepmatz-v0`` with Gymnasium);
- :mod:`piepmatz.envs.openspiel` (registers ``python_piepmatz`` with OpenSpiel).

All observations are built from :func:`piepmatz.core.view.view_of` only; see
:mod:`piepmatz.envs.encoding` and ``docs/research.md``.
"""
