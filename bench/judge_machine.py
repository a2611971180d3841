"""What does goldset's own side of `goldset judge --machine` cost, the model's time aside?

The model is the local stand-in of the tests (``tests/unit/llm/fake_provider.py``, in this
process), answering each of the sample pool's 1,285 pairs at once with the illustrative machine
judge's label, through the real Anthropic SDK. So what is measured is goldset's work per pair:
rendering the prompt, the SDK's request and parsing, one fsync per answer in the answer log,
reading the grade, storing the labels. Each case runs the real command in a fresh process; its CPU
time (user + system) and peak resident memory come from ``os.wait4``: the machine is shared, so
wall time is printed for reference only, with the load average beside it.

- ``first run``: every pair asked (``--concurrency 4``), a new store each time;
- ``rerun``: the same command again: every answer from the cache, nothing asked, nothing written;
- ``import --machine``: the same labels from the file, the path the judge's labels share (the peer).

Median of ``--repeat`` runs (3).

    python bench/judge_machine.py
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "unit" / "llm"))

from _model_process import measured as measured_process  # noqa: E402
from fake_provider import ANTHROPIC_KEY, FakeProvider, replaying  # noqa: E402

POOL = ROOT / "sample_data" / "pool.jsonl"
LABELS = ROOT / "sample_data" / "judgments" / "llm.jsonl"


def measured(argv: list[str]) -> tuple[float, float, float]:
    return measured_process(argv, ANTHROPIC_KEY)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    server = FakeProvider(answer=replaying(POOL, LABELS)).start()
    cases: dict[str, list[tuple[float, float, float]]] = {
        "first run": [],
        "rerun": [],
        "import --machine": [],
    }
    try:
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                store = Path(tmp) / "store"
                judge = [
                    "judge",
                    "--machine",
                    "claude-sonnet-4-5",
                    str(POOL),
                    "--store",
                    str(store),
                ]
                judge += ["--labeller", "llm", "--base-url", server.url, "--concurrency", "4"]
                cases["first run"].append(measured(judge))
                cases["rerun"].append(measured(judge))
                shutil.rmtree(store)
                imported = ["import", "--pool", str(POOL), "--store", str(store)]
                imported += ["--labeller", "llm", "--machine", str(LABELS)]
                cases["import --machine"].append(measured(imported))
    finally:
        server.stop()
    pairs = sum(1 for _ in POOL.open(encoding="utf-8"))
    print(f"{pairs} pairs, median of {args.repeat}; load average {os.getloadavg()[0]:.2f}")
    print(f"{'case':<18} {'CPU s':>7} {'ms/pair':>8} {'peak MB':>8} {'wall s':>7}")
    for name, runs in cases.items():
        cpu = statistics.median(r[0] for r in runs)
        peak = statistics.median(r[1] for r in runs)
        wall = statistics.median(r[2] for r in runs)
        print(f"{name:<18} {cpu:>7.2f} {1000 * cpu / pairs:>8.2f} {peak:>8.0f} {wall:>7.2f}")


if __name__ == "__main__":
    main()
