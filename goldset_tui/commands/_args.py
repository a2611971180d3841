"""Checks of arguments that several commands share, made once in `goldset_tui.cli.main`."""

from __future__ import annotations

import argparse

# Polars' and random's seeds are unsigned 64-bit, and some commands offset the seed per batch or
# per query: 2**62 leaves room for that. A negative seed used to reach Polars and end in an
# OverflowError traceback (`goldset compare --seed -1`, `goldset report --seed -1`).
MAX_SEED = 2**62


def seed_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with ``args.seed`` (one line), or None when it is absent or fine."""
    seed = getattr(args, "seed", None)
    if seed is None or 0 <= seed <= MAX_SEED:
        return None
    return f"--seed {seed}: expected a whole number from 0 to {MAX_SEED}"
