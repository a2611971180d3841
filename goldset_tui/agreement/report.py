"""The agreement report: every coefficient over a ratings frame, as the fixed JSON shape.

``agreement_report`` returns a plain dict whose keys are the contract of ``goldset agreement
--format json`` (issue 6); ``null`` where a figure does not apply. ``disagreements`` ranks the
units on which labellers part, biggest spread first (a 3 against a 0 before a 2 against a 1).
"""

from __future__ import annotations

from itertools import combinations

import polars as pl

from goldset_tui.agreement import coefficients as co
from goldset_tui.agreement.bootstrap import DEFAULT_REPLICATES, bootstrap_alpha
from goldset_tui.agreement.units import pair_frame, rating_table, values
from goldset_tui.model import GradeScale

NO_STRATUM = "(none)"


def agreement_report(
    ratings: pl.DataFrame,
    scale: GradeScale,
    *,
    strata: pl.DataFrame | None = None,
    seed: int = 0,
    replicates: int = DEFAULT_REPLICATES,
) -> dict:
    grades = scale.grades
    labellers = sorted(ratings.get_column("labeller").unique().to_list())
    vals = values(ratings)
    o = co.coincidences(vals)
    alpha: dict[str, object] = {
        level: co.alpha_from_coincidences(o, level, grades) for level in co.LEVELS
    }
    ci = bootstrap_alpha(vals, "ordinal", grades, replicates=replicates, seed=seed)
    alpha["ordinal_ci95"] = list(ci) if ci is not None else None
    return {
        "labellers": labellers,
        "units": ratings.get_column("unit").n_unique(),
        "scale": [scale.min, scale.max],
        "pairs": [pair_report(ratings, a, b, grades) for a, b in combinations(labellers, 2)],
        "alpha": alpha,
        "fleiss_kappa": co.fleiss_kappa(rating_table(ratings, grades)),
        "binary": binary_report(vals, grades),
        "strata": strata_report(ratings, strata, grades) if strata is not None else [],
    }


def pair_report(ratings: pl.DataFrame, a: str, b: str, grades: list[int]) -> dict:
    confusion = co.confusion_from_frame(pair_frame(ratings, a, b), grades)
    return {
        "a": a,
        "b": b,
        "n": sum(map(sum, confusion)),
        "agreement": co.raw_agreement(confusion),
        "kappa": co.cohen_kappa(confusion, None),
        "kappa_linear": co.cohen_kappa(confusion, "linear"),
        "kappa_quadratic": co.cohen_kappa(confusion, "quadratic"),
        "confusion": confusion,
    }


def binary_report(vals: pl.DataFrame, grades: list[int]) -> list[dict]:
    """Relevant = grade >= threshold, for every cut-off above the lowest grade.

    TREC Deep Learning counts grade 1 as not relevant for its binary measures, so both >= 1 and
    >= 2 matter: labellers can agree well at one cut-off and poorly at the other.
    """
    out = []
    for threshold in grades[1:]:
        binary = vals.with_columns(value=(pl.col("value") >= threshold).cast(pl.Int64))
        o = co.coincidences(binary)
        out.append(
            {
                "threshold": threshold,
                "alpha": co.alpha_from_coincidences(o, "nominal", [0, 1]),
                "agreement": co.coincidence_agreement(o),
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
        pl.col("stratum").fill_null(NO_STRATUM)
    )


def strata_report(ratings: pl.DataFrame, strata: pl.DataFrame, grades: list[int]) -> list[dict]:
    """Ordinal alpha per stratum with ``n`` = the pairable units (rated twice or more) behind it."""
    tagged = attach_strata(ratings, strata)
    out = []
    for stratum in sorted(tagged.get_column("stratum").unique().to_list()):
        part = values(tagged.filter(pl.col("stratum") == stratum))
        pairable = co.pairable_counts(part).get_column("unit").n_unique()
        out.append(
            {
                "stratum": stratum,
                "n": pairable,
                "alpha_ordinal": co.krippendorff_alpha(part, "ordinal", grades),
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
