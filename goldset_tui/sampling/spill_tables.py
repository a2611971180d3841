"""A CSV, TSV, Parquet or JSON lines log larger than memory, through a text log's spill files.

Counting a table's distinct queries with one group-by holds every distinct string at once, as the
text log's count did. Here the table is read twice in batches of ``BATCH_ROWS`` rows, never whole:

1. **Boundaries.** The normal forms whose hash falls in one bucket of ``bucket`` are kept (a
   sample of the *distinct* queries, each kept or not whatever its count, so a head query
   repeated a million times weighs as one); when more than ``SAMPLE_KEEP`` are held the bucket
   doubles and half are dropped. The sorted sample cuts the queries into ranges of about equal
   numbers of distinct queries, as the text log's windows do.
2. **Partition.** Each batch's rows are summed by raw spelling, normalised, and written to the
   file of their range by ``spill.PartWriter``; passes 2 and 3 are the text log's.

A JSON lines log is read in pieces of bytes cut at newlines instead of batches of rows
(``spill_jsonl``). A batch with a bad count or a short row, a JSON line the careful reader would
refuse, stops the fast path (``NeedsCarefulRead``): the careful reader, in memory, names the row,
as it always did. The labels are those of the in-memory count, CSV and TSV byte for byte
(tests/unit/sampling/test_sampling_spill_tables.py, test_sampling_spill_jsonl.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import polars as pl

from goldset_tui.io.tables import JSONL_SUFFIXES
from goldset_tui.sampling import spill
from goldset_tui.sampling.normalise import collapse, normalise
from goldset_tui.sampling.spill import PartWriter
from goldset_tui.sampling.stream import NeedsCarefulRead, scan_table

BATCH_ROWS = 1 << 20
SAMPLE_KEEP = 1 << 16  # distinct normal forms held for the boundaries, at most
_SEED = 17


Batches = Callable[[], Iterator[pl.DataFrame]]  # raw, count


def first_pass(path: Path) -> tuple[spill.Cutter, spill.Splitter]:
    """The boundaries and the partition for the table ``path`` (``spill.classify_spilled``): a
    JSON lines log's two reads share what the first learnt (``spill_jsonl.JsonLines``)."""
    if path.suffix.lower() not in JSONL_SUFFIXES:
        return table_boundaries, table_partition
    from goldset_tui.sampling.spill_jsonl import JsonLines

    lines = JsonLines(path)

    def cutter(p: Path, parts: int) -> pl.Series:
        return table_boundaries(p, parts, lines.checked)

    def splitter(p: Path, folder: Path, cuts: pl.Series) -> tuple[int, int]:
        return table_partition(p, folder, cuts, lines.read)

    return cutter, splitter


def _batches(path: Path) -> Iterator[pl.DataFrame]:
    """``raw, count`` in batches of a CSV, TSV or Parquet log; NeedsCarefulRead at the first bad
    count or short row."""
    table = scan_table(path, path.suffix.lower())
    try:
        for batch in table.collect_batches(chunk_size=BATCH_ROWS):
            if batch.height and (batch["_bad"].any() or batch["_short"].any()):
                raise NeedsCarefulRead
            yield batch.select("raw", "count")
    except (pl.exceptions.PolarsError, OSError):
        raise NeedsCarefulRead from None


def table_boundaries(path: Path, parts: int, batches: Batches | None = None) -> pl.Series:
    """``parts - 1`` normal forms cutting the table's distinct queries into ranges of about equal
    size (module docstring, pass 1)."""
    bucket = 1
    held = pl.Series("q", [], dtype=pl.String)
    for batch in (batches or (lambda: _batches(path)))():
        # A null query (an empty CSV field, a JSON null) is blank: no boundary.
        forms = batch.select(normalise(pl.col("raw")).alias("q")).to_series().drop_nulls()
        picked = forms.filter(forms.hash(_SEED) % bucket == 0)
        held = pl.concat([held, picked]).unique()
        while held.len() > SAMPLE_KEEP:
            bucket *= 2
            held = held.filter(held.hash(_SEED) % bucket == 0)
    sample = held.sort()
    if sample.len() < parts:
        return sample.slice(1)
    step = sample.len() / parts
    return sample.gather([int(step * i) for i in range(1, parts)]).unique(maintain_order=True)


def table_partition(
    path: Path, folder: Path, cuts: pl.Series, batches: Batches | None = None
) -> tuple[int, int]:
    """Pass 1 for a table: (occurrences, blank), every batch's spellings in their ranges' files."""
    writer = PartWriter(folder, cuts)
    occurrences = 0
    for batch in (batches or (lambda: _batches(path)))():
        summed = batch.group_by("raw").agg(pl.col("count").sum())
        occurrences += int(summed.get_column("count").sum() or 0)
        writer.spill(summed.select(collapse(pl.col("raw")).alias("spelling"), "count"))
    return occurrences, writer.blank
