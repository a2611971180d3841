"""Scoring runs as `goldset eval` (and `compare`'s warnings) do: the query sets, their warnings,
per-query values and means, for Polars frames, lean runs or the plain dicts of the small-input
path; and the unjudged share of each run's top documents, which the unjudged advice is about.

Imports stay light on purpose: `goldset eval` on a small file must not load Polars."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, cast

from goldset_tui.errors import InputError
from goldset_tui.eval.means import Row
from goldset_tui.eval.querysets import QuerySets
from goldset_tui.text import visible

if TYPE_CHECKING:
    import polars as pl

    from goldset_tui.eval.measures import Measure
    from goldset_tui.io.run_lean import LeanRun
    from goldset_tui.io.small_trec import Qrels, Run

    AnyRun = pl.DataFrame | LeanRun | Run  # a whole frame, a lean run, the small path's dict


class RunResult:
    """One run's scores: ``(query_id, measure, value)`` over the averaged queries (sorted by
    query, measures in order), the means, the query sets, and the run's tag (trec_eval's
    runid). Plain lists: the small-input path never builds a frame."""

    __slots__ = ("means", "queries", "rows", "tag")  # a plain class: `dataclasses` is slow to load

    def __init__(
        self, rows: list[Row], means: dict[str, float], queries: QuerySets, tag: str | None
    ) -> None:
        self.rows, self.means, self.queries, self.tag = rows, means, queries, tag

    def frame(self) -> pl.DataFrame:
        """The rows as a ``query_id, measure, value`` frame (to save them as Parquet)."""
        import polars as pl

        schema = {"query_id": pl.String, "measure": pl.String, "value": pl.Float64}
        return pl.DataFrame(self.rows, schema=schema, orient="row")


def warn_query_mismatch(
    name: str,
    sets: QuerySets,
    run_queries: int,
    *,
    mode: str,
    qrels_path: str | Path | None,
    run_path: str | Path | None,
    say: bool = True,
) -> None:
    """A run sharing no query with the qrels is an InputError naming both files; a partial
    mismatch is one warning line on stderr, with the counts and the first ids (unless not
    ``say``: the error is raised all the same)."""
    if len(sets.only_in_run) == run_queries:
        raise InputError(
            run_path,
            f"run {name!r} shares no query with the qrels {qrels_path} "
            f"({run_queries} run queries, none judged): is it the right qrels file?",
        )
    parts = []
    if sets.missing_from_run:
        fate = "left out of the mean" if mode == "both" else "scored 0"
        parts.append(
            f"{len(sets.missing_from_run)} qrels queries missing from the run ({fate}: "
            f"{_first_ids(sets.missing_from_run)})"
        )
    if sets.only_in_run:
        parts.append(
            f"{len(sets.only_in_run)} run queries not in the qrels (ignored: "
            f"{_first_ids(sets.only_in_run)})"
        )
    if parts and say:
        shown = visible(name, keep_newlines=False)
        print(f"goldset: warning: run {shown!r}: " + "; ".join(parts), file=sys.stderr)


def warn_left_out(sets: QuerySets, *, level: int, qrels_path: str | Path | None) -> None:
    """One line when judged queries without a relevant document are left out of the mean: the
    default differs there from trec_eval (-c counts them 0), and -l can move many of them."""
    ids = sets.left_out_no_relevant
    if ids:
        print(
            f"goldset: warning: {len(ids)} judged queries in {qrels_path} have no document "
            f"graded >= {level} and are left out of the mean ({_first_ids(ids)}); "
            "-c counts them as 0, as trec_eval -c does",
            file=sys.stderr,
        )


def _first_ids(ids: list[str], n: int = 5) -> str:
    shown = ", ".join(visible(i, keep_newlines=False) for i in ids[:n])
    return shown + (", ..." if len(ids) > n else "")


def score_runs(
    qrels: pl.DataFrame | Qrels,
    runs: Mapping[str, AnyRun],
    measures: list[Measure],
    *,
    mode: str = "relevant",
    level: int = 1,
    max_docs: int | None = None,
    judged_only: bool = False,
    qrels_path: str | Path | None = None,
    run_paths: Mapping[str, str | Path] | None = None,
    tags: Mapping[str, str | None] | None = None,
    trec_eval_quirks: bool = False,
    warn: bool = True,
) -> dict[str, RunResult]:
    """Each run scored over the queries ``mode`` averages (``eval.querysets``). ``qrels`` and
    the runs are Polars frames, or the plain dicts of ``io.small_trec`` (the small path,
    ``eval.small``): the same steps either way, only the per-query values differ in who
    computes them.

    Nothing to average over is an input error, never an empty mean: the qrels have no relevant
    document at all (goldset's mean), or a run shares no query with the qrels, which is almost
    always the wrong qrels file (trec_eval itself stops there: "No queries with both results
    and relevance info"). ``warn=False`` keeps the query sets' warnings off stderr (`goldset
    eval --trec-eval-compat` without --verbose: trec_eval says nothing there); the errors stay."""
    from goldset_tui.eval.means import mean_rows
    from goldset_tui.eval.querysets import sets_of

    judged, relevant = (
        _small_ids(qrels, level) if isinstance(qrels, dict) else _frame_ids(qrels, level)
    )
    if mode == "relevant" and not relevant:
        raise InputError(
            qrels_path,
            f"the qrels have no query with a relevant document (grade >= {level}): "
            "nothing to average",
        )
    out = {}
    warned = False
    for name, run in runs.items():
        ran = set(run) if isinstance(run, dict) else _frame_run_queries(run)
        sets = sets_of(judged, relevant, ran, mode)
        warn_query_mismatch(
            name,
            sets,
            len(ran),
            mode=mode,
            qrels_path=qrels_path,
            run_path=(run_paths or {}).get(name),
            say=warn,
        )
        if warn and not warned:  # a property of the qrels: once, not once per run
            warn_left_out(sets, level=level, qrels_path=qrels_path)
            warned = True
        if isinstance(qrels, dict):  # the small path: its runs are plain dicts too
            rows = _small_rows(
                qrels, cast("Run", run), measures, sets.evaluated, max_docs, judged_only
            )
        else:
            frame_run = cast("pl.DataFrame | LeanRun", run)
            rows = _frame_rows(qrels, frame_run, measures, sets.evaluated, max_docs, judged_only)
        means = mean_rows(rows, set(sets.evaluated))
        if trec_eval_quirks and mode == "complete":
            # trec_eval's m_num_rel.c: with -c, the `all` num_rel is re-counted from the whole
            # qrels file as grades > 0, whatever -l says (the per-query lines do follow -l).
            positive = _small_positive(qrels) if isinstance(qrels, dict) else _frame_positive(qrels)
            means |= {str(m): float(positive) for m in measures if m.name == "NumRel"}
        out[name] = RunResult(rows, means, sets, (tags or {}).get(name))
    return out


def _small_ids(qrels: Qrels, level: int) -> tuple[set[str], set[str]]:
    from goldset_tui.eval.small import query_ids

    return query_ids(qrels, level)


def _small_positive(qrels: Qrels) -> int:
    from goldset_tui.eval.small import positive_judgments

    return positive_judgments(qrels)


def _frame_ids(qrels: pl.DataFrame, level: int) -> tuple[set[str], set[str]]:
    import polars as pl

    qrels = _plain_frame(qrels)
    judged = set(qrels.get_column("query_id").unique().to_list())
    relevant = set(qrels.filter(pl.col("grade") >= level).get_column("query_id").to_list())
    return judged, relevant


def _frame_positive(qrels: pl.DataFrame) -> int:
    import polars as pl

    return _plain_frame(qrels).filter(pl.col("grade") > 0).height


def _plain_frame(qrels: pl.DataFrame) -> pl.DataFrame:
    if "subtopic" in qrels.columns:  # diversity qrels: one grade a document for the rest
        from goldset_tui.io.trec import plain_qrels

        return plain_qrels(qrels)
    return qrels


def _frame_run_queries(run: pl.DataFrame | LeanRun) -> set[str]:
    import polars as pl

    if not isinstance(run, pl.DataFrame):  # a lean run counts every query it retrieved for
        return set(run.num_ret.get_column("query_id").to_list())
    # Ranks are 1..n in every query: rank 1 names each query once, with no grouping pass.
    ids = run.filter(pl.col("rank") == 1) if "rank" in run.columns else run.unique("query_id")
    return set(ids.get_column("query_id").to_list())


def _small_rows(
    qrels: Qrels,
    run: Run,
    measures: list[Measure],
    evaluated: list[str],
    max_docs: int | None,
    judged_only: bool,
) -> list[Row]:
    from goldset_tui.eval.small import evaluate_small

    return evaluate_small(
        qrels, run, measures, evaluated, max_docs=max_docs, judged_only=judged_only
    )


def _frame_rows(
    qrels: pl.DataFrame,
    run: pl.DataFrame | LeanRun,
    measures: list[Measure],
    evaluated: list[str],
    max_docs: int | None,
    judged_only: bool,
) -> list[Row]:
    import polars as pl

    from goldset_tui.eval.metrics import evaluate
    from goldset_tui.eval.querysets import cut_lean, cut_run

    plain = qrels
    if "subtopic" in qrels.columns:
        from goldset_tui.io.trec import plain_qrels

        plain = plain_qrels(qrels)
    if isinstance(run, pl.DataFrame):
        cut = cut_run(run, plain, max_docs=max_docs, judged_only=judged_only)
        per_query = evaluate(qrels, cut, measures)
    else:  # lean: the judged rows and the documents retrieved per query (io.run_lean)
        rows, num_ret = cut_lean(
            run.judged_for(qrels), run.num_ret, plain, max_docs=max_docs, judged_only=judged_only
        )
        per_query = evaluate(qrels, rows, measures, num_ret=num_ret)
    wanted = pl.Series("query_id", evaluated, dtype=pl.String).implode()
    return list(per_query.filter(pl.col("query_id").is_in(wanted)).iter_rows())


def unjudged_shares(
    qrels: pl.DataFrame | Qrels,
    runs: Mapping[str, AnyRun],
    results: Mapping[str, RunResult],
    depth: int,
) -> dict[str, float]:
    """Per run, the share of its top ``depth`` documents over the evaluated queries that the
    qrels do not grade (>= 0): what the unjudged advice after `goldset eval` is about (nan when
    the run has no document there). For every form the runs take: plain dicts (the small path,
    no Polars), lean runs (their judged rows and counts), whole frames."""
    out = {}
    for name, result in results.items():
        evaluated = set(result.queries.evaluated)
        if not evaluated:
            continue
        if isinstance(qrels, dict):  # the small path: its runs are plain dicts too
            run = cast("Run", runs[name])
            total = judged = 0
            for qid in evaluated & set(run):
                top = run[qid].docs[:depth]  # ranked by the reader (io.small_trec.ranking)
                grades = qrels.get(qid, {})
                total += len(top)
                judged += sum(1 for doc in top if grades.get(doc, -1) >= 0)
        else:
            frame_run = cast("pl.DataFrame | LeanRun", runs[name])
            total, judged = _frame_counts(qrels, frame_run, evaluated, depth)
        out[name] = 1.0 - judged / total if total else float("nan")
    return out


def _frame_counts(
    qrels: pl.DataFrame, run: pl.DataFrame | LeanRun, evaluated: set[str], depth: int
) -> tuple[int, int]:
    import polars as pl

    wanted = pl.Series(sorted(evaluated), dtype=pl.String).implode()
    # Not made unique: a semi join keeps each row once however often its pair is listed.
    graded = qrels.filter(pl.col("grade") >= 0).select("query_id", "doc_id")
    if isinstance(run, pl.DataFrame):
        top = run.filter((pl.col("rank") <= depth) & pl.col("query_id").is_in(wanted))
        total = top.height
    else:  # lean: every document counted, only the judged ones listed
        counts = run.num_ret.filter(pl.col("query_id").is_in(wanted))
        total = int(counts.select(pl.col("num_ret").clip(upper_bound=depth).sum()).item() or 0)
        top = run.judged_for(qrels).filter(
            (pl.col("rank") <= depth) & pl.col("query_id").is_in(wanted)
        )
        if "_grade" in top.columns:  # its grades are these qrels': no join
            return total, int(top.select((pl.col("_grade") >= 0).sum()).item())
    judged = top.join(graded, on=["query_id", "doc_id"], how="semi").height
    return total, judged
