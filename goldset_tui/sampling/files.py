"""Writing the sampling outputs: atomically (the store's helper: nothing half-written), by extension."""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.store.files import atomic_write_bytes, sha256_file
from goldset_tui.text import visible

__all__ = [
    "WRITABLE",
    "check_folder",
    "output_format",
    "write_frame",
    "stream_frame",
    "atomic_write_bytes",
    "sha256_file",
]

WRITABLE = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet", ".tsv": "tsv"}


def check_folder(path: Path) -> None:
    """Refuse to write into a folder that does not exist, as cp, sort -o or tee do: creating it
    would hide a typo in the path (the file would land somewhere nobody looks)."""
    folder = Path(path).parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise InputError(
            path, f"cannot write here: the folder {visible(folder, keep_newlines=False)} {what}"
        )


def output_format(path: Path) -> str:
    """The format an output path asks for; an InputError before any work if it cannot be written."""
    fmt = WRITABLE.get(path.suffix.lower())
    if fmt is None:
        raise InputError(path, "output must end in .csv, .tsv or .parquet")
    check_folder(path)
    return fmt


def write_frame(df: pl.DataFrame, path: str | Path) -> None:
    """CSV, TSV or Parquet chosen by extension; the same frame always gives the same bytes."""
    p = Path(path)
    fmt = output_format(p)
    if fmt == "parquet":
        buffer = io.BytesIO()
        df.write_parquet(buffer, statistics=False)
        data = buffer.getvalue()
    else:
        data = df.write_csv(separator="\t" if fmt == "tsv" else ",").encode("utf-8")
    try:
        atomic_write_bytes(p, data)
    except OSError as exc:
        raise InputError(p, f"could not write ({exc.strerror or exc})") from None


def stream_frame(frame: pl.LazyFrame, path: str | Path) -> None:
    """``write_frame`` for rows that need not fit in memory: streamed into the file, atomically.
    CSV and TSV come out the same bytes as ``write_frame``'s; Parquet the same rows and values."""
    from goldset_tui.store.files import atomic_write

    p = Path(path)
    fmt = output_format(p)

    def sink(tmp: Path) -> None:
        if fmt == "parquet":
            frame.sink_parquet(tmp, statistics=False)
        else:
            frame.sink_csv(tmp, separator="\t" if fmt == "tsv" else ",")

    try:
        atomic_write(p, sink)
    except OSError as exc:
        raise InputError(p, f"could not write ({exc.strerror or exc})") from None
