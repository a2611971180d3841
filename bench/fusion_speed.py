"""How fast is reciprocal rank fusion in goldset against ranx's `fuse(method="rrf")`?

Generates RUNS TREC runs of QUERIES x DOCS lines (default 4 runs of 7,000 x 1,000; the table
fuses the first 2 and all 4), then, for each tool and each number of runs, REPEAT fresh
processes that read the run files and fuse them (k = 60). Reported: the median seconds of the
reading and of the fusion apart, the fusion's CPU seconds (all threads; steadier than wall time
on a shared machine), the peak resident memory of the process, and for ranx the
numba compilation (its first `fuse` call, on a tiny run, in every new process) on its own line.

Agreement: both tools write their fused top 10 per query; a query agrees when the two lists are
the same, or differ only in the order of documents whose fused scores are equal to 1e-12
(goldset breaks ties by doc id descending as trec_eval does; ranx does not promise an order).

The runs have no score ties (ranx and trec_eval break them differently, which would make the
inputs differ, not the fusion): each system scores 1.5 x DOCS candidates latent + its own noise
and keeps its top DOCS, so the systems overlap at the top as real ones do.

    python bench/fusion_speed.py --repeat 3                  # full size
    python bench/fusion_speed.py --queries 700 --repeat 1    # a quick look
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _needs import require  # bench/ is sys.path[0] when a script runs

ROOT = Path(__file__).resolve().parents[1]

FOOTER = """
import resource
top.write_parquet(OUT)
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"read": READ, "fuse": FUSE, "fuse_cpu": FUSE_CPU, "compile": COMPILE, "peak_mb": peak_mb}))
"""

CHILDREN = {
    "goldset": """
import json, time
import polars as pl
from goldset_tui.eval.fusion import rrf
from goldset_tui.io.trec import read_run
start = time.perf_counter()
runs = [read_run(p, tag=False, order=False) for p in PATHS]
READ = time.perf_counter() - start
start, cpu = time.perf_counter(), time.process_time()
fused = rrf(runs, order=ORDER)
FUSE, FUSE_CPU = time.perf_counter() - start, time.process_time() - cpu
COMPILE = None
top = fused.filter(pl.col("rank") <= 10).select("query_id", "doc_id", "rank", "score")
""",
    "ranx": """
import json, time, warnings
warnings.filterwarnings("ignore")
import polars as pl
from ranx import Run, fuse
start = time.perf_counter()
tiny = [Run({"q": {"a": 1.0, "b": 0.5}}), Run({"q": {"b": 1.0, "c": 0.2}})]
fuse(tiny, method="rrf", params={"k": 60})
COMPILE = time.perf_counter() - start
start = time.perf_counter()
runs = [Run.from_file(p, kind="trec") for p in PATHS]
READ = time.perf_counter() - start
start, cpu = time.perf_counter(), time.process_time()
fused = fuse(runs, method="rrf", params={"k": 60})
FUSE, FUSE_CPU = time.perf_counter() - start, time.process_time() - cpu
rows = []
for q, docs in fused.to_dict().items():
    best = sorted(docs.items(), key=lambda kv: kv[1], reverse=True)[:10]
    rows += [(q, d, i, float(s)) for i, (d, s) in enumerate(best, start=1)]
