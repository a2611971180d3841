"""`goldset import`: bring existing judgments into a store: a person's (--human) or a machine
judge's (--machine, marked as a machine's)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from goldset_tui.errors import InputError
from goldset_tui.text import visible

if TYPE_CHECKING:
    import polars as pl

    from goldset_tui.store.project import Project

NAME = "import"
HELP = "import existing judgments (a person's, or a machine judge's) into a store"
DESCRIPTION = """\
Bring judgments made elsewhere into a store as labeller NAME: with --human FILE, a person's (TREC
qrels from an earlier campaign, a spreadsheet of graded pairs); with --machine FILE, a machine
judge's (an LLM, a classifier), marked as a machine. The file is TREC qrels (`qid 0 docid grade`),
or a CSV, TSV, JSONL or Parquet table with the columns query_id, doc_id, grade and optionally note
(--human) or confidence (0 to 1) and rationale (--machine). With --pool POOL and no store yet, the
store is made (by default the pool's own, the one `goldset judge POOL` opens), on the grade scale
--scale LO-HI (default 0-3: give 0-4 or 1-5 for such qrels). --corpus is recorded in the store:
later commands on it find the texts without it.

Every label is checked before anything is written: a grade off the store's scale, a confidence
outside 0-1, a pair labelled twice (--human: twice with different grades; an identical repeated
line counts once), a pair not in the store's pool is refused on one line naming the file and its
line (or Parquet row), exit status 2, and the store is left as it was (or not made).

--human: the person's judgments count like judgments made on the judging screen, in `goldset
qrels --consensus`, `goldset agreement` and `goldset report --qrels STORE`; `goldset judge
--labeller NAME` resumes at the first pair the file did not grade. The import holds NAME's writer
lock, so it is refused while NAME is judging. The file's sha256 and the import's time are kept in
the manifest, and each imported judgment carries that time and no seconds spent, which tells it
from a grade given on the screen. A pair NAME already graded differently is refused, naming the
pair (--on-conflict keep imports only the other pairs; replace lets the file's grade stand, the
earlier one staying in the history). Importing the same file again writes nothing (with
--on-conflict replace, it puts the file's grades back over any given since).

--machine: the file's sha256 and --model go in the manifest, each label's confidence and
rationale in STORE/machine/NAME/. Importing the same file again writes nothing; a new file
replaces the grades that changed. A machine labeller is never part of the human consensus
(`goldset qrels --consensus` leaves it out; --include-machine puts it in), never a judging row on
the home screen, and `goldset judge` refuses its name. `goldset agreement` reports it as one more
rater, under "machine". A name cannot be a person in one import and a machine in another.

examples:
  goldset import --pool sample_data/pool.jsonl --labeller alice --human sample_data/judgments/alice.qrels
  goldset import --pool pool.jsonl --labeller dee --human dee-1to5.qrels --scale 1-5 \\
      --store ~/stores/dee-1to5      # a store keeps one grade scale: a 1-5 set gets its own
  goldset judge sample_data/pool.jsonl --labeller alice   # resumes after alice's imported pairs
  goldset import --store ~/stores/docs-pool --labeller bob --human bob-grades.csv
  goldset import --store ~/stores/docs-pool --labeller bob --human fixed.csv --on-conflict replace
  goldset qrels --store ~/stores/docs-pool --consensus -o consensus.qrels
  goldset import --store ~/stores/docs-pool --labeller llm --machine llm.qrels --model gpt-4o
  goldset import --store ~/stores/docs-pool --labeller llm --machine llm-labels.jsonl
  goldset agreement --store ~/stores/docs-pool --format json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--store",
        metavar="DIR",
        help="the store (default with --pool: the pool's own store, where `goldset judge POOL` "
        "keeps it)",
    )
    parser.add_argument(
        "--pool",
        metavar="POOL",
        help="the pool the judgments were made on: a store that does not exist yet is made from "
        "it (an existing store must have been made from this same pool)",
    )
    parser.add_argument(
        "--corpus",
        metavar="FILE",
        help="for a pool that lists only document ids: the corpus with their texts (as `goldset "
        "judge --corpus`; recorded in the store); default: the corpus the store records",
    )
    parser.add_argument(
        "--scale",
        metavar="LO-HI",
        help="with --pool, the grade scale of the store being made, e.g. 0-4 or 1-5 (default "
        "0-3); an existing store keeps its own",
    )
    parser.add_argument(
        "--labeller", metavar="NAME", required=True, help="the person's or machine's name"
    )
    # Whose judgments they are is said where the file is named: one of the two, never a default,
    # since a person counted as a machine (or the reverse) silently changes the consensus.
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--human",
        metavar="FILE",
        help="a person's grades: TREC qrels, or CSV/TSV/JSONL/Parquet with query_id, doc_id, grade",
    )
    source.add_argument(
        "--machine",
        metavar="FILE",
        help="a machine judge's labels: TREC qrels, or CSV/TSV/JSONL/Parquet with query_id, "
        "doc_id, grade",
    )
    parser.add_argument(
        "--model", metavar="NAME", help="the model that produced the labels (--machine only)"
    )
    parser.add_argument(
        "--on-conflict",
        choices=("refuse", "keep", "replace"),
        help="--human only: a pair NAME already graded differently is refused (the default), "
        "kept at NAME's grade, or replaced by the file's grade",
    )


