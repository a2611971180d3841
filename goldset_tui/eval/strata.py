"""The stratified table (docs/background.md#table-closure): per stratum and system n, hits, mean
and a 95% interval, its closure checks, the traffic-weighted headline and the failing queries.

Everything works on a per-query score frame ``system, query_id, value`` (one measure) that already
holds every evaluated query for every system (missing from a run = 0, filled by the report), and a
strata frame ``query_id, stratum``. Strata are expected to partition the queries; when they do not
(a query in none; a query in two, which a strata file cannot give but a frame built by hand can)
the table is still built and the closure checks say by how much it fails, because that is the
first thing a reader must see.
"""

from __future__ import annotations

import math

import polars as pl

from goldset_tui.eval.defaults import REPORT_SAMPLES
from goldset_tui.eval.intervals import (
    DEFAULT_CONFIDENCE,
    DEFAULT_SEED,
    at_bound,
    interval_from,
    method_for,
)
from goldset_tui.model import NO_STRATUM
from goldset_tui.report.closure import ClosureCheck

# Below about 40 queries a stratum's interval is too wide to compare two systems at the gaps
# these tables show (docs/background.md#stratum-depth); such rows are read as counts of
# failures, not as rates.
SMALL_STRATUM = 40


# --- the table -------------------------------------------------------------------------------


def strata_order(strata: pl.DataFrame, traffic: pl.DataFrame | None = None) -> list[str]:
    """Strata in the order the strata file names them, then any only in the traffic file."""
    names = strata.get_column("stratum").unique(maintain_order=True).to_list()
    if traffic is not None:
        names += [s for s in traffic.get_column("stratum").to_list() if s not in set(names)]
    return names


def _with_interval(
    groups: pl.DataFrame,
    values: pl.DataFrame,
    keys: list[str],
    *,
    binary: bool,
    bounded: bool,
    confidence: float,
    seed: int,
    samples: int,
) -> pl.DataFrame:
    # One interval per (stratum, system) cell, one method for the whole table, chosen by what the
    # measure is (eval.measure_kind), not by the values. The intervals are closed-form (see
    # intervals.py), so seed and samples no longer matter; kept for callers.
    del seed, samples
    method = method_for(binary=binary, bounded=bounded)
    stats = values.group_by(keys).agg(
        _n=pl.len(),
        _mean=pl.col("value").mean(),
        _var=pl.col("value").var(ddof=1),
        _bounds=at_bound(pl.col("value")).mean(),
    )
    ends = [
        interval_from(method, n, mean, math.nan if var is None else var, bounds, confidence)
        for n, mean, var, bounds in stats.select("_n", "_mean", "_var", "_bounds").iter_rows()
    ]
    stats = stats.select(
        *keys,
        ci_lo=pl.Series([e[0] for e in ends], dtype=pl.Float64),
        ci_hi=pl.Series([e[1] for e in ends], dtype=pl.Float64),
    )
    return groups.join(stats, on=keys, how="left", maintain_order="left")


def stratum_table(
    scores: pl.DataFrame,
    strata: pl.DataFrame,
    *,
    binary: bool,
    bounded: bool = True,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = DEFAULT_SEED,
    samples: int = REPORT_SAMPLES,
    order: list[str] | None = None,
) -> pl.DataFrame:
    """One row per (stratum, system): stratum, system, n, hits (null unless binary), mean,
    ci_lo, ci_hi, small. Rows follow ``order`` (default: strata file order), systems as given.
    ``binary`` and ``bounded`` say what the measure is (``eval.measure_kind``)."""
    joined = scores.join(strata, on="query_id", how="inner")
    systems = scores.get_column("system").unique(maintain_order=True).to_list()
    groups = joined.group_by("stratum", "system").agg(
        n=pl.len().cast(pl.Int64),
        hits=pl.col("value").sum().round(0).cast(pl.Int64)
        if binary
        else pl.lit(None, dtype=pl.Int64),
        mean=pl.col("value").mean(),
    )
    order = order or strata_order(strata)
    rank_s = pl.DataFrame(
        {"stratum": order, "_s": range(len(order))}, schema={"stratum": pl.Utf8, "_s": pl.Int64}
    )
    rank_y = pl.DataFrame(
        {"system": systems, "_y": range(len(systems))}, schema={"system": pl.Utf8, "_y": pl.Int64}
    )
    groups = (
        groups.join(rank_s, on="stratum", how="left")
        .join(rank_y, on="system", how="left")
        .sort("_s", "_y")
        .drop("_s", "_y")
    )
    groups = _with_interval(
        groups,
        joined,
        ["stratum", "system"],
        binary=binary,
        bounded=bounded,
        confidence=confidence,
        seed=seed,
        samples=samples,
    )
    return groups.with_columns(small=pl.col("n") < SMALL_STRATUM)


