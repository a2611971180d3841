"""The engineer's report (docs/report.md): the stratified table with intervals, its closure
against the golden set, the weighted headlines, failure-set overlap, fusion headroom, the unjudged
share and its bounds, and paired comparisons.

This module is the front door; the work is split along its seams:
- ``report.model``: the :class:`Report` and shared constants;
- ``report.assemble``: :func:`assemble_report`, pure over a per-query score frame
  (``system, query_id, value``) and the strata, so tests and notebooks can feed it synthetic data;
- ``report.compute``: :func:`compute_report`, which reads qrels and runs through the evaluation
  engine (metrics, fusion, stats) and then assembles;
- ``report.format`` (JSON with fixed keys, CSV of the table) and ``report.markdown`` (for people).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from goldset_tui.report.assemble import NO_CUTOFF_HEADROOM, assemble_report, fusion_headroom
from goldset_tui.report.compute import (
    compute_report,
    judged_fraction,
    judged_shares,
    missing_pairs,
    missing_pool,
    paired_comparisons,
    per_query,
    topk_frame,
)
from goldset_tui.report.format import cell_text, failing_csv, to_csv, to_dict, to_json
from goldset_tui.report.markdown import to_markdown
from goldset_tui.report.model import (
    DEFAULT_K,
    DEFAULT_METRIC,
    FUSED_NAME,
    UNJUDGED_WARNING,
    Report,
    cutoff,
    explicit_cutoff,
)

__all__ = [
    "DEFAULT_K",
    "DEFAULT_METRIC",
    "FUSED_NAME",
    "NO_CUTOFF_HEADROOM",
    "UNJUDGED_WARNING",
    "Report",
    "assemble_report",
    "cell_text",
    "compute_report",
    "cutoff",
    "explicit_cutoff",
    "failing_csv",
    "fusion_headroom",
    "judged_fraction",
    "judged_shares",
    "missing_pairs",
    "missing_pool",
    "paired_comparisons",
    "per_query",
    "read_sampling_closure",
    "to_csv",
    "to_dict",
    "to_json",
    "to_markdown",
    "topk_frame",
]


def read_sampling_closure(path: str | Path) -> list[dict[str, Any]]:
    """The ``closure`` checks of a sampling manifest (TOML): a ``[[closure]]`` array of tables
    ``{name, expected, actual, residual, ok}``, or ``[closure] checks = [...]``."""
    from goldset_tui.errors import InputError
    from goldset_tui.io.tables import check_file
    from goldset_tui.io.tomlfile import parse_toml

    p = check_file(path)
    data = parse_toml(p, p.read_bytes())
    closure = data.get("closure")
    if isinstance(closure, dict):
        closure = closure.get("checks")
    if not isinstance(closure, list) or not all(
        isinstance(c, dict) and "name" in c for c in closure
    ):
        raise InputError(
            Path(p),
            "no [[closure]] checks (each with name, expected, actual, residual, ok)",
            column="closure",
        )
    return [dict(c) for c in closure]
