"""The TOML manifests written beside a sample and beside a labels file: enough to regenerate either
byte for byte and to check it.

No timestamp on purpose: the same inputs and seed give the same manifest too. ``kind`` says which
of the two a manifest is (``sample`` or ``classify``; a manifest without one is a sample's, as
before the field existed), so a labels file's manifest is never read as a golden set's sizes.

A sample's manifest also lists every sampled query with its log count, weight and inclusion
probability (``[[queries]]``) and the sha256 of the strata and traffic files written with it; its
``closure`` list (``[[closure]]`` tables of name, expected, actual, residual, ok) is what the
closure screen reads. A labels file's manifest records the sha256 of the log, the vocabulary and
the rules' source, and the versions of goldset, Python and Polars (the rules run on Polars' regex
engine and Unicode tables, which a Polars upgrade can change).
"""

from __future__ import annotations

import inspect
import platform
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import tomli_w

from goldset_tui import __version__
from goldset_tui.errors import InputError
from goldset_tui.io.strata_and_traffic import INCLUSION
from goldset_tui.io.tomlfile import parse_toml
from goldset_tui.sampling.files import atomic_write_bytes, check_folder, sha256_file
from goldset_tui.sampling.inclusion import METHOD as INCLUSION_METHOD
from goldset_tui.sampling.rules import classify_frame
from goldset_tui.sampling.sample import SampleResult

METHOD = (
    "weighted by min(count, cap), without replacement (Efraimidis-Spirakis keys log(u)/w, u from "
    "the first 52 bits of SHA-256 of seed:query, so any SQL engine draws the same queries)"
)


def manifest_path(sample_path: str | Path) -> Path:
    """``sample.csv`` -> ``sample.manifest.toml`` beside it."""
    p = Path(sample_path)
    return p.with_name(f"{p.stem}.manifest.toml")


def companion_paths(sample_path: str | Path) -> dict[str, Path]:
    """``golden.csv`` -> ``golden.strata.csv`` and ``golden.traffic.csv`` beside it: the files
    ``goldset report --strata/--traffic`` reads."""
    p = Path(sample_path)
    return {
        "strata": p.with_name(f"{p.stem}.strata.csv"),
        "traffic": p.with_name(f"{p.stem}.traffic.csv"),
    }


def build_manifest(
    result: SampleResult,
    *,
    seed: int,
    cap: int,
    labels_path: str | Path,
    sample_path: str | Path,
    allocation: dict[str, Any] | None = None,
    companions: dict[str, Path] | None = None,
    engine: str = "polars",
) -> dict[str, Any]:
    """The sample's manifest; ``companions`` (name -> path) are the strata and traffic files
    written with it, recorded with their sha256 like the sample itself."""
    sample = result.sample
    queries = [
        {
            "query_id": row["query_id"],
            "query": row["query"],
            "stratum": row["stratum"],
            "count": int(row["count"]),
            "weight": min(int(row["count"]), cap),
            INCLUSION: row[INCLUSION],
        }
        for row in sample.select("query_id", "query", "stratum", "count", INCLUSION).iter_rows(
            named=True
        )
    ]
    return {
        "kind": "sample",
        "tool": "goldset",
        "version": __version__,
        "seed": seed,
        "cap": cap,
        "engine": engine,  # which engine drew it: polars here, a SQL dialect for --emit-sql
        "method": METHOD,
        INCLUSION: INCLUSION_METHOD,
        "set_size": result.sample.height,
        "requested": result.requested,
        "allocation": allocation or {"mode": "targets"},
        "targets": {r.stratum: r.target for r in result.rows},
        "inputs": {"labels": {"path": str(labels_path), "sha256": sha256_file(labels_path)}},
        "output": {"path": str(sample_path), "sha256": sha256_file(sample_path)},
        "outputs": {
            name: {"path": str(path), "sha256": sha256_file(path)}
            for name, path in (companions or {}).items()
        },
        "strata": [
            {
                "stratum": r.stratum,
                "distinct": r.distinct,
                "occurrences": r.occurrences,
                "share": r.share,
                "target": r.target,
                "sampled": r.sampled,
                "shortfall": r.shortfall,
            }
            for r in result.rows
        ],
        "notes": list(result.notes),
        "closure": [c.to_dict() for c in result.closure],
        "queries": queries,
    }


def file_entry(path: str | Path) -> dict[str, str]:
    return {"path": str(path), "sha256": sha256_file(path)}


def build_classify_manifest(
    *,
    log_path: str | Path,
    labels_path: str | Path,
    vocab_path: str | Path | None,
    rules: Callable[..., object] | None,
    rules_spec: str | None,
    occurrences: int,
    blank: int,
    strata: list[dict[str, Any]],
) -> dict[str, Any]:
    """What ``goldset classify`` read and wrote, and with which code."""
    source = inspect.getsourcefile(rules if rules is not None else classify_frame)
    rules_entry: dict[str, Any] = {
        "name": rules_spec or "default: goldset_tui.sampling.rules (the six query-shape strata)"
    }
    if source is not None and Path(source).is_file():
        rules_entry.update(file_entry(source))
    manifest: dict[str, Any] = {
        "kind": "classify",
        "tool": "goldset",
        "version": __version__,
        "versions": {
            "goldset": __version__,
            "python": platform.python_version(),
            "polars": pl.__version__,
        },
        "inputs": {"log": file_entry(log_path)},
        "rules": rules_entry,
        "misspelling_checked": vocab_path is not None or rules is not None,
        "output": file_entry(labels_path),
        "occurrences": occurrences,
        "blank_skipped": blank,
        "strata": strata,
    }
    if vocab_path is not None:
        manifest["inputs"]["vocab"] = file_entry(vocab_path)
    return manifest


def write_manifest(manifest: dict[str, Any], path: str | Path) -> None:
    p = Path(path)
    check_folder(p)
    try:
        atomic_write_bytes(p, tomli_w.dumps(manifest).encode("utf-8"))
    except OSError as exc:
        raise InputError(p, f"could not write ({exc.strerror or exc})") from None


def read_manifest(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise InputError(p, "no such manifest") from None
    # A manifest saved by an editor on Windows may start with a UTF-8 BOM, which TOML refuses.
    return parse_toml(p, raw.removeprefix(b"\xef\xbb\xbf"), what="manifest")
