"""The TOML manifest written beside a sample: enough to regenerate it byte for byte and to check it.

No timestamp on purpose: the same inputs and seed give the same manifest too. The ``closure`` list
(``[[closure]]`` tables of name, expected, actual, residual, ok) is what the closure screen reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomli_w

from goldset_tui import __version__
from goldset_tui.errors import InputError
from goldset_tui.io.tomlfile import parse_toml
from goldset_tui.sampling.files import atomic_write_bytes, check_folder, sha256_file
from goldset_tui.sampling.sample import SampleResult

METHOD = "weighted by min(count, cap), without replacement (Efraimidis-Spirakis keys)"


def manifest_path(sample_path: str | Path) -> Path:
    """``sample.csv`` -> ``sample.manifest.toml`` beside it."""
    p = Path(sample_path)
    return p.with_name(f"{p.stem}.manifest.toml")


def build_manifest(
    result: SampleResult,
    *,
    seed: int,
    cap: int,
    labels_path: str | Path,
    sample_path: str | Path,
    allocation: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "tool": "goldset",
        "version": __version__,
        "seed": seed,
        "cap": cap,
        "method": METHOD,
        "set_size": result.sample.height,
        "requested": result.requested,
        "allocation": allocation or {"mode": "targets"},
        "targets": {r.stratum: r.target for r in result.rows},
        "inputs": {"labels": {"path": str(labels_path), "sha256": sha256_file(labels_path)}},
        "output": {"path": str(sample_path), "sha256": sha256_file(sample_path)},
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
    }


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
    return parse_toml(p, raw, what="manifest")
