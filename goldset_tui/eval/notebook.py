"""The notebook face of ``goldset_tui.eval``: the public functions that take qrels or runs,
each taking them in every form :mod:`goldset_tui.eval.inputs` accepts (Polars or pandas frames,
pytrec_eval dicts, ir_measures tuples, paths) and giving the numbers ``goldset eval`` prints.

Which queries count is the one choice that changes a mean, and it is made here the way the
command line makes it, in every function alike:

- by default, every query in the qrels with a document graded 1 or more; a query missing from
  the run scores 0 (``goldset eval``);
- ``complete=True``: every query in the qrels, a judged one without a relevant document scoring
  0 too (``goldset eval -c``, trec_eval -c);
- ``trec_eval_compat=True``: the queries in both the qrels and the run (``goldset eval
  --trec-eval-compat``, trec_eval without -c). ``complete`` wins when both are given, as -c does.

So ``evaluate`` returns exactly the rows the command line averages, and ``aggregate`` (their
mean) of it is the command line's ``all`` line: ``aggregate(evaluate(q, r, m)) ==
mean_scores(q, r, m)``. Until this module, ``evaluate`` returned every query in the qrels while
``mean_scores`` averaged over those with a relevant document, so the obvious idiom disagreed
with ``goldset eval`` whenever the qrels held a judged query with nothing relevant.

The engines underneath (``metrics``, ``fusion``, ``querysets``) keep taking goldset's own Polars
frames; this module converts and delegates, nothing more.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import polars as pl

from goldset_tui.eval import fusion, metrics, querysets
from goldset_tui.eval.defaults import COMPARE_SAMPLES
from goldset_tui.eval.inputs import QrelsInput, RunInput, qrels_frame, run_frame, run_frames
from goldset_tui.eval.intervals import DEFAULT_SEED
from goldset_tui.eval.measures import Measure, arithmetic_measure
from goldset_tui.eval.stats import PairedResult, paired_comparison

Measures = str | Measure | Iterable[str | Measure]
Runs = Mapping[str, RunInput] | Sequence[RunInput]


def _measures(measures: Measures) -> list[str | Measure]:
    # One name alone is one measure: iterating "AP" would give the measures "A" and "P".
    if isinstance(measures, str | Measure):
        return [measures]
    given = list(measures)
    if not given:
        # An empty list (a filter that kept nothing) gave {} and frames with no values, which a
        # notebook then averaged or plotted as if something had been measured.
        raise ValueError("no measure given: name at least one, e.g. ['nDCG@10', 'AP']")
    return given


def _only(
    wide: pl.DataFrame, qrels: pl.DataFrame, complete: bool, trec_eval_compat: bool
) -> pl.DataFrame:
    """The rows of the queries the mean is over (see the module docstring)."""
    if complete or trec_eval_compat:
        return wide  # every qrels query, or those also in the run: evaluate_wide chose them
    keep = metrics.relevant_queries(qrels).implode()
    return wide.filter(pl.col("query_id").is_in(keep))


def evaluate_wide(
    qrels: QrelsInput,
    run: RunInput,
    measures: Measures,
    *,
    complete: bool = False,
    trec_eval_compat: bool = False,
    only_run_queries: bool = False,
    num_ret: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """One row per query averaged (see the module docstring; ``only_run_queries`` is the older
    spelling of ``trec_eval_compat``), one column per measure under its canonical name
    (``ndcg@10`` gives ``nDCG@10``, ``map`` gives ``AP``: ``str(parse_measure(name))``, once
    however many spellings name it); sorted by query_id. Two runs evaluated on the same qrels
    give the same rows in the same order, which is what :func:`paired_comparison` needs."""
    q = qrels_frame(qrels)
    both = (trec_eval_compat or only_run_queries) and not complete
    wide = metrics.evaluate_wide(
        q, run_frame(run), _measures(measures), only_run_queries=both, num_ret=num_ret
    )
    return _only(wide, q, complete, both)


def evaluate(
    qrels: QrelsInput,
    run: RunInput,
    measures: Measures,
    *,
    complete: bool = False,
    trec_eval_compat: bool = False,
    only_run_queries: bool = False,
    num_ret: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Per-query values, long (``query_id, measure, value``), for the queries ``goldset eval``
    averages: ``aggregate(evaluate(...))`` is its ``all`` line. See :func:`evaluate_wide`."""
    wide = evaluate_wide(
        qrels,
        run,
        measures,
        complete=complete,
        trec_eval_compat=trec_eval_compat,
        only_run_queries=only_run_queries,
        num_ret=num_ret,
    )
    names = [c for c in wide.columns if c != "query_id"]
    return wide.unpivot(
        index="query_id", on=names, variable_name="measure", value_name="value"
    ).sort("query_id", maintain_order=True)


