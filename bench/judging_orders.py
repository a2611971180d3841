"""How many relevant documents does each judging order find per judgment? (issue 15)

Replays existing judgments (``goldset_tui.judging.simulate.judging_order``, the engine of
``goldset simulate``) in three orders, depth pooling, move-to-front and the MaxMean bandit, and
prints, at a few budgets of judgments per query, the relevant documents found (summed over the
queries) and their share of the relevant documents in the pool. Two collections:

- TREC Robust 2003 (tests/data/peers/trectools: the qrels, 100 topics, and the one run there,
  uic0301) plus four runs made from it, so that the pool has arms of different quality; every made
  run is built here, seeded, from uic0301 or the qrels:
  - ``uic0301``: the run itself;
  - ``sunk``: uic0301 with its top 50 moved below rank 1,000 (the same documents, ranked badly);
  - ``shuffled``: uic0301's top 100 in a seeded random order (same recall at 100, no ranking);
  - ``reversed``: uic0301's top 100 reversed;
  - ``junk``: per topic, 100 documents judged *not* relevant (sorted by id): an arm that never
    pays, which an adaptive order should stop pulling.
- The sample data (sample_data/runs bm25 and minilm, judgments/alice.qrels: illustrative grades),
  depth 20.

Relevant means grade >= 1. Budgets are per query: "10" is 10 judgments times the number of
queries, the queries taking turns (one judgment each per turn) in mtf and mm, rank by rank in
depth.

    python bench/judging_orders.py
"""

from __future__ import annotations

import gzip
import random
import tempfile
from pathlib import Path

import polars as pl

from goldset_tui.io.trec import read_qrels, read_run
from goldset_tui.judging.simulate import ORDERS, judging_order

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "tests" / "data" / "peers" / "trectools"
SAMPLE = ROOT / "sample_data"
SEED = 2017


def _ranked(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(
        pl.col("rank").rank("ordinal").over("query_id").cast(pl.Int64).alias("rank")
    ).sort("query_id", "rank")


def robust_runs(run: pl.DataFrame, qrels: pl.DataFrame) -> dict[str, pl.DataFrame]:
    run = run.select("query_id", "doc_id", "rank")
    rng = random.Random(SEED)
    sunk = run.with_columns(
        pl.when(pl.col("rank") <= 50).then(pl.col("rank") + 1000).otherwise(pl.col("rank"))
    )
    top = run.filter(pl.col("rank") <= 100)
    keys = [rng.random() for _ in range(top.height)]
    shuffled = top.with_columns(pl.Series("key", keys)).with_columns(
        pl.col("key").rank("ordinal").over("query_id").cast(pl.Int64).alias("rank")
    )
    reversed_ = top.with_columns((101 - pl.col("rank")).alias("rank"))
    junk = (
        qrels.filter(pl.col("grade") == 0)
        .sort("query_id", "doc_id")
        .group_by("query_id", maintain_order=True)
        .head(100)
        .with_columns(pl.int_range(1, pl.len() + 1).over("query_id").alias("rank"))
        .select("query_id", "doc_id", "rank")
    )
    made = {"uic0301": run, "sunk": sunk, "shuffled": shuffled.drop("key"), "reversed": reversed_}
    return {n: _ranked(f) for n, f in made.items()} | {"junk": _ranked(junk)}


def table(title: str, qrels: pl.DataFrame, runs: dict[str, pl.DataFrame], depth: int) -> None:
    relevant = {
        (q, d) for q, d, g in qrels.select("query_id", "doc_id", "grade").iter_rows() if g >= 1
    }
    queries = len({q for f in runs.values() for q in f["query_id"].unique().to_list()})
    pool = judging_order(runs, relevant, depth=depth, order="depth", budget=10**12)
    in_pool = sum(p in relevant for p in pool)
    budgets = [b for b in (10, 25, 50, 100, 200, 300) if b * queries < len(pool)]
    print(f"\n{title}: {queries} queries, depth {depth}, pool {len(pool)}, relevant {in_pool}\n")
    print("| judgments per query | " + " | ".join(ORDERS) + " |")
    print("|---:|" + "---:|" * len(ORDERS))
    found = {}
    for order in ORDERS:
        seq = judging_order(runs, relevant, depth=depth, order=order, budget=len(pool))
        found[order] = [sum(p in relevant for p in seq[: b * queries]) for b in budgets]
    for i, b in enumerate(budgets):
        cells = [f"{found[o][i]} ({found[o][i] / in_pool:.0%})" for o in ORDERS]
        print(f"| {b} ({b * queries:,}) | " + " | ".join(cells) + " |")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, gzip.open(PEERS / "robust03_cs_qrels.txt.gz") as fh:
        qrels_path = Path(tmp) / "robust03.qrels"
        qrels_path.write_bytes(fh.read())
        qrels = read_qrels(qrels_path)
    run = read_run(PEERS / "input.uic0301.gz", tag=False)
    table(
        "TREC Robust 2003 (uic0301 and four runs made from it)", qrels, robust_runs(run, qrels), 100
    )
    sample_runs = {n: read_run(SAMPLE / "runs" / f"{n}.run", tag=False) for n in ("bm25", "minilm")}
    table(
        "sample data (bm25, minilm; alice's illustrative grades)",
        read_qrels(SAMPLE / "judgments" / "alice.qrels"),
        sample_runs,
        20,
    )


if __name__ == "__main__":
    main()
