"""The rows of bench/speed_table.py that it measures itself: evaluation (large and small),
pooling and the report, each beside its references (pytrec_eval, the trec_eval binary, a bare
Polars parse or scan of the same files).

Data are generated once into the table's folder by the benchmarks that already make them
(``eval_speed.py --generate-only``, ``build_pool.py --generate-only``), in child processes so that
this process stays small (a child's ru_maxrss can carry what it shared with a large parent).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from _speed_measure import Line, NotMeasured, Sample, combined, compare, in_turns, run_once

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
PEERS = ROOT / "tests" / "data" / "peers" / "trectools"
GOLDSET = [sys.executable, "-m", "goldset_tui"]


@dataclass(frozen=True)
class Setup:
    folder: Path
    quick: bool
    repeats: int
    trec_eval: Path | None  # the binary, when one was found


def find_trec_eval(given: str | None) -> Path | None:
    """--trec-eval, else $TREC_EVAL, else trec_eval on the PATH. Never built here: trec_eval's
    licence is for research use, so goldset ships no recipe; build it yourself (its Makefile,
    `make`) and point TREC_EVAL at it."""
    import os

    for candidate in (given, os.environ.get("TREC_EVAL"), shutil.which("trec_eval")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return Path(candidate)
    return None


# pytrec_eval, whole process: read both files, evaluate, print the means (as eval_speed.py).
PYTREC = """
import json, sys, pytrec_eval
qrels_path, run_path, names = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
with open(qrels_path) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(run_path) as f:
    run = pytrec_eval.parse_run(f)
res = pytrec_eval.RelevanceEvaluator(qrels, set(names)).evaluate(run)
keys = [n.replace(".", "_") for n in names]
print(json.dumps([sum(r[k] for r in res.values()) / len(res) for k in keys]))
"""
# A bare Polars parse of a run: every field, no check, nothing computed.
PARSE = """
import sys, polars as pl
print(pl.read_csv(sys.argv[1], separator=sys.argv[2], has_header=False, quote_char=None).height)
"""
# A bare Polars scan of runs: the three columns a pool needs, nothing checked or ranked.
SCAN = """
import sys, polars as pl
schema = {"query_id": pl.String, "q0": pl.String, "doc_id": pl.String, "rank": pl.String,
          "score": pl.Float64, "tag": pl.String}
for path in sys.argv[1:]:
    pl.scan_csv(path, has_header=False, separator=" ", quote_char=None, schema=schema).select(
        "query_id", "doc_id", "score").collect()
"""
# Robust 2003 with a shallow pool: the qrels kept only where the run's top 20 has them, so most
# of its top 100 is unjudged and goldset's unjudged advice fires, as on a young golden set.
SHALLOW = """
import gzip, sys
from pathlib import Path
peers, out = Path(sys.argv[1]), Path(sys.argv[2])
run = gzip.decompress((peers / "input.uic0301.gz").read_bytes())
qrels = gzip.decompress((peers / "robust03_cs_qrels.txt.gz").read_bytes()).decode()
(out / "run.txt").write_bytes(run)
ranked = {}
for line in run.decode().splitlines():
    q, _, d, _, s, _ = line.split()
    ranked.setdefault(q, []).append((float(s), d))
top = {(q, d) for q, docs in ranked.items() for _, d in sorted(docs, reverse=True)[:20]}
kept = [l for l in qrels.splitlines() if (l.split()[0], l.split()[2]) in top]
(out / "qrels.txt").write_text("\\n".join(kept) + "\\n")
"""
# The report's data: QUERIES queries, two runs of DOCS documents, ~30 judged a query (grades
# 0-2, the first judged one relevant), four strata.
REPORT_DATA = """
import random, sys
from pathlib import Path
out, queries, docs = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(5)
strata = ["head", "torso", "tail", "identifier"]
with open(out / "strata.csv", "w") as f:
    f.write("query_id,stratum\\n")
    f.writelines(f"q{q},{strata[q % 4]}\\n" for q in range(queries))
