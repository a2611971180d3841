"""What the decision block costs on top of the report it is built from.

Synthetic per-query 0/1 scores for QUERIES queries in 6 strata and SYSTEMS runs plus a fused
one (no files: the report's reading is measured elsewhere), traffic shares over the strata. Each
of REPEAT fresh processes assembles the report (``assemble_report``, --samples 200 for the
per-stratum tests) and then its decision block (``report_decisions``: a rule, a default, a
precision of 0.97 on one stratum, another log's shares). Reported: the median CPU seconds of each
phase (``time.process_time`` in the child: all threads, steadier than wall time on a shared
machine), and the child's peak resident memory from ``os.wait4``, with the load average beside.

    python bench/decisions_speed.py                          # 7,000 queries, 3 runs, 5 processes
    python bench/decisions_speed.py --queries 700 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, random, time
import polars as pl
from goldset_tui.report.assemble import assemble_report
from goldset_tui.decisions.of_report import report_decisions
from goldset_tui.decisions.routing import Routing

Q, S = {queries}, {systems}
strata_names = ["exact_identifier", "short_keyword", "misspelled", "paraphrase", "multi_entity", "negation"]
shares = [0.18, 0.2, 0.07, 0.32, 0.17, 0.06]
rng = random.Random(7)
names = [f"s{{i}}" for i in range(S)] + ["rrf"]
rows, strata = [], []
for q in range(Q):
    st = strata_names[q % 6]
    strata.append((f"q{{q}}", st))
    for i, name in enumerate(names):
        rate = 0.5 + 0.4 * ((q % 6 + i) % 3) / 3
        rows.append((name, f"q{{q}}", 1.0 if rng.random() < rate else 0.0))
scores = pl.DataFrame(rows, schema=["system", "query_id", "value"], orient="row")
strata = pl.DataFrame(strata, schema=["query_id", "stratum"], orient="row")
traffic = pl.DataFrame({{"stratum": strata_names, "share": shares}})
cpu = time.process_time()
report = assemble_report(scores, strata, metric="Success@10", traffic=traffic, fused="rrf", samples=200)
assemble = time.process_time() - cpu
now = dict(zip(strata_names, [0.45, 0.12, 0.05, 0.2, 0.13, 0.05]))
cpu = time.process_time()
block = report_decisions(report, routing=Routing({{"exact_identifier": "s0"}}, "s1"),
                         precision={{"exact_identifier": 0.97}}, now=now)
decide = time.process_time() - cpu
print(json.dumps({{"assemble": assemble, "decisions": decide, "options": len(block.options)}}))
"""


def run_once(queries: int, systems: int) -> dict[str, float]:
    code = CHILD.format(queries=queries, systems=systems)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"child failed with status {status}")
    data = json.loads(out)
    data["peak_mb"] = usage.ru_maxrss / 1024
    return data


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--queries", type=int, default=7000)
    p.add_argument("--systems", type=int, default=3)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    load = os.getloadavg()[0]
    runs = [run_once(args.queries, args.systems) for _ in range(args.repeat)]
    med = {k: statistics.median(r[k] for r in runs) for k in ("assemble", "decisions", "peak_mb")}
    print(
        f"{args.queries} queries x {args.systems} runs + rrf x 6 strata, {args.repeat} processes, "
        f"load average {load:.1f} (before) / {os.getloadavg()[0]:.1f} (after)"
    )
    print(f"assemble_report   median CPU {med['assemble']:.2f} s")
    print(f"report_decisions  median CPU {med['decisions']:.2f} s")
    print(f"peak RSS of the process (median) {med['peak_mb']:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
