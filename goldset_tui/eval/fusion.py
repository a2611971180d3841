"""Run fusion: several ranked lists in, one run frame out (``query_id, doc_id, score, rank``).

- Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): a document's score is
  the sum over the lists that retrieved it of 1 / (k + rank), k = 60; ranks are trec_eval ranks.
- CombSUM and CombMNZ (Fox & Shaw, TREC-2 1994) on min-max normalised scores, per run and query:
  (s - min) / (max - min); a list whose scores are all equal normalises to 1 for every document
  (they are all its best). CombMNZ multiplies the sum by the number of lists retrieving the doc.

``depth`` keeps only each list's top ``depth`` documents before fusing. Ties in the fused score
are ordered as trec_eval would order them (document id descending).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from goldset_tui.io.trec import rank_run

RRF_K = 60
METHODS = ("rrf", "combsum", "combmnz")


Runs = Mapping[str, pl.DataFrame] | Sequence[pl.DataFrame]


def _stack(runs: Runs, depth: int | None, *, scores: bool = False) -> tuple[pl.LazyFrame, int]:
    """Every list's ``query_id, doc_id, rank, list`` (and ``score`` when ``scores``) as one lazy
    frame, so the fusion runs as a single query plan without copies in between; and how many
    lists there are."""
    frames = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    if not frames:
        raise ValueError("fusion needs at least one run")
    stacked = []
    for index, run in enumerate(frames):
        # A frame that carries `rank` (read_run's, or a fused run's) is already in trec_eval order.
        ranked = (
            run
            if "rank" in run.columns
            else rank_run(run.select("query_id", "doc_id", "score"), order=False)
        )
        columns = [
            pl.col("query_id"),
            pl.col("doc_id"),
            pl.col("rank").cast(pl.Int64),
            pl.lit(index, dtype=pl.Int32).alias("list"),
        ]
        if scores:
            columns.append(pl.col("score").cast(pl.Float64))
        part = ranked.lazy().select(columns)
        if depth is not None:
            part = part.filter(pl.col("rank") <= depth)
        stacked.append(part)
    return pl.concat(stacked), len(frames)


def _fused(
    stacked: pl.LazyFrame, lists: int, value: pl.Expr, *, times_count: bool = False
) -> pl.LazyFrame:
    """``query_id, doc_id, score``: each document's ``value`` summed over the lists that hold it
    (times their number when ``times_count``), in a canonical order.

    Floating-point addition is not associative: 1/61 + 1/62 + 1/67 and 1/67 + 1/61 + 1/62 can
    differ in the last bit, and a plain group-by sum adds in whatever order the rows (and the
    threads) come. So each list's value goes to its own column (one plain sum per list: a single
    non-zero term, exact), an odd-even transposition network sorts the columns of every row
    (vectorised compare-and-swap), and the sum runs from the smallest up. Equal contributions then
    always tie, whatever the order of the runs, and the tie goes to the larger doc id as in
    trec_eval. With two lists this is exactly a + b, as a plain sum gives.
    """
    names = [f"_v{j}" for j in range(lists)]
    aggs = [
        pl.when(pl.col("list") == j).then(value).otherwise(0.0).sum().alias(name)
        for j, name in enumerate(names)
    ]
    fused = stacked.group_by("query_id", "doc_id").agg(*aggs, pl.len().alias("_lists"))
    for step in range(lists):
        swaps = []
        for a in range(step % 2, lists - 1, 2):
            x, y = pl.col(names[a]), pl.col(names[a + 1])
            # when/then rather than min/max: a NaN stays in the row (and so in the sum).
            swaps += [
                pl.when(x <= y).then(x).otherwise(y).alias(names[a]),
                pl.when(x <= y).then(y).otherwise(x).alias(names[a + 1]),
            ]
        if swaps:
            fused = fused.with_columns(swaps)
    total = pl.col(names[0])
    for name in names[1:]:
        total = total + pl.col(name)
    if times_count:
        total = total * pl.col("_lists")
    return fused.select("query_id", "doc_id", total.alias("score"))


def _finish(fused: pl.LazyFrame, order: bool) -> pl.DataFrame:
    return rank_run(fused, order=order).collect()


def rrf(
    runs: Runs, k: int = RRF_K, depth: int | None = None, *, order: bool = True
) -> pl.DataFrame:
    """Reciprocal rank fusion: score = sum of 1 / (k + rank) over the lists.

    ``order=False`` leaves the rows in no particular order (ranks are still trec_eval's); the
    evaluation does not need the sort and a fused run of millions of rows saves it."""
    if k < 0:
        raise ValueError("k must be >= 0")
    stacked, lists = _stack(runs, depth)
    return _finish(_fused(stacked, lists, 1.0 / (k + pl.col("rank"))), order)


def _normalised(runs: Runs, depth: int | None) -> tuple[pl.LazyFrame, int]:
    lo = pl.col("score").min().over("list", "query_id")
    hi = pl.col("score").max().over("list", "query_id")
    stacked, lists = _stack(runs, depth, scores=True)
    normalised = stacked.with_columns(
        pl.when(hi > lo).then((pl.col("score") - lo) / (hi - lo)).otherwise(1.0).alias("score")
    )
    return normalised, lists


def combsum(runs: Runs, depth: int | None = None, *, order: bool = True) -> pl.DataFrame:
    """CombSUM: the sum of min-max normalised scores."""
    stacked, lists = _normalised(runs, depth)
    return _finish(_fused(stacked, lists, pl.col("score")), order)


def combmnz(runs: Runs, depth: int | None = None, *, order: bool = True) -> pl.DataFrame:
    """CombMNZ: CombSUM times the number of lists that retrieved the document."""
    stacked, lists = _normalised(runs, depth)
    return _finish(_fused(stacked, lists, pl.col("score"), times_count=True), order)


def fuse(
    runs: Runs, method: str = "rrf", *, k: int = RRF_K, depth: int | None = None, order: bool = True
) -> pl.DataFrame:
    """Dispatch by name: ``rrf``, ``combsum`` or ``combmnz``."""
    if method == "rrf":
        return rrf(runs, k=k, depth=depth, order=order)
    if method == "combsum":
        return combsum(runs, depth=depth, order=order)
    if method == "combmnz":
        return combmnz(runs, depth=depth, order=order)
    raise ValueError(f"unknown fusion method {method!r}; expected one of {', '.join(METHODS)}")
