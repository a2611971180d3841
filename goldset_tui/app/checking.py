"""Checking a pool before anyone spends a day judging it (`goldset check`): read and validate it
(as `goldset judge` does), then summarise it: queries, candidates, strata, systems, overlap and
the prior judgments it carries.

A pool may come from a pipe or standard input (``-``): it is read once, to its end
(``io.sources.open_source``: gzip undone), into a private temporary file that the pool reader then
reads as often as it needs; messages name the pipe, never that file. A pipe has no extension to
go by, so it needs a format; a regular file takes its format from its extension unless one is given.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import statistics
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.model import NO_STRATUM_SHORT
from goldset_tui.scalar import as_int
from goldset_tui.text import visible

if TYPE_CHECKING:
    from goldset_tui.io.pools import Pool
    from goldset_tui.model import GradeScale

# The pool formats and the extension the pool reader knows each by (json: one nested document).
FORMATS = {"jsonl": ".jsonl", "json": ".json", "csv": ".csv", "tsv": ".tsv", "parquet": ".parquet"}


def check_pool(
    given: str,
    *,
    fmt: str | None = None,
    corpus: str | None = None,
    scale: GradeScale | None = None,
) -> Pool:
    """The pool ``given`` names (a file, ``-`` for standard input, or a pipe), read and validated
    as `goldset judge` reads it; its ``path`` is what the user gave, and so is every error's.
    ``fmt`` (a key of :data:`FORMATS`) is its format when its name does not say it."""
    from goldset_tui.io.pools import load_pool

    with _readable(given, fmt) as (path, shown):
        try:
            pool = load_pool(path, corpus=corpus, scale=scale)
        except InputError as exc:
            raise _naming(exc, path, shown) from None
        pool.path = shown
    return pool


@contextlib.contextmanager
def _readable(given: str, fmt: str | None) -> Iterator[tuple[Path, Path]]:
    """(a path the pool reader can read as often as it likes, the name to show). A regular file
    named by its extension is itself; a stream (read once, here) or a file whose format
    ``--input-format`` gives is reached through a private folder, under a name with that extension."""
    from goldset_tui.io.sources import STDIN_NAME, is_stream, open_source

    shown = Path(STDIN_NAME if given == "-" else given)
    stream = is_stream(given)
    if stream and fmt is None:
        what = "standard input" if given == "-" else "a pipe"
        raise InputError(
            shown,
            f"is {what}, which has no extension to tell its format: give --input-format"
            f" {'|'.join(sorted(FORMATS))}",
        )
    if fmt is None:
        yield Path(given), shown
        return
    source = open_source(given)  # a stream is read here, once; gzip is undone
    with tempfile.TemporaryDirectory(prefix="goldset-check-") as folder:
        path = Path(folder) / f"pool{FORMATS[fmt]}"
        if isinstance(source.data, bytes):
            path.write_bytes(source.data)
        else:  # a regular file read in place: only its name changes
            os.symlink(Path(source.data).resolve(), path)
        yield path, shown


def _naming(exc: InputError, path: Path, shown: Path) -> InputError:
    """The reader's error about the temporary name, naming what the user gave instead."""
    if exc.path is None or Path(exc.path) != path:
        return exc
    return dataclasses.replace(exc, path=shown, message=exc.message.replace(str(path), str(shown)))


def summary_lines(pool: Pool) -> list[str]:
    """The report `goldset check` prints, as lines (the home screen can show the same)."""
    from goldset_tui.pooling.build import pool_sizes

    frame = pool.frame
    queries = pool.queries()
    counts = queries.get_column("candidates").to_list()
    lines = [
        f"{pool.path} ({pool.shape}, sha256 {pool.sha256[:12]})",
        f"queries:     {queries.height:,}",
        f"candidates:  {frame.height:,}",
        f"per query:   min {min(counts)}, median {statistics.median(counts):g}, max {max(counts)}",
    ]
    lines += _strata(frame, queries)
    systems = pool.systems()
    depth = _depth(pool)
    lines += _systems(frame, systems)
    lines += _overlap(pool_sizes(frame), depth, len(systems), queries.height)
    if pool.prior is not None:
        lines += _prior(pool, pool.prior)
    lines += _spaced_ids(frame)
    lines.append("ok: the pool is valid")
    return lines


