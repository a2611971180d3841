"""Helpers for the pool tests: write a pool in any format, run the CLI in-process."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.cli import main


def rows_to_file(tmp_path: Path, name: str, rows: list[dict]) -> Path:
    """Write ``rows`` (dicts of plain values; lists for systems/ranks) as ``name`` by extension.

    CSV/TSV lists are written ``a;b`` as a user's spreadsheet would hold them."""
    p = tmp_path / name
    fmt = p.suffix.lower()
    if fmt == ".jsonl":
        p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif fmt == ".parquet":
        pl.DataFrame(rows).write_parquet(p)
    else:
        sep = "\t" if fmt == ".tsv" else ","
        cols = list(rows[0])
        lines = [sep.join(cols)]
        for r in rows:
            cells = []
            for c in cols:
                v = r.get(c)
                cells.append(
                    ";".join(map(str, v)) if isinstance(v, list) else ("" if v is None else str(v))
                )
            lines.append(sep.join(cells))
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


@pytest.fixture
def write_rows(tmp_path: Path) -> Callable[[str, list[dict]], Path]:
    return lambda name, rows: rows_to_file(tmp_path, name, rows)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """Run ``goldset ARGS`` in-process: (exit status, stdout, stderr)."""

    def run(*args: str) -> tuple[int, str, str]:
        status = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return status, out, err

    return run
