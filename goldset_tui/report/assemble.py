"""Assembling a :class:`~goldset_tui.report.model.Report` from per-query scores (pure).

:func:`assemble_report` takes a per-query score frame ``system, query_id, value`` (every evaluated
query for every system) and the strata, and computes the table, its closure, the headlines,
failure overlap, fusion headroom and the warnings. No qrels or runs are read here, so tests and
notebooks can feed it synthetic data; :mod:`goldset_tui.report.compute` does the reading.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from goldset_tui.eval.defaults import REPORT_SAMPLES, percent_against
from goldset_tui.eval.headline import (
    PER_QUERY,
    PER_SEARCH,
    STRATUM_MEANS,
    UNWEIGHTED,
    design_effects_of,
    estimand_text,
    per_query_estimates,
    per_search_difference,
    per_search_estimates,
)
from goldset_tui.eval.intervals import DEFAULT_CONFIDENCE, DEFAULT_SEED
from goldset_tui.eval.measure_kind import is_binary_measure, is_bounded_measure
from goldset_tui.eval.overlap import failure_overlap, headroom_collected, oracle_mean
from goldset_tui.eval.stats import holm, stratum_comparisons, with_holm_over_strata
from goldset_tui.eval.strata import (
    SMALL_STRATUM,
    closure_checks,
    dropped_queries,
    empty_strata,
    failing_queries,
    overall_table,
    strata_order,
    stratum_table,
    weighted_means,
)
from goldset_tui.eval.weighting import weighted_difference, weighted_estimates
from goldset_tui.io.strata_and_traffic import COUNT, INCLUSION, POPULATION
from goldset_tui.report.format import fmt_num
from goldset_tui.report.holes import dropped_with_holes, failing_with_holes
from goldset_tui.report.model import (
    DEFAULT_METRIC,
    UNJUDGED_WARNING,
    Report,
    cutoff,
    explicit_cutoff,
)

NO_CUTOFF_HEADROOM = (
    "{metric} has no cutoff, so the oracle is no bound on fusion: a fused list can score above or "
    "below both runs on the same query, and the share would be meaningless"
)


def fusion_headroom(
    metric: str, fused: float, best: float, oracle: float
) -> tuple[float | None, str | None]:
    """Headroom collected and a note. The oracle's bound (an oracle over the runs is a ceiling for
    any merge of them) holds for a measure with a cutoff k when the fused top k is built from
    the runs' top k alone, which is how the report fuses. Without a cutoff there is no such
    ceiling, so no share is given. With a graded or multi-document measure (nDCG@k, P@k) fusion
    can still beat the oracle by pooling relevant documents from both lists; that is said."""
    if explicit_cutoff(metric) is None:
        return None, NO_CUTOFF_HEADROOM.format(metric=metric)
    share = headroom_collected(fused, best, oracle)
    if share is None:
        return (
            None,
            "the oracle is no better than the best single system: there is no headroom to collect",
        )
    if share > 1:
        return share, (
            "above 1: on this measure the fused top k can beat both runs on the same query, since a "
            "document both lists hold rises and relevant documents from both lists are pooled; the "
            "oracle of the single runs is no ceiling here"
        )
    if share < 0:
        return share, "below 0: the fused run scores under the best single system"
    return share, None


# --- assembly (pure) -------------------------------------------------------------------------


def assemble_report(
    scores: pl.DataFrame,
    strata: pl.DataFrame,
    *,
    metric: str = DEFAULT_METRIC,
    k: int | None = None,
    traffic: pl.DataFrame | None = None,
    systems: list[str] | None = None,
    fused: str | None = None,
    judged: dict[str, float] | None = None,
    paired: list[dict[str, Any]] | None = None,
    seed: int = DEFAULT_SEED,
    samples: int = REPORT_SAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    fusion_depth: int | None = None,
    qrels: pl.DataFrame | None = None,
    unjudged_bounds: dict[str, dict[str, Any]] | None = None,
    binary: bool | None = None,
    topk: pl.DataFrame | None = None,
) -> Report:
    """Everything but the engine's work. ``scores`` must hold every evaluated query for every
    system (including the fused one, named ``fused``); ``systems`` are the single runs.
    ``strata`` may carry ``inclusion_probability`` (the design-weighted headline) and ``traffic``
    ``population`` (the finite-population correction of the weighted interval).

    Whether ``metric`` is binary (hits, Wilson, McNemar) comes from its definition and, for a
    recall-like measure, the ``qrels`` (``eval.measure_kind``), never from the values: nDCG@10 at
    1.0 on every query is still graded. ``binary`` overrides it for synthetic scores without qrels.
    """
    design_frame = _design_frame(strata)
    strata = strata.select("query_id", "stratum")
    every = scores.get_column("system").unique(maintain_order=True).to_list()
    systems = systems or [s for s in every if s != fused]
    queries = scores.get_column("query_id").unique()
    binary = is_binary_measure(metric, qrels, queries) if binary is None else binary
    bounded = is_bounded_measure(metric)
    if binary and not scores.get_column("value").is_in([0.0, 1.0]).all():
        # A caller's contradiction (scores of another measure), not a guess to make quietly.
        raise ValueError(f"{metric} is binary by definition, but the scores hold other values")
    order = strata_order(strata, traffic)
    table = stratum_table(
        scores,
        strata,
        binary=binary,
        bounded=bounded,
        confidence=confidence,
        seed=seed,
        samples=samples,
        order=order,
    )
    overall = overall_table(
        scores, binary=binary, bounded=bounded, confidence=confidence, seed=seed, samples=samples
    )
    checks = closure_checks(scores, strata, table, traffic, binary=binary)
    in_table = set(table.get_column("stratum").to_list())
    report = Report(
        metric=metric,
        k=k if k is not None else cutoff(metric),
        n=scores.get_column("query_id").n_unique(),
        binary=binary,
        systems=systems,
        fused=fused,
        table=table,
        overall=overall,
        closure=checks,
        strata=[s for s in order if s in in_table],
        scores=scores,
        failing=failing_with_holes(failing_queries(scores, strata), scores, strata, topk),
        overlap=failure_overlap(scores, systems + ([fused] if fused else [])),
        judged=dict(judged or {}),
        paired=list(paired or []),
        strata_frame=strata,
        dropped=dropped_with_holes(
            dropped_queries(strata, scores, qrels), topk, k if k is not None else cutoff(metric)
        ),
        fusion_depth=fusion_depth,
        bounded=bounded,
        topk=topk,
    )
    if fused and len(systems) >= 2:
        means = dict(overall.select("system", "mean").iter_rows())
        best = max(means[s] for s in systems)
        oracle = oracle_mean(scores, systems)
        share, report.headroom_note = fusion_headroom(metric, means[fused], best, oracle)
        top = max(systems, key=lambda s: means[s])  # the first of equals, in the order given
        report.fusion = {
            fused: {
                "mean": means[fused],
                "headroom_collected": share,
                "best_single": top,
                "best_single_mean": best,
                "oracle": oracle,
            }
        }
    everyone = systems + ([fused] if fused else [])
    report.paired = _with_adjusted(report.paired)
    report.traffic = traffic
    report.estimands["unweighted"] = estimand_text(UNWEIGHTED, metric, binary=binary)
    if traffic is not None:
        _traffic_weighted(report, scores, strata, traffic, design_frame, confidence)
    if design_frame is not None:
        design = per_query_estimates(
            scores,
            design_frame,
            bounds=(0.0, 1.0) if bounded else None,
            binary=binary,
            confidence=confidence,
            design_effects=design_effects_of(traffic),
        )
        report.design = {name: e.mean for name, e in design.items()}
        report.design_ci = {name: e.ci for name, e in design.items()}
        report.design_se = {name: e.se for name, e in design.items()}
        report.estimands["design_weighted"] = estimand_text(PER_QUERY, metric, binary=binary)
    report.by_stratum = with_holm_over_strata(
        stratum_comparisons(scores, strata, everyone, binary=binary, seed=seed, samples=samples)
    )
    report.unjudged_bounds = dict(unjudged_bounds or {})
    report.warnings = _warnings(report, strata, traffic)
    return report


def _design_frame(strata: pl.DataFrame) -> pl.DataFrame | None:
    """query_id, stratum, inclusion_probability (and count when the file has it) of the queries
    with a probability; None when the strata file has none (a hand-made one)."""
    if INCLUSION not in strata.columns:
        return None
    keep = ["query_id", "stratum", INCLUSION] + ([COUNT] if COUNT in strata.columns else [])
    frame = strata.select(keep).drop_nulls(INCLUSION)
    return frame if frame.height else None


def _traffic_weighted(
    report: Report,
    scores: pl.DataFrame,
    strata: pl.DataFrame,
    traffic: pl.DataFrame,
    design: pl.DataFrame | None,
    confidence: float,
) -> None:
    """The traffic-weighted headline and differences: the per-search rate from counts and
    inclusion probabilities when every drawn query has both, else the strata's plain means
    weighted by share (all a hand-made strata file allows), said as such in ``estimands``."""
    bounded = report.bounded
    counted = (
        design is not None
        and COUNT in design.columns
        and design.height == strata.height  # every query of the set has a probability
        and design.get_column(COUNT).null_count() == 0
    )
    if design is not None and counted:
        estimates = per_search_estimates(
            scores,
            design,
            traffic,
            bounds=(0.0, 1.0) if bounded else None,
            binary=report.binary,
            confidence=confidence,
        )
        report.weighted = {name: e.mean for name, e in estimates.items()}
        report.weighted_kind = PER_SEARCH
        for p in report.paired:
            diff = per_search_difference(
                scores, design, traffic, p["a"], p["b"], bounded=bounded, confidence=confidence
            )
            p["weighted_mean_diff"] = _difference_of_headlines(report, p["a"], p["b"], diff.mean)
            p["weighted_ci95"] = list(diff.ci)
    else:
        population = (
            {str(a): float(b) for a, b in traffic.select("stratum", POPULATION).iter_rows()}
            if POPULATION in traffic.columns
            else None
        )
        estimates = weighted_estimates(
            scores,
            strata,
            traffic,
            population=population,
            confidence=confidence,
            method=report.method,
        )
        report.weighted = weighted_means(report.table, traffic)
        report.weighted_kind = STRATUM_MEANS
        report.fpc = population is not None
        for p in report.paired:
            diff = weighted_difference(
                scores,
                strata,
                traffic,
                p["a"],
                p["b"],
                population=population,
                confidence=confidence,
                bounded=bounded,
                binary=report.binary,
            )
            p["weighted_mean_diff"] = _difference_of_headlines(report, p["a"], p["b"], diff.mean)
            p["weighted_ci95"] = list(diff.ci)
    report.weighted_ci = {name: e.ci for name, e in estimates.items()}
    report.estimands["weighted"] = estimand_text(
        report.weighted_kind, report.metric, binary=report.binary
    )


def _with_adjusted(paired: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Holm-adjusted p-values beside the raw ones, over every pair compared (with one pair the
    two are equal). The weighted fields start empty: they need traffic shares."""
    adjusted = holm([float(p["p_value"]) for p in paired])
    return [
        {**p, "p_adjusted": q, "weighted_mean_diff": None, "weighted_ci95": [None, None]}
        for p, q in zip(paired, adjusted, strict=True)
    ]


