"""From qrels and runs to a report: per-query scores through the evaluation engine, each run's top k
with grades (for the judged share and the drill-down), RRF fusion, paired comparisons.

:func:`compute_report` evaluates, then hands the per-query scores to
:func:`~goldset_tui.report.assemble.assemble_report`. The helpers that find and describe the
unjudged pairs of a top k (:func:`missing_pairs`, :func:`missing_pool`) live here too, since they
work on the same top-k frame.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.eval.defaults import REPORT_SAMPLES
from goldset_tui.eval.inputs import QrelsInput, RunInput, qrels_frame, run_frame
from goldset_tui.eval.intervals import DEFAULT_SEED
from goldset_tui.eval.measure_kind import is_binary_measure, is_bounded_measure
from goldset_tui.report.assemble import assemble_report
from goldset_tui.report.holes import listed_queries
from goldset_tui.report.model import (
    DEFAULT_METRIC,
    FUSED_NAME,
    Report,
    cutoff,
    explicit_cutoff,
)


def judged_fraction(qrels: pl.DataFrame, run: pl.DataFrame, k: int, queries: pl.Series) -> float:
    """Share of the run's top-k slots (over ``queries``) whose document has a grade >= 0 in the
    qrels. Negative grades are "pooled but unjudged" (trec_eval) and count as unjudged."""
    return judged_shares(topk_frame(qrels, {"run": run}, k, queries), ["run"])["run"]


def judged_shares(topk: pl.DataFrame, systems: list[str]) -> dict[str, float]:
    """Per system, the share of its rows in ``topk_frame``'s frame that have a grade (nan: none)."""
    counts = {
        name: (n, hit)
        for name, n, hit in topk.group_by("system")
        .agg(pl.len(), pl.col("grade").is_not_null().sum())
        .iter_rows()
    }
    return {
        name: counts[name][1] / counts[name][0] if name in counts else math.nan for name in systems
    }


def per_query(
    qrels: pl.DataFrame, run: pl.DataFrame, metric: str, queries: pl.Series, system: str
) -> pl.DataFrame:
    """system, query_id, value for every query in ``queries`` (missing from the run: 0)."""
    from goldset_tui.eval.metrics import evaluate_wide

    wide = evaluate_wide(qrels, run, [metric])
    column = next(c for c in wide.columns if c != "query_id")
    base = pl.DataFrame({"query_id": queries})
    return (
        base.join(wide.select("query_id", pl.col(column).alias("value")), on="query_id", how="left")
        .with_columns(system=pl.lit(system), value=pl.col("value").fill_null(0.0).cast(pl.Float64))
        .select("system", "query_id", "value")
    )


def compute_report(
    qrels: QrelsInput,
    runs: Mapping[str, RunInput],
    strata: pl.DataFrame | str | Path,
    *,
    metric: str = DEFAULT_METRIC,
    traffic: pl.DataFrame | str | Path | None = None,
    fuse: bool = True,
    seed: int = DEFAULT_SEED,
    samples: int = REPORT_SAMPLES,
    k: int | None = None,
) -> Report:
    """Evaluate every run (and their RRF fusion) on ``metric`` and assemble the report.

    From a notebook, ``qrels`` and each run take what ``goldset_tui.eval`` takes (frames, dicts,
    paths: docs/notebook.md), and ``strata`` and ``traffic`` a path (read as `goldset report`
    reads them) or a frame (``query_id, stratum``; ``stratum, share``), its ids made text as
    the qrels' are. GMAP is refused, as on the command line: the report's strata, intervals and
    weighting are arithmetic means, and AP's would be shown under GMAP's name."""
    if not runs:
        raise ValueError("compute_report needs at least one run: {name: run}")
    return _compute_report(
        qrels_frame(qrels),
        {str(name): run_frame(run) for name, run in runs.items()},
        _table(strata, "strata", ("query_id", "stratum")),
        metric=metric,
        traffic=None if traffic is None else _table(traffic, "traffic", ("stratum", "share")),
        fuse=fuse,
        seed=seed,
        samples=samples,
        k=k,
    )


