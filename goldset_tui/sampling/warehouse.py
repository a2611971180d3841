"""What ``goldset sample --emit-sql`` writes: the SQL, the weights SQL, the vocabulary table and a
manifest naming the engine.

    golden.sql               the sample: query_id, query, count, stratum, spelling
    golden.weights.sql       per stratum and weight, the number of queries (for the probabilities)
    golden.vocab.csv         with --vocab: the words (one column, word) to load as the table the
                             SQL joins for the misspelling rule
    golden.sql.manifest.toml kind = "sample-sql", engine, seed, cap, targets, the log table and
                             the sha256 of every file above

Every file is written atomically. Run the two queries in the warehouse; save their results as
CSV/Parquet; ``sample.add_probabilities`` (or the docs' two lines of Python) gives the SAMPLE
``goldset sample --log`` writes for the same log, byte for byte.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import tomli_w

from goldset_tui import __version__
from goldset_tui.sampling.files import atomic_write_bytes, check_folder, sha256_file, write_frame
from goldset_tui.sampling.manifest import METHOD
from goldset_tui.sampling.sql import CAVEATS, LogTable, sample_sql, weights_sql


def bundle_paths(sql_path: Path) -> dict[str, Path]:
    stem = sql_path.with_suffix("")
    return {
        "sample": sql_path,
        "weights": stem.with_name(f"{stem.name}.weights.sql"),
        "vocab": stem.with_name(f"{stem.name}.vocab.csv"),
        # not golden.manifest.toml: that is the local sample's, which may sit beside it
        "manifest": sql_path.with_name(f"{sql_path.name}.manifest.toml"),
    }


def write_bundle(
    sql_path: Path,
    dialect: str,
    log: LogTable,
    *,
    seed: int,
    cap: int,
    targets: dict[str, int],
    vocab: frozenset[str] | None = None,
    vocab_source: Path | None = None,
) -> dict[str, Path]:
    paths = bundle_paths(sql_path)
    for path in paths.values():
        check_folder(path)
    sample = sample_sql(dialect, log, seed=seed, cap=cap, targets=targets)
    atomic_write_bytes(paths["sample"], sample.encode("utf-8"))
    atomic_write_bytes(paths["weights"], weights_sql(dialect, log, cap=cap).encode("utf-8"))
    written = {"sample": paths["sample"], "weights": paths["weights"]}
    if vocab is not None:
        write_frame(
            pl.DataFrame({"word": sorted(vocab)}, schema={"word": pl.String}), paths["vocab"]
        )
        written["vocab"] = paths["vocab"]
    manifest: dict[str, Any] = {
        "kind": "sample-sql",
        "tool": "goldset",
        "version": __version__,
        "engine": dialect,
        "seed": seed,
        "cap": cap,
        "method": METHOD,
        "targets": dict(targets),
        "log": {
            "table": log.table,
            "query_column": log.query_column,
            "count_column": log.count_column or "",
        },
        "vocabulary": (
            {"table": log.vocab_table or "", "source": str(vocab_source or "")}
            if vocab is not None
            else {}
        ),
        "caveats": list(CAVEATS[dialect]),
        "outputs": {
            name: {"path": str(path), "sha256": sha256_file(path)} for name, path in written.items()
        },
    }
    atomic_write_bytes(paths["manifest"], tomli_w.dumps(manifest).encode("utf-8"))
    written["manifest"] = paths["manifest"]
    return written
