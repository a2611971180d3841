"""What does handing goldset a pandas frame, a dict, named tuples or a path cost, against its own
Polars frames, and against ir_measures and pytrec_eval given the same objects?

On TREC Robust 2003 with the uic0301 run (100 topics x 1,000 documents, the peers' copy in
tests/data/peers/trectools), each input kind is built once by the reader a notebook would use
(pandas' read_csv, pytrec_eval's parse_qrel/parse_run, ir_measures' read_trec_*, Polars), then
``mean_scores`` with nDCG@10, AP, RR, R@100 and P@10 is timed REPEAT times; the conversion is
inside the timing (it is what the input layer adds). Reported: the median CPU milliseconds (all
threads; steadier than wall time on a shared machine) and the ratio to goldset's own frames;
ir_measures' ``calc_aggregate`` on the same pandas frame and pytrec_eval on the same dicts beside
them. Every means line is checked equal first (ir_measures and pytrec_eval: trec_eval -c's
query set, which on this collection is the same as goldset's default).

    python bench/notebook_inputs.py --repeat 9
    POLARS_MAX_THREADS=1 python bench/notebook_inputs.py --repeat 9   # one core, steadier
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import time
from pathlib import Path

from _needs import require  # bench/ is sys.path[0] when a script runs

ROOT = Path(__file__).resolve().parents[1]
PEERS = ROOT / "tests" / "data" / "peers" / "trectools"
QRELS, RUN = PEERS / "robust03_cs_qrels.txt.gz", PEERS / "input.uic0301.gz"
MEASURES = ["nDCG@10", "AP", "RR", "R@100", "P@10"]


def cpu_ms(call, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    require("pandas", "pytrec_eval", "ir_measures")
    import ir_measures
    import pandas as pd
    import polars as pl
    import pytrec_eval

    sys.path.insert(0, str(ROOT))
    from goldset_tui.eval import mean_scores
    from goldset_tui.io.trec import read_qrels, read_run

    with gzip.open(QRELS, "rt") as q, gzip.open(RUN, "rt") as r:
        dicts = pytrec_eval.parse_qrel(q), pytrec_eval.parse_run(r)
    qrels_names = ["query_id", "iter", "doc_id", "grade"]
    run_names = ["query_id", "Q0", "doc_id", "rank", "score", "tag"]
    pandas = (
        pd.read_csv(QRELS, sep=r"\s+", header=None, names=qrels_names),
        pd.read_csv(RUN, sep=r"\s+", header=None, names=run_names),
    )
    own = read_qrels(QRELS), read_run(RUN)
    kinds = {
        "goldset's Polars frames (read_qrels/read_run)": own,
        "Polars frames, trec_eval's names": (
            pl.from_dict({c: pandas[0][c].tolist() for c in qrels_names}),
            pl.from_dict({c: pandas[1][c].tolist() for c in run_names}),
        ),
        "pandas frames, trec_eval's names": pandas,
        "pytrec_eval dicts": dicts,
        "ir_measures named tuples": (
            list(ir_measures.read_trec_qrels(str(QRELS))),
            list(ir_measures.read_trec_run(str(RUN))),
        ),
        "paths (TREC files, read each time)": (QRELS, RUN),
    }
    reference = mean_scores(*own, MEASURES)
    for name, (q, r) in kinds.items():
        got = mean_scores(q, r, MEASURES)
        assert all(abs(got[m] - reference[m]) < 1e-12 for m in MEASURES), name
    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    irm_qrels = pandas[0].rename(columns={"grade": "relevance"}).astype({"query_id": str})
    irm_run = pandas[1].astype({"query_id": str})
    theirs = ir_measures.calc_aggregate(measures, irm_qrels, irm_run)
    assert all(abs(theirs[m] - reference[str(m)]) < 1e-9 for m in measures), theirs
    trec_names = {"ndcg_cut_10", "map", "recip_rank", "recall_100", "P_10"}

    def pytrec() -> None:
        evaluator = pytrec_eval.RelevanceEvaluator(dicts[0], trec_names)
        evaluator.evaluate(dicts[1])

    base = cpu_ms(lambda: mean_scores(*own, MEASURES), args.repeat)
    print(f"mean_scores({', '.join(MEASURES)}), Robust 2003 x uic0301, median of {args.repeat}")
    print(f"{'input':50s} {'CPU ms':>8s} {'x own':>7s}")
    for name, (q, r) in kinds.items():
        ms = cpu_ms(lambda q=q, r=r: mean_scores(q, r, MEASURES), args.repeat)
        print(f"{name:50s} {ms:8.0f} {ms / base:7.2f}")
    peers = {
        "ir_measures.calc_aggregate, the same pandas frames": lambda: ir_measures.calc_aggregate(
            measures, irm_qrels, irm_run
        ),
        "pytrec_eval RelevanceEvaluator, the same dicts": pytrec,
    }
    for name, call in peers.items():
        ms = cpu_ms(call, args.repeat)
        print(f"{name:50s} {ms:8.0f} {ms / base:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
