"""What ``goldset sample emit-sql`` writes: the SQL, the weights SQL, the vocabulary table and a
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
from goldset_tui.errors import InputError
from goldset_tui.io.tables import check_file, read_table, table_format
from goldset_tui.io.tomlfile import parse_toml
from goldset_tui.sampling.files import atomic_write_bytes, check_folder, sha256_file, write_frame
from goldset_tui.sampling.manifest import METHOD
from goldset_tui.sampling.normalise import parse_counts
from goldset_tui.sampling.sample import (
    SampleResult,
    StratumRow,
    add_probabilities,
    sample_closure_checks,
)
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


def read_bundle_manifest(sql_path: Path) -> dict[str, Any]:
    path = bundle_paths(sql_path)["manifest"]
    check_file(path)
    data = parse_toml(path, path.read_bytes(), what="manifest")
    if data.get("kind") != "sample-sql":
        raise InputError(path, "is not the manifest of `goldset sample emit-sql`")
    return data


def _read_results(rows_path: Path, weights_path: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    rows = read_table(
        rows_path,
        required=("query_id", "query", "count", "stratum", "spelling"),
        non_empty=("query_id", "query", "stratum"),
        string_columns=("query_id", "query", "stratum", "spelling"),
        allow_empty=True,
    )
    rows = rows.select("query_id", "query", "count", "stratum", "spelling").with_columns(
        parse_counts(rows.get_column("count"), rows_path, table_format(rows_path))
    )
    weights = read_table(
        weights_path,
        required=("stratum", "weight", "queries", "occurrences"),
        non_empty=("stratum",),
        string_columns=("stratum",),
    )
    fmt = table_format(weights_path)
    weights = weights.select(
        "stratum",
        *(parse_counts(weights.get_column(c), weights_path, fmt, c) for c in WEIGHT_COLUMNS),
    )
    return rows, weights


WEIGHT_COLUMNS = ("weight", "queries", "occurrences")


def finish_sample(
    sql_path: Path, rows_path: Path, weights_path: Path
) -> tuple[SampleResult, dict[str, Any]]:
    """The warehouse's two results as the local SAMPLE (probabilities added) and its
    ``SampleResult``, with the bundle's manifest (seed, cap, targets, engine)."""
    bundle = read_bundle_manifest(sql_path)
    targets = {str(k): int(v) for k, v in bundle["targets"].items()}
    cap = int(bundle["cap"])
    rows, weights = _read_results(rows_path, weights_path)
    try:
        sample = add_probabilities(rows, weights, targets, cap).sort(["stratum", "query"])
    except KeyError:
        raise InputError(
            rows_path,
            f"a sampled query's stratum and weight are not in {weights_path}: were both queries "
            "run on the same log?",
        ) from None
    per = weights.group_by("stratum").agg(
        pl.col("queries").sum().alias("distinct"), pl.col("occurrences").sum()
    )
    total = per.get_column("occurrences").sum()
    # the share as stratum_counts computes it (Polars' division), to the last bit
    per = per.with_columns((pl.col("occurrences") / total).alias("share"))
    info = {r["stratum"]: r for r in per.iter_rows(named=True)}
    sampled = dict(sample.group_by("stratum").len().iter_rows())
    order = list(targets) + sorted(s for s in info if s not in targets)
    result = SampleResult(sample, [], sum(targets.values()))
    for s in order:
        found = info.get(s, {"distinct": 0, "occurrences": 0, "share": 0.0})
        result.rows.append(
            StratumRow(
                s,
                int(found["distinct"]),
                int(found["occurrences"]),
                float(found["share"]),
                targets.get(s, 0),
                int(sampled.get(s, 0)),
            )
        )
        if result.rows[-1].shortfall > 0 and s in info:
            result.notes.append(
                f"stratum {s!r}: only {sampled.get(s, 0)} for a target of {targets[s]}"
            )
    result.closure = sample_closure_checks(result)
    return result, bundle
