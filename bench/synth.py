"""What does goldset's own side of `goldset synth` cost, the model's time aside?

The model is the local stand-in of the tests (``tests/unit/llm/fake_provider.py``, in this
process), answering each document at once with three numbered queries made from its title,
through the real Anthropic SDK. So what is measured is goldset's work per document: reading the
corpus and drawing the documents, rendering the prompt, the SDK's request and parsing, one fsync
per answer in the cache, reading the queries, the near-duplicate pass over all of them, writing
the three files. Each case runs the real command in a fresh process; its CPU time (user + system)
and peak resident memory come from ``os.wait4``: the machine is shared, so wall time is printed
for reference only, with the load average beside it.

- ``first run``: every document asked (``--concurrency 4``), a fresh folder each time;
- ``rerun``: the same command again: every answer from the cache, the provider never opened;
- ``classify``: `goldset classify` of the queries written (the peer: a pass over the same file).

Median of ``--repeat`` runs (3), over ``--documents`` documents of the sample corpus (500).

    python bench/synth.py
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "unit" / "llm"))

from _model_process import measured as measured_process  # noqa: E402
from fake_provider import ANTHROPIC_KEY, FakeProvider  # noqa: E402

CORPUS = ROOT / "sample_data" / "corpus.jsonl"


def by_title(prompt: str) -> str:
    found = re.search(r"Title: (.*)", prompt)
    title = found.group(1) if found else "it"
    return f'Here are three:\n1. how to use {title}\n2. "{title} example"\n3. {title} fails'


def measured(argv: list[str]) -> tuple[float, float, float]:
    return measured_process(argv, ANTHROPIC_KEY)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--documents", type=int, default=500)
    args = parser.parse_args()
    server = FakeProvider(answer=by_title).start()
    cases: dict[str, list[tuple[float, float, float]]] = {
        "first run": [],
        "rerun": [],
        "classify": [],
    }
    try:
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp) / "synth.csv"
                synth = ["synth", str(CORPUS), "-o", str(out), "--model", "claude-sonnet-4-5"]
                synth += ["--documents", str(args.documents), "--seed", "7"]
                synth += ["--base-url", server.url, "--concurrency", "4"]
                cases["first run"].append(measured(synth))
                cases["rerun"].append(measured(synth))
                labels = Path(tmp) / "labels.csv"
                cases["classify"].append(measured(["classify", str(out), "-o", str(labels)]))
    finally:
        server.stop()
    n = args.documents
    print(f"{n} documents, median of {args.repeat}; load average {os.getloadavg()[0]:.2f}")
    print(f"{'case':<12} {'CPU s':>7} {'ms/doc':>8} {'peak MB':>8} {'wall s':>7}")
    for name, runs in cases.items():
        cpu = statistics.median(r[0] for r in runs)
        peak = statistics.median(r[1] for r in runs)
        wall = statistics.median(r[2] for r in runs)
        print(f"{name:<12} {cpu:>7.2f} {1000 * cpu / n:>8.2f} {peak:>8.0f} {wall:>7.2f}")


if __name__ == "__main__":
    main()
