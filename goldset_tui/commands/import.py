"""`goldset import`: bring a machine judge's labels into a store, marked as a machine's."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from goldset_tui.errors import InputError
from goldset_tui.text import visible

NAME = "import"
HELP = "import a machine judge's labels (TREC qrels, CSV, JSONL, Parquet) into a store"
DESCRIPTION = """\
Import the labels of a machine judge (an LLM, a classifier) into a store as labeller NAME, marked
as a machine in the manifest. The file is TREC qrels (`qid 0 docid grade`), or a CSV, TSV, JSONL
or Parquet table with the columns query_id, doc_id, grade and optionally confidence (0 to 1) and
rationale.

Every label is checked before anything is written: a grade off the store's scale, a confidence
outside 0-1, a pair labelled twice, a pair not in the store's pool is refused on one line naming
the file and its line (or Parquet row), exit status 2, and the store is left as it was.

The labels keep their provenance: the file's sha256 and --model in the manifest, each label's
confidence and rationale in STORE/machine/NAME/. Importing a file this labeller already imported
(same sha256) writes nothing and says so; a new file replaces the grades that changed.

A machine labeller is never part of the human consensus (`goldset qrels --consensus` leaves it
out; --include-machine puts it in), never a judging row on the home screen, and `goldset judge`
refuses its name. `goldset agreement` reports it as one more rater, under "machine".

examples:
  goldset import --store ~/stores/docs-pool --labeller llm --machine llm.qrels --model gpt-4o
  goldset import --store ~/stores/docs-pool --labeller llm --machine llm-labels.jsonl
  goldset agreement --store ~/stores/docs-pool --format json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", metavar="DIR", required=True, help="the project folder")
    parser.add_argument(
        "--labeller", metavar="NAME", required=True, help="the machine judge's name in the store"
    )
    parser.add_argument(
        "--machine",
        metavar="FILE",
        required=True,
        help="the labels: TREC qrels, or CSV/TSV/JSONL/Parquet with query_id, doc_id, grade",
    )
    parser.add_argument("--model", metavar="NAME", help="the model that produced the labels")


def run(args: argparse.Namespace) -> int:
    from goldset_tui.io.pools import load_pool
    from goldset_tui.store import Project
    from goldset_tui.store.machine import import_machine

    project = Project.open(Path(args.store))
    pool_table = project.manifest.get("pool", {})
    try:
        pool = load_pool(pool_table["path"], corpus=pool_table.get("corpus"), scale=project.scale)
    except (InputError, OSError) as exc:
        # Without the pool a label for a pair nobody pooled cannot be told apart: refuse.
        raise InputError(
            project.path,
            f"the store's pool cannot be read ({exc}); labels are checked against it",
        ) from None
    result = import_machine(
        project,
        args.labeller,
        Path(args.machine),
        pool_pairs=pool.frame.select("query_id", "doc_id"),
        model=args.model,
    )
    who = visible(result.labeller)
    if result.already:
        print(
            f"{visible(args.machine)} (sha256 {result.sha256[:12]}...) was already imported for "
            f"{who}: nothing written",
            file=sys.stderr,
        )
    else:
        print(
            f"imported {result.labels} label{'s' * (result.labels != 1)} for machine labeller "
            f"{who} ({result.written} new or changed grade{'s' * (result.written != 1)})",
            file=sys.stderr,
        )
    return 0
