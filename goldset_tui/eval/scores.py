"""Per-query scores on disk: one Parquet file per system, ``system, query_id, measure, value``.

Kept because every comparison is paired (docs/background.md#paired-comparison): a later
`goldset compare` or report can pair the same queries without re-reading the runs. Written
atomically (temporary file, fsync, then rename), so a reader never sees half a file.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError

SCHEMA = pl.Schema(
    {"system": pl.String, "query_id": pl.String, "measure": pl.String, "value": pl.Float64}
)


def file_name(system: str) -> str:
    # System names come from users and file names: keep them to one safe path component.
    return (re.sub(r"[^A-Za-z0-9._-]+", "_", system).strip("._") or "run") + ".parquet"


def save_scores(per_query: pl.DataFrame, system: str, folder: str | Path) -> Path:
    """Write ``per_query`` (query_id, measure, value) for ``system``; returns the file written."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    frame = per_query.select(
        pl.lit(system).alias("system"), "query_id", "measure", pl.col("value").cast(pl.Float64)
    )
    # Imported here: goldset_tui.store brings the whole store (journal, project, platformdirs),
    # which `goldset eval` without -o or a store never needs.
    from goldset_tui.store.files import atomic_write

    target = folder / file_name(system)
    atomic_write(target, frame.write_parquet)  # temp file, fsync, rename; the umask's mode
    return target


def load_scores(folder: str | Path) -> pl.DataFrame:
    """Every system's scores saved in ``folder`` (empty frame when there are none)."""
    files = sorted(Path(folder).glob("*.parquet"))
    if not files:
        return pl.DataFrame(schema=SCHEMA)
    try:
        return pl.concat(
            [pl.read_parquet(f, glob=False).select(list(SCHEMA)).cast(SCHEMA) for f in files]
        )
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise InputError(folder, f"cannot read saved scores: {exc}") from None