judged = {}
for name in ("a", "b"):
    with open(out / f"{name}.run", "w") as f:
        for q in range(queries):
            chosen = rng.sample(range(docs * 2), docs)
            for rank, d in enumerate(chosen, start=1):
                f.write(f"q{q} Q0 d{d} {rank} {docs - rank + rng.random() / 2:.6f} {name}\\n")
            judged.setdefault(q, set()).update(chosen[:15])
with open(out / "qrels.txt", "w") as f:
    for q, ds in judged.items():
        for i, d in enumerate(sorted(ds)):
            f.write(f"q{q} 0 d{d} {2 if i == 0 else rng.choice([0, 0, 1, 2])}\\n")
"""


def _once(command: list[str]) -> Callable[[], Sample]:
    return lambda: run_once(command)


def _prepare(done: Path, command: list[str]) -> None:
    if not done.exists():
        subprocess.run(command, check=True, cwd=ROOT)


def eval_large(s: Setup) -> list[Line]:
    queries = 700 if s.quick else 7000
    folder = s.folder / f"eval_{queries}x1000"
    folder.mkdir(parents=True, exist_ok=True)
    _prepare(
        folder / "run.txt",
        [sys.executable, str(BENCH / "eval_speed.py"), "--generate-only", "--keep", str(folder)]
        + ["--queries", str(queries), "--docs", "1000"],
    )
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    case = f"eval {queries:,} x 1,000 ({run.stat().st_size / 1e6:,.0f} MB), 4 measures"
    measures = ["nDCG@10", "AP", "RR", "R@100"]
    trec_names = ["ndcg_cut.10", "map", "recip_rank", "recall.100"]
    tools = {
        "goldset": _once(
            [*GOLDSET, "eval", str(qrels), str(run), "--format", "json"]
            + [a for m in measures for a in ("-m", m)]
        ),
        "pytrec_eval": _once(
            [sys.executable, "-c", PYTREC, str(qrels), str(run), ",".join(trec_names)]
        ),
        "bare Polars parse": _once([sys.executable, "-c", PARSE, str(run), " "]),
    }
    if s.trec_eval:
        tools["trec_eval"] = _once(
            [str(s.trec_eval), *[a for m in trec_names for a in ("-m", m)], str(qrels), str(run)]
        )
    figures = in_turns(tools, s.repeats)
    note = _same_means(figures, measures)
    lines = [
        compare(case, figures, "pytrec_eval", 0.2, note=note),
        compare(case, figures, "pytrec_eval", 0.2, basis="wall", note="wall: load moves it"),
        compare(case, figures, "bare Polars parse", 1.5),
    ]
    lines.append(_trec_eval_line(case, figures, s, None))
    return lines


def _same_means(figures: dict, measures: list[str]) -> str:
    """Whether goldset's means are pytrec_eval's to 1e-4 (the data have no ties, every query
    a relevant document: the tools must agree)."""
    ours, theirs = figures.get("goldset"), figures.get("pytrec_eval")
    if isinstance(ours, NotMeasured) or isinstance(theirs, NotMeasured) or not ours or not theirs:
        return ""
    mean = next(iter(json.loads(ours.out)["runs"].values()))["mean"]
    peer = json.loads(theirs.out.strip().splitlines()[-1])
    same = all(abs(mean[m] - p) <= 1e-4 for m, p in zip(measures, peer, strict=True))
    return "means equal to pytrec_eval's" if same else "MEANS DIFFER from pytrec_eval's"


def _trec_eval_line(case: str, figures: dict, s: Setup, goal: float | None) -> Line:
    if s.trec_eval is None:
        return Line(
            case, "-", "trec_eval", goal=goal, note="no trec_eval binary (--trec-eval or TREC_EVAL)"
        )
    return compare(case, figures, "trec_eval", goal)


def eval_small(s: Setup) -> list[Line]:
    folder = s.folder / "robust03_shallow"
    folder.mkdir(parents=True, exist_ok=True)
    _prepare(folder / "qrels.txt", [sys.executable, "-c", SHALLOW, str(PEERS), str(folder)])
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    case = "eval 100 x 1,000 (Robust 2003, uic0301), shallow pool, with R@100"
    measures = ["nDCG@10", "AP", "RR", "R@100", "P@10"]
    trec_names = ["ndcg_cut.10", "map", "recip_rank", "recall.100", "P.10"]
    tools = {
        "goldset": _once(
            [*GOLDSET, "eval", str(qrels), str(run), "--format", "json"]
            + [a for m in measures for a in ("-m", m)]
        ),
        "pytrec_eval": _once(
            [sys.executable, "-c", PYTREC, str(qrels), str(run), ",".join(trec_names)]
        ),
    }
    if s.trec_eval:
        tools["trec_eval"] = _once(
            [str(s.trec_eval), *[a for m in trec_names for a in ("-m", m)], str(qrels), str(run)]
        )
    figures = in_turns(tools, max(s.repeats, 5))  # 0.1 s processes: more repeats are cheap
    line = compare(case, figures, "pytrec_eval", 1.0)
    if line.ratio is not None:
        line.note = f"stretch 0.6x: {'met' if line.ratio <= 0.6 else 'not met'}"
    return [line, _trec_eval_line(case, figures, s, None)]


def pool(s: Setup) -> list[Line]:
    queries = 700 if s.quick else 7000
    folder = s.folder / "pool"
    folder.mkdir(parents=True, exist_ok=True)
    names = ("bm25", "bm25_synonyms", "dense_e5", "hybrid_rrf")
    runs = [folder / f"{n}_{queries}x1000.run" for n in names]
    topics = folder / f"topics_{queries}.tsv"
    _prepare(
        topics,
        [sys.executable, str(BENCH / "build_pool.py"), "--generate-only", "--dir", str(folder)]
        + ["--queries", str(queries), "--docs", "1000"],
    )
    case = f"pool 4 runs x {queries:,} x 1,000, depth 20"
    command = [*GOLDSET, "pool", "--depth", "20", "--topics", str(topics)]
    command += [a for n, p in zip(names, runs, strict=True) for a in ("--run", f"{n}={p}")]
    command += ["-o", str(folder / "pool.parquet")]
    tools = {
        "goldset": _once(command),
        "bare Polars scan": _once([sys.executable, "-c", SCAN, *map(str, runs)]),
    }
    figures = in_turns(tools, s.repeats)
    return [compare(case, figures, "bare Polars scan", 1.3)]


def report(s: Setup) -> list[Line]:
    queries = 300 if s.quick else 3000
    folder = s.folder / f"report_{queries}"
    folder.mkdir(parents=True, exist_ok=True)
    _prepare(
        folder / "qrels.txt",
        [sys.executable, "-c", REPORT_DATA, str(folder), str(queries), "100"],
    )
    qrels, a, b = folder / "qrels.txt", folder / "a.run", folder / "b.run"
    case = f"report, {queries:,} queries x 100 x 2 runs, nDCG@10"
    tools = {
        "goldset": _once(
            [*GOLDSET, "report", "--qrels", str(qrels), "--run", f"a={a}", "--run", f"b={b}"]
            + ["--strata", str(folder / "strata.csv"), "-m", "nDCG@10"]
        )
    }
    if s.trec_eval:
        te = [str(s.trec_eval), "-m", "ndcg_cut.10", str(qrels)]
        tools["two trec_eval runs"] = lambda: combined(
            [run_once([*te, str(a)]), run_once([*te, str(b)])]
        )
    figures = in_turns(tools, s.repeats)
    if s.trec_eval is None:
        return [_trec_eval_line(case, figures, s, 1.5)]
    return [compare(case, figures, "two trec_eval runs", 1.5)]


OWN: dict[str, Callable[[Setup], list[Line]]] = {
    "eval-large": eval_large,
    "eval-small": eval_small,
    "pool": pool,
    "report": report,
}