def _spaced_ids(frame: pl.DataFrame) -> list[str]:
    """Ids with whitespace at either end: valid, but " q1" and "q1" are then two queries, and
    TREC qrels (whitespace-separated) cannot hold them, so `goldset qrels` refuses them later.
    Said here, where the pool is checked once, not on every open of it for judging."""
    lines = []
    for column, what in (("query_id", "query id"), ("doc_id", "document id")):
        spaced = frame.filter(pl.col(column).str.contains(r"^\s|\s$")).get_column(column)
        if spaced.len():
            count = spaced.n_unique()
            lines.append(
                f"warning: {count:,} {what}{'s' * (count != 1)} "
                f"{'begin or end' if count != 1 else 'begins or ends'} with whitespace "
                f"(first: {visible(repr(spaced[0]), keep_newlines=False)}): each is an id of its "
                "own, and TREC qrels cannot hold it (goldset qrels --format csv can)"
            )
    return lines


def _strata(frame: pl.DataFrame, queries: pl.DataFrame) -> list[str]:
    if queries.get_column("stratum").null_count() == queries.height:
        return ["strata:      none given"]
    per = (
        queries.group_by("stratum", maintain_order=True)
        .agg(pl.len().alias("queries"), pl.col("candidates").sum())
        .sort("queries", descending=True, maintain_order=True)
    )
    named = per.get_column("stratum").fill_null(NO_STRATUM_SHORT)
    width = max(10, min(30, as_int(named.str.len_chars().max())))
    out = [f"strata:      {per.height}  ({'stratum':<{width}} queries  candidates)"]
    for row in per.iter_rows(named=True):
        name = visible(
            row["stratum"] if row["stratum"] is not None else NO_STRATUM_SHORT, keep_newlines=False
        )[:width]
        out.append(
            f"             {'':>{len(str(per.height))}}   {name:<{width}} {row['queries']:>7}  {row['candidates']:>10}"
        )
    return out


def _systems(frame: pl.DataFrame, systems: list[str]) -> list[str]:
    if not systems:
        return ["systems:     not recorded in the pool"]
    listed = frame.filter(pl.col("systems").is_not_null())
    if listed.height == 0:
        return [
            f"systems:     {', '.join(visible(s, keep_newlines=False) for s in systems)}"
            " (per-candidate systems not recorded)"
        ]
    # "only this system": candidates no other pooled system returned, what each system adds.
    exploded = listed.select(pl.col("systems").list.len().alias("n"), "systems").explode("systems")
    per = exploded.group_by("systems").agg(
        pl.len().alias("pooled"), (pl.col("n") == 1).sum().alias("alone")
    )
    found = dict(
        zip(
            per.get_column("systems").to_list(),
            zip(per.get_column("pooled").to_list(), per.get_column("alone").to_list(), strict=True),
            strict=True,
        )
    )
    width = max(10, min(30, max(len(s) for s in systems)))
    out = [f"systems:     {len(systems)}  ({'system':<{width}} candidates  only this system)"]
    pad = " " * len(str(len(systems)))
    for name in systems:
        pooled, alone = found.get(name, (0, 0))
        out.append(
            f"             {pad}   {visible(name, keep_newlines=False)[:width]:<{width}} {pooled:>10}  {alone:>16}"
        )
    return out


def _depth(pool: Pool) -> int | None:
    depths = {info["pool_depth"] for info in pool.meta.values() if "pool_depth" in info}
    if len(depths) == 1:
        recorded: int = depths.pop()
        return recorded
    deepest = pool.frame.get_column("ranks").list.max().max()
    return as_int(deepest) if deepest is not None else None


def _overlap(sizes: pl.DataFrame, depth: int | None, n_systems: int, n_queries: int) -> list[str]:
    total = int(sizes.get_column("candidates").sum())
    contributed = (
        sizes.get_column("contributed").sum()
        if sizes.get_column("contributed").null_count() == 0
        else None
    )
    if depth is None or not n_systems:
        return ["overlap:     unknown (the pool records no depth or systems)"]
    nominal = depth * n_systems
    line = (
        f"overlap:     depth {depth} x {n_systems} systems = {nominal} a query at most,"
        f" {nominal * n_queries:,} in all; the pool has {total:,}"
    )
    if contributed:
        line += f" of {int(contributed):,} the runs put forward: overlap saves {100 * (1 - total / contributed):.0f}%"
    return [line]


def _prior(pool: Pool, prior: pl.DataFrame) -> list[str]:
    dist = prior.group_by("grade").len().sort("grade")
    grades = ", ".join(f"{g}: {n}" for g, n in dist.iter_rows())
    n_queries = prior.get_column("query_id").n_unique()
    outside = prior.join(
        pool.frame.select("query_id", "doc_id"), on=["query_id", "doc_id"], how="anti"
    ).height
    line = (
        f"prior:       {prior.height:,} grades on {n_queries:,} queries,"
        f" imported as labeller {pool.prior_labeller!r} ({grades})"
    )
    lines = [line]
    if outside:
        lines.append(f"             {outside:,} of them are for documents not among the candidates")
    return lines