def _compute_report(
    qrels: pl.DataFrame,
    runs: dict[str, pl.DataFrame],
    strata: pl.DataFrame,
    *,
    metric: str,
    traffic: pl.DataFrame | None,
    fuse: bool,
    seed: int,
    samples: int,
    k: int | None,
) -> Report:
    from goldset_tui.eval.measures import arithmetic_measure, canonical
    from goldset_tui.eval.metrics import relevant_queries

    measure = arithmetic_measure(
        metric, option="metric", does="the report's strata, intervals and weighting are"
    )
    metric = canonical(measure)
    k = k if k is not None else cutoff(metric)
    queries = relevant_queries(qrels)
    if queries.len() == 0:
        from goldset_tui.errors import InputError

        raise InputError(
            None, "no query in the qrels has a relevant document (grade >= 1): nothing to report"
        )
    names = list(runs)
    all_runs = dict(runs)
    fused = None
    # Fuse each run's top k only, for a measure with a cutoff: then the fused top k holds nothing
    # the runs' top k lack, a query both runs miss stays missed, and the oracle bounds the fused
    # run (docs/background.md#failure-overlap). Fusing the full depth could promote a document
    # from rank 30 into the top k.
    depth = explicit_cutoff(metric)
    if fuse and len(runs) >= 2:
        from goldset_tui.eval.fusion import rrf

        fused = FUSED_NAME if FUSED_NAME not in runs else f"{FUSED_NAME}_fused"
        all_runs[fused] = rrf(
            list(runs.values()), depth=depth, order=False
        )  # evaluation needs no sort
    scores = pl.concat(
        [per_query(qrels, run, metric, queries, name) for name, run in all_runs.items()]
    )
    # Every run's top k on the evaluated queries and on the golden set: a golden-set query out of
    # the table (no relevant grade) may hold the very holes the judged share and the bounds must
    # count, and the review must list (report.holes).
    listed = listed_queries(queries, strata)
    topk = topk_frame(qrels, all_runs, k, listed)
    judged = judged_shares(topk, list(all_runs))
    paired = paired_comparisons(
        scores,
        list(all_runs),
        seed=seed,
        samples=samples,
        bounded=is_bounded_measure(measure),
        binary=is_binary_measure(measure, qrels, queries),
    )
    bounds = unjudged_bounds(
        qrels, all_runs, metric, queries, topk, scores, max(1, measure.rel), listed=listed
    )
    report = assemble_report(
        scores,
        strata,
        metric=metric,
        k=k,
        traffic=traffic,
        systems=names,
        fused=fused,
        judged=judged,
        paired=paired,
        seed=seed,
        samples=samples,
        fusion_depth=depth if fused else None,
        qrels=qrels,
        unjudged_bounds=bounds,
        topk=topk,
    )
    report.qrels, report.runs = qrels, dict(runs)
    golden = strata.get_column("query_id").unique(maintain_order=True)
    report.golden_size = golden.len()
    report.missing_from_runs = missing_from_runs(runs, golden)
    line = missing_warning(report.missing_from_runs, report.golden_size)
    if line:
        report.warnings.insert(0, line)
    return report


def _table(table: pl.DataFrame | str | Path, what: str, columns: tuple[str, ...]) -> pl.DataFrame:
    """A strata or traffic file read as `goldset report` reads it, or a frame checked for its
    columns, with ids and strata as text (``pl.read_csv`` reads ids like 301 as numbers, which
    would then match no query of the qrels), and for what the file readers refuse: a query in
    two strata (counted in both, it changes each one's n and mean), a share that is not a number
    >= 0, a stratum given two shares."""
    from goldset_tui.io.strata_and_traffic import read_strata, read_traffic
    from goldset_tui.text import visible

    if isinstance(table, str | Path):
        return read_strata(table) if what == "strata" else read_traffic(table)
    if not isinstance(table, pl.DataFrame):
        raise TypeError(f"{what} must be a Polars frame or a path, not {type(table).__name__}")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        have = ", ".join(visible(c, keep_newlines=False) for c in table.columns) or "none"
        raise ValueError(
            f"the {what} frame lacks the column {missing[0]!r} (it needs {', '.join(columns)};"
            f" it has {have})"
        )
    text = [c for c in ("query_id", "stratum") if c in columns and table.schema[c] != pl.String]
    table = table.with_columns(pl.col(c).cast(pl.String) for c in text) if text else table
    key = "query_id" if what == "strata" else "stratum"
    twice = table.unique([key, *columns[1:2]]).filter(pl.col(key).is_duplicated())
    if twice.height:
        many = "strata" if what == "strata" else "shares"
        raise ValueError(f"the {what} frame gives {key} {twice[key][0]!r} two {many}")
    if what == "traffic":
        share = table.get_column("share")
        bad = ~share.cast(pl.Float64, strict=False).is_between(0.0, math.inf).fill_null(False)
        if not share.dtype.is_numeric() or bad.any():
            i = int(bad.arg_max() or 0)
            raise ValueError(f"the traffic frame's share {share[i]!r} is not a number >= 0")
    return table.unique(maintain_order=True)


