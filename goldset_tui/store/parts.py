"""Compacted judgments: immutable Parquet parts, one folder per labeller.

``judgments/<safe>/part-<first seq>-<last seq>.parquet``. Compaction writes the journal's records
as a new part (cost proportional to the journal, not to the store, so it never makes saving slower
as the store grows), and only then empties the journal. Parts are merged when they pile up.

Every step is an atomic rename, and readers de-duplicate by ``seq``, so a crash anywhere leaves a
readable store: a record sits in the journal, in a part, or in both (never in neither).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.model import GradeScale
from goldset_tui.scalar import as_int
from goldset_tui.store.files import atomic_write, fsync_path, os_error_from
from goldset_tui.store.frames import (
    COLUMNS,
    GRADING_KINDS,
    JUDGMENT_SCHEMA,
    KINDS,
    empty_judgments,
)

_PART = re.compile(r"part-(\d{12})-(\d{12})\.parquet")


def part_name(first: int, last: int) -> str:
    return f"part-{first:012d}-{last:012d}.parquet"


def list_parts(folder: Path) -> list[tuple[int, int, Path]]:
    """(first seq, last seq, path) of every part, oldest first."""
    if not folder.is_dir():
        return []
    found = []
    for path in folder.iterdir():
        match = _PART.fullmatch(path.name)
        if match:
            found.append((int(match.group(1)), int(match.group(2)), path))
    return sorted(found)


def last_seq(folder: Path) -> int:
    """The highest seq already compacted (0 when none), from the file names alone."""
    return max((last for _, last, _ in list_parts(folder)), default=0)


def _read_part(
    path: Path, *, scale: GradeScale | None = None, labeller: str | None = None
) -> pl.DataFrame:
    try:
        frame = pl.read_parquet(path, glob=False)  # a store path may hold [ ] * ?
    except FileNotFoundError:
        raise
    except Exception as exc:  # Polars raises several types for a damaged file
        raise InputError(
            path, f"judgment snapshot is not readable Parquet ({type(exc).__name__})"
        ) from None
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(path, f"judgment snapshot lacks columns {', '.join(missing)}")
    for name, want in JUDGMENT_SCHEMA.items():
        # Types are checked, not coerced: a grade stored as text is damage or a hand edit, and a
        # cast would either crash or quietly turn it into something else.
        have = frame.schema[name]
        if not (have == want or have == pl.Null or _widens(have, want)):
            raise InputError(
                path, f"judgment snapshot has type {have} here, expected {want}", column=name
            )
    frame = frame.select(COLUMNS).cast(JUDGMENT_SCHEMA)
    checks: list[tuple[str, pl.Expr, str]] = [
        (name, pl.col(name).is_null(), "judgment snapshot lacks a value here")
        for name in ("labeller", "query_id", "doc_id", "time", "kind", "seq")
    ]
    checks.append(("kind", ~pl.col("kind").is_in(KINDS), "unknown record kind"))
    checks.append(
        (
            "grade",
            pl.col("kind").is_in(GRADING_KINDS) & pl.col("grade").is_null(),
            "a judgment without a grade",
        )
    )
    if scale is not None:
        checks.append(
            (
                "grade",
                pl.col("grade").is_not_null()
                & ((pl.col("grade") < scale.min) | (pl.col("grade") > scale.max)),
                f"grade outside the store's scale {scale.min}-{scale.max}",
            )
        )
    if labeller is not None:
        checks.append(
            ("labeller", pl.col("labeller") != labeller, f"a record not of labeller {labeller!r}")
        )
    for column, bad, message in checks:
        flags = frame.select(bad.fill_null(True)).to_series()  # a null labeller is not a name
        if flags.any():
            raise InputError(path, message, row=int(flags.arg_max() or 0) + 1, column=column)
    return frame


def _widens(have: pl.DataType, want: pl.DataType) -> bool:
    """A lossless cast: a narrower integer to Int64, an integer or Float32 to Float64."""
    narrow = (pl.Int8, pl.Int16, pl.Int32, pl.UInt8, pl.UInt16, pl.UInt32)
    if want == pl.Int64:
        return have in narrow  # not UInt64 or Int128: their values may not fit
    if want == pl.Float64:
        return have in narrow or have in (pl.Int64, pl.Float32)
    return False


def _disjoint(parts: list[tuple[int, int, Path]]) -> bool:
    # Overlap only exists for a moment during a merge, or after a crash in one.
    return all(
        prev_last < first
        for (_, prev_last, _), (first, _, _) in zip(parts, parts[1:], strict=False)
    )


READ_ATTEMPTS = 30


def read_parts(
    folder: Path, *, scale: GradeScale | None = None, labeller: str | None = None
) -> pl.DataFrame:
    """Every compacted record of one labeller, de-duplicated by seq, in seq order; with ``scale``
    and ``labeller``, a grade outside the scale or another labeller's record is an error."""
    for attempt in range(READ_ATTEMPTS):
        parts = list_parts(folder)
        try:
            frames = [_read_part(path, scale=scale, labeller=labeller) for _, _, path in parts]
        except FileNotFoundError:
            # A writer merged parts while we listed them: list again, backing off a little so
            # that a busy writer on a loaded machine cannot win every race.
            time.sleep(min(0.002 * (attempt + 1), 0.05))
            continue
        if not frames:
            return empty_judgments()
        combined = pl.concat(frames)
        if _disjoint(parts):  # the usual case: parts in seq order, nothing to de-duplicate
            return combined
        return combined.unique("seq", keep="first", maintain_order=True).sort("seq")
    raise InputError(folder, "judgment snapshots keep changing while being read; try again")


