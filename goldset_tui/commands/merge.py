"""`goldset merge --into DIR STORE...`: bring stores of the same pool together."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

NAME = "merge"
HELP = "merge other stores' judgments of the same pool into one store (idempotent, crash-safe)"
DESCRIPTION = """\
Import the judgments of each STORE into the store DIR: labellers are unioned, every judgment keeps
its history and its time, and the latest grade counts. Only stores of the same pool merge (the
pool file's sha256 in each manifest must match; a pool file changed on disk since is reported).
Merging the same store twice changes nothing. A labeller who judged in two places gets one
history, interleaved by time; the pairs whose grades differed are listed as conflicts with the
grade that now stands. A kill at any moment leaves DIR as before or fully merged (the next open
finishes or undoes it). A labeller judging in DIR right now makes the merge refuse. A missing or
empty DIR becomes a new store of the first STORE's pool.

examples:
  goldset import --pool sample_data/pool.jsonl --store laptop-ana --labeller alice \\
      --human sample_data/judgments/alice.qrels
  goldset import --pool sample_data/pool.jsonl --store laptop-bob --labeller bob \\
      --human sample_data/judgments/bob.qrels
  goldset merge --into merged/ laptop-ana/ laptop-bob/
  goldset merge --into ~/golden/docs-store laptop-ana/ laptop-bob/
  goldset merge --into merged/ a/ b/ --format json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("stores", metavar="STORE", nargs="+", type=Path, help="stores to import")
    parser.add_argument("--into", metavar="DIR", type=Path, required=True, help="the target store")
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="the summary's format"
    )


def run(args: argparse.Namespace) -> int:
    from goldset_tui.store.merge import merge_stores
    from goldset_tui.text import visible

    result = merge_stores(args.into, list(args.stores))
    for note in result.notes:
        print(f"note: {visible(note, keep_newlines=False)}", file=sys.stderr)
    if args.format == "json":
        data = {
            "into": str(args.into),
            "added": result.added,
            "new_labellers": result.new_labellers,
            "conflicts": [
                {
                    "labeller": c.labeller,
                    "query_id": c.query_id,
                    "doc_id": c.doc_id,
                    "grades": [{"store": s, "grade": g, "time": t} for s, g, t in c.grades],
                    "kept": c.kept,
                }
                for c in result.conflicts
            ],
        }
        print(json.dumps(data, indent=2))
        return 0
    if not result.changed:
        print(f"nothing new: {args.into} already holds every judgment of these stores")
        return 0
    for name, n in sorted(result.added.items()):
        if n:
            new = " (new labeller)" if name in result.new_labellers else ""
            print(f"{visible(name, keep_newlines=False)}: {n} events added{new}")
    if result.conflicts:
        print(f"{len(result.conflicts)} pairs were graded differently in two places:")
        for c in result.conflicts:
            places = ", ".join(f"{g} in {s} at {t}" for s, g, t in c.grades)
            print(
                f"  {visible(c.labeller, keep_newlines=False)} "
                f"{visible(c.query_id, keep_newlines=False)} "
                f"{visible(c.doc_id, keep_newlines=False)}: {places}; now {c.kept}"
            )
    return 0