MISSING_SHOWN = 3  # query ids per run named in the warning line; the JSON lists them all


def missing_from_runs(runs: dict[str, pl.DataFrame], golden: pl.Series) -> dict[str, list[str]]:
    """Per run (only those that lack one), the golden-set queries it retrieved nothing for, in
    the strata file's order. Such a query scores 0 for that run, which is right when the system
    truly returned nothing and wrong when the run was cut short or made on other query ids:
    hence a warning, not an error."""
    out: dict[str, list[str]] = {}
    for name, run in runs.items():
        lacking = golden
        if "rank" in run.columns:
            # read_run ranks 1, 2, ... in every query: its rank-1 rows name each query once, a
            # tenth of the rows to look up; a query they miss is then looked for in every row.
            first = run.filter(pl.col("rank") == 1).get_column("query_id").implode()
            lacking = golden.filter(~golden.is_in(first))
        if lacking.len():
            have = run.get_column("query_id").unique().implode()
            lacking = lacking.filter(~lacking.is_in(have))
        if lacking.len():
            out[name] = [str(q) for q in lacking.to_list()]
    return out


def missing_warning(missing: dict[str, list[str]], golden: int) -> str | None:
    """One line for every run lacking golden-set queries: counts and the first ids of each."""
    if not missing:
        return None
    parts = []
    for name, ids in missing.items():
        first = ", ".join(ids[:MISSING_SHOWN]) + (", ..." if len(ids) > MISSING_SHOWN else "")
        parts.append(f"{name} lacks {len(ids)} of {golden} ({first})")
    return (
        "runs without a line for some golden-set queries, each scored 0 for that run: "
        + "; ".join(parts)
        + " (all in missing_from_runs in the JSON)"
    )


def unjudged_bounds(
    qrels: pl.DataFrame,
    runs: dict[str, pl.DataFrame],
    metric: str,
    queries: pl.Series,
    topk: pl.DataFrame,
    scores: pl.DataFrame,
    grade: int,
    *,
    listed: pl.Series | None = None,
) -> dict[str, dict[str, Any]]:
    """Per system: its mean as scored (unjudged documents count as not relevant, as trec_eval
    scores them) and its mean had every unjudged document of its own top k been judged relevant
    at ``grade`` (the measure's lowest relevant grade), with the count of those documents.

    ``topk`` may hold queries out of the table (``listed``: the golden set too). Their holes are
    counted, and judged relevant they bring their query into the mean: the second mean is over
    the evaluated queries and those (``n_as_relevant``; ``queries_outside_table`` counts them).

    The two bracket what judging the holes could do to a measure that only counts hits in the top
    k (Success@k, P@k). For a measure that also grows its ideal (nDCG@k, R@k) the second is what
    those grades would give, not a strict ceiling: a relevant document at rank 10 adds more to
    the ideal ranking than to the run's.
    """
    from goldset_tui.eval.metrics import relevant_queries

    means = dict(scores.group_by("system").agg(pl.col("value").mean()).iter_rows())
    scored = queries.implode()
    out: dict[str, dict[str, Any]] = {}
    for name, run in runs.items():
        holes = (
            topk.filter((pl.col("system") == name) & pl.col("grade").is_null())
            .select("query_id", "doc_id")
            .unique()
        )
        upper_queries = queries
        if holes.height:
            # A "pooled but unjudged" negative grade is replaced, not kept beside the new one.
            kept = qrels.join(holes, on=["query_id", "doc_id"], how="anti")
            filled = pl.concat(
                [kept, holes.with_columns(grade=pl.lit(grade, dtype=pl.Int64))],
                how="diagonal_relaxed",
            ).select("query_id", "doc_id", "grade")
            if listed is not None:
                now = relevant_queries(filled)
                upper_queries = now.filter(now.is_in(listed.implode()))
            values = per_query(filled, run, metric, upper_queries, name).get_column("value")
            upper = float(values.mean())  # type: ignore[arg-type]
        else:
            upper = float(means[name])
        outside = holes.filter(~pl.col("query_id").is_in(scored)).get_column("query_id")
        out[name] = {
            "unjudged_as_nonrelevant": float(means[name]),
            "unjudged_as_relevant": upper,
            "unjudged": holes.height,
            "grade": grade,
            "queries_outside_table": outside.n_unique(),
            "n_as_relevant": upper_queries.len(),
        }
    return out


