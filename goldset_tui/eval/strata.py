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
from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.eval.defaults import REPORT_SAMPLES
from goldset_tui.eval.intervals import (
    DEFAULT_CONFIDENCE,
    DEFAULT_SEED,
    at_bound,
    interval_from,
    method_for,
)
from goldset_tui.io.strata_file import refuse_two_strata
from goldset_tui.io.tables import location, location_text, read_table, table_format
from goldset_tui.model import NO_STRATUM
from goldset_tui.report.closure import ClosureCheck
from goldset_tui.scalar import as_int

# Below about 40 queries a stratum's interval is too wide to compare two systems at the gaps
# these tables show (docs/background.md#stratum-depth); such rows are read as counts of
# failures, not as rates.
SMALL_STRATUM = 40


# --- reading ---------------------------------------------------------------------------------


INCLUSION = "inclusion_probability"
COUNT = "count"  # times the query was searched in the log (`goldset sample` writes it)
POPULATION = "population"
# Per stratum, written by `goldset sample` (``sampling.sample.design_effects``): the design
# effects that floor the two headlines' variances (``eval.headline``).
DEFF_SEARCH = "design_effect_per_search"
DEFF_QUERY = "design_effect_per_query"
# The stratum's head (queries searched at least head_count times, all drawn with one
# probability), its share of the stratum's traffic and the design effects of head and tail.
HEAD_COUNT = "head_count"
HEAD_SHARE = "head_share"
DEFF_HEAD = "design_effect_head"
DEFF_TAIL = "design_effect_tail"
OPTIONAL_NUMBERS = (DEFF_SEARCH, DEFF_QUERY, HEAD_COUNT, HEAD_SHARE, DEFF_HEAD, DEFF_TAIL)


def _numbers(df: pl.DataFrame, path: Path, column: str, ok: pl.Expr, wanted: str) -> pl.Series:
    """``column`` as floats; the first value that is not a number or fails ``ok`` is an
    InputError naming the file, its line or row, and the column."""
    raw = df.get_column(column)
    values = raw.cast(pl.Utf8).str.strip_chars().cast(pl.Float64, strict=False)
    bad = (
        pl.DataFrame({column: values})
        .select((pl.col(column).is_null() | pl.col(column).is_nan() | ~ok).fill_null(True))
        .to_series()
    )
    if bad.any():
        i = as_int(bad.arg_max())
        raise InputError(
            path,
            f"{column} {raw[i]!r} is not {wanted}",
            column=column,
            **location(table_format(path), i, path),
        )
    return values.alias(column)


def read_strata(path: str | Path) -> pl.DataFrame:
    """``query_id, stratum`` (text), exact duplicate rows dropped, file order kept, plus
    ``inclusion_probability`` (float in (0, 1]) when the file has that column: the probability the
    sampling design drew the query, for the design-weighted (Hajek) headline; and ``count`` (a
    number > 0: how often the query was searched in the log) when the file has it. With both, the
    traffic-weighted headline estimates the per-search rate (``eval.headline``).

    A query listed under two different strata is refused, naming both lines
    (``io.strata_file``): counted in both, it would change each stratum's n and mean.
    """
    p = Path(path)
    df = read_table(
        p,
        required=("query_id", "stratum"),
        non_empty=("query_id", "stratum"),
        string_columns=("query_id", "stratum"),
    )
    refuse_two_strata(df, p)
    columns = ["query_id", "stratum"]
    if INCLUSION in df.columns:
        # The contract with `goldset sample`: a probability, so 0 < p <= 1; a 0 would give an
        # infinite weight and a value above 1 is no probability at all.
        prob = pl.col(INCLUSION)
        df = df.with_columns(
            _numbers(df, p, INCLUSION, (prob > 0) & (prob <= 1), "a probability in (0, 1]")
        )
        columns.append(INCLUSION)
    if COUNT in df.columns:
        # A weight count / pi: 0 would drop a drawn query, a negative one is no count.
        n = pl.col(COUNT)
        df = df.with_columns(_numbers(df, p, COUNT, (n > 0) & n.is_finite(), "a count > 0"))
        columns.append(COUNT)
    return df.select(columns).unique(maintain_order=True)


def _parse_shares(raw: pl.Series) -> pl.Expr:
    text = raw.cast(pl.Utf8).str.strip_chars()
    percent = text.str.ends_with("%")
    number = text.str.strip_suffix("%").str.strip_chars().cast(pl.Float64, strict=False)
    return pl.when(percent).then(number / 100.0).otherwise(number).alias("share")


def read_traffic(path: str | Path) -> pl.DataFrame:
    """``stratum, share`` with share a fraction (``0.31``) or a percentage (``31%``), plus
    ``population`` (distinct queries of that stratum in the log, a whole number >= 1) when the
    file has that column: it gives the weighted interval its finite-population correction."""
    p = Path(path)
    df = read_table(
        p,
        required=("stratum", "share"),
        non_empty=("stratum", "share"),
        string_columns=("stratum",),
    )
    fmt = table_format(p)
    frame = pl.DataFrame({"stratum": df.get_column("stratum")}).with_columns(
        pl.select(_parse_shares(df.get_column("share"))).to_series()
    )
    bad = frame.get_column("share").is_null() | frame.get_column("share").is_nan()
    if bad.any():
        i = as_int(bad.arg_max())
        raise InputError(
            p,
            f"share {df.get_column('share')[i]!r} is not a number",
            column="share",
            **location(fmt, i, p),
        )
    negative = frame.get_column("share") < 0
    if negative.any():
        i = as_int(negative.arg_max())
        raise InputError(p, "share is negative", column="share", **location(fmt, i, p))
    # Point at the repeat (the line to delete), and say where the name first appeared.
    names = frame.get_column("stratum")
    repeat = ~names.is_first_distinct()
    if repeat.any():
        i = as_int(repeat.arg_max())
        name = names[i]
        first = int((names == name).arg_max())
        raise InputError(
            p,
            f"stratum {name!r} listed more than once (first on {location_text(fmt, first, p)})",
            column="stratum",
            **location(fmt, i, p),
        )
    if POPULATION in df.columns:
        n = pl.col(POPULATION)
        frame = frame.with_columns(
            _numbers(df, p, POPULATION, (n >= 1) & (n == n.floor()), "a whole number >= 1")
        )
    for column in OPTIONAL_NUMBERS:
        if column in df.columns:
            # Empty for a stratum the sample did not draw from; else a number >= 0.
            raw = df.get_column(column).cast(pl.Utf8).str.strip_chars().fill_null("")
            values = raw.replace("", None).cast(pl.Float64, strict=False)
            bad = (raw != "") & (values.is_null() | values.is_nan() | (values < 0)).fill_null(True)
            if bad.any():
                i = as_int(bad.arg_max())
                raise InputError(
                    p,
                    f"{column} {raw[i]!r} is not a number >= 0",
                    column=column,
                    **location(fmt, i, p),
                )
            frame = frame.with_columns(values.alias(column))
    return frame


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
