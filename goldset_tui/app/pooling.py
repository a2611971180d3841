"""Building a depth-k pool from TREC runs (`goldset pool`): the union of every run's top k per
query, kept to the topics, with the documents' texts, written to a file; and how big it is
against depth x systems (goldset_tui.pooling.build does the pooling itself). Extending a pool
with one more system is :mod:`goldset_tui.app.pool_extension`."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.specs import parse_named_paths

# Run names end up in ";"-joined CSV cells and JSON lists: keep them plain.
_NAME_OK = re.compile(r"^[A-Za-z0-9_.+@:/-]+$")
# The columns of a written pool, in this order (those the pool has).
_COLUMNS = (
    "query_id",
    "query",
    "doc_id",
    "text",
    "title",
    "stratum",
    "origin",  # only when the topics have it (sampling/origin.py)
    "systems",
    "ranks",
)


def parse_runs(specs: list[str]) -> dict[str, Path]:
    """``NAME=PATH`` per --run -> {name: path}, each name plain enough for a CSV cell."""
    runs = parse_named_paths(specs, "--run")
    for name in runs:
        if not _NAME_OK.match(name):
            raise InputError(
                None, f"--run {name!r}: a system name may hold letters, digits and _.+@:/- only"
            )
    return runs


def pool_output(output: str) -> Path:
    """The path to write a pool to, checked before any work: a known extension, an existing
    folder."""
    from goldset_tui.io.tables import table_format

    out = Path(output)
    table_format(out)  # an unknown extension fails before any work
    if not out.parent.is_dir():
        raise InputError(out, "the folder to write into does not exist")
    return out


@dataclass(frozen=True)
class BuiltPool:
    """A pool written to ``output``, and what it left out."""

    output: Path
    pool: pl.DataFrame  # as written
    sizes: pl.DataFrame  # per query: candidates, contributed, discount (pooling.build.pool_sizes)
    systems: list[str]  # the runs' names, in the order given
    depth: int
    skipped: pl.Series  # query ids of the runs that are not topics
    empty: pl.Series  # topics no run returned anything for


def build_pool_file(
    runs: dict[str, Path],
    *,
    depth: int,
    topics: str,
    output: Path,
    corpus: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> BuiltPool:
    """Pool the top ``depth`` of each run over the queries of ``topics``, add the texts from
    ``corpus`` (every pooled document must have one), write it to ``output``.

    ``progress`` is told each step as it starts: the topics, each run, pooling, the corpus (when
    given), writing; ``len(runs) + 3 + bool(corpus)`` steps in all."""
    from goldset_tui.io.pools import read_topics, write_pool
    from goldset_tui.pooling.build import pool_candidates, pool_sizes

    step = progress or (lambda _message: None)
    step(f"reading topics {topics}")
    topic_frame = read_topics(topics)
    frames = _read_runs(runs, depth, step)
    step("pooling")
    pool, skipped, empty = _restrict_to_topics(pool_candidates(frames, depth), topic_frame)
    if pool.height == 0:
        raise InputError(
            Path(topics),
            "no query of the runs is in the topics file "
            f"(runs use ids like {some_ids(skipped)}; "
            f"topics like {some_ids(topic_frame.get_column('query_id'))})",
        )
    if corpus:
        step(f"reading corpus {corpus}")
        pool = _with_texts(pool, corpus)
    pool = pool.select([c for c in _COLUMNS if c in pool.columns])
    if pool.get_column("stratum").null_count() == pool.height:
        pool = pool.drop("stratum")
    step(f"writing {output}")
    write_pool(pool, output)
    sizes = pool_sizes(pool, depth, len(frames))
    return BuiltPool(output, pool, sizes, list(frames), depth, skipped, empty)


def _with_texts(pool: pl.DataFrame, corpus: str) -> pl.DataFrame:
    """The pool with each document's text and title (a blank title: none); a pooled document
    without a text is an error naming the corpus."""
    from goldset_tui.io.corpus import read_corpus

    docs = read_corpus(corpus, ids=pool.get_column("doc_id"))
    pool = pool.join(docs, on="doc_id", how="left", maintain_order="left")
    missing = pool.filter(pl.col("text").is_null() | (pl.col("text").str.strip_chars() == ""))
    if missing.height:
        ids = missing.get_column("doc_id").unique(maintain_order=True)
        raise InputError(
            Path(corpus),
            f"no text for {ids.len()} pooled document{'s' if ids.len() > 1 else ''}: {some_ids(ids)}",
            column="text",
        )
    return pool.with_columns(
        pl.when(pl.col("title").str.strip_chars() == "")
        .then(None)
        .otherwise(pl.col("title"))
        .alias("title")
    )


def _read_runs(
    specs: dict[str, Path], depth: int, progress: Callable[[str], None]
) -> dict[str, pl.DataFrame]:
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
    candidates: pl.DataFrame, topics: pl.DataFrame
) -> tuple[pl.DataFrame, pl.Series, pl.Series]:
    """The pool's queries that are topics, in topic order (then as build_pool orders a query's
    candidates), from ``pooling.build.pool_candidates``; plus the ids left out either way, each
    in query id order."""
    from goldset_tui.pooling.build import POOL_COLUMNS, order_pool

    order = topics.with_row_index("_topic")
    kept = order_pool(candidates.join(order, on="query_id", how="inner"), "_topic")
    kept = kept.select(*POOL_COLUMNS, *(c for c in topics.columns if c != "query_id"))
    run_ids = candidates.get_column("query_id").unique().sort()
    skipped = run_ids.filter(~run_ids.is_in(topics.get_column("query_id").implode()))
    topic_ids = topics.get_column("query_id")
    empty = topic_ids.filter(~topic_ids.is_in(run_ids.implode()))
    return kept, skipped, empty


def some_ids(ids: pl.Series, n: int = 5) -> str:
    """The first ``n`` ids, quoted, and how many more."""
    shown = ", ".join(repr(v) for v in ids.head(n).to_list())
    return shown + (f" and {ids.len() - n} more" if ids.len() > n else "")
