"""The read side of a store: one labeller's events from journal and parts, and the per-labeller
summary the home screen shows.

Plain functions over paths and frames, so `Project` (store/project.py) stays the one place that
knows the folder's layout and keeps its warnings; these guarantee that a durable judgment is
never missed by a read racing a writer's compaction (it may be seen twice, and counts once).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.model import GradeScale
from goldset_tui.store.frames import check_compacted_copies, latest, records_to_frame
from goldset_tui.store.journal import is_locked, replay_numbered
from goldset_tui.store.parts import read_parts


def labeller_history(
    journal_path: Path, parts_dir: Path, *, scale: GradeScale, labeller: str
) -> tuple[pl.DataFrame, list[str]]:
    """Every event of one labeller, compacted parts first then the journal, and the warnings
    the journal's replay gave (a torn line dropped) when no live writer explains them."""
    # Journal before parts: a writer compacting meanwhile moves records from the journal to a
    # part, so reading in this order can see a record twice (de-duplicated) but never miss it.
    numbered, warnings = replay_numbered(journal_path)
    # With a live writer, an incomplete last line is a save in flight, not crash damage.
    if warnings and is_locked(journal_path):
        warnings = []
    # Hand-edited grades outside the scale are refused, naming file and line.
    journal = records_to_frame(numbered, journal_path, scale=scale, labeller=labeller)
    compacted = read_parts(parts_dir, scale=scale, labeller=labeller)
    check_compacted_copies(journal, [line for line, _ in numbered], compacted, journal_path)
    if compacted.height:  # a record both compacted and still in the journal counts once
        journal = journal.filter(pl.col("seq") > compacted["seq"][-1])
    return (pl.concat([compacted, journal]) if journal.height else compacted), warnings


def labeller_summary(history: pl.DataFrame, labellers: dict[str, Any]) -> pl.DataFrame:
    """Per labeller of the manifest's ``labellers`` table: ``judged`` pairs with a grade in
    force, ``events`` recorded, ``first`` and ``last`` session times. ``last`` is the later of
    the manifest's and the labeller's last recorded event in ``history`` (every event of the
    store): a session killed (SIGKILL, a dropped SSH link) never wrote its end, yet its grades
    say when it worked."""
    current = latest(history).group_by("labeller").agg(pl.len().cast(pl.Int64).alias("judged"))
    events = history.group_by("labeller").agg(
        pl.len().cast(pl.Int64).alias("events"), pl.col("time").max().alias("last_event")
    )
    entries = labellers.values()
    people = pl.DataFrame(
        {
            "labeller": [e["name"] for e in entries],
            "first": [e.get("first") for e in entries],
            "last": [e.get("last") for e in entries],
        },
        schema={"labeller": pl.String, "first": pl.String, "last": pl.String},
    )
    return (
        people.join(current, on="labeller", how="left")
        .join(events, on="labeller", how="left")
        .with_columns(
            pl.col("judged", "events").fill_null(0),
            # ISO times in UTC with the same shape: as text, later sorts after.
            pl.when(pl.col("last").is_null() | (pl.col("last_event") > pl.col("last")))
            .then(pl.col("last_event"))
            .otherwise(pl.col("last"))
            .alias("last"),
        )
        .select("labeller", "judged", "events", "first", "last")
        .sort("labeller")
    )
