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

With ``--data robust03`` it times the small case instead: TREC Robust 2003 (100 topics, the
``uic0301`` run of 1,000 documents a topic, from tests/data/peers/trectools, decompressed first),
where start-up and imports dominate; the measures are the four above and P@10. Its data have
score ties, which ranx breaks its own way (see docs/eval.md): its means may differ.

CPU time is user + system time of the whole process (its threads included), from os.wait4, as
is its peak resident memory (ru_maxrss). On a shared machine CPU time still moves with the load
(caches, frequency): ``--callgrind`` also counts each tool's instructions once under valgrind
(``valgrind --tool=callgrind --trace-children=no``), which a load does not change.

goldset's modules are compiled to bytecode first (``python -m compileall``), as ``pip install``
does for an installed package and did for the peers: in a development checkout under
PYTHONDONTWRITEBYTECODE=1 nothing is ever cached, and every process compiled goldset's modules
again (about 0.1 G instructions, 0.02-0.03 s on Robust 2003), which is not what a user runs.

The data are generated in a child process: this parent stays small, since a child's ru_maxrss
can include what it shared with a large parent at fork (goldset's evaluation, 475 MB on its own,
once read 933 MB when the data were made in this process; the peers' peaks, larger than the
parent's, were not affected).

    python bench/eval_speed.py                    # the full size, 3 repeats
    python bench/eval_speed.py --queries 500 --repeat 1   # a quick look
    python bench/eval_speed.py --data robust03 --repeat 9  # small data
    python bench/eval_speed.py --data robust03 --repeat 5 --callgrind  # + instructions
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _needs import require  # bench/ is sys.path[0] when a script runs

MEASURES = ["nDCG@10", "AP", "RR", "R@100", "P@10"]
PEERS = Path(__file__).resolve().parents[1] / "tests" / "data" / "peers" / "trectools"

# Each tool's script prints {"means": [...in MEASURES order...]} as its last line.
FOOTER = """
import json
print(json.dumps({"means": MEANS}))
"""

SCRIPTS = {
    # `goldset` itself: the console script's whole process, its JSON read back here.
    "goldset": None,
    "pytrec_eval": """
import pytrec_eval
with open(QRELS) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(RUN) as f:
    run = pytrec_eval.parse_run(f)
res = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "recip_rank", "recall.100", "P.10"}).evaluate(run)
keys = ["ndcg_cut_10", "map", "recip_rank", "recall_100", "P_10"]
MEANS = [sum(r[k] for r in res.values()) / len(res) for k in keys]
""",
    "ir_measures": """
import ir_measures
from ir_measures import nDCG, AP, RR, R, P
qrels = ir_measures.read_trec_qrels(QRELS)
run = ir_measures.read_trec_run(RUN)
agg = ir_measures.calc_aggregate([nDCG@10, AP, RR, R@100, P@10], qrels, run)
MEANS = [agg[nDCG@10], agg[AP], agg[RR], agg[R@100], agg[P@10]]
""",
    "ranx": """
import warnings
warnings.filterwarnings("ignore")
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(QRELS, kind="trec")
run = Run.from_file(RUN, kind="trec")
res = evaluate(qrels, run, ["ndcg@10", "map", "mrr", "recall@100", "precision@10"])
MEANS = [float(res[m]) for m in ("ndcg@10", "map", "mrr", "recall@100", "precision@10")]
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


def robust03(folder: Path) -> tuple[Path, Path]:
    """TREC Robust 2003's qrels and the uic0301 run, decompressed (every tool reads plain text)."""
    out = []
    for name, source in (
        ("qrels.txt", "robust03_cs_qrels.txt.gz"),
        ("run.txt", "input.uic0301.gz"),
    ):
        path = folder / name
        path.write_bytes(gzip.decompress((PEERS / source).read_bytes()))
        out.append(path)
    return out[0], out[1]


def goldset_command(qrels: Path, run: Path) -> list[str]:
    measures = [a for m in MEASURES for a in ("-m", m)]
    script = Path(sys.executable).with_name("goldset")
    return [str(script), "eval", str(qrels), str(run), *measures, "--format", "json"]


def run_tool(name: str, qrels: Path, run: Path) -> tuple[float, float, float, list[float]]:
    """(wall seconds, CPU seconds, peak MB, the means) of one whole process."""
    command = command_of(name, qrels, run)
    with tempfile.TemporaryFile() as out_file, tempfile.TemporaryFile() as err_file:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=out_file, stderr=err_file)
        # wait4: this child's own CPU time and peak memory, not a sum or maximum over children.
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out_file.seek(0)
        err_file.seek(0)
        out, err = out_file.read().decode(), err_file.read().decode()
    if child.returncode != 0:
        raise SystemExit(f"{name} failed:\n{err[-2000:]}")
    if name == "goldset":
        mean = next(iter(json.loads(out)["runs"].values()))["mean"]
        means = [mean[m] for m in MEASURES]
    else:
        means = json.loads(out.strip().splitlines()[-1])["means"]
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, means


def compile_goldset() -> None:
    """goldset's bytecode, written next to its sources (see the module's docstring)."""
    import goldset_tui

    folder = Path(goldset_tui.__file__).parent
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder)], check=True)


