"""`goldset validate`: a pool of the machine-labelled pairs most worth a human look."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from goldset_tui.errors import InputError
from goldset_tui.text import visible

if TYPE_CHECKING:
    from goldset_tui.store.project import Project

NAME = "validate"
HELP = "write a pool of the machine judge's labels most worth a human check"
DESCRIPTION = """\
From a store where a machine judge's labels were imported (goldset import --machine), write a pool
of the N pairs most worth a person's look, to judge with goldset judge into the same store; then
goldset agreement compares the machine with those human grades.

How the pairs are chosen (docs/agreement.md, "Validating a machine judge"):
  1. with --run and -m: pairs whose grade decides the order of two systems (moving the grade
     to the nearest grade across the measure's relevance line, 0 <-> 1+ on a 0-3 scale,
     reverses the order of their means) come first; on a scale with no grade below the line
     (1-5 with grade >= 1 relevant) give -m a relevance level inside it, e.g. 'P(rel=2)@10';
  2. then the machine's lowest confidence first (labels without one come after);
  3. the strata take turns, so every stratum gets checks (the pool's stratum column, or --strata).
Pairs a person has already graded in the store are never chosen. The pool written has no machine
grade in it: the labeller judges blind. --why FILE writes each choice's reason as CSV.

examples:
  goldset import --pool sample_data/pool.jsonl --store docs-store --labeller llm \\
      --machine sample_data/judgments/llm.jsonl
  goldset validate --store docs-store --labeller llm --budget 100 -o check.jsonl
  goldset validate --store ~/stores/docs --labeller llm --budget 100 -o check.jsonl
  goldset validate --store ~/stores/docs --labeller llm --budget 100 -o check.jsonl \\
      --run bm25=bm25.run --run dense=dense.run --run hybrid=hybrid.run -m nDCG@10 --why why.csv
  goldset judge check.jsonl --store ~/stores/docs --labeller alice
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", metavar="DIR", required=True, help="the store")
    parser.add_argument(
        "--labeller", metavar="NAME", required=True, help="the machine labeller to check"
    )
    parser.add_argument("--budget", type=int, required=True, help="how many pairs to choose")
    parser.add_argument(
        "-o", "--output", metavar="POOL", required=True, help="the pool to write (.jsonl, ...)"
    )
    parser.add_argument(
        "--run", metavar="NAME=PATH", action="append", default=[], help="a TREC run (repeat)"
    )
    parser.add_argument(
        "-m",
        "--measure",
        metavar="MEASURE",
        default="nDCG@10",
        help="orders the systems (default nDCG@10)",
    )
    parser.add_argument("--strata", metavar="FILE", help="query_id,stratum (default: the pool's)")
    parser.add_argument("--why", metavar="FILE", help="write each chosen pair's reason (CSV)")


def run(args: argparse.Namespace) -> int:
    import polars as pl

    from goldset_tui.agreement.sources import from_store, strata_of
    from goldset_tui.app.runs import load_runs
    from goldset_tui.eval.measures import arithmetic_measure
    from goldset_tui.io.pools import write_pool
    from goldset_tui.io.tables import table_format
    from goldset_tui.machine.validation import choose_for_validation, relevance_line
    from goldset_tui.store.files import atomic_write
    from goldset_tui.store.machine import machine_labellers, machine_labels

    if args.budget < 1:
        raise InputError(None, "--budget must be at least 1")
    out = Path(args.output)
    table_format(out)  # an unknown extension fails before any work
    if args.why and Path(args.why).resolve() == out.resolve():
        raise InputError(out, "--why and -o name the same file: the reasons would replace the pool")
    arithmetic_measure(args.measure, option="-m", does="validate orders the systems by")
    data = from_store(args.store)
    project = data.project
    assert project is not None  # from_store always opens one
    if data.pool is None:
        raise InputError(project.path, "the store's pool cannot be read: the pool copies its rows")
    refuse_store_pool(out, project)
    scale = (project.scale.min, project.scale.max)
    if args.run:  # the "what if" moves grades across the measure's line: refused off the scale
        relevance_line(args.measure, scale)
    labels = machine_labels(project, args.labeller)
    machines = set(machine_labellers(project.manifest))
    human = data.ratings.filter(~pl.col("labeller").is_in(list(machines)))
    runs = load_runs(args.run) if args.run else None
    if runs is not None and len(runs) < 2:
        raise InputError(None, "give two or more --run to find the pairs deciding a system order")
    chosen = choose_for_validation(
        labels,
        args.budget,
        strata=strata_of(data, args.strata),
        runs=runs,
        measure=args.measure,
        exclude=human.select("query_id", "doc_id").unique(),
        scale=scale,
    )
    if chosen.height == 0:
        raise InputError(
            project.path, f"no pair of {args.labeller!r} is left unchecked by a person"
        )
    rows = chosen.select("query_id", "doc_id").with_row_index("_order")
    pool = (
        rows.join(data.pool, on=["query_id", "doc_id"], how="inner").sort("_order").drop("_order")
    )
    write_pool(pool, out)
    if args.why:
        why = Path(args.why)
        atomic_write(why, lambda tmp: chosen.write_csv(tmp))
    by = chosen.group_by("stratum", maintain_order=False).agg(
        pl.len().alias("pairs"), (pl.col("flips") > 0).sum().alias("deciding")
    )
    print(
        f"wrote {visible(out)}: {pool.height} pairs of {labels.height} labelled by {args.labeller}"
    )
    for stratum, pairs, deciding in by.sort("stratum").iter_rows():
        print(f"  {stratum}: {pairs} (deciding a system order: {deciding})")
    print(f"next: goldset judge {out} --store {args.store} --labeller NAME", file=sys.stderr)
    return 0


def refuse_store_pool(out: Path, project: Project) -> None:
    """Writing the check pool over the store's own pool would lose the pool every later command
    reads its rows from (and `goldset import` checks labels against)."""
    pool_path = project.manifest.get("pool", {}).get("path")
    if pool_path and out.exists() and Path(pool_path).exists() and out.samefile(pool_path):
        raise InputError(
            out,
            "this is the store's own pool (-o would overwrite it); write the pairs to another file",
        )