DROPPED_SHOWN = 5  # dropped queries named in a warning line; the JSON and closure screen list all


def _dropped_line(rows: pl.DataFrame, what: str) -> str:
    """One warning line: the count, then the first ``DROPPED_SHOWN`` queries with their reasons."""
    shown = [
        f"{q} ({st}: {why})" if st is not None else f"{q} ({why})"
        for q, st, why in rows.head(DROPPED_SHOWN).iter_rows()
    ]
    more = rows.height - len(shown)
    return (
        f"{rows.height} {what.format('y' if rows.height == 1 else 'ies')}: "
        + "; ".join(shown)
        + (f"; and {more} more (closure.dropped in the JSON)" if more > 0 else "")
    )


def _difference_of_headlines(report: Report, a: str, b: str, paired_mean: float) -> float:
    """The weighted difference: its own paired mean, or, where that is undefined (a stratum of
    one query has no variance, so the stratified estimate gives nan for mean and interval alike),
    the difference of the two traffic-weighted headlines the report prints beside it. Both
    systems are scored on the same queries, so the share-weighted mean of the per-query
    differences is the difference of the share-weighted means: the point exists even where the
    interval does not, and the interval alone shows as "-"."""
    if math.isfinite(paired_mean):
        return paired_mean
    weighted = report.weighted or {}
    wa, wb = weighted.get(a), weighted.get(b)
    if wa is None or wb is None or not (math.isfinite(wa) and math.isfinite(wb)):
        return paired_mean
    return wa - wb


