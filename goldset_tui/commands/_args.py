"""Argument types shared by several commands, checked by argparse before any work starts."""

from __future__ import annotations

import argparse

# Polars' and random's seeds are unsigned 64-bit, and some commands offset the seed per batch or
# per query: 2**62 leaves room for that. A negative seed used to reach Polars and end in an
# OverflowError traceback (`goldset compare --seed -1`).
MAX_SEED = 2**62


def seed(text: str) -> int:
    """A random seed: a whole number from 0 to MAX_SEED."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"{value} is outside 0 to {MAX_SEED}")
    return value
