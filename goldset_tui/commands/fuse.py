"""`goldset fuse`: several runs in, one fused TREC run out."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from goldset_tui.app.runs import load_runs
from goldset_tui.errors import InputError
from goldset_tui.store.files import atomic_write
from goldset_tui.text import visible

NAME = "fuse"
HELP = "fuse runs into one (reciprocal rank fusion, CombSUM, CombMNZ) and write a TREC run"
DESCRIPTION = """\
Fuse two or more TREC runs into one, written as a TREC run (`qid Q0 docid rank score tag`).

  rrf      reciprocal rank fusion: sum over the runs of 1 / (k + rank), k = 60 by default
           (Cormack, Clarke & Buettcher 2009); ranks are trec_eval's (score desc, doc id desc)
  combsum  sum of min-max normalised scores (per run and query)
  combmnz  CombSUM times the number of runs that retrieved the document

--depth N fuses only each run's top N documents.

examples:
  goldset fuse sample_data/runs/bm25.run sample_data/runs/minilm.run -o fused.run
  goldset fuse bm25.run dense.run splade.run --method combmnz --depth 100 -o fused.run
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", metavar="RUN", nargs="+", help="run files (PATH or NAME=PATH)")
    parser.add_argument("--method", choices=("rrf", "combsum", "combmnz"), default="rrf")
    parser.add_argument("-k", type=int, default=60, help="RRF constant k (default 60)")
    parser.add_argument(
        "--depth", type=int, metavar="K", help="use only each run's top K documents"
    )
    parser.add_argument("--tag", help="run tag written in the last column (default: fused-METHOD)")
    parser.add_argument(
        "-o", "--output", metavar="FUSED", required=True, help="the fused run file to write"
    )


def run(args: argparse.Namespace) -> int:
    from goldset_tui.eval.fusion import fuse
    from goldset_tui.io.trec import write_run

    if len(args.runs) < 2:
        raise InputError(None, "give at least two runs to fuse")
    if args.k < 0:
        raise InputError(None, "-k must be >= 0")
    if args.depth is not None and args.depth < 1:
        raise InputError(None, "--depth must be at least 1")
    runs = load_runs(args.runs)
    fused = fuse(
        list(runs.values()), args.method, k=args.k, depth=args.depth, order=False
    )  # write_run sorts
    out = Path(args.output)
    # Temp file, fsync, rename: a reader never sees half a run; the file gets the umask's mode.
    atomic_write(out, lambda tmp: write_run(fused, tmp, tag=args.tag or f"fused-{args.method}"))
    print(
        f"wrote {visible(out)}: {fused.height} lines, {fused.get_column('query_id').n_unique()} queries",
        file=sys.stderr,
    )
    return 0
