"""`goldset pool`: build a depth-k pool from TREC runs, and say how much the overlap saves."""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.progress import Steps
from goldset_tui.scalar import as_int
from goldset_tui.specs import parse_named_paths
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

# Run names end up in ";"-joined CSV cells and JSON lists: keep them plain.
_NAME_OK = re.compile(r"^[A-Za-z0-9_.+@:/-]+$")
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


def parse_runs(specs: list[str]) -> dict[str, Path]:
    runs = parse_named_paths(specs, "--run")
    for name in runs:
        if not _NAME_OK.match(name):
            raise InputError(
                None, f"--run {name!r}: a system name may hold letters, digits and _.+@:/- only"
            )
    return runs


def run(args: argparse.Namespace) -> int:
    from goldset_tui.io.corpus import read_corpus
    from goldset_tui.io.pools import read_topics, write_pool
    from goldset_tui.io.tables import table_format
    from goldset_tui.pooling.build import build_pool, pool_sizes

    if args.extend:
        from goldset_tui.commands._pool_extend import run_extend

        return run_extend(args)
    if not args.topics:
        raise InputError(None, "--topics FILE is required (except with --extend)")
    if args.depth < 1:
        raise InputError(None, f"--depth must be at least 1, got {args.depth}")
    out = Path(args.output)
    table_format(out)  # an unknown extension fails before any work
    if not out.parent.is_dir():
        raise InputError(out, "the folder to write into does not exist")
    specs = parse_runs(args.run)
    progress = Steps(len(specs) + 3 + bool(args.corpus))  # topics, runs, pooling, corpus, write
    progress(f"reading topics {args.topics}")
    topics = read_topics(args.topics)
    runs = _read_runs(specs, args.depth, progress)
    progress("pooling")
    pool = build_pool(runs, args.depth)
    pool, skipped, empty = _restrict_to_topics(pool, topics)
    if pool.height == 0:
        raise InputError(
            Path(args.topics),
            "no query of the runs is in the topics file "
            f"(runs use ids like {_some(skipped)}; topics like {_some(topics.get_column('query_id'))})",
        )
    if args.corpus:
        progress(f"reading corpus {args.corpus}")
        docs = read_corpus(args.corpus, ids=pool.get_column("doc_id"))
        pool = pool.join(docs, on="doc_id", how="left", maintain_order="left")
        missing = pool.filter(pl.col("text").is_null() | (pl.col("text").str.strip_chars() == ""))
        if missing.height:
            ids = missing.get_column("doc_id").unique(maintain_order=True)
            raise InputError(
                Path(args.corpus),
                f"no text for {ids.len()} pooled document{'s' if ids.len() > 1 else ''}: {_some(ids)}",
                column="text",
            )
        pool = pool.with_columns(
            pl.when(pl.col("title").str.strip_chars() == "")
            .then(None)
            .otherwise(pl.col("title"))
            .alias("title")
        )
    columns = ["query_id", "query", "doc_id", "text", "title", "stratum", "systems", "ranks"]
    pool = pool.select([c for c in columns if c in pool.columns])
    if pool.get_column("stratum").null_count() == pool.height:
        pool = pool.drop("stratum")
    progress(f"writing {out}")
    write_pool(pool, out)
    progress.done()
    _report(pool, pool_sizes(pool, args.depth, len(runs)), args, list(runs), out)
    if skipped.len():
        print(
            f"note: {skipped.len()} run queries are not in the topics file and were left out: {_some(skipped)}",
            file=sys.stderr,
        )
    if empty.len():
        print(
            f"note: {empty.len()} topics have no candidates (no run returned anything): {_some(empty)}",
            file=sys.stderr,
        )
    if not args.corpus:
        print(
            "note: no --corpus, so the pool lists document ids only;"
            " give --corpus to `goldset check` and `goldset judge`",
            file=sys.stderr,
        )
    return 0


def _read_runs(specs: dict[str, Path], depth: int, progress: Steps) -> dict[str, pl.DataFrame]:
    """Each run's top ``depth`` per query with its ranks (trec_eval's order), two runs at a time.

    Each run is read in slices keeping only each query's top K so far (every line still checked
    as read_run checks it), so memory holds two slices and the candidates, not a run. Two at a
    time, because half of a run's reading is single-threaded (Python between Polars calls, or
    one Polars operation on one core) and a second run fills the other core: on a quiet machine,
    four 7,000-query runs in 9.0-9.9 s instead of 10.4-12.3 s, at 545 MB instead of 355 MB.
    Results, and the first error, come in the order of the runs, as if read one after the other."""
    from concurrent.futures import ThreadPoolExecutor

    from goldset_tui.io.run_scan import scan_run

    runs = {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(scan_run, path, depth=depth) for name, path in specs.items()}
        try:
            for n, (name, path) in enumerate(specs.items(), start=1):
                progress(f"reading run {n}/{len(specs)}: {name} ({path})")
                runs[name] = futures[name].result().select("query_id", "doc_id", "rank")
        finally:
            for future in futures.values():
                future.cancel()  # after an error, the runs not started yet are not read
    return runs


def _restrict_to_topics(
    pool: pl.DataFrame, topics: pl.DataFrame
) -> tuple[pl.DataFrame, pl.Series, pl.Series]:
    """The pool's queries that are topics, in topic order; plus the ids left out either way."""
    order = topics.with_row_index("_topic")
    kept = (
        pool.join(order, on="query_id", how="inner")
        .sort("_topic", maintain_order=True)
        .drop("_topic")
    )
    run_ids = pool.get_column("query_id").unique(maintain_order=True)
    skipped = run_ids.filter(~run_ids.is_in(topics.get_column("query_id").implode()))
    topic_ids = topics.get_column("query_id")
    empty = topic_ids.filter(~topic_ids.is_in(run_ids.implode()))
    return kept, skipped, empty


def _report(pool: pl.DataFrame, sizes: pl.DataFrame, args, systems: list[str], out: Path) -> None:  # noqa: ANN001
    n_sys = len(systems)
    nominal = args.depth * n_sys
    if args.per_query or sizes.height <= _PER_QUERY_LIMIT:
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
        f"wrote {out}: {sizes.height:,} queries, {total:,} candidates,"
        f" from {n_sys} systems ({', '.join(systems)}) at depth {args.depth}"
    )
    print(
        f"candidates per query: min {min(counts)}, median {statistics.median(counts):g}, max {max(counts)} "
        f"(depth x systems = {args.depth} x {n_sys} = {nominal})"
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


def _some(ids: pl.Series, n: int = 5) -> str:
    shown = ", ".join(repr(v) for v in ids.head(n).to_list())
    return shown + (f" and {ids.len() - n} more" if ids.len() > n else "")
