"""The report's data: :class:`Report` and the constants every part of the report shares.

A :class:`Report` is built by :func:`goldset_tui.report.assemble.assemble_report` (pure, over
per-query scores) or :func:`goldset_tui.report.compute.compute_report` (from qrels and runs),
and rendered by ``report.format`` (JSON, CSV) and ``report.markdown``. It holds frames and plain
dicts only, so a notebook can read any part of it directly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import polars as pl

from goldset_tui.eval.defaults import DEFAULT_K, DEFAULT_METRIC, UNJUDGED_WARNING
from goldset_tui.eval.intervals import method_for
from goldset_tui.report.closure import ClosureCheck, all_ok

if TYPE_CHECKING:
    from goldset_tui.decisions.block import DecisionBlock

__all__ = [
    "DEFAULT_K",
    "DEFAULT_METRIC",
    "FUSED_NAME",
    "REPORT_FILES",
    "UNJUDGED_WARNING",
    "Report",
    "cutoff",
    "explicit_cutoff",
]

FUSED_NAME = "rrf"
# What `goldset report -o DIR` writes (commands/report.py); the review screens name them.
REPORT_FILES = ("report.md", "report.json", "report.csv", "failing_queries.csv")


@dataclass(repr=False)
class Report:
    """A stratified report: ``table`` (per stratum and system, with intervals), ``overall``,
    ``weighted`` and ``design`` (the headlines; ``estimands`` says in words what each one
    estimates), ``closure``, ``failing`` (the queries each system scored 0 on), ``overlap``,
    ``fusion``, ``paired`` and ``by_stratum`` (paired tests). Its repr is the headlines, not the
    frames and runs it holds."""

    metric: str
    k: int
    n: int
    binary: bool  # by the measure's definition and the qrels (eval.measure_kind), not the values
    systems: list[str]  # the runs given, in order
    fused: str | None  # name of the fused system, when there is one
    table: pl.DataFrame  # stratum, system, n, hits, mean, ci_lo, ci_hi, small
    overall: pl.DataFrame  # system, n, hits, mean, ci_lo, ci_hi
    closure: list[ClosureCheck]
    strata: list[str]
    scores: pl.DataFrame  # system, query_id, value
    failing: pl.DataFrame  # system, stratum, query_id
    weighted: dict[str, float] | None = None
    overlap: list[dict[str, Any]] = field(default_factory=list)
    fusion: dict[str, dict[str, Any]] = field(default_factory=dict)
    judged: dict[str, float] = field(default_factory=dict)
    paired: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # system, query_id, rank, doc_id, grade (null = unjudged): each run's top k, for drilling down.
    topk: pl.DataFrame | None = None
    strata_frame: pl.DataFrame | None = None  # query_id, stratum as given
    # query_id, stratum, why: golden-set queries (strata file) the table leaves out.
    dropped: pl.DataFrame | None = None
    # Each run's top `fusion_depth` went into the fused run (None: every document retrieved).
    fusion_depth: int | None = None
    headroom_note: str | None = None  # why headroom is null, or how to read an unusual value
    # Per system, the traffic-weighted mean's stratified interval (None without --traffic).
    weighted_ci: dict[str, tuple[float, float]] | None = None
    fpc: bool = False  # the weighted intervals carry the finite-population correction
    # Per system, the design-weighted (Hajek) mean, when the strata file has inclusion
    # probabilities (None otherwise): an estimate of the distinct-query mean.
    design: dict[str, float] | None = None
    # Its 95% interval and linearised standard error (eval.headline.per_query_estimates).
    design_ci: dict[str, tuple[float, float]] | None = None
    design_se: dict[str, float] | None = None
    # What the traffic-weighted headline estimates (eval.headline: PER_SEARCH from counts and
    # inclusion probabilities, STRATUM_MEANS from a strata file without them); None: no traffic.
    weighted_kind: str | None = None
    # Per headline ("unweighted", "weighted", "design_weighted"), what it estimates in plain words.
    estimands: dict[str, str] = field(default_factory=dict)
    # Per run given, the golden-set queries (strata file order) it has no line for: each counts 0
    # for that run (report.compute.missing_from_runs); golden_size is the set's size.
    missing_from_runs: dict[str, list[str]] = field(default_factory=dict)
    golden_size: int = 0
    # Every pair of systems on every stratum: exact McNemar or paired randomization, Holm-adjusted.
    by_stratum: list[dict[str, Any]] = field(default_factory=list)
    # Per system: the mean with its top k's unjudged documents counted not relevant (as scored)
    # and counted relevant (at the measure's lowest relevant grade), and how many there were.
    unjudged_bounds: dict[str, dict[str, Any]] = field(default_factory=dict)
    bounded: bool = True  # every per-query value in [0, 1] by definition (not a count)
    # The grades and the runs (as given, not fused) it was computed from, for the review's
    # reading view (report.reading); None for a report assembled from scores alone.
    qrels: pl.DataFrame | None = None
    runs: dict[str, pl.DataFrame] | None = None
    # The traffic shares as read (stratum, share[, population]; None without --traffic), and the
    # decision block (goldset_tui.decisions; None: the default one, computed when written).
    traffic: pl.DataFrame | None = None
    decisions: DecisionBlock | None = None
    # query_id, origin (real or synthetic) when the strata file says (sampling/origin.py);
    # None: no origin column, every query taken for real traffic as before.
    origins: pl.DataFrame | None = None
    # When the store's last recorded release was measured under other strata: its release, the
    # changes and the note (app.drift.strata_change); None otherwise or without a store.
    strata_changed: dict[str, Any] | None = None

    def __repr__(self) -> str:
        # The dataclass repr printed every frame it holds, the qrels and each run among them: a
        # notebook cell showed pages of tables before (or instead of) the headline.
        from goldset_tui.text import visible

        def shown(text: object) -> str:
            # System and stratum names are the user's text: a notebook prints them to a terminal.
            return visible(text, keep_newlines=False)

        def cell(mean: float | None, ci: tuple[float | None, float | None] | None) -> str:
            if mean is None:
                return "none"
            has_ci = ci is not None and None not in ci
            return f"{mean:.4f}" + (f" [{ci[0]:.4f}, {ci[1]:.4f}]" if has_ci else "")  # type: ignore[index]

        overall = {
            shown(row["system"]): cell(row["mean"], (row["ci_lo"], row["ci_hi"]))
            for row in self.overall.iter_rows(named=True)
        }
        lines = [
            f"Report(metric={self.metric!r}, n={self.n} queries,"
            f" systems=[{', '.join(shown(x) for x in self.all_systems)}],"
            f" 95% intervals: {self.method})",
            "  unweighted: " + "; ".join(f"{k} {v}" for k, v in overall.items()),
        ]
        if self.weighted is not None:
            cis = self.weighted_ci or {}
            lines.append(
                "  traffic-weighted: "
                + "; ".join(f"{shown(k)} {cell(v, cis.get(k))}" for k, v in self.weighted.items())
            )
        if self.design is not None:
            cis = self.design_ci or {}
            lines.append(
                "  design-weighted: "
                + "; ".join(f"{shown(k)} {cell(v, cis.get(k))}" for k, v in self.design.items())
            )
        lines += [f"  {name} estimates: {what}" for name, what in self.estimands.items()]
        lines += [f"  warning: {shown(w)}" for w in self.warnings]
        lines.append(
            f"  closes: {self.closes}; {self.failing.height} failing (system, query) pairs;"
            " fields: table, overall, failing, paired, by_stratum, overlap, fusion, closure"
        )
        return "\n".join(lines)

    @property
    def origin_line(self) -> str | None:
        """The header's line saying synthetic queries are in the set (None: none are)."""
        from goldset_tui.sampling.origin import origin_line

        if self.origins is None:
            return None
        return origin_line(self.origins.get_column("origin"))

    @property
    def method(self) -> str:
        """The interval every mean in the table carries (``ci_method`` in JSON)."""
        return method_for(binary=self.binary, bounded=self.bounded)

    @property
    def all_systems(self) -> list[str]:
        return self.systems + ([self.fused] if self.fused else [])

    @property
    def closes(self) -> bool:
        return all_ok(self.closure)


def cutoff(metric: str, default: int = DEFAULT_K) -> int:
    """The k of ``Success@10`` or ``P(rel=2)@5``; ``default`` for measures without one (AP)."""
    return explicit_cutoff(metric) or default


def explicit_cutoff(metric: str) -> int | None:
    """The k of ``Success@10``; None for a measure without one (AP, RR, Rprec)."""
    m = re.search(r"@(\d+)\s*$", metric)
    return int(m.group(1)) if m else None
