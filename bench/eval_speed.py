"""How fast is `goldset eval` against pytrec_eval, ranx and ir_measures, end to end from files?

Generates a graded qrels file and a run of QUERIES x DOCS lines (default 7,000 x 1,000), then
times each tool as a whole process (python start-up, imports, reading both files, computing
nDCG@10, AP, RR and R@100, printing the means), REPEAT times, and reports the median wall time,
the peak resident memory of the process, and whether the means agree with pytrec_eval's to 1e-4.

ranx compiles its metrics with numba on first use in every new process; that is what its users
pay when they run a script, so it is included and the table says so.

The data avoid the cases where the tools disagree on purpose (see docs/eval.md): no score ties
(ranx ignores trec_eval's tie-break), no negative grades (ranx counts them as judged), every
query in the run and with a relevant document (so all four average over the same queries).

    .venv/bin/python bench/eval_speed.py                    # the full size, 3 repeats
    .venv/bin/python bench/eval_speed.py --queries 500 --repeat 1   # a quick look
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MEASURES = ["nDCG@10", "AP", "RR", "R@100"]

# Each tool's script prints {"means": {...in MEASURES order...}, "maxrss_mb": ...} as its last line.
FOOTER = """
import json, resource, sys
print(json.dumps({"means": MEANS, "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

SCRIPTS = {
    "goldset": """
import io, json, sys, contextlib
from goldset_tui.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    main(["eval", QRELS, RUN, "-m", "nDCG@10", "-m", "AP", "-m", "RR", "-m", "R@100", "--format", "json"])
mean = next(iter(json.loads(out.getvalue())["runs"].values()))["mean"]
MEANS = [mean["nDCG@10"], mean["AP"], mean["RR"], mean["R@100"]]
""",
    "pytrec_eval": """
import pytrec_eval
with open(QRELS) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(RUN) as f:
    run = pytrec_eval.parse_run(f)
res = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "recip_rank", "recall.100"}).evaluate(run)
keys = ["ndcg_cut_10", "map", "recip_rank", "recall_100"]
MEANS = [sum(r[k] for r in res.values()) / len(res) for k in keys]
""",
    "ir_measures": """
import ir_measures
from ir_measures import nDCG, AP, RR, R
qrels = ir_measures.read_trec_qrels(QRELS)
run = ir_measures.read_trec_run(RUN)
agg = ir_measures.calc_aggregate([nDCG@10, AP, RR, R@100], qrels, run)
MEANS = [agg[nDCG@10], agg[AP], agg[RR], agg[R@100]]
""",
    "ranx": """
import warnings
warnings.filterwarnings("ignore")
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(QRELS, kind="trec")
run = Run.from_file(RUN, kind="trec")
res = evaluate(qrels, run, ["ndcg@10", "map", "mrr", "recall@100"])
MEANS = [float(res["ndcg@10"]), float(res["map"]), float(res["mrr"]), float(res["recall@100"])]
""",
}


def generate(folder: Path, queries: int, docs: int, seed: int = 0) -> tuple[Path, Path]:
    """A run with distinct scores per query and qrels of ~60 judged documents per query (grades
    0-3, some relevant documents not retrieved), every query with at least one relevant one."""
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(seed)
    n = queries * docs
    qid = np.repeat(np.arange(queries), docs)
    # Distinct documents per query from a large collection; distinct scores per query.
    doc = (np.tile(np.arange(docs), queries) * 7919 + qid * 104729) % 5_000_000
    score = np.tile(np.arange(docs, 0, -1), queries) + rng.random(n) * 0.5
    run = pl.DataFrame({"q": qid, "d": doc, "s": score}).select(
        pl.col("q").cast(pl.String).alias("query_id"),
        pl.lit("Q0").alias("q0"),
        pl.format("D{}", pl.col("d")).alias("doc_id"),
        pl.int_range(1, pl.len() + 1).over("q").alias("rank"),
        pl.col("s").round(6).alias("score"),
        pl.lit("bench").alias("tag"),
    )
    # Shuffle lines so that nobody benefits from a pre-sorted file.
    run = run.sample(fraction=1.0, shuffle=True, seed=seed)
    run_path = folder / "run.txt"
    run.write_csv(run_path, separator=" ", include_header=False)
    judged = run.sample(n=min(n, queries * 50), seed=seed + 1).select("query_id", "doc_id")
    unretrieved = pl.DataFrame(
        {
            "q": np.repeat(np.arange(queries), 10),
            "d": rng.integers(5_000_000, 6_000_000, queries * 10),
        }
    ).select(
        pl.col("q").cast(pl.String).alias("query_id"), pl.format("D{}", pl.col("d")).alias("doc_id")
    )
    qrels = pl.concat([judged, unretrieved]).unique(["query_id", "doc_id"], maintain_order=True)
    grades = rng.choice([0, 0, 0, 1, 1, 2, 3], size=qrels.height)
    qrels = qrels.with_columns(pl.Series("grade", grades))
    # At least one relevant document per query: the first judged one gets grade 2.
    qrels = qrels.with_columns(
        pl.when(pl.int_range(pl.len()).over("query_id") == 0)
        .then(2)
        .otherwise(pl.col("grade"))
        .alias("grade")
    )
    qrels_path = folder / "qrels.txt"
    qrels.select("query_id", pl.lit("0"), "doc_id", "grade").write_csv(
        qrels_path, separator=" ", include_header=False
    )
    return qrels_path, run_path


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_tool(name: str, qrels: Path, run: Path) -> tuple[float, float, dict]:
    """(wall seconds, CPU seconds, the tool's output) of one whole process."""
    script = f"QRELS = {str(qrels)!r}\nRUN = {str(run)!r}\n" + SCRIPTS[name] + FOOTER
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{name} failed:\n{done.stderr[-2000:]}")
    return elapsed, _children_cpu() - cpu, json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=7000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tools", default="goldset,pytrec_eval,ir_measures,ranx")
    parser.add_argument("--keep", metavar="DIR", help="generate the files here and keep them")
    args = parser.parse_args()
    tools = args.tools.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        qrels, run = generate(folder, args.queries, args.docs)
        print(
            f"{args.queries} queries x {args.docs} docs: run {run.stat().st_size / 1e6:.0f} MB, "
            f"qrels {qrels.stat().st_size / 1e6:.1f} MB; median of {args.repeat}, each tool a whole process"
        )
        results = {}
        for name in tools:
            times, cpus, last = [], [], None
            for _ in range(args.repeat):
                elapsed, cpu, last = run_tool(name, qrels, run)
                times.append(elapsed)
                cpus.append(cpu)
            results[name] = (statistics.median(times), statistics.median(cpus), last)
            print(
                f"  {name}: wall {', '.join(f'{t:.1f}' for t in times)} s; "
                f"cpu {', '.join(f'{t:.1f}' for t in cpus)} s",
                file=sys.stderr,
            )
    reference = results.get("pytrec_eval", next(iter(results.values())))[2]["means"]
    print(
        f"\n{'tool':<12} {'wall s':>7} {'cpu s':>6} {'peak MB':>8} {'wall/goldset':>12} {'cpu/goldset':>11}"
        f"  means ({', '.join(MEASURES)})  equal"
    )
    base = results.get("goldset")
    for name, (seconds, cpu, out) in results.items():
        equal = all(abs(a - b) <= 1e-4 for a, b in zip(out["means"], reference, strict=True))
        ratio = f"{seconds / base[0]:.1f}x" if base else "-"
        cpu_ratio = f"{cpu / base[1]:.1f}x" if base else "-"
        means = " ".join(f"{v:.4f}" for v in out["means"])
        print(
            f"{name:<12} {seconds:>7.2f} {cpu:>6.2f} {out['maxrss_mb']:>8.0f} {ratio:>12} {cpu_ratio:>11}"
            f"  {means}  {'yes' if equal else 'NO'}"
        )
    peers = [(t, c) for n, (t, c, _) in results.items() if n != "goldset"]
    if peers and base:
        print(
            f"\ngoldset vs the fastest peer: {min(t for t, _ in peers) / base[0]:.1f}x (wall), "
            f"{min(c for _, c in peers) / base[1]:.1f}x (cpu)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
