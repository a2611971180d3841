"""Intervals for every agreement figure, by resampling whole queries (``bootstrap``).

Each query contributes a share of two kinds of count table, and every figure is computed from the
summed tables:

- Krippendorff's coincidence matrix ``o[c][k]`` over all labellers: alpha at the three levels, and
  at each binary cut-off (relevant if grade >= t) alpha and agreement, because the binarised
  coincidences are sums of cells of the graded ones;
- each pair of labellers' confusion matrix: Cohen's kappa (unweighted, linear, quadratic) and raw
  agreement.

``figure_intervals`` returns ``{figure name: (low, high) or None}`` with names such as
``alpha.ordinal``, ``binary.2.agreement``, ``pair.0.kappa_quadratic`` (pairs numbered in the
order given). Queries in which no pair was judged twice or more carry no agreement information
and are not resampled: the sample is the queries where agreement was measured.

Strata resample their own queries (``stratum_interval``): a stratum's interval answers "what if
another sample of this stratum's queries had been judged".

Every figure takes its interval from a jackknife over the same queries instead (``jackknife``:
Student t on log(1 - value) for the alphas and kappas, Wilson's form for agreements; the
percentile bootstrap held 0.80-0.89 at 8 queries); a figure undefined with some query left out
keeps the bootstrap's percentile interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from operator import mul

import polars as pl

from goldset_tui.agreement import coefficients as co
from goldset_tui.agreement.bootstrap import (
    DEFAULT_CONFIDENCE,
    percentile_interval,
    resample_sums,
)
from goldset_tui.agreement.jackknife import (
    FLOOR,
    jackknife_interval,
    leave_one_out,
    rate_interval,
)

Interval = tuple[float, float] | None


def coincidence_cells(ratings: pl.DataFrame, grades: Sequence[int]) -> pl.DataFrame:
    """``query_id, cell, value``: each query's share of the coincidence matrix.

    ``cell`` is ``o{i}_{j}`` for grade indices i, j (same formula as ``co.coincidences``)."""
    index = {g: i for i, g in enumerate(grades)}
    counts = (
        ratings.group_by("query_id", "unit", pl.col("grade").alias("value"))
        .agg(pl.len().cast(pl.Int64).alias("count"))
        .with_columns(m=pl.col("count").sum().over("unit"))
        .filter(pl.col("m") >= 2)
    )
    pairs = counts.join(counts.drop("query_id", "m"), on="unit", suffix="_k").with_columns(
        o=(
            pl.col("count") * pl.col("count_k")
            - pl.when(pl.col("value") == pl.col("value_k")).then(pl.col("count")).otherwise(0)
        )
        / (pl.col("m") - 1)
    )
    return (
        pairs.group_by("query_id", "value", "value_k")
        .agg(pl.col("o").sum())
        .filter(pl.col("o") != 0)
        .select(
            "query_id",
            cell=pl.format(
                "o{}_{}",
                pl.col("value").replace_strict(index, return_dtype=pl.Int64),
                pl.col("value_k").replace_strict(index, return_dtype=pl.Int64),
            ),
            value=pl.col("o").cast(pl.Float64),
        )
    )


def confusion_cells(
    ratings: pl.DataFrame, pairs: Sequence[tuple[str, str]], grades: Sequence[int]
) -> pl.DataFrame:
    """``query_id, cell, value``: each query's share of each pair's confusion matrix, with
    ``cell`` = ``p{pair}_{i}_{j}`` (row: the first labeller's grade index)."""
    index = {g: i for i, g in enumerate(grades)}
    frames = []
    for p, (a, b) in enumerate(pairs):
        left = ratings.filter(pl.col("labeller") == a).select("query_id", "unit", x="grade")
        right = ratings.filter(pl.col("labeller") == b).select("unit", y="grade")
        counts = left.join(right, on="unit").group_by("query_id", "x", "y").len()
        frames.append(
            counts.select(
                "query_id",
                cell=pl.format(
                    f"p{p}_{{}}_{{}}",
                    pl.col("x").replace_strict(index, return_dtype=pl.Int64),
                    pl.col("y").replace_strict(index, return_dtype=pl.Int64),
                ),
                value=pl.col("len").cast(pl.Float64),
            )
        )
    if not frames:
        return pl.DataFrame(schema={"query_id": pl.Utf8, "cell": pl.Utf8, "value": pl.Float64})
    return pl.concat(frames)


def per_query_table(cells: pl.DataFrame) -> pl.DataFrame:
    """One row per query that holds any count, one Float64 column per cell (0 where absent),
    queries in id order so that the draws do not depend on input order."""
    if cells.height == 0:
        return pl.DataFrame()
    wide = cells.pivot(on="cell", index="query_id", values="value", aggregate_function="sum")
    return wide.sort("query_id").drop("query_id").fill_null(0.0)


def figures(sums: dict[str, float], grades: Sequence[int], n_pairs: int) -> dict[str, float | None]:
    """Every figure from one set of summed count tables (a replicate, or the whole sample)."""
    k = len(grades)
    coincidence_names, pair_names = _cell_names(k, n_pairs)
    o: co.Coincidence = {}
    for (i, j), name in coincidence_names:
        v = sums.get(name, 0.0)
        if v:
            o[grades[i], grades[j]] = v
    out: dict[str, float | None] = {
        f"alpha.{level}": co.alpha_from_coincidences(o, level, grades) for level in co.LEVELS
    }
    for t in grades[1:]:
        binary = co.binarised(o, t)
        out[f"binary.{t}.alpha"] = co.alpha_from_coincidences(binary, "nominal", [0, 1])
        out[f"binary.{t}.agreement"] = co.coincidence_agreement(binary)
    weights = [co.kappa_weights(k, w) for w in co.KAPPA_WEIGHTS]
    for p, rows in enumerate(pair_names):
        confusion = [[sums.get(name, 0.0) for name in row] for row in rows]
        out[f"pair.{p}.agreement"] = co.raw_agreement(confusion)
        for name, value in zip(KAPPA_NAMES, kappas(confusion, weights), strict=True):
            out[f"pair.{p}.{name}"] = value
    return out


KAPPA_NAMES = ("kappa", "kappa_linear", "kappa_quadratic")  # in co.KAPPA_WEIGHTS order


@cache
def _cell_names(
    k: int, n_pairs: int
) -> tuple[list[tuple[tuple[int, int], str]], list[list[list[str]]]]:
    """The column names of the cells, made once rather than in every replicate."""
    coincidence = [((i, j), f"o{i}_{j}") for i in range(k) for j in range(k)]
    pairs = [[[f"p{p}_{i}_{j}" for j in range(k)] for i in range(k)] for p in range(n_pairs)]
    return coincidence, pairs


def kappas(confusion: list[list[float]], weights: list[co.Matrix]) -> list[float | None]:
    """``co.cohen_kappa`` for several weightings at once: the marginals are shared, and this runs
    once per pair in each of a thousand replicates."""
    k = len(confusion)
    n = sum(map(sum, confusion))
    if n == 0:
        return [None] * len(weights)
    rows = [sum(r) for r in confusion]
    cols = [sum(confusion[i][j] for i in range(k)) for j in range(k)]
    # Flattened in row order and summed in that order: the same products added in the same order
    # as the generator expressions this replaced, so every replicate's value is bit for bit the same.
    observed_cells = [confusion[i][j] for i in range(k) for j in range(k)]
    expected_cells = [rows[i] * cols[j] / n for i in range(k) for j in range(k)]
    out: list[float | None] = []
    for w in weights:
        flat = [w[i][j] for i in range(k) for j in range(k)]
        observed = sum(map(mul, flat, observed_cells))
        expected = sum(map(mul, flat, expected_cells))
        out.append(None if expected == 0 else 1.0 - observed / expected)
    return out


def figure_intervals(
    ratings: pl.DataFrame,
    grades: Sequence[int],
    pairs: Sequence[tuple[str, str]],
    *,
    replicates: int,
    seed: int,
    confidence: float = DEFAULT_CONFIDENCE,
) -> tuple[dict[str, Interval], int]:
    """(interval of every figure ``figures`` names, the number of queries resampled).

    Every figure takes its jackknife interval (``jackknife_intervals``); a figure it cannot make
    one for (undefined with some query left out) keeps the bootstrap's percentile interval, and
    the bootstrap is only drawn when such a figure exists."""
    cells = pl.concat([coincidence_cells(ratings, grades), confusion_cells(ratings, pairs, grades)])
    table = per_query_table(cells)
    names = list(figures({}, grades, len(pairs)))
    if table.height < 2 or replicates < 1:
        return dict.fromkeys(names), table.height
    out: dict[str, Interval] = dict.fromkeys(names)
    out |= jackknife_intervals(table, grades, len(pairs), confidence)
    missing = [name for name in names if out[name] is None]
    if missing:
        sums = resample_sums(table, replicates=replicates, seed=seed).drop("rep")
        values: dict[str, list[float | None]] = {name: [] for name in missing}
        for row in sums.iter_rows(named=True):
            replicate = figures(row, grades, len(pairs))
            for name in missing:
                values[name].append(replicate[name])
        out |= {name: percentile_interval(v, confidence) for name, v in values.items()}
    return out, table.height


def jackknife_intervals(
    table: pl.DataFrame, grades: Sequence[int], n_pairs: int, confidence: float
) -> dict[str, Interval]:
    """Every figure's jackknife interval over the queries (``jackknife``), where it can be made:
    alphas and kappas on log(1 - value), falling back for a kappa whose disagreements all sit in
    one query (or none) to its observed disagreement read as a rate (``_kappa_by_disagreement``);
    agreements by ``jackknife.rate_interval``."""
    whole, left_out = leave_one_out(
        table.columns, table.rows(), lambda sums: figures(sums, grades, n_pairs)
    )
    out: dict[str, Interval] = {}
    for name, estimate in whole.items():
        replicates = [f[name] for f in left_out]
        if name.endswith("agreement"):
            interval = rate_interval(estimate, replicates, confidence)
        else:
            interval = jackknife_interval(estimate, replicates, confidence)
            kappa = name.rsplit(".", 1)[-1]
            if kappa in KAPPA_NAMES and interval is not None and not _log_defined(replicates):
                pair = int(name.split(".")[1])
                interval = _kappa_by_disagreement(table, len(grades), pair, kappa, confidence)
        if interval is not None:
            out[name] = interval
    return out


def _log_defined(left_out: Sequence[float | None]) -> bool:
    return all(v is not None and v < 1.0 for v in left_out)


def _kappa_by_disagreement(
    table: pl.DataFrame, k: int, pair: int, kappa: str, confidence: float
) -> Interval:
    """A kappa's interval from its observed disagreement alone, for when all of it sits in one
    query or none (then log(1 - kappa) has no spread to measure, or none at all): 1 - kappa =
    O / E, with O the weighted disagreement summed over the pair's units. O over the units' most
    it could be (n times the largest weight) is a share in [0, 1]; its interval
    (``jackknife.rate_interval``: each query one observation when no query disagrees) is carried
    to kappa with E held at its value on every query. E varies far less than O between samples of
    queries when O is near 0, which is the only case this serves."""
    weights = co.kappa_weights(k, co.KAPPA_WEIGHTS[KAPPA_NAMES.index(kappa)])
    largest = max(max(row) for row in weights)
    names = _cell_names(k, pair + 1)[1][pair]
    cells = [(names[i][j], weights[i][j]) for i in range(k) for j in range(k)]
    rows = [
        (
            math.fsum(w * float(row.get(c, 0.0)) for c, w in cells),
            math.fsum(float(row.get(c, 0.0)) for c, _ in cells),
        )
        for row in table.iter_rows(named=True)
    ]

    def share(sums: dict[str, float]) -> dict[str, float | None]:
        return {"share": sums["o"] / (sums["n"] * largest) if sums["n"] > 0 else None}

    whole, left_out = leave_one_out(["o", "n"], rows, share)
    confusion = [
        [
            math.fsum(float(r.get(names[i][j], 0.0)) for r in table.iter_rows(named=True))
            for j in range(k)
        ]
        for i in range(k)
    ]
    n = math.fsum(map(math.fsum, confusion))
    expected_rows = [math.fsum(r) for r in confusion]
    expected_cols = [math.fsum(confusion[i][j] for i in range(k)) for j in range(k)]
    expected = math.fsum(
        weights[i][j] * expected_rows[i] * expected_cols[j] / n for i in range(k) for j in range(k)
    )
    interval = rate_interval(whole["share"], [f["share"] for f in left_out], confidence)
    if interval is None or expected <= 0.0:
        return None
    scale = n * largest / expected
    return (max(FLOOR, 1.0 - interval[1] * scale), 1.0 - interval[0] * scale)


def stratum_interval(
    ratings: pl.DataFrame,
    grades: Sequence[int],
    *,
    replicates: int,
    seed: int,
    level: str = "ordinal",
    confidence: float = DEFAULT_CONFIDENCE,
) -> tuple[Interval, int]:
    """(interval of alpha at ``level`` resampling this part's own queries, queries resampled)."""
    table = per_query_table(coincidence_cells(ratings, grades))
    if table.height < 2 or replicates < 1:
        return None, table.height
    name = f"alpha.{level}"
    jackknife = jackknife_intervals(table, grades, 0, confidence).get(name)
    if jackknife is not None:
        return jackknife, table.height
    sums = resample_sums(table, replicates=replicates, seed=seed).drop("rep")
    values = [figures(row, grades, 0)[name] for row in sums.iter_rows(named=True)]
    return percentile_interval(values, confidence), table.height


def bootstrap_alpha(
    ratings: pl.DataFrame,
    level: str = "ordinal",
    grades: Sequence[int] | None = None,
    *,
    replicates: int,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Interval:
    """The interval of alpha alone (ratings: ``query_id, unit, grade``), for notebook use."""
    if grades is None:
        grades = sorted(ratings.get_column("grade").unique().to_list())
    interval, _ = stratum_interval(
        ratings, grades, replicates=replicates, seed=seed, level=level, confidence=confidence
    )
    return interval
