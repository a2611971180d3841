"""The review's top k view of one query, opened from the agreement and adjudication screens.

Those screens know labellers, not systems. The systems come from the runs given to `goldset
agreement --run NAME=PATH`, or else from the systems and ranks the store's pool recorded (as
`goldset review --store DIR` rebuilds them). The grades in force are the consensus (undecided
disagreements left out, so they show as holes): what deciding a disagreement changes. Without
runs, :class:`NoRuns` says in one line what would give them.
"""

from __future__ import annotations

import polars as pl

from goldset_tui.agreement.sources import AgreementData
from goldset_tui.app.grade_sources import CONSENSUS, GradeSources
from goldset_tui.app.report import ReportInputs
from goldset_tui.app.review import ReviewSetup, runs_from_pool
from goldset_tui.errors import InputError
from goldset_tui.eval.defaults import DEFAULT_METRIC
from goldset_tui.model import NO_STRATUM


class NoRuns(Exception):
    """No system's ranking is known: the one line the screen shows instead of the view."""


def consensus_view(
    data: AgreementData,
    *,
    runs: dict[str, pl.DataFrame] | None = None,
    rule: str | None = None,
    metric: str = DEFAULT_METRIC,  # as the review opens on a store
) -> ReviewSetup:
    """The review on ``data``'s consensus and ``runs`` (else the store pool's systems).

    Raises :class:`NoRuns` without runs, ``InputError`` when the consensus has no relevant grade
    (nothing to report)."""
    pool = data.pool
    if not runs and pool is not None and "systems" in pool.columns:
        runs = runs_from_pool(pool)
    if not runs:
        where = "the store's pool records no systems or ranks" if data.project else "no runs"
        raise NoRuns(
            f"No runs known ({where}): give `goldset agreement --run NAME=PATH` to see each "
            "system's top k."
        )
    strata = _strata(data, runs)
    if data.project is not None:
        inputs = _inputs(pl.DataFrame(), runs, strata, metric)
        sources = GradeSources(inputs, data.project)
        key: str | None = CONSENSUS
    else:
        from goldset_tui.ranking.runs import qrels_by_judge

        try:
            sets, _ = qrels_by_judge(data, rule)
        except ValueError as exc:  # an unknown rule
            raise InputError(None, str(exc)) from None
        inputs = _inputs(sets["consensus"], runs, strata, metric)
        sources = GradeSources(inputs, base=sets["consensus"], file_name="consensus of --qrels")
        key = None
    report, label = sources.build(key, metric)
    ratings = data.ratings.select("query_id", "doc_id", "labeller", pl.col("grade").cast(pl.Int64))
    return ReviewSetup(
        report,
        sources,
        source=label,
        source_key=key,
        sources=sources.keys(),
        topics=_texts(pool, "query_id", ["query"]),
        corpus=_texts(pool, "doc_id", ["text", "title"]),
        labelled=lambda: ratings,
        store=str(data.project.path) if data.project is not None else None,
        consensus_key=CONSENSUS if data.project is not None else None,
    )


def _inputs(
    qrels: pl.DataFrame, runs: dict[str, pl.DataFrame], strata: pl.DataFrame, metric: str
) -> ReportInputs:
    return ReportInputs(
        qrels=qrels,
        runs=runs,
        strata=strata,
        traffic=None,
        metric=metric,
        seed=0,
        samples=200,  # the view shows no interval: few resamples keep the key quick
        fuse=True,
    )


def _strata(data: AgreementData, runs: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """The pool's strata where it has them; every query judged or retrieved in one otherwise."""
    queries = pl.concat(
        [data.ratings.select("query_id"), *(r.select("query_id") for r in runs.values())]
    ).unique(maintain_order=True)
    if data.pool is not None and "stratum" in data.pool.columns:
        known = data.pool.select("query_id", "stratum").unique("query_id", maintain_order=True)
        queries = queries.join(known, on="query_id", how="left")
    else:
        queries = queries.with_columns(stratum=pl.lit(None, pl.Utf8))
    return queries.with_columns(pl.col("stratum").fill_null(NO_STRATUM))


def _texts(pool: pl.DataFrame | None, key: str, columns: list[str]) -> pl.DataFrame | None:
    if pool is None or any(c not in pool.columns for c in columns):
        return None
    return pool.select(key, *columns).unique(subset=key, maintain_order=True)
