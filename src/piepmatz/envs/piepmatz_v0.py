"""``piepmatz_v0``: the versioned PettingZoo entry point, as in ``pettingzoo.classic.chess_v6``.

>>> from piepmatz.envs import piepmatz_v0
>>> piepmatz_v0.raw_env(players=4).metadata["name"]
'piepmatz_v0'
"""

from .pettingzoo import env, parallel_env, raw_env

__all__ = ["env", "parallel_env", "raw_env"]