def run(args: argparse.Namespace) -> int:
    from goldset_tui.store.machine import refuse_consensus

    # The name first: with --pool a refused name used to leave a new, empty store behind.
    if not args.labeller.strip():
        raise InputError(None, "--labeller must not be empty")
    refuse_consensus(args.labeller)
    if "-" in (args.human, args.machine):
        raise InputError(
            None,
            f"{'--human' if args.human == '-' else '--machine'} -: standard input cannot be "
            "imported (the file's sha256 is kept, to know it when it comes again); save it to a "
            "file first",
        )
    if args.human is not None and args.model is not None:
        raise InputError(None, "--model names a machine judge's model; it goes with --machine")
    if args.machine is not None and args.on_conflict is not None:
        raise InputError(
            None, "--on-conflict goes with --human (a machine's new file replaces its grades)"
        )
    from goldset_tui.app.importing import open_import_store
    from goldset_tui.commands._args import store_scale

    if args.store is None and args.pool is None:  # refused before a --scale is read
        raise InputError(None, "give --store DIR, or --pool POOL (its store is made if need be)")
    project, pool_pairs = open_import_store(
        args.store,
        args.pool,
        scale=store_scale(args.scale) if args.scale is not None else None,
        corpus=args.corpus,
        human=args.human,
        machine=args.machine,
    )
    if args.human is not None:
        return _human(project, args.labeller, args.human, pool_pairs, args.on_conflict)
    return _machine(project, args.labeller, args.machine, pool_pairs, args.model)


def _already(path: str, sha256: str, who: str) -> int:
    print(
        f"{visible(path)} (sha256 {sha256[:12]}...) was already imported for {who}: nothing written",
        file=sys.stderr,
    )
    return 0


def _human(
    project: Project, labeller: str, path: str, pool_pairs: pl.DataFrame, on_conflict: str | None
) -> int:
    from goldset_tui.app.importing import import_human_labels

    done = import_human_labels(project, labeller, Path(path), pool_pairs, on_conflict or "refuse")
    result = done.result
    who = visible(result.labeller)
    if result.already:
        return _already(path, result.sha256, who)
    extra = [
        f"{n} already at the file's grade" if what == "unchanged" else f"{n} {what}"
        for what, n in (
            ("unchanged", result.unchanged),
            ("kept at the earlier grade", result.kept),
            ("replaced", result.replaced),
        )
        if n
    ]
    print(
        f"imported {result.written} judgment{'s' * (result.written != 1)} of "
        f"{result.labels} for {who}" + (f" ({', '.join(extra)})" if extra else ""),
        file=sys.stderr,
    )
    if done.left:  # what `goldset judge` will serve next, as a command to paste
        import shlex

        print(
            f"{done.left:,} of the pool's {done.pairs:,} pairs are left for {who}: "
            f"{visible(shlex.join(done.judge_command))}",
            file=sys.stderr,
        )
    return 0


def _machine(
    project: Project, labeller: str, path: str, pool_pairs: pl.DataFrame, model: str | None
) -> int:
    from goldset_tui.store.machine import import_machine

    result = import_machine(project, labeller, Path(path), pool_pairs=pool_pairs, model=model)
    who = visible(result.labeller)
    if result.already:
        _already(path, result.sha256, who)
    else:
        print(
            f"imported {result.labels} label{'s' * (result.labels != 1)} for machine labeller "
            f"{who} ({result.written} new or changed grade{'s' * (result.written != 1)})",
            file=sys.stderr,
        )
    return 0