def command_of(name: str, qrels: Path, run: Path) -> list[str]:
    if name == "goldset":
        return goldset_command(qrels, run)
    script = f"QRELS = {str(qrels)!r}\nRUN = {str(run)!r}\n" + SCRIPTS[name] + FOOTER
    return [sys.executable, "-c", script]


def instructions(name: str, qrels: Path, run: Path) -> int:
    """Instructions one whole process of the tool executes, counted by callgrind."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", "--trace-children=no"]
            + [f"--callgrind-out-file={tmp}/callgrind.out", *command_of(name, qrels, run)],
            capture_output=True,
            text=True,
            check=True,
        )
    collected = [line for line in done.stderr.splitlines() if "Collected :" in line]
    return int(collected[-1].split(":")[-1])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", choices=("generated", "robust03"), default="generated")
    parser.add_argument("--queries", type=int, default=7000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--tools",
        help="comma-separated (default: all four; without ranx for robust03, where its numba "
        "compilation alone takes a minute of CPU)",
    )
    parser.add_argument("--keep", metavar="DIR", help="generate the files here and keep them")
    parser.add_argument(
        "--callgrind",
        action="store_true",
        help="also count each tool's instructions once under valgrind (slow: about 50x)",
    )
    parser.add_argument("--generate-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate_only:
        generate(Path(args.keep), args.queries, args.docs)
        return 0
    default = "goldset,pytrec_eval,ir_measures" + (",ranx" if args.data == "generated" else "")
    tools = (args.tools or default).split(",")
    require("numpy", *(t for t in tools if t != "goldset"))  # each peer is its module
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        if args.data == "robust03":
            qrels, run = robust03(folder)
            what = "Robust 2003 (100 topics, run uic0301)"
        else:
            # In a child process: a parent that built 7 million rows has a large resident set,
            # and a child's peak memory (ru_maxrss) can count what it shared with its parent at
            # fork; this parent stays small so that each tool's peak is its own.
            subprocess.run(
                [sys.executable, __file__, "--generate-only", "--keep", str(folder)]
                + ["--queries", str(args.queries), "--docs", str(args.docs)],
                check=True,
            )
            qrels, run = folder / "qrels.txt", folder / "run.txt"
            what = f"{args.queries} queries x {args.docs} docs"
        print(
            f"{what}: run {run.stat().st_size / 1e6:.1f} MB, qrels {qrels.stat().st_size / 1e6:.1f} MB;"
            f" median of {args.repeat}, each tool a whole process, tools taking turns"
        )
        if "goldset" in tools:
            compile_goldset()
        samples: dict[str, list[tuple[float, float, float, list[float]]]] = {t: [] for t in tools}
        # Round-robin, so that a change in the machine's load falls on every tool alike.
        for _ in range(args.repeat):
            for name in tools:
                samples[name].append(run_tool(name, qrels, run))
        counted = {name: instructions(name, qrels, run) for name in tools} if args.callgrind else {}
    results = {}
    for name, runs in samples.items():
        results[name] = (
            statistics.median(r[0] for r in runs),
            statistics.median(r[1] for r in runs),
            statistics.median(r[2] for r in runs),
            runs[-1][3],
        )
        print(
            f"  {name}: wall {', '.join(f'{r[0]:.2f}' for r in runs)} s; "
            f"cpu {', '.join(f'{r[1]:.2f}' for r in runs)} s",
            file=sys.stderr,
        )
    reference = results.get("pytrec_eval", next(iter(results.values())))[3]
    print(
        f"\n{'tool':<12} {'wall s':>7} {'cpu s':>6} {'peak MB':>8} {'wall/goldset':>12} {'cpu/goldset':>11}"
        f"  means ({', '.join(MEASURES)})  equal"
    )
    base = results.get("goldset")
    for name, (seconds, cpu, peak, means) in results.items():
        equal = all(abs(a - b) <= 1e-4 for a, b in zip(means, reference, strict=True))
        ratio = f"{seconds / base[0]:.2f}x" if base else "-"
        cpu_ratio = f"{cpu / base[1]:.2f}x" if base else "-"
        shown = " ".join(f"{v:.4f}" for v in means)
        print(
            f"{name:<12} {seconds:>7.2f} {cpu:>6.2f} {peak:>8.0f} {ratio:>12} {cpu_ratio:>11}"
            f"  {shown}  {'yes' if equal else 'NO'}"
        )
    if counted:
        print("\ninstructions (callgrind, one run each):")
        for name, count in counted.items():
            share = f" ({count / counted['goldset']:.2f}x goldset)" if "goldset" in counted else ""
            print(f"  {name:<12} {count / 1e9:.3f} G{share}")
    peers = [(t, c) for n, (t, c, _, _) in results.items() if n != "goldset"]
    if peers and base:
        print(
            f"\ngoldset / fastest peer: {base[0] / min(t for t, _ in peers):.2f} (wall), "
            f"{base[1] / min(c for _, c in peers):.2f} (cpu)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
