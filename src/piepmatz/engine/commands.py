"""``piepmatz engine``: the JSON-lines engine protocol on stdin/stdout."""

from __future__ import annotations

import argparse
import io
import sys
from typing import Any


def register(subparsers: Any) -> None:
    engine = subparsers.add_parser(
        "engine",
        help="the JSON-lines engine protocol on stdin/stdout",
        description="Answer JSON requests, one per line on stdin, with one JSON response per "
        "line on stdout, until the end of input or a 'quit' request. No options: the requests "
        "and responses are described in docs/engine-protocol.md.",
    )
    engine.set_defaults(func=run_engine)


def run_engine(args: argparse.Namespace) -> int:
    from .protocol import serve

    # Bytes that are not UTF-8 reach the protocol as such (surrogates) and get an error, instead
    # of ending the engine with a decoding error.
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="surrogateescape")
    return serve(stdin, sys.stdout)