def _warnings(report: Report, strata: pl.DataFrame, traffic: pl.DataFrame | None) -> list[str]:
    out: list[str] = []
    for name, fraction in report.judged.items():
        unjudged = 1.0 - fraction
        if unjudged > UNJUDGED_WARNING:
            out.append(
                f"{name}: {percent_against(unjudged, UNJUDGED_WARNING)} of its top {report.k} is "
                f"unjudged (above {UNJUDGED_WARNING:.0%}): "
                "unjudged documents count as not relevant, so its numbers are biased low; judge the missing pairs"
            )
    failed = [c for c in report.closure if not c.ok]
    if failed:
        out.append(
            "the table does not close: "
            + "; ".join(f"{c.name} (residual {fmt_num(c.residual)})" for c in failed)
        )
    small = (
        report.table.filter(pl.col("small"))
        .get_column("stratum")
        .unique(maintain_order=True)
        .to_list()
    )
    if small:
        out.append(
            f"under {SMALL_STRATUM} queries, read as counts of failures, not as rates: "
            + ", ".join(small)
        )
    dropped = report.dropped
    if dropped is not None and dropped.height:
        golden = dropped.filter(pl.col("stratum").is_not_null())
        if golden.height:
            out.append(
                _dropped_line(golden, "golden-set quer{} (strata file) dropped from the table")
            )
        loose = dropped.filter(pl.col("stratum").is_null())
        if loose.height:
            out.append(
                _dropped_line(
                    loose,
                    "judged quer{} in no stratum (not in the strata file), so in no row of the table",
                )
            )
    empty = empty_strata(strata, report.scores, traffic)
    if empty:
        out.append("strata without evaluated queries: " + ", ".join(empty))
    return out
