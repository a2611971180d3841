"""Recording a release in a store's history (docs/history.md) after `goldset report` or `goldset
eval` (``--store DIR --release NAME``), and the unjudged-fraction advice that names the exact
`goldset pool --extend` command. Each function returns the lines to say; the command prints them
(``goldset: `` first), in the order it calls them, so the advice is out before a recording fails.

Imports stay light on purpose: a plain `goldset eval` on a small file records nothing and must
load neither the store nor Polars.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from goldset_tui.eval.defaults import DEFAULT_K, UNJUDGED_WARNING

if TYPE_CHECKING:
    import polars as pl

    from goldset_tui.app.scoring import AnyRun, RunResult
    from goldset_tui.eval.measures import Measure
    from goldset_tui.history.records import Record
    from goldset_tui.io.small_trec import Qrels
    from goldset_tui.report.model import Report

__all__ = [
    "DEFAULT_K",
    "UNJUDGED_WARNING",
    "commit_release",
    "eval_advice",
    "record_eval",
    "record_report",
    "report_records",
    "release_store",
    "report_advice",
    "report_cases",
]


def release_store(store: str | None, release: str | None) -> Path | None:
    """The store to record into (both given), None (neither); one without the other, an empty
    release or a folder that is no store is an input error."""
    if store is None and release is None:
        return None  # nothing to record: a plain `goldset eval` imports neither store nor Polars
    from goldset_tui.history.recording import check_release_args

    return check_release_args(store, release)


def report_advice(
    report: Report, run_paths: Mapping[str, str | Path | None], store_dir: Path | None
) -> list[str]:
    """The unjudged advice for the report's own runs (not the fused one)."""
    from goldset_tui.history.advice import unjudged_advice

    pool = None
    if store_dir is not None:  # the history's modules only when there is a store to read
        from goldset_tui.history.recording import store_pool

        pool = store_pool(store_dir)
    unjudged = {name: 1.0 - share for name, share in report.judged.items() if name in run_paths}
    return unjudged_advice(unjudged, run_paths, report.k, pool=pool, store=store_dir)


def report_cases(store_dir: Path, report: Report) -> list[str]:
    """The store's named regression cases, as this (unrecorded) report scores them."""
    from goldset_tui.history.recording import case_lines

    return case_lines(
        store_dir,
        measure=report.metric,
        scores=report.scores,
        systems=report.systems,
        label="this report",
        binary=report.binary,
    )


def record_report(
    store: Path,
    release: str,
    qrels: pl.DataFrame,
    report: Report,
    traffic: pl.DataFrame | None = None,
) -> list[str]:
    """One record per system of the report, as release ``release`` of ``store``, with the
    ``traffic`` shares in force (stratum, share) when the report was weighted by them."""
    return commit_release(store, release, [report_records(store, release, qrels, report, traffic)])


def commit_release(store: Path, release: str, groups: Sequence[Sequence[Record]]) -> list[str]:
    """Record every group (a measure's systems) as one step: all of the release or none of it."""
    from goldset_tui.history.recording import commit_release as commit

    return commit(store, release, groups)


def report_records(
    store: Path,
    release: str,
    qrels: pl.DataFrame,
    report: Report,
    traffic: pl.DataFrame | None = None,
) -> list[Record]:
    """One record per system of the report (not yet written: :func:`commit_release`), with the
    ``traffic`` shares in force (stratum, share) when the report was weighted by them."""
    import polars as pl

    from goldset_tui.history.recording import system_records

    return system_records(
        store,
        release,
        qrels=qrels,
        measure=report.metric,
        scores=report.scores,
        systems=report.systems,
        k=report.k,
        binary=report.binary,
        strata=report.strata_frame,
        traffic=dict(traffic.select("stratum", "share").iter_rows())
        if traffic is not None
        else None,
        # The report's top k also covers golden-set queries out of the table (their holes);
        # a release records the evaluated queries only.
        topk=report.topk.filter(
            pl.col("query_id").is_in(report.scores.get_column("query_id").unique().implode())
        )
        if report.topk is not None
        else None,
    )


def eval_depth(measures: list[Measure], max_docs: int | None) -> int:
    """The depth the unjudged advice looks at: -M, else the deepest cutoff, else the report's."""
    cutoffs = [m.cutoff for m in measures if m.cutoff]
    return max_docs or (max(cutoffs) if cutoffs else DEFAULT_K)


def eval_advice(
    qrels: pl.DataFrame | Qrels,
    runs: Mapping[str, AnyRun],
    results: Mapping[str, RunResult],
    measures: list[Measure],
    *,
    max_docs: int | None,
    run_paths: Mapping[str, str | Path | None],
    store_dir: Path | None,
    recording: bool,
) -> list[str] | None:
    """Per run, the unjudged advice at the evaluated depth; None for diversity qrels (grades per
    subtopic: neither advice nor history). The runs come as `goldset eval` read them: whole
    frames, lean runs or the small path's plain dicts (whole frames when ``recording``)."""
    from goldset_tui.app.scoring import unjudged_shares

    if not isinstance(qrels, dict) and "subtopic" in qrels.columns:
        return None
    depth = eval_depth(measures, max_docs)
    unjudged = unjudged_shares(qrels, runs, results, depth)
    if not recording and not any(share > UNJUDGED_WARNING for share in unjudged.values()):
        return []  # nothing to say, nothing to record
    from goldset_tui.history.advice import unjudged_advice

    pool = None
    if store_dir is not None:
        from goldset_tui.history.recording import store_pool

        pool = store_pool(store_dir)
    return unjudged_advice(unjudged, run_paths, depth, pool=pool, store=store_dir)


def record_eval(
    store: Path,
    release: str,
    qrels: pl.DataFrame,
    runs: Mapping[str, AnyRun],
    results: Mapping[str, RunResult],
    measures: list[Measure],
    *,
    max_docs: int | None,
) -> list[str]:
    """One record per measure and run, as release ``release`` of ``store``, written as one step
    (every measure or none); the runs are whole frames: `goldset eval` reads them whole when it
    records. The lines to say come measure by measure."""
    import polars as pl

    from goldset_tui.history.recording import store_strata, system_records
    from goldset_tui.report.compute import topk_frame

    depth = eval_depth(measures, max_docs)
    ranked = {
        name: _ranked(cast("pl.DataFrame", run), max(depth, DEFAULT_K))
        for name, run in runs.items()
    }
    strata = store_strata(store)
    groups = []
    for m in measures:
        k = m.cutoff or DEFAULT_K
        frames, tops = [], []
        for name, result in results.items():
            per_query = result.frame()
            frames.append(
                per_query.filter(pl.col("measure") == str(m)).select(
                    pl.lit(name).alias("system"), "query_id", "value"
                )
            )
            queries = per_query.get_column("query_id").unique()
            tops.append(topk_frame(qrels, {name: ranked[name]}, k, queries))
        groups.append(
            system_records(
                store,
                release,
                qrels=qrels,
                measure=str(m),
                scores=pl.concat(frames),
                systems=list(results),
                k=k,
                strata=strata,
                topk=pl.concat(tops),
            )
        )
    return commit_release(store, release, groups)


def _ranked(run: pl.DataFrame, depth: int) -> pl.DataFrame:
    """The run with trec_eval's ranks (score descending, ties by doc id descending): read_run
    gives them already (its ``rank`` is computed, never the file's); anything else is ranked
    here, top ``depth`` only."""
    import polars as pl

    if "rank" in run.columns:
        return run.filter(pl.col("rank") <= depth)  # one cheap pass; the rest sees top k only
    from goldset_tui.pooling.build import top_k

    return top_k(run, depth)
