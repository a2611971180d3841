"""`goldset pool --extend POOL --run NEW=PATH --depth K -o NEW_POOL [--store DIR]`: the arguments
onto goldset_tui.app.pool_extension (which says how the two steps stay crash-safe), and what to
print: the new candidates per query, and how to judge them."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.text import visible


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--extend",
        metavar="POOL",
        help="add the one --run's top K to this existing pool, keeping every candidate and its "
        "provenance; -o names the new pool (--topics is not needed)",
    )
    parser.add_argument(
        "--store",
        metavar="DIR",
        help="with --extend: the store to switch to the new pool (default: the one store known to "
        "hold POOL, as `goldset judge POOL` finds it); it records the extension and keeps every "
        "judgment",
    )


def run_extend(args: argparse.Namespace) -> int:
    from goldset_tui.app.pool_extension import (
        extension_output,
        record_extension,
        write_extension,
    )
    from goldset_tui.specs import parse_named_paths

    if args.depth < 1:
        raise InputError(None, f"--depth must be at least 1, got {args.depth}")
    if len(args.run) != 1:
        raise InputError(None, "--extend adds one system: give exactly one --run NEW=PATH")
    pool_path = Path(args.extend)
    out = extension_output(pool_path, args.output)
    ((name, run_path),) = parse_named_paths(args.run, "--run").items()
    ext = write_extension(
        pool_path,
        name,
        run_path,
        depth=args.depth,
        output=out,
        corpus=args.corpus,
        store=args.store,
    )
    _print_counts(ext.counts, name, args.depth, out)
    if ext.prior_grades:
        print(
            f"note: POOL's {ext.prior_grades} prior grades are not copied into {visible(out)} (a flat "
            "pool holds no grades); the store keeps them as judgments",
            file=sys.stderr,
        )
    if ext.store is None:
        print(
            "note: no store records this extension (give --store DIR to switch a store to the "
            "new pool)",
            file=sys.stderr,
        )
        return 0
    if ext.already_recorded:
        print(f"the store {ext.store} already records this extension", file=sys.stderr)
        return 0
    record_extension(ext)  # step 2: one atomic write
    _say_how_to_judge(ext.store, out, ext.new_pairs)
    return 0


def _say_how_to_judge(store: Path, out: Path, new: int) -> None:
    """Commands that run as printed, one per labeller of the store (judging needs --labeller):
    --only-new for the new pairs alone; without it, every pair not judged yet, old and new."""
    from goldset_tui.app.pool_extension import labellers_to_judge

    people = labellers_to_judge(store)
    print(
        f"the store {store} now judges {out}; its judgments are kept. To judge only the {new:,} "
        "new pairs (marked +new on the screen):",
        file=sys.stderr,
    )
    for name in people:
        words = ["goldset", "judge", str(out), "--store", str(store), "--labeller", name]
        print("  " + shlex.join([*words, "--only-new"]), file=sys.stderr)
    print(
        "without --only-new, judging serves every pair not judged yet, old and new",
        file=sys.stderr,
    )


def _print_counts(counts: pl.DataFrame, name: str, depth: int, out: Path) -> None:
    width = max(8, min(30, max(len(q) for q in counts.get_column("query_id").to_list())))
    print(f"{'query':<{width}}  {'before':>6}  {'new':>4}  {'after':>5}")
    for qid, before, new, after in counts.iter_rows():
        shown = visible(qid, keep_newlines=False)[:width]
        print(f"{shown:<{width}}  {before:>6}  {new:>4}  {after:>5}")
    total_new = int(counts.get_column("new").sum())
    total = int(counts.get_column("after").sum())
    print(
        f"wrote {visible(out)}: {visible(name)}'s top {depth} adds {total_new:,} new pairs to "
        f"{total - total_new:,} ({total:,} candidates, {counts.height:,} queries)"
    )
