"""Writing the sampling outputs: atomically (nothing half-written), by extension, checksummed."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError

WRITABLE = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet", ".tsv": "tsv"}


def output_format(path: Path) -> str:
    fmt = WRITABLE.get(path.suffix.lower())
    if fmt is None:
        raise InputError(path, "output must end in .csv, .tsv or .parquet")
    return fmt


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write to a temporary file beside ``path``, fsync, then rename over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_frame(df: pl.DataFrame, path: str | Path) -> None:
    """CSV, TSV or Parquet chosen by extension; the same frame always gives the same bytes."""
    p = Path(path)
    fmt = output_format(p)
    if fmt == "parquet":
        import io

        buffer = io.BytesIO()
        df.write_parquet(buffer, statistics=False)
        data = buffer.getvalue()
    else:
        data = df.write_csv(separator="\t" if fmt == "tsv" else ",").encode("utf-8")
    try:
        atomic_write_bytes(p, data)
    except OSError as exc:
        raise InputError(p, f"could not write ({exc.strerror or exc})") from None


def sha256_file(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