def topk_frame(
    qrels: pl.DataFrame, runs: dict[str, pl.DataFrame], k: int, queries: pl.Series
) -> pl.DataFrame:
    """Every run's top k on the evaluated queries with each document's grade (null: unjudged;
    a negative "pooled but unjudged" grade is shown as unjudged too)."""
    wanted = queries.implode()
    frames = [
        # The rank first: the query lookup then runs on the top k's rows alone.
        run.filter(pl.col("rank") <= k)
        .filter(pl.col("query_id").is_in(wanted))
        .select(pl.lit(name).alias("system"), "query_id", pl.col("rank").cast(pl.Int64), "doc_id")
        for name, run in runs.items()
    ]
    top = (
        pl.concat(frames)
        if frames
        else pl.DataFrame(
            schema={"system": pl.Utf8, "query_id": pl.Utf8, "rank": pl.Int64, "doc_id": pl.Utf8}
        )
    )
    judged = qrels.filter(pl.col("grade") >= 0)
    graded = top.join(
        judged.select("query_id", "doc_id", pl.col("grade")), on=["query_id", "doc_id"], how="left"
    )
    if graded.height != top.height:
        # A pair judged twice (a store's qrels may hold both grades): the highest grade, once.
        best = judged.group_by("query_id", "doc_id").agg(pl.col("grade").max())
        graded = top.join(best, on=["query_id", "doc_id"], how="left")
    return graded.sort("system", "query_id", "rank")


def missing_pairs(topk: pl.DataFrame, query_ids: list[str] | None = None) -> pl.DataFrame:
    """``query_id, doc_id`` of unjudged documents in any system's top k (first appearance order)."""
    rows = topk if query_ids is None else topk.filter(pl.col("query_id").is_in(query_ids))
    return (
        rows.filter(pl.col("grade").is_null())
        .sort("query_id", "rank", "system")
        .select("query_id", "doc_id")
        .unique(maintain_order=True)
    )


def missing_pool(
    pairs: pl.DataFrame, topics: pl.DataFrame | None = None, corpus: pl.DataFrame | None = None
) -> pl.DataFrame:
    """A pool frame (query_id, query, doc_id, text, title) for the missing pairs, texts from the
    topics and corpus when given. Rows without a text keep ``text`` null: the caller decides
    whether to judge them or write them out for later."""
    pool = pairs
    if topics is not None:
        pool = pool.join(topics.select("query_id", "query"), on="query_id", how="left")
    else:
        pool = pool.with_columns(query=pl.lit(None, dtype=pl.Utf8))
    if corpus is not None:
        pool = pool.join(corpus.select("doc_id", "text", "title"), on="doc_id", how="left")
    else:
        pool = pool.with_columns(
            text=pl.lit(None, dtype=pl.Utf8), title=pl.lit(None, dtype=pl.Utf8)
        )
    return pool.with_columns(pl.col("query").fill_null(pl.col("query_id"))).select(
        "query_id", "query", "doc_id", "text", "title"
    )


def paired_comparisons(
    scores: pl.DataFrame,
    systems: list[str],
    *,
    seed: int,
    samples: int,
    bounded: bool = True,
    binary: bool = False,
) -> list[dict[str, Any]]:
    """The engine's paired comparison for every pair, on the same queries in the same order;
    ``bounded``: the measure lies in [0, 1] by definition, ``binary``: it is 0 or 1 by definition
    (together they choose the interval's method, ``ci_method``)."""
    from itertools import combinations

    from goldset_tui.eval.stats import paired_comparison_many

    w = scores.pivot(on="system", index="query_id", values="value").sort("query_id").fill_null(0.0)
    pairs = list(combinations(systems, 2))
    results = paired_comparison_many(
        [(w.get_column(a), w.get_column(b)) for a, b in pairs],
        seed=seed,
        samples=samples,
        bounded=bounded,
        binary=binary,
    )
    out = []
    for (a, b), r in zip(pairs, results, strict=True):
        out.append(
            {
                "a": a,
                "b": b,
                "mean_diff": float(r.mean_diff),
                "ci95": [float(x) for x in r.ci95],
                "ci_method": r.ci_method,
                "p_value": float(r.p_value),
                "wins": int(r.wins),
                "losses": int(r.losses),
                "ties": int(r.ties),
            }
        )
    return out
