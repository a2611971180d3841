"""The judgments frame: its schema, building it from journal records, and "the latest grade counts".

History keeps every event a labeller produced, in ``seq`` order:

- ``judge``: a grade for a pair; the latest one not undone is the pair's grade.
- ``repeat``: a blind re-judgment for self-consistency (docs/background.md#agreement); kept in
  history, never overwrites the first judgment.
- ``undo``: cancels the most recent judge/repeat of that pair not already cancelled, so undoing a
  re-grade brings the previous grade back, and undoing a pair's only grade leaves it unjudged.
- ``note``: a note on a pair, grade null; the latest non-empty note of a pair is shown with it.
- ``flag``: "unsure / needs discussion" on a pair, grade null, the reason in ``note``; the latest
  flag record of a pair counts, an empty reason unflags it. Flagged pairs go to adjudication.
- ``skip``: the labeller passed a pair over without grading it, grade null, the reason in
  ``note``; a skipped pair is not served again until graded (a grade is what counts).

Flags and skips use the note column for their reason, so they are durable exactly as notes are
(one journal line, fsynced) and need no file of their own; they are never read as notes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.model import GradeScale

KINDS = ("judge", "repeat", "undo", "note", "flag", "skip")
# Kinds whose note column holds a flag's or skip's reason, not a note on the pair.
MARK_KINDS = ("flag", "skip")
GRADING_KINDS = ("judge", "repeat")

JUDGMENT_SCHEMA = pl.Schema(
    {
        "labeller": pl.String(),
        "query_id": pl.String(),
        "doc_id": pl.String(),
        "grade": pl.Int64(),
        "time": pl.String(),
        "seconds": pl.Float64(),
        "position": pl.Int64(),
        "note": pl.String(),
        "kind": pl.String(),
        "seq": pl.Int64(),
    }
)
COLUMNS = tuple(JUDGMENT_SCHEMA)
PAIR = ["labeller", "query_id", "doc_id"]

# What each journal field may hold: (allowed Python types, may be null).
_FIELD_TYPES: dict[str, tuple[tuple[type, ...], bool]] = {
    "labeller": ((str,), False),
    "query_id": ((str,), False),
    "doc_id": ((str,), False),
    "grade": ((int,), True),
    "time": ((str,), False),
    "seconds": ((int, float), True),
    "position": ((int,), True),
    "note": ((str,), True),
    "kind": ((str,), False),
    "seq": ((int,), False),
}


def empty_judgments() -> pl.DataFrame:
    return pl.DataFrame(schema=JUDGMENT_SCHEMA)


_INT64 = (-(2**63), 2**63 - 1)


def check_record(
    record: dict[str, Any],
    path: Path,
    line: int,
    *,
    scale: GradeScale | None = None,
    labeller: str | None = None,
) -> None:
    """A journal record has every field with the right type, or InputError naming the line.

    With ``scale``, a grade outside it is refused (a hand edit writing 9 on a 0-3 scale would
    otherwise be exported); with ``labeller``, a record naming someone else is refused (it would be
    counted as the journal owner's).
    """
    for name, (types, nullable) in _FIELD_TYPES.items():
        value = record.get(name)
        if value is None:
            if nullable:
                continue
            raise InputError(path, "journal record lacks a value", line=line, column=name)
        if isinstance(value, bool) or not isinstance(value, types):
            raise InputError(
                path, f"journal record has a {type(value).__name__} here", line=line, column=name
            )
        if isinstance(value, int) and not _INT64[0] <= value <= _INT64[1]:
            raise InputError(path, "journal record has a number too large", line=line, column=name)
        if isinstance(value, str) and not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:  # JSON's "\ud800": a lone surrogate is no character
                raise InputError(
                    path, "journal record has a lone UTF-16 surrogate", line=line, column=name
                ) from None
    if record["kind"] not in KINDS:
        raise InputError(path, f"unknown record kind {record['kind']!r}", line=line, column="kind")
    grade = record.get("grade")
    if grade is None and record["kind"] in GRADING_KINDS:
        # A judgment without a grade would be exported as a pair with no grade.
        raise InputError(
            path, f"a {record['kind']} record needs a grade", line=line, column="grade"
        )
    if scale is not None and grade is not None and grade not in scale:
        raise InputError(
            path,
            f"grade {grade} is outside the store's scale {scale.min}-{scale.max}",
            line=line,
            column="grade",
        )
    if labeller is not None and record["labeller"] != labeller:
        raise InputError(
            path,
            f"record of labeller {record['labeller']!r} in the journal of {labeller!r}",
            line=line,
            column="labeller",
        )


def check_sequence(numbered: list[tuple[int, dict[str, Any]]], path: Path) -> None:
    """Each journal line's ``seq`` is at least 1 and above the previous line's, or InputError
    naming the line.

    The writer numbers records 1, 2, 3... in the order they are saved, and everything downstream
    trusts that order: the latest grade is the one with the highest seq, compaction keeps the first
    record of a seq, a part's name is its seq range. A repeated seq or one going back (a hand edit)
    would silently let an older grade win, so it is damage, refused like a line that is not JSON.
    """
    previous: tuple[int, int] | None = None  # (line, seq)
    for line, record in numbered:
        seq = record["seq"]
        if seq < 1:
            raise InputError(
                path,
                f"corrupt journal line (seq {seq}: records are numbered from 1); "
                "the store needs repair by hand",
                line=line,
                column="seq",
            )
        if previous is not None and seq <= previous[1]:
            raise InputError(
                path,
                f"corrupt journal line (seq {seq} does not follow seq {previous[1]} on line "
                f"{previous[0]}: records are numbered in the order they were saved); "
                "the store needs repair by hand",
                line=line,
                column="seq",
            )
        previous = (line, seq)


def check_compacted_copies(
    journal: pl.DataFrame, lines: list[int], compacted: pl.DataFrame, path: Path
) -> None:
    """Journal records numbered at or below the last compacted seq are copies a crash left behind
    (between writing a part and emptying the journal), and readers drop them: each must be a
    record the parts hold, or InputError naming its line. ``journal`` is ``records_to_frame`` of
    the journal (its rows on ``lines``), ``compacted`` the parts' records.

    The copy is matched by its content, not its seq, because a merge numbers a labeller's parts
    again. A line that matches nothing is a hand edit (a grade changed, a seq set back), and
    dropping it would change a grade without a word.
    """
    if not journal.height or not compacted.height:
        return
    last = compacted.get_column("seq").max()
    old = journal.with_columns(_line=pl.Series(lines, dtype=pl.Int64)).filter(pl.col("seq") <= last)
    if not old.height:
        return
    content = [c for c in COLUMNS if c != "seq"]
    unmatched = old.join(compacted.select(content), on=content, how="anti", nulls_equal=True)
    if unmatched.height:
        row = unmatched.row(0, named=True)
        raise InputError(
            path,
            f"corrupt journal line (seq {row['seq']} is already compacted, and no compacted "
            "record matches this line: an edit by hand?); the store needs repair by hand",
            line=row["_line"],
            column="seq",
        )


def records_to_frame(
    numbered: list[tuple[int, dict[str, Any]]],
    path: Path,
    *,
    scale: GradeScale | None = None,
    labeller: str | None = None,
) -> pl.DataFrame:
    """Journal records (with their line numbers, for errors) as a judgments frame."""
    if not numbered:
        return empty_judgments()
    for line, record in numbered:
        check_record(record, path, line, scale=scale, labeller=labeller)
    check_sequence(numbered, path)
    rows = {name: [record.get(name) for _, record in numbered] for name in COLUMNS}
    return pl.DataFrame(rows, schema=JUDGMENT_SCHEMA)


def _resolve_undos(events: pl.DataFrame) -> pl.DataFrame:
    """The judge/repeat rows that survive their pairs' undos (for pairs that have undos only).

    A small Python pass: undos are rare, and this only sees the pairs that have one.
    """
    survivors: list[int] = []
    stacks: dict[tuple[str, str, str], list[int]] = {}
    for index, (labeller, query_id, doc_id, kind) in enumerate(
        events.select("labeller", "query_id", "doc_id", "kind").iter_rows()
    ):
        stack = stacks.setdefault((labeller, query_id, doc_id), [])
        if kind == "undo":
            if stack:
                stack.pop()
        else:
            stack.append(index)
    for stack in stacks.values():
        survivors.extend(stack)
    return events[sorted(survivors)]


def latest(history: pl.DataFrame) -> pl.DataFrame:
    """One row per (labeller, query_id, doc_id): the grade in force, undone pairs dropped.

    ``history`` must be in seq order within each labeller (as the store returns it); the result
    keeps that order (by labeller, then when the standing grade was given). Sorting a million
    string keys costs more than everything else here, so only the exports sort by pair.
    """
    grading = history.filter(pl.col("kind").is_in(GRADING_KINDS + ("undo",)))
    undone = grading.filter(pl.col("kind") == "undo").select(PAIR).unique()
    if undone.height:  # rare: only the pairs with an undo need the careful pass
        plain = grading.join(undone, on=PAIR, how="anti")
        tangled = _resolve_undos(grading.join(undone, on=PAIR, how="semi", maintain_order="left"))
        grading = pl.concat([plain, tangled]).sort("labeller", "seq")
    standing = grading.filter(pl.col("kind") == "judge").unique(
        PAIR, keep="last", maintain_order=True
    )
    noted = history.filter(pl.col("note").is_not_null() & ~pl.col("kind").is_in(MARK_KINDS))
    if noted.height:
        # An empty note is how a note gets cleared.
        notes = noted.unique(PAIR, keep="last", maintain_order=True).select(
            *PAIR,
            pl.when(pl.col("note") == "").then(None).otherwise(pl.col("note")).alias("latest_note"),
        )
        standing = standing.join(notes, on=PAIR, how="left").with_columns(
            note=pl.col("latest_note")
        )
    return standing.select(COLUMNS)


def latest_marks(history: pl.DataFrame, kind: str) -> pl.DataFrame:
    """Per (labeller, query_id, doc_id) the reason of its latest ``kind`` record ("flag" or
    "skip"), pairs whose latest one is empty (unflagged) left out: labeller, query_id, doc_id,
    reason. ``history`` in seq order within each labeller, as the store returns it."""
    marks = history.filter(pl.col("kind") == kind).unique(PAIR, keep="last", maintain_order=True)
    return marks.filter(pl.col("note").is_not_null() & (pl.col("note") != "")).select(
        *PAIR, pl.col("note").alias("reason")
    )


def natural_key(column: str) -> list[pl.Expr]:
    """Sort keys putting numeric ids in numeric order (2 before 10), then the rest as text."""
    return [pl.col(column).cast(pl.Int64, strict=False), pl.col(column)]


def sort_pairs(frame: pl.DataFrame) -> pl.DataFrame:
    keys = []
    if "labeller" in frame.columns:
        keys.append(pl.col("labeller"))
    keys += natural_key("query_id") + natural_key("doc_id")
    return frame.sort(keys, nulls_last=True)
