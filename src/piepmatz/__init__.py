"""Piepmatz (Little Songbirds): a faithful, fast software edition of the card game."""

__version__ = "0.1.0"