schema = {"query_id": pl.String, "doc_id": pl.String, "rank": pl.Int64, "score": pl.Float64}
top = pl.DataFrame(rows, schema=schema, orient="row")
""",
}


def generate(folder: Path, runs: int, queries: int, docs: int, seed: int = 5) -> list[Path]:
    import numpy as np
    import polars as pl

    paths = [folder / f"sys{i}_{queries}x{docs}.run" for i in range(runs)]
    if all(p.exists() for p in paths):
        return paths
    rng = np.random.default_rng(seed)
    universe = docs * 3 // 2
    latent = rng.normal(size=(queries, universe))
    qids = np.repeat(np.arange(queries), docs)
    for i, path in enumerate(paths):
        scores = latent + (0.5 + 0.1 * i) * rng.normal(size=latent.shape)  # continuous: no ties
        top = np.argpartition(-scores, docs - 1, axis=1)[:, :docs]
        chosen = np.take_along_axis(scores, top, axis=1).ravel()
        frame = pl.DataFrame(
            {"q": qids, "d": (np.arange(queries)[:, None] * universe + top).ravel(), "s": chosen}
        )
        frame = frame.select(
            pl.format("q{}", "q").alias("qid"),
            pl.lit("Q0").alias("q0"),
            pl.format("d{}", "d").alias("doc"),
            pl.col("s").rank("ordinal", descending=True).over("q").cast(pl.Int64).alias("rank"),
            pl.col("s").alias("score"),
            pl.lit(f"sys{i}").alias("tag"),
        ).sample(fraction=1.0, shuffle=True, seed=seed + i)  # no tool benefits from sorted lines
        frame.write_csv(path, separator=" ", include_header=False)
    return paths


def measure(tool: str, paths: list[Path], out: Path, repeat: int, order: bool) -> dict:
    script = (
        f"PATHS = {[str(p) for p in paths]!r}\nOUT = {str(out)!r}\nORDER = {order!r}\n"
        + CHILDREN[tool]
        + FOOTER
    )
    results = []
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT
        )
        if done.returncode:
            raise SystemExit(f"{tool} failed:\n{done.stderr[-2000:]}")
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    median = {
        key: statistics.median(r[key] for r in results)
        for key in ("read", "fuse", "fuse_cpu", "peak_mb")
    }
    median["compile"] = (
        statistics.median(r["compile"] for r in results)
        if results[0]["compile"] is not None
        else None
    )
    fuses = ", ".join(f"{r['fuse']:.2f}" for r in results)
    print(f"  {tool} x{len(paths)}: fuse {fuses} s", file=sys.stderr)
    return median


def agreement(ours: Path, theirs: Path) -> tuple[int, int, int]:
    """(queries, identical top 10s, top 10s that differ only in the order of equal scores)."""
    import polars as pl

    a = pl.read_parquet(ours).sort("query_id", "rank")
    b = pl.read_parquet(theirs).sort("query_id", "rank")
    queries = a.get_column("query_id").n_unique()
    lists = (
        a.group_by("query_id")
        .agg("doc_id", "score")
        .join(
            b.group_by("query_id").agg("doc_id", "score"), on="query_id", how="full", suffix="_ranx"
        )
    )
    same = tie_only = 0
    for _, docs, scores, _, docs_r, scores_r in lists.iter_rows():
        if docs == docs_r:
            same += 1
        elif (
            docs_r
            and len(docs) == len(docs_r)
            and all(abs(x - y) <= 1e-12 for x, y in zip(scores, scores_r, strict=True))
        ):
            # Same scores position by position: the lists differ only inside groups of equal
            # scores, and those groups hold the same documents unless the 10th place is tied.
            tie_only += 1
    return queries, same, tie_only


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=7000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--runs", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tools", default="goldset,ranx")
    parser.add_argument(
        "--sorted",
        action="store_true",
        help="goldset sorts the fused run by query then rank (the default of rrf())",
    )
    parser.add_argument(
        "--dir", type=Path, default=Path(tempfile.gettempdir()) / "goldset-bench-fusion"
    )
    args = parser.parse_args()
    require("numpy", *(["ranx"] if "ranx" in args.tools.split(",") else []))
    args.dir.mkdir(parents=True, exist_ok=True)
    # Generate in another process so the children do not inherit this one's peak memory.
    subprocess.run(
        [
            sys.executable,
            "-c",
            f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
            f"from fusion_speed import generate; from pathlib import Path; "
            f"generate(Path({str(args.dir)!r}), {max(args.runs)}, {args.queries}, {args.docs})",
        ],
        check=True,
    )
    paths = generate(args.dir, max(args.runs), args.queries, args.docs)
    tools = args.tools.split(",")
    print(
        f"RRF (k = 60) of runs of {args.queries:,} queries x {args.docs:,} documents; median of {args.repeat} "
        f"fresh processes; goldset rrf(order={args.sorted})"
    )
    print(
        f"{'runs':>4} {'tool':<8} {'read s':>7} {'fuse s':>7} {'fuse CPU s':>10}"
        f" {'fuse / goldset':>14} {'peak MB':>8}  top 10s agree"
    )
    for n in args.runs:
        outs = {tool: args.dir / f"top10_{tool}_{n}.parquet" for tool in tools}
        results = {
            tool: measure(tool, paths[:n], outs[tool], args.repeat, args.sorted) for tool in tools
        }
        base = results.get("goldset")
        for tool, r in results.items():
            agree = ""
            if tool != "goldset" and base:
                queries, same, tie_only = agreement(outs["goldset"], outs[tool])
                agree = (
                    f"{same:,} of {queries:,} queries identical,"
                    f" {tie_only:,} differ only in the order of equal scores"
                )
            ratio = f"{r['fuse'] / base['fuse']:.1f}x" if base else "-"
            print(
                f"{n:>4} {tool:<8} {r['read']:>7.2f} {r['fuse']:>7.2f} {r['fuse_cpu']:>10.2f}"
                f" {ratio:>14} {r['peak_mb']:>8,.0f}  {agree}"
            )
            if r["compile"] is not None:
                print(
                    f"{'':>4} {'':<8} numba compilation before the first fuse: {r['compile']:.2f} s (every new process)"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
