"""Evaluation of small inputs in plain Python: ``goldset eval`` without importing Polars.

Below :data:`SMALL_INPUT_BYTES` of runs and qrels together, and when every measure has a kernel
(``eval.kernels``), ``goldset eval`` reads the files with ``io.small_trec`` and scores them here:
the same per-query values as ``metrics.evaluate`` after ``querysets.cut_run`` (held equal by
tests/unit/eval/test_small_path.py), at a fraction of the start-up cost (importing Polars alone
costs more CPU than pytrec_eval's whole evaluation of Robust 2003). Anything else, and any
doubt about a file, goes to the Polars path, which is the reference.

Ranking is trec_eval's, done by the reader (``io.small_trec.ranking``): score descending, ties
by document id descending.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from itertools import compress, repeat
from operator import ge, gt
from typing import TYPE_CHECKING

from goldset_tui.eval.kernels import ABSENT, Query, evaluate_query, has_kernels
from goldset_tui.eval.means import Row
from goldset_tui.eval.measures import Measure

if TYPE_CHECKING:
    from goldset_tui.io.small_trec import Qrels, Run

# Runs and qrels together, in bytes (decompressed for a stream or a gzipped file). Chosen by
# measurement (bench/eval_speed.py --data robust03; generated runs of 60 and 200 queries): on
# Robust 2003 (6.3 MB) the plain path takes 0.50 s of CPU against 0.65 s through Polars, which
# pays about 0.35 s to start; a shuffled run costs the plain path more (io.small_trec sends one
# over 4 MB to Polars).
SMALL_INPUT_BYTES = 8_000_000


def fits(total_bytes: int, measures: Iterable[Measure]) -> bool:
    """Whether the small path takes this evaluation."""
    return total_bytes <= SMALL_INPUT_BYTES and has_kernels(measures)


def query_ids(qrels: Qrels, level: int) -> tuple[set[str], set[str]]:
    """(queries in the qrels, queries with a document graded >= ``level``)."""
    relevant = {q for q, grades in qrels.items() if max(grades.values()) >= level}
    return set(qrels), relevant


def positive_judgments(qrels: Qrels) -> int:
    return sum(sum(map(gt, grades.values(), repeat(0))) for grades in qrels.values())


def evaluate_small(
    qrels: Qrels,
    run: Run,
    measures: Sequence[Measure],
    queries: Collection[str],
    *,
    max_docs: int | None = None,
    judged_only: bool = False,
) -> list[Row]:
    """``(query_id, measure, value)`` for each of ``queries`` (sorted) that is in the qrels, a
    query missing from the run scoring as an empty ranking; ``max_docs`` and ``judged_only`` are
    trec_eval's -M and -J (-M first, then -J, as ``querysets.cut_run``)."""
    names = [str(m) for m in measures]
    rows: list[Row] = []
    for qid in sorted(q for q in queries if q in qrels):
        grades = qrels[qid]
        docs = run[qid].docs if qid in run else []  # ranked by the reader
        if max_docs is not None:
            docs = docs[:max_docs]
        found = list(map(grades.get, docs, repeat(ABSENT)))
        if judged_only:
            found = list(compress(found, map(ge, found, repeat(0))))
        values = evaluate_query(measures, Query(found, grades.values()))
        rows.extend(zip([qid] * len(names), names, values, strict=True))
    return rows
