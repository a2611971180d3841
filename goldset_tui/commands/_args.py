"""Checks of arguments that several commands share, made once in `goldset_tui.cli.main`."""

from __future__ import annotations

import argparse
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goldset_tui.model import GradeScale

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


def store_scale(text: str) -> GradeScale:
    """``--scale LO-HI`` of a store being made (judge, import --pool): whole grades LO < HI, each
    a key of the judging screen (0-9). InputError, one line, otherwise."""
    from goldset_tui.errors import InputError
    from goldset_tui.model import relevance_scale

    m = re.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*", text)
    if not m or not int(m.group(1)) < int(m.group(2)) <= 9:
        raise InputError(
            None,
            f"--scale {text!r}: expected LO-HI, whole grades from 0 to 9 with LO < HI (each is "
            "a key on the judging screen), e.g. 0-3, 0-4 or 1-5",
        )
    return relevance_scale(int(m.group(1)), int(m.group(2)))
