"""What does the jump from a disagreement to the systems' top k cost on a large store?

`t` on the agreement or adjudication screen builds the review context on the store's consensus
and the runs its pool recorded (app/query_view.py: read the judgments, decide the consensus,
evaluate every run and their fusion), once, in a worker thread; the adjudication screen then
says, on every refresh, what deciding the pair in view decides (report/decides.py: filters
over the consensus top k), on the UI thread. This script builds a store of ``--queries`` queries
x ``--docs`` pooled documents a query, two systems ranking them, two labellers grading every pair
(one grade in ten apart), and reports the CPU time (``time.process_time``, not wall: the machine
is shared) of the build (median of ``--repeat``) and of the stakes of one pair (median, p99).

    python bench/topk_jump.py                    # 2,000 queries x 50 documents
    python bench/topk_jump.py --queries 200      # quick look
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def build_store(root: Path, queries: int, docs: int) -> Path:
    from goldset_tui.store.files import sha256_file
    from goldset_tui.store.project import Project

    n = queries * docs
    i = pl.int_range(0, n, eager=True)
    q, d = i // docs, i % docs
    pool = pl.DataFrame(
        {
            "query_id": "q" + q.cast(pl.Utf8),
            "query": "query " + q.cast(pl.Utf8),
            "doc_id": "d" + (q * 7919 + d).cast(pl.Utf8),
            "text": "text " + d.cast(pl.Utf8),
            "systems": pl.Series([["bm25", "dense"]] * n),
        }
    ).with_columns(ranks=pl.concat_list([pl.Series(d + 1), pl.Series(((d * 17 + 5) % docs) + 1)]))
    path = root / "pool.jsonl"
    pool.write_ndjson(path)
    store = root / "store"
    project = Project.create(store, pool_path=path, pool_sha256=sha256_file(path))
    grade = (q * 31 + d * 7) % 4
    for labeller, shift in (("ann", 0), ("bob", 1)):
        moved = pl.Series(((grade + shift) % 4).to_list())
        moved = pl.select(
            pl.when(pl.Series(i % 10 == 0)).then(moved).otherwise(pl.Series(grade))
        ).to_series()
        frame = pool.select("query_id", "doc_id").with_columns(
            grade=moved.cast(pl.Int64),
            time=pl.lit(None, pl.Utf8),
            note=pl.lit(None, pl.Utf8),
        )
        project.add_grades(labeller, frame)
    return store


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--docs", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from goldset_tui.adjudication.consensus import UMA, open_pairs
    from goldset_tui.agreement.sources import from_store
    from goldset_tui.app.query_view import consensus_view
    from goldset_tui.report.decides import stakes

    with tempfile.TemporaryDirectory() as tmp:
        store = build_store(Path(tmp), args.queries, args.docs)
        data = from_store(store)
        builds = []
        for _ in range(args.repeat):
            start = time.process_time()
            context = consensus_view(data)
            builds.append(time.process_time() - start)
        pairs = open_pairs(data.ratings, UMA).select("query_id", "doc_id").rows()[:300]
        topk = context.report.topk
        assert topk is not None
        each = []
        for q, d in pairs:
            start = time.process_time()
            stakes(topk, q, d, 1)
            each.append(time.process_time() - start)
        each.sort()
        print(f"{args.queries} queries x {args.docs} documents, 2 systems + rrf, 2 labellers")
        print(f"{'step':<44} {'median':>10} {'p99':>10}")
        print(f"{'build the view (worker), s':<44} {statistics.median(builds):>10.3f} {'':>10}")
        p99 = each[min(len(each) - 1, int(len(each) * 0.99))] * 1000
        print(
            f"{'stakes of one pair (UI thread), ms':<44} {statistics.median(each) * 1000:>10.2f} {p99:>10.2f}"
        )
        print(f"open pairs: {len(open_pairs(data.ratings, UMA))}, timed: {len(each)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
