"""A reinforcement-learning baseline: PPO with action masking, and its policies as bots.

- :mod:`piepmatz.rl.ppo` trains (JAX and Optax; ``piepmatz train``);
- :mod:`piepmatz.rl.policy` is a trained policy: the checkpoint format and the ``ppo:PATH`` bot,
  which needs NumPy only;
- :mod:`piepmatz.rl.curve` measures a checkpoint against bots on fixed deals (the learning curve).

Nothing here is imported by the rest of the package except on demand: ``make_bot("ppo:…")``
imports the policy, ``piepmatz train`` the trainer.
"""
