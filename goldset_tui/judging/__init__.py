"""A labeller's judging session, without a terminal.

Everything the judging screen decides lives here so it can be tested (and scripted) without
Textual: the blind order of each query's candidates, where to resume, what "next" means after a
grade, progress, pace, undo, and near-duplicate groups. The screen only draws what this says.

Durability is the writer's job (``Project.writer(labeller)``: ``record`` fsyncs before it
returns). The session changes its own state only *after* the writer returned, so anything the
screen shows as saved is on disk.

A pool of a million rows is sorted once by query (vectorised) and sliced per query on demand;
nothing loops over all rows in Python.

The parts: ``order`` (the blind order), ``pace``, ``state`` (the indexed pool, grades, cursor),
``duplicates`` (near-duplicate groups), ``repeats`` (blind repeats) and ``session``
(:class:`JudgingSession`, what each key does). Import from here: ``from goldset_tui.judging
import JudgingSession``.
"""

from __future__ import annotations

from goldset_tui.judging.order import blind_order, blind_seed
from goldset_tui.judging.pace import (
    PACE_MAX_GAP_SECONDS,
    PACE_MIN_JUDGMENTS,
    PACE_MIN_SECONDS,
    PACE_WINDOW,
)
from goldset_tui.judging.repeats import REPEAT_EVERY
from goldset_tui.judging.session import JudgingSession
from goldset_tui.judging.state import VIEW_CACHE, Candidate, Step, Writer

__all__ = [
    "PACE_MAX_GAP_SECONDS",
    "PACE_MIN_JUDGMENTS",
    "PACE_MIN_SECONDS",
    "PACE_WINDOW",
    "REPEAT_EVERY",
    "VIEW_CACHE",
    "Candidate",
    "JudgingSession",
    "Step",
    "Writer",
    "blind_order",
    "blind_seed",
]
