"""What does `goldset import --human` cost, beside the machine import of the same file?

A synthetic pool of N pairs (``--pairs``, 10,000 and 100,000 by default; 50 candidates a query,
short texts) and one person's TREC qrels grading every pair. Each case runs the real command in a
fresh process, which reports its own CPU time (user + system, ``resource.getrusage``) and peak
resident memory (ru_maxrss): the machine is shared, so wall time is not measured. Side by side:

- ``--human`` into a new labeller (reads the pool and the file, checks both, one Parquet part);
- ``--human`` of the same file again (nothing written: the file's sha256 is found);
- ``--human`` into a labeller who already graded half the pairs the same way (``keep``);
- ``--machine`` of the same file into a new machine labeller (the existing path, the peer).

Median of ``--repeat`` runs (3), each case on a fresh copy of its store.

    python bench/human_import.py
    python bench/human_import.py --pairs 1000000 --repeat 1
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = """
import json, resource, sys
from goldset_tui.cli import main
rc = main(sys.argv[1:])
u = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"rc": rc, "cpu": u.ru_utime + u.ru_stime, "peak_mb": u.ru_maxrss / 1024}))
"""


def make_files(folder: Path, pairs: int) -> tuple[Path, Path, Path]:
    per_query = 50
    pool, qrels, half = folder / "pool.jsonl", folder / "alice.qrels", folder / "half.qrels"
    with pool.open("w") as p, qrels.open("w") as q, half.open("w") as h:
        for i in range(pairs):
            qid, did = f"q{i // per_query:06d}", f"d{i:08d}"
            row = {"query_id": qid, "query": f"query {qid}", "doc_id": did, "text": f"text {did}"}
            p.write(json.dumps(row) + "\n")
            line = f"{qid} 0 {did} {i % 4}\n"
            q.write(line)
            if i % 2 == 0:
                h.write(line)
    return pool, qrels, half


def run(args: list[str]) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, *args], capture_output=True, text=True, check=True
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["rc"] == 0, out.stderr
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, action="append")
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()
    from goldset_tui.store import Project, sha256_file

    print(f"median of {opts.repeat} fresh processes; CPU = user + system (getrusage)")
    print(f"{'pairs':>9}  {'case':<34} {'CPU s':>7} {'peak MB':>8}  {'vs machine':>10}")
    for pairs in opts.pairs or [10_000, 100_000]:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            pool, qrels, half = make_files(folder, pairs)
            base = folder / "base"
            Project.create(base, pool_path=pool, pool_sha256=sha256_file(pool))

            def imp(store: Path, who: str, kind: str, path: Path, *extra: str) -> list[str]:
                return ["import", "--store", str(store), "--labeller", who, kind, str(path), *extra]

            cases = {
                "human, new labeller": (None, imp, ("alice", "--human", qrels)),
                "human, same file again": ("done", imp, ("alice", "--human", qrels)),
                "human, half graded (keep)": ("half", imp, ("alice", "--human", qrels, "--on-conflict", "keep")),
                "machine, same file (peer)": (None, imp, ("llm", "--machine", qrels)),
            }  # fmt: skip
            results: dict[str, tuple[float, float]] = {}
            for name, (setup, build, spec) in cases.items():
                cpu, peak = [], []
                for r in range(opts.repeat):
                    store = folder / f"s-{len(results)}-{r}"
                    shutil.copytree(base, store)
                    if setup == "done":
                        run(imp(store, "alice", "--human", qrels))
                    elif setup == "half":
                        run(imp(store, "alice", "--human", half))
                    got = run(build(store, *spec))
                    cpu.append(got["cpu"])
                    peak.append(got["peak_mb"])
                results[name] = (statistics.median(cpu), statistics.median(peak))
            machine = results["machine, same file (peer)"][0]
            for name, (cpu, peak) in results.items():
                print(f"{pairs:>9,}  {name:<34} {cpu:>7.2f} {peak:>8.0f}  {cpu / machine:>9.2f}x")


if __name__ == "__main__":
    main()