def overall_table(
    scores: pl.DataFrame,
    *,
    binary: bool,
    bounded: bool = True,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = DEFAULT_SEED,
    samples: int = REPORT_SAMPLES,
) -> pl.DataFrame:
    """One row per system over every evaluated query: system, n, hits, mean, ci_lo, ci_hi."""
    groups = scores.group_by("system", maintain_order=True).agg(
        n=pl.len().cast(pl.Int64),
        hits=pl.col("value").sum().round(0).cast(pl.Int64)
        if binary
        else pl.lit(None, dtype=pl.Int64),
        mean=pl.col("value").mean(),
    )
    return _with_interval(
        groups,
        scores,
        ["system"],
        binary=binary,
        bounded=bounded,
        confidence=confidence,
        seed=seed,
        samples=samples,
    )


def weighted_means(table: pl.DataFrame, traffic: pl.DataFrame) -> dict[str, float]:
    """Sum over strata of traffic share x stratum mean, per system
    (docs/background.md#traffic-weighting).

    Not renormalised: if the shares do not sum to 1, or a stratum has
    no share, the closure checks say so rather than the headline quietly hiding it.
    """
    w = (
        table.join(traffic, on="stratum", how="inner")
        .group_by("system", maintain_order=True)
        .agg(weighted=(pl.col("share") * pl.col("mean")).sum())
    )
    return dict(w.iter_rows())


def failing_queries(scores: pl.DataFrame, strata: pl.DataFrame) -> pl.DataFrame:
    """system, stratum, query_id of every query a system scored 0 on (the failure lists)."""
    return (
        scores.filter(pl.col("value") == 0)
        .join(strata, on="query_id", how="left")
        .with_columns(pl.col("stratum").fill_null(NO_STRATUM))
        .select("system", "stratum", "query_id")
        .sort("system", "stratum", "query_id")
    )


# --- closure ---------------------------------------------------------------------------------


def closure_checks(
    scores: pl.DataFrame,
    strata: pl.DataFrame,
    table: pl.DataFrame,
    traffic: pl.DataFrame | None = None,
    *,
    binary: bool,
) -> list[ClosureCheck]:
    """Does the table close? n sums to the query count, each system's hits sum
    to its overall hits, overall rate = hits / n, shares sum to 1, every query in exactly one
    stratum and every stratum holding queries. Overall figures come from ``scores`` directly, not
    from the table, so that the two are independent."""
    queries = scores.get_column("query_id").unique()
    q = queries.len()
    known = strata.filter(pl.col("query_id").is_in(queries.implode()))
    per_query = known.group_by("query_id").agg(k=pl.len())
    systems = scores.get_column("system").unique(maintain_order=True).to_list()
    first = systems[0] if systems else None
    n_sum = int(table.filter(pl.col("system") == first).get_column("n").sum()) if first else 0
    golden = strata.get_column("query_id").n_unique()
    checks = [
        ClosureCheck("n column sums to the query count", float(q), float(n_sum)),
        # The golden set is the strata file. A query of it that the qrels leave out (no
        # judgments, no relevant document) shrinks a stratum's n silently unless counted here.
        ClosureCheck(GOLDEN_CHECK, float(golden), float(n_sum)),
    ]

    totals = scores.group_by("system", maintain_order=True).agg(
        total=pl.col("value").sum(), n=pl.len(), mean=pl.col("value").mean()
    )
    strat_totals = dict(
        table.group_by("system").agg(t=(pl.col("mean") * pl.col("n")).sum()).iter_rows()
    )
    word = "hits" if binary else "totals"
    for system, total, n, mean in totals.iter_rows():
        expected = float(round(total)) if binary else float(total)
        actual = float(strat_totals.get(system, 0.0))
        actual = float(round(actual)) if binary else actual
        checks.append(
            ClosureCheck(
                f"{system}: stratum {word} sum to overall {word}", expected, actual, tolerance=1e-6
            )
        )
        rate = total / n if n else math.nan
        checks.append(
            ClosureCheck(f"{system}: overall rate = {word} / n", rate, float(mean), tolerance=1e-9)
        )

    if traffic is not None:
        checks.append(
            ClosureCheck(
                "traffic shares sum to 1",
                1.0,
                float(traffic.get_column("share").sum()),
                tolerance=1e-6,
            )
        )
    unstratified = q - per_query.height
    checks.append(ClosureCheck("queries without a stratum", 0.0, float(unstratified)))
    checks.append(
        ClosureCheck(
            "queries in more than one stratum", 0.0, float(per_query.filter(pl.col("k") > 1).height)
        )
    )
    listed = strata_order(strata, traffic)
    populated = set(known.get_column("stratum").to_list())
    checks.append(
        ClosureCheck(
            "strata without queries", 0.0, float(sum(1 for s in listed if s not in populated))
        )
    )
    if traffic is not None:
        shared = set(traffic.get_column("stratum").to_list())
        checks.append(
            ClosureCheck(
                "strata without a traffic share",
                0.0,
                float(sum(1 for s in populated if s not in shared)),
            )
        )
    return checks


