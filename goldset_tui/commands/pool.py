"""`goldset pool`: build a depth-k pool from TREC runs, and say how much the overlap saves."""

from __future__ import annotations

import argparse
import statistics
import sys

from goldset_tui.app.pooling import BuiltPool, parse_runs, some_ids
from goldset_tui.errors import InputError
from goldset_tui.scalar import as_int
from goldset_tui.text import visible

NAME = "pool"
ORDER = 20
HELP = "build a pool (union of every run's top K) from TREC run files"
DESCRIPTION = """\
Build a pool from TREC run files (`qid Q0 docid rank score tag`): the union of every run's top K
documents per query, ranked the way trec_eval reads a run (score descending, ties by document id
descending; the file's rank column is ignored). Every candidate records which systems returned
it and at which rank. Only queries in --topics are pooled.

Prints, per query and overall, the pool size against depth x systems: the overlap discount (four
systems x top 20 = 80 a query if they agreed about nothing; real pools land near 30-50).

The output format follows the extension of -o: .parquet, .csv, .tsv or .jsonl (flat, one row per
candidate; in CSV/TSV the lists are written bm25;dense and 1;4). Without --corpus the pool lists
ids only, and `goldset check`/`judge` then need --corpus.

examples:
  goldset pool --run bm25=sample_data/runs/bm25.run --run minilm=sample_data/runs/minilm.run --depth 20 \\
      --topics sample_data/topics.tsv --corpus sample_data/corpus.jsonl -o pool.jsonl
  goldset pool --run bm25=runs/bm25.run --run dense=runs/dense.run --depth 20 \\
      --topics queries.tsv --corpus corpus.jsonl -o pool.parquet
"""

_PER_QUERY_LIMIT = 40


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--run",
        action="append",
        required=True,
        metavar="NAME=PATH",
        help="a system's TREC run file; repeat for every system (NAME is how the pool names it)",
    )
    parser.add_argument(
        "--depth", type=int, required=True, metavar="K", help="take each run's top K per query"
    )
    parser.add_argument(
        "--topics",
        metavar="FILE",
        help="the queries: TSV qid<TAB>text (optional third field: stratum) or BEIR queries.jsonl",
    )
    parser.add_argument(
        "--corpus",
        metavar="FILE",
        help="document texts: BEIR corpus.jsonl, or TSV/Parquet doc_id, text",
    )
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="POOL",
        help="where to write the pool (.parquet/.csv/.tsv/.jsonl)",
    )
    parser.add_argument(
        "--per-query",
        action="store_true",
        help=f"list every query's pool size (the default lists them only up to {_PER_QUERY_LIMIT} queries)",
    )
    from goldset_tui.commands._pool_extend import add_arguments as add_extend_arguments

    add_extend_arguments(parser)  # --extend POOL [--store DIR]: re-pooling for a new system


def run(args: argparse.Namespace) -> int:
    from goldset_tui.app.pooling import build_pool_file, pool_output
    from goldset_tui.progress import Steps

    if args.extend:
        from goldset_tui.commands._pool_extend import run_extend

        return run_extend(args)
    if not args.topics:
        raise InputError(None, "--topics FILE is required (except with --extend)")
    if args.depth < 1:
        raise InputError(None, f"--depth must be at least 1, got {args.depth}")
    out = pool_output(args.output)
    specs = parse_runs(args.run)
    progress = Steps(len(specs) + 3 + bool(args.corpus))  # topics, runs, pooling, corpus, write
    built = build_pool_file(
        specs,
        depth=args.depth,
        topics=args.topics,
        output=out,
        corpus=args.corpus,
        progress=progress,
    )
    progress.done()
    _report(built, per_query=args.per_query)
    skipped, empty = built.skipped, built.empty
    if skipped.len():
        print(
            f"note: {skipped.len()} run queries are not in the topics file and were left out: {some_ids(skipped)}",
            file=sys.stderr,
        )
    if empty.len():
        print(
            f"note: {empty.len()} topics have no candidates (no run returned anything): {some_ids(empty)}",
            file=sys.stderr,
        )
    if not args.corpus:
        print(
            "note: no --corpus, so the pool lists document ids only;"
            " give --corpus to `goldset check` and `goldset judge`",
            file=sys.stderr,
        )
    return 0


def _report(built: BuiltPool, *, per_query: bool) -> None:
    sizes, systems, depth = built.sizes, built.systems, built.depth
    n_sys = len(systems)
    nominal = depth * n_sys
    if per_query or sizes.height <= _PER_QUERY_LIMIT:
        width = max(8, min(30, as_int(sizes.get_column("query_id").str.len_chars().max())))
        print(
            f"{'query':<{width}}  {'pool':>5}  {'from runs':>9}  {'depth x systems':>15}  {'saved by overlap':>16}"
        )
        for row in sizes.iter_rows(named=True):
            print(
                f"{_clip(row['query_id'], width):<{width}}  {row['candidates']:>5}  {row['contributed']:>9}  "
                f"{nominal:>15}  {_pct(row['discount']):>16}"
            )
        print()
    else:
        print(f"({sizes.height:,} queries: add --per-query to list each one's pool size)")
    counts = sizes.get_column("candidates").to_list()
    total, contributed = sum(counts), int(sizes.get_column("contributed").sum())
    print(
        f"wrote {visible(built.output)}: {sizes.height:,} queries, {total:,} candidates,"
        f" from {n_sys} systems ({', '.join(systems)}) at depth {depth}"
    )
    print(
        f"candidates per query: min {min(counts)}, median {statistics.median(counts):g}, max {max(counts)} "
        f"(depth x systems = {depth} x {n_sys} = {nominal})"
    )
    saved = 1 - total / contributed if contributed else 0.0
    print(
        f"overall: {total:,} candidates where the runs put forward {contributed:,} "
        f"({nominal * sizes.height:,} at most); overlap saves {_pct(saved)} of the judging"
    )


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _clip(text: str, width: int) -> str:
    text = visible(text, keep_newlines=False)  # ids come from data: no escape reaches the terminal
    return text if len(text) <= width else text[: width - 1] + "…"
