"""The agreement report: every coefficient over a ratings frame, as the fixed JSON shape.

``agreement_report`` returns a plain dict whose keys are the contract of ``goldset agreement
--format json``; ``null`` where a figure does not apply. Every figure ``x`` that has an
interval carries it beside it as ``x_ci95`` (``[low, high]`` or ``null``), made over whole queries
(``intervals``: a jackknife, or a cluster bootstrap where it cannot be made); ``ci_method`` says
how, or is ``null`` with ``replicates=0``.
``disagreements`` ranks the units on which labellers part, biggest spread first (a 3 against a 0
before a 2 against a 1).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import polars as pl

from goldset_tui.agreement import coefficients as co
from goldset_tui.agreement.bootstrap import method_text
from goldset_tui.agreement.intervals import Interval, figure_intervals, stratum_interval
from goldset_tui.agreement.units import pair_frame, rating_table, values
from goldset_tui.eval.defaults import AGREEMENT_REPLICATES
from goldset_tui.model import NO_STRATUM_SHORT, GradeScale


def agreement_report(
    ratings: pl.DataFrame,
    scale: GradeScale,
    *,
    strata: pl.DataFrame | None = None,
    seed: int = 0,
    replicates: int = AGREEMENT_REPLICATES,
) -> dict[str, Any]:
    grades = scale.grades
    labellers = sorted(ratings.get_column("labeller").unique().to_list())
    pairs = list(combinations(labellers, 2))
    ci, queries = figure_intervals(ratings, grades, pairs, replicates=replicates, seed=seed)
    vals = values(ratings)
    o = co.coincidences(vals)
    alpha: dict[str, object] = {
        level: co.alpha_from_coincidences(o, level, grades) for level in co.LEVELS
    }
    for level in co.LEVELS:
        alpha[f"{level}_ci95"] = as_list(ci[f"alpha.{level}"])
    return {
        "labellers": labellers,
        "units": ratings.get_column("unit").n_unique(),
        "queries": queries,
        "scale": [scale.min, scale.max],
        "ci_method": method_text(replicates, seed) if replicates > 0 else None,
        "pairs": [pair_report(ratings, a, b, grades, ci, p) for p, (a, b) in enumerate(pairs)],
        "alpha": alpha,
        "fleiss_kappa": fleiss(ratings, grades),
        "binary": binary_report(vals, grades, ci, graded=o),
        "strata": strata_report(ratings, strata, grades, replicates=replicates, seed=seed)
        if strata is not None
        else [],
    }


def fleiss(ratings: pl.DataFrame, grades: list[int]) -> float | None:
    """Fleiss' kappa, or ``None`` at once when the units rated twice or more carry different
    numbers of ratings (the usual case under overlap with gaps), which ``co.fleiss_kappa`` would
    only find after the whole units x grades table had been built in Python."""
    per_unit = ratings.group_by("unit").len().filter(pl.col("len") >= 2).get_column("len")
    if per_unit.n_unique() > 1:
        return None
    return co.fleiss_kappa(rating_table(ratings, grades))


def solo_report(ratings: pl.DataFrame, scale: GradeScale) -> dict[str, Any]:
    """The same keys for one labeller: ``null`` or ``[]`` wherever two labellers are needed, so a
    script reading the JSON does not break."""
    alpha: dict[str, object] = dict.fromkeys(co.LEVELS)
    alpha.update({f"{level}_ci95": None for level in co.LEVELS})
    return {
        "labellers": sorted(ratings.get_column("labeller").unique().to_list()),
        "units": ratings.height,
        "queries": None,
        "scale": [scale.min, scale.max],
        "ci_method": None,
        "pairs": [],
        "alpha": alpha,
        "fleiss_kappa": None,
        "binary": [],
        "strata": [],
    }


def as_list(interval: Interval) -> list[float] | None:
    return list(interval) if interval is not None else None


def pair_report(
    ratings: pl.DataFrame,
    a: str,
    b: str,
    grades: list[int],
    ci: dict[str, Interval] | None = None,
    index: int = 0,
) -> dict[str, Any]:
    confusion = co.confusion_from_frame(pair_frame(ratings, a, b), grades)
    out: dict[str, object] = {"a": a, "b": b, "n": sum(map(sum, confusion))}
    figures = {
        "agreement": co.raw_agreement(confusion),
        "kappa": co.cohen_kappa(confusion, None),
        "kappa_linear": co.cohen_kappa(confusion, "linear"),
        "kappa_quadratic": co.cohen_kappa(confusion, "quadratic"),
    }
    for name, value in figures.items():
        out[name] = value
        out[f"{name}_ci95"] = as_list((ci or {}).get(f"pair.{index}.{name}"))
    out["confusion"] = confusion
    return out


def binary_report(
    vals: pl.DataFrame,
    grades: list[int],
    ci: dict[str, Interval] | None = None,
    *,
    graded: co.Coincidence | None = None,
) -> list[dict[str, Any]]:
    """Relevant = grade >= threshold, for every cut-off above the lowest grade.

    TREC Deep Learning counts grade 1 as not relevant for its binary measures, so both >= 1 and
    >= 2 matter: labellers can agree well at one cut-off and poorly at the other. Given the graded
    coincidence matrix (``graded``), each cut-off's is summed from its cells, as the intervals do
    (a unit's binary value pairs are its graded pairs, relabelled), instead of read from every
    rating again.
    """
    out = []
    for threshold in grades[1:]:
        if graded is not None:
            o = co.binarised(graded, threshold)
        else:
            binary = vals.with_columns(value=(pl.col("value") >= threshold).cast(pl.Int64))
            o = co.coincidences(binary)
        out.append(
            {
                "threshold": threshold,
                "alpha": co.alpha_from_coincidences(o, "nominal", [0, 1]),
                "alpha_ci95": as_list((ci or {}).get(f"binary.{threshold}.alpha")),
                "agreement": co.coincidence_agreement(o),
                "agreement_ci95": as_list((ci or {}).get(f"binary.{threshold}.agreement")),
            }
        )
    return out


def attach_strata(ratings: pl.DataFrame, strata: pl.DataFrame) -> pl.DataFrame:
    """Ratings with a ``stratum`` column; strata are given per query or per (query, doc)."""
    key = ["query_id", "doc_id"] if "doc_id" in strata.columns else ["query_id"]
    table = strata.select(
        *[pl.col(k).cast(pl.Utf8) for k in key], pl.col("stratum").cast(pl.Utf8)
    ).unique(subset=key, keep="first")
    return ratings.join(table, on=key, how="left").with_columns(
        pl.col("stratum").fill_null(NO_STRATUM_SHORT)
    )


def strata_report(
    ratings: pl.DataFrame,
    strata: pl.DataFrame,
    grades: list[int],
    *,
    replicates: int = 0,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Ordinal alpha per stratum with ``n`` = the pairable units (rated twice or more) behind it,
    ``queries`` = the queries holding them, and an interval resampling the stratum's own queries."""
    tagged = attach_strata(ratings, strata)
    out = []
    for stratum in sorted(tagged.get_column("stratum").unique().to_list()):
        rows = tagged.filter(pl.col("stratum") == stratum)
        part = values(rows)
        pairable = co.pairable_counts(part).get_column("unit").n_unique()
        interval, queries = stratum_interval(rows, grades, replicates=replicates, seed=seed)
        out.append(
            {
                "stratum": stratum,
                "n": pairable,
                "queries": queries,
                "alpha_ordinal": co.krippendorff_alpha(part, "ordinal", grades),
                "alpha_ordinal_ci95": as_list(interval),
            }
        )
    return out


def disagreements(ratings: pl.DataFrame) -> pl.DataFrame:
    """Units whose grades differ, biggest spread first.

    Columns: query_id, doc_id, unit, spread (max - min grade), n (ratings), grades (list of
    ``labeller=grade`` in labeller order). Ties on spread: more distinct grades first, then ids.
    """
    per_unit = ratings.group_by("unit", "query_id", "doc_id").agg(
        spread=(pl.col("grade").max() - pl.col("grade").min()),
        distinct=pl.col("grade").n_unique(),
        n=pl.len(),
        grades=pl.concat_str(
            pl.col("labeller"), pl.lit("="), pl.col("grade").cast(pl.Utf8)
        ).sort_by("labeller"),
    )
    return (
        per_unit.filter(pl.col("spread") > 0)
        .sort(["spread", "distinct", "query_id", "doc_id"], descending=[True, True, False, False])
        .select("query_id", "doc_id", "unit", "spread", "n", "grades")
    )