GOLDEN_CHECK = "n column sums to the golden set (strata file)"
NO_JUDGMENTS = "no judgments"
NOT_SCORED = "not evaluated (no per-query score)"
NO_STRATUM_WHY = "no stratum: judged, but not in the strata file"


def dropped_queries(
    strata: pl.DataFrame, scores: pl.DataFrame, qrels: pl.DataFrame | None = None
) -> pl.DataFrame:
    """``query_id, stratum, why`` for every query the table leaves out. First the golden set's
    (the strata file's) queries without a per-query score, in file order. With the qrels the
    reason is named: ``no judgments`` (absent from the qrels, or only "pooled but unjudged"
    negative grades) or ``no relevant document`` (judged, nothing graded >= 1), as ``goldset
    eval`` averages only queries with a relevant document. Then the queries that have judgments
    but are in no stratum (``stratum`` null, ``why`` NO_STRATUM_WHY...), in qrels order: a query
    judged for the set but missing from the strata file is in no row, and would otherwise go
    unnamed."""
    out = strata.join(scores.select("query_id").unique(), on="query_id", how="anti").select(
        "query_id", "stratum"
    )
    if qrels is None:
        return out.with_columns(why=pl.lit(NOT_SCORED))
    judged = (
        qrels.filter(pl.col("grade") >= 0)
        .group_by("query_id", maintain_order=True)
        .agg(judged=pl.len(), best=pl.col("grade").max())
    )
    golden = (
        out.join(judged, on="query_id", how="left", maintain_order="left")
        .with_columns(
            why=pl.when(pl.col("judged").is_null())
            .then(pl.lit(NO_JUDGMENTS))
            .when(pl.col("best") < 1)
            .then(pl.format("no relevant document ({} judged, none graded >= 1)", pl.col("judged")))
            .otherwise(pl.lit(NOT_SCORED))
        )
        .select("query_id", "stratum", "why")
    )
    unstratified = (
        judged.join(strata.select("query_id").unique(), on="query_id", how="anti")
        .with_columns(
            stratum=pl.lit(None, dtype=pl.Utf8),
            why=pl.when(pl.col("best") >= 1)
            .then(pl.format("{} ({} judged)", pl.lit(NO_STRATUM_WHY), pl.col("judged")))
            .otherwise(
                pl.format(
                    "{} ({} judged, none graded >= 1)", pl.lit(NO_STRATUM_WHY), pl.col("judged")
                )
            ),
        )
        .select("query_id", "stratum", "why")
    )
    return pl.concat([golden, unstratified])


def empty_strata(
    strata: pl.DataFrame, scores: pl.DataFrame, traffic: pl.DataFrame | None = None
) -> list[str]:
    """Names of strata (from either file) that hold no evaluated query."""
    populated = set(
        strata.filter(pl.col("query_id").is_in(scores.get_column("query_id").unique().implode()))
        .get_column("stratum")
        .to_list()
    )
    return [s for s in strata_order(strata, traffic) if s not in populated]
