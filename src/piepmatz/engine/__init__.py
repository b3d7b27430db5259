"""The engine protocol (``piepmatz engine``): JSON lines on stdin/stdout, an interface that
translates requests into calls of :mod:`piepmatz.core` and holds no rules."""
