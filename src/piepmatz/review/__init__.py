"""``piepmatz review``: the game review on the command line — records in, a report out (text,
JSON, a PNG plot). The analysis itself is :mod:`piepmatz.bots.analysis`."""
