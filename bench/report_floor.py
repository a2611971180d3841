"""Where `goldset report`'s CPU goes, as whole processes measured in turns (os.wait4, medians),
each stage a process that does everything the one before it did and one step more:

  python      the interpreter alone
  polars      + import polars
  imports     + every module `goldset report` imports
  read        + both runs and the qrels read and checked as the report reads them (io.trec)
  evaluate    + the per-query measure of both runs and of their fusion (the engine's own work)
  report      `goldset report` itself, everything printed
  trec_eval   the trec_eval binary on each run, the two added up (the speed table's reference)

The difference between two stages is what the later step costs. ``evaluate`` is the floor of any
report that reads the runs with ``io.trec.read_run`` and scores them with ``eval.metrics``; the
rest (top k, resampling, tables) is the report's own. Uses the speed table's report data
(``speed_table.py --rows report`` makes it) or makes it.

    python bench/report_floor.py --repeats 5 --trec-eval PATH
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from _speed_measure import run_once  # noqa: E402
from _speed_own import REPORT_DATA  # noqa: E402

ROOT = BENCH.parent
IMPORTS = """
import goldset_tui.cli, goldset_tui.commands.report, goldset_tui.report.pipeline
import goldset_tui.app.report, goldset_tui.app.route, goldset_tui.eval.metrics
import goldset_tui.eval.stats, goldset_tui.eval.fusion, goldset_tui.report.markdown
"""
READ = """
import sys
from goldset_tui.app.qrels import report_qrels
from goldset_tui.io.strata_and_traffic import read_strata
from goldset_tui.io.trec import read_run
folder = sys.argv[1]
qrels = report_qrels(f"{folder}/qrels.txt", None)
strata = read_strata(f"{folder}/strata.csv")
runs = {n: read_run(f"{folder}/{n}.run", tag=False, order=False) for n in ("a", "b")}
"""
EVALUATE = """
from goldset_tui.eval.fusion import rrf
from goldset_tui.eval.metrics import evaluate_wide
runs["rrf"] = rrf(list(runs.values()), depth=10, order=False)
for run in runs.values():
    evaluate_wide(qrels, run, ["nDCG@10"])
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--trec-eval", metavar="PATH", help="the trec_eval binary")
    parser.add_argument("--queries", type=int, default=3000)
    parser.add_argument(
        "--folder", type=Path, default=Path(tempfile.gettempdir()) / "goldset-speed-table"
    )
    args = parser.parse_args()
    folder = args.folder / f"report_{args.queries}"
    if not (folder / "qrels.txt").exists():
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-c", REPORT_DATA, str(folder), str(args.queries), "100"], check=True
        )
    py = [sys.executable, "-c"]
    stages: dict[str, list[list[str]]] = {
        "python": [[*py, "pass"]],
        "polars": [[*py, "import polars"]],
        "imports": [[*py, "import polars" + IMPORTS]],
        "read": [[*py, IMPORTS + READ, str(folder)]],
        "evaluate": [[*py, IMPORTS + READ + EVALUATE, str(folder)]],
        "report": [
            [sys.executable, "-m", "goldset_tui", "report", "--qrels", str(folder / "qrels.txt")]
            + ["--run", f"a={folder / 'a.run'}", "--run", f"b={folder / 'b.run'}"]
            + ["--strata", str(folder / "strata.csv"), "-m", "nDCG@10"]
        ],
    }
    if args.trec_eval:
        te = [args.trec_eval, "-m", "ndcg_cut.10", str(folder / "qrels.txt")]
        stages["trec_eval"] = [[*te, str(folder / "a.run")], [*te, str(folder / "b.run")]]
    cpu: dict[str, list[float]] = {name: [] for name in stages}
    rss: dict[str, list[float]] = {name: [] for name in stages}
    loads = []
    for _ in range(args.repeats):  # in turns: every stage once, then again
        loads.append(os.getloadavg()[0])
        for name, commands in stages.items():
            samples = [run_once(c, cwd=ROOT) for c in commands]
            cpu[name].append(sum(s.cpu for s in samples))
            rss[name].append(max(s.rss_mb for s in samples))
    print(f"median of {args.repeats}, {args.queries:,} queries x 100 x 2 runs, nDCG@10;", end=" ")
    print(f"load {min(loads):.1f}-{max(loads):.1f}")
    print("| stage | CPU s | step | peak MB |\n|---|---:|---:|---:|")
    before = 0.0
    for name in stages:
        median = statistics.median(cpu[name])
        step = "" if name in ("report", "trec_eval") else f"{median - before:+.3f}"
        print(f"| {name} | {median:.3f} | {step} | {statistics.median(rss[name]):.0f} |")
        if name not in ("report", "trec_eval"):
            before = median
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