def read_pair(folder: Path, query_id: str, doc_id: str) -> pl.DataFrame:
    """The compacted records of one pair, in seq order; Parquet statistics skip most row groups."""
    paths = [path for _, _, path in list_parts(folder)]
    if not paths:
        return empty_judgments()
    try:
        found = (
            pl.scan_parquet(paths, glob=False)
            .filter((pl.col("query_id") == query_id) & (pl.col("doc_id") == doc_id))
            .collect()
        )
    except FileNotFoundError:
        raise
    except Exception:  # a damaged part: let the careful reader name it
        return read_parts(folder).filter(
            (pl.col("query_id") == query_id) & (pl.col("doc_id") == doc_id)
        )
    return found.select(COLUMNS).cast(JUDGMENT_SCHEMA).unique("seq", keep="first").sort("seq")


def read_pairs(folder: Path, pairs: list[tuple[str, str]]) -> pl.DataFrame:
    """The compacted records of several pairs (one scan, not one per pair), in seq order."""
    paths = [path for _, _, path in list_parts(folder)]
    if not paths or not pairs:
        return empty_judgments()
    wanted = pl.DataFrame(
        {"query_id": [q for q, _ in pairs], "doc_id": [d for _, d in pairs]},
        schema={"query_id": pl.String, "doc_id": pl.String},
    ).unique()
    queries = wanted["query_id"].unique().to_list()
    try:
        found = (
            pl.scan_parquet(paths, glob=False)
            .filter(pl.col("query_id").is_in(queries))
            .collect()
            .join(wanted, on=["query_id", "doc_id"], how="semi")
        )
    except FileNotFoundError:
        raise
    except Exception:  # a damaged part: let the careful reader name it
        found = read_parts(folder).join(wanted, on=["query_id", "doc_id"], how="semi")
    return found.select(COLUMNS).cast(JUDGMENT_SCHEMA).unique("seq", keep="first").sort("seq")


def write_part(folder: Path, frame: pl.DataFrame) -> Path:
    """Write ``frame`` (non-empty) as a new part, durably."""
    folder.mkdir(parents=True, exist_ok=True)
    frame = frame.select(COLUMNS).cast(JUDGMENT_SCHEMA).sort("seq")
    path = folder / part_name(as_int(frame["seq"].min()), as_int(frame["seq"].max()))

    def write(tmp: Path) -> None:
        try:
            frame.write_parquet(tmp, statistics=True)
        except pl.exceptions.PolarsError as exc:  # a full disk comes as ComputeError
            raise os_error_from(exc, path) from exc

    atomic_write(path, write)
    return path


def merge_parts(folder: Path, parts: list[tuple[int, int, Path]]) -> None:
    """Replace several parts by one. The merged part is durable before the old ones go."""
    if len(parts) < 2:
        return
    merged = pl.concat([_read_part(path) for _, _, path in parts]).unique("seq", keep="first")
    new_path = write_part(folder, merged)
    for _, _, path in parts:
        if path != new_path:
            path.unlink(missing_ok=True)
    fsync_path(folder)


def tidy_parts(folder: Path, *, max_parts: int = 8) -> None:
    """Keep the number of parts small without rewriting the big old part on every compaction.

    Parts after the first are merged together once there are more than ``max_parts``; everything
    is merged into one when those newer parts have grown as big as the first.
    """
    parts = list_parts(folder)
    if len(parts) <= max_parts:
        return
    sizes = [path.stat().st_size for _, _, path in parts]
    if sum(sizes[1:]) >= sizes[0]:
        merge_parts(folder, parts)
    else:
        merge_parts(folder, parts[1:])