def mean_scores(
    qrels: QrelsInput,
    run: RunInput,
    measures: Measures,
    *,
    trec_eval_compat: bool = False,
    complete: bool = False,
) -> dict[str, float]:
    """Means keyed by measure name: ``goldset eval``'s ``all`` line (its ``-c`` with
    ``complete``, its ``--trec-eval-compat`` with ``trec_eval_compat``)."""
    return metrics.mean_scores(
        qrels_frame(qrels),
        run_frame(run),
        _measures(measures),
        trec_eval_compat=trec_eval_compat,
        complete=complete,
    )


def aggregate(per_query: pl.DataFrame, queries: pl.Series | None = None) -> dict[str, float]:
    """The mean of per-query values (``query_id, measure, value``, as :func:`evaluate` gives
    them) over ``queries`` (default: every query in ``per_query``), a query absent from
    ``per_query`` counting 0; counts summed, GMAP geometric (``eval.means``)."""
    return metrics.aggregate(per_query, queries)


def relevant_queries(qrels: QrelsInput) -> pl.Series:
    """The queries goldset averages over by default: those with a document graded 1 or more."""
    return metrics.relevant_queries(qrels_frame(qrels))


def query_sets(
    qrels: QrelsInput,
    run_queries: pl.Series | Iterable[str],
    mode: str = "relevant",
    level: int = 1,
) -> querysets.QuerySets:
    """The queries ``mode`` (``relevant``, ``complete`` or ``both``) averages over for a run
    retrieving for ``run_queries``, and what the run and the qrels do not share."""
    ran = run_queries if isinstance(run_queries, pl.Series) else pl.Series(list(run_queries))
    return querysets.query_sets(qrels_frame(qrels), ran.cast(pl.String), mode, level)


def cut_run(
    run: RunInput,
    qrels: QrelsInput,
    *,
    max_docs: int | None = None,
    judged_only: bool = False,
) -> pl.DataFrame:
    """The run as trec_eval's ``-M max_docs`` and ``-J`` see it (``query_id, doc_id, score,
    rank``)."""
    return querysets.cut_run(
        run_frame(run), qrels_frame(qrels), max_docs=max_docs, judged_only=judged_only
    )


def rrf(
    runs: Runs, k: int = fusion.RRF_K, depth: int | None = None, *, order: bool = True
) -> pl.DataFrame:
    """Reciprocal rank fusion of ``runs`` (a dict of named runs or a list): a run frame."""
    return fusion.rrf(run_frames(runs), k=k, depth=depth, order=order)


def combsum(runs: Runs, depth: int | None = None, *, order: bool = True) -> pl.DataFrame:
    """CombSUM of ``runs``: the sum of min-max normalised scores."""
    return fusion.combsum(run_frames(runs), depth=depth, order=order)


def combmnz(runs: Runs, depth: int | None = None, *, order: bool = True) -> pl.DataFrame:
    """CombMNZ of ``runs``: CombSUM times the number of runs that retrieved the document."""
    return fusion.combmnz(run_frames(runs), depth=depth, order=order)


def fuse(
    runs: Runs,
    method: str = "rrf",
    *,
    k: int = fusion.RRF_K,
    depth: int | None = None,
    order: bool = True,
) -> pl.DataFrame:
    """Fusion by name: ``rrf``, ``combsum`` or ``combmnz``."""
    return fusion.fuse(run_frames(runs), method, k=k, depth=depth, order=order)


def compare(
    qrels: QrelsInput,
    run_a: RunInput,
    run_b: RunInput,
    measure: str | Measure = "nDCG@10",
    *,
    seed: int = DEFAULT_SEED,
    samples: int = COMPARE_SAMPLES,
) -> PairedResult:
    """`goldset compare QRELS A B -m MEASURE`'s numbers: A against B, paired per query over the
    queries `goldset eval` averages (a query missing from a run scores 0), the interval and
    McNemar chosen by the measure's definition and the qrels (a 0/1 measure such as Success@10,
    or R@k where every query has one relevant document, gets the paired-rate interval and the
    discordant counts). GMAP is refused: its mean is geometric. ``mean_diff`` and ``ci95``
    estimate the mean per-query difference over the queries the set was drawn from."""
    from goldset_tui.eval.measure_kind import is_binary_measure, is_bounded_measure

    q = qrels_frame(qrels)
    m = arithmetic_measure(
        str(measure), option="measure", does="a paired comparison's mean and interval are"
    )
    name = str(m)  # the column evaluate_wide names it: canonical (ndcg@10 -> nDCG@10)
    a = evaluate_wide(q, run_a, [name])
    b = evaluate_wide(q, run_b, [name])
    return paired_comparison(
        a.get_column(name),
        b.get_column(name),
        seed=seed,
        samples=samples,
        binary=is_binary_measure(m, q, a.get_column("query_id")),
        bounded=is_bounded_measure(m),
    )
