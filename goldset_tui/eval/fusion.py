"""Run fusion: several ranked lists in, one run frame out (``query_id, doc_id, score, rank``).

- Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009; seed 000): a document's score is
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


def _stack(runs: Mapping[str, pl.DataFrame] | Sequence[pl.DataFrame], depth: int | None) -> pl.DataFrame:
    frames = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    if not frames:
        raise ValueError("fusion needs at least one run")
    stacked = []
    for index, run in enumerate(frames):
        ranked = run if "rank" in run.columns else rank_run(run.select("query_id", "doc_id", "score"))
        ranked = ranked.select("query_id", "doc_id", pl.col("score").cast(pl.Float64), pl.col("rank").cast(pl.Int64))
        if depth is not None:
            ranked = ranked.filter(pl.col("rank") <= depth)
        stacked.append(ranked.with_columns(pl.lit(index).alias("list")))
    return pl.concat(stacked)


def _finish(fused: pl.DataFrame) -> pl.DataFrame:
    return rank_run(fused.select("query_id", "doc_id", "score"))


def rrf(runs: Mapping[str, pl.DataFrame] | Sequence[pl.DataFrame], k: int = RRF_K, depth: int | None = None) -> pl.DataFrame:
    """Reciprocal rank fusion: score = sum of 1 / (k + rank) over the lists."""
    if k < 0:
        raise ValueError("k must be >= 0")
    fused = (
        _stack(runs, depth)
        .group_by("query_id", "doc_id")
        .agg((1.0 / (k + pl.col("rank"))).sum().alias("score"))
    )
    return _finish(fused)


def _normalised(runs, depth: int | None) -> pl.DataFrame:
    lo = pl.col("score").min().over("list", "query_id")
    hi = pl.col("score").max().over("list", "query_id")
    return _stack(runs, depth).with_columns(
        pl.when(hi > lo).then((pl.col("score") - lo) / (hi - lo)).otherwise(1.0).alias("score")
    )


def combsum(runs: Mapping[str, pl.DataFrame] | Sequence[pl.DataFrame], depth: int | None = None) -> pl.DataFrame:
    """CombSUM: the sum of min-max normalised scores."""
    fused = _normalised(runs, depth).group_by("query_id", "doc_id").agg(pl.col("score").sum())
    return _finish(fused)


def combmnz(runs: Mapping[str, pl.DataFrame] | Sequence[pl.DataFrame], depth: int | None = None) -> pl.DataFrame:
    """CombMNZ: CombSUM times the number of lists that retrieved the document."""
    fused = _normalised(runs, depth).group_by("query_id", "doc_id").agg(
        (pl.col("score").sum() * pl.len()).alias("score")
    )
    return _finish(fused)


def fuse(runs, method: str = "rrf", *, k: int = RRF_K, depth: int | None = None) -> pl.DataFrame:
    """Dispatch by name: ``rrf``, ``combsum`` or ``combmnz``."""
    if method == "rrf":
        return rrf(runs, k=k, depth=depth)
    if method == "combsum":
        return combsum(runs, depth=depth)
    if method == "combmnz":
        return combmnz(runs, depth=depth)
    raise ValueError(f"unknown fusion method {method!r}; expected one of {', '.join(METHODS)}")
