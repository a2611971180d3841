"""Labelling a plain-text log larger than memory: ``goldset classify`` in bounded memory.

Counting distinct queries in one hash table holds every distinct string at once, and a log from a
public web search engine has tens of millions of them. So a large log goes through spill files in
a temporary folder (removed afterwards, also on an error or Ctrl-C), in three passes:

1. **Partition.** The log is read in chunks of ``CHUNK_BYTES`` cut at a newline. Each chunk's
   lines are normalised and counted, and each distinct spelling goes to one of ``parts`` files by
   a hash of its normal form (the lowercased spelling), so every spelling of a query lands in the
   same part. A chunk whose lines were mostly repeats groups the raw lines before normalising
   them (a log's head repeats thousands of times); a chunk of mostly distinct lines normalises
   each line and groups once (grouping twice would cost more than it saves).
2. **Label.** Each part alone: spellings summed, the query's spelling picked, the rules run,
   exactly as the in-memory path does (``normalise.pick_spellings``, ``rules.classify_frame``).
   Memory follows one part, never the log.
3. **Order.** The labels are sorted by count descending, then query, as the in-memory path
   sorts them: a sample of sort keys gives range boundaries, each part's rows go to their range,
   each range is sorted alone, and the ranges are streamed in order into the output.

Which logs: plain text above ``SPILL_ABOVE`` bytes. Tables (CSV, TSV, Parquet, JSON lines) and
small logs keep the in-memory path (``stream.count_raw``), so their labels file is the same bytes
as before; a spilled log's CSV/TSV labels are the same bytes too, and its Parquet labels hold the
same rows in the same order (Parquet's row groups may be cut elsewhere). Why and what it costs:
docs/sampling.md#logs-of-any-size.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.sampling.normalise import collapse, in_order, pick_spellings

SPILL_ABOVE = 48 << 20  # a text log at most this large is counted in memory
CHUNK_BYTES = 16 << 20  # log read per step of the partition pass
PART_BYTES = 12 << 20  # log bytes per part: a part's distinct strings, at worst
SAMPLE_EVERY = 97  # one sort key in so many rows gives the range boundaries
MOSTLY_DISTINCT = 0.5  # distinct raw lines / lines above which a chunk is normalised line by line
BOM = b"\xef\xbb\xbf"
SPILL_COLUMNS = {"spelling": pl.String, "count": pl.Int64}


@dataclass(frozen=True)
class Spilled:
    """What was written: the totals the manifest and the summary need."""

    occurrences: int  # every line but the blank ones (the labels' counts summed)
    blank: int
    distinct: int
    strata: pl.DataFrame  # stratum, distinct, occurrences (any order)


def spills(path: Path) -> bool:
    """Whether ``path`` is classified through spill files."""
    from goldset_tui.io.tables import JSONL_SUFFIXES, PARQUET_SUFFIXES, TEXT_FORMATS

    suffix = path.suffix.lower()
    tables = set(TEXT_FORMATS) | JSONL_SUFFIXES | PARQUET_SUFFIXES
    return suffix not in tables and path.is_file() and path.stat().st_size > SPILL_ABOVE


def part_count(size: int) -> int:
    return max(2, math.ceil(size / PART_BYTES))


def chunks(path: Path, size: int = CHUNK_BYTES) -> Iterator[bytes]:
    """The file in pieces of about ``size`` bytes, each ending at a newline (the last may not);
    a BOM opening the file is dropped (an encoding mark, not part of the first query)."""
    rest = b""
    first = True
    with path.open("rb") as handle:
        while block := handle.read(size):
            if first:
                block, first = block.removeprefix(BOM), False
            block = rest + block
            cut = block.rfind(b"\n") + 1
            if cut == 0:
                rest = block  # one line longer than a chunk: keep reading
                continue
            rest = block[cut:]
            yield block[:cut]
    if rest:
        yield rest


def _forms(chunk: bytes, by_line: bool) -> pl.DataFrame:
    """``spelling, count`` of one chunk's lines (spelling: trimmed, whitespace collapsed)."""
    lines = pl.scan_lines(chunk, name="raw")
    if by_line:
        counted = lines.select(collapse(pl.col("raw")).alias("spelling"))
        return counted.group_by("spelling").agg(pl.len().cast(pl.Int64).alias("count")).collect()
    raw = lines.group_by("raw").agg(pl.len().cast(pl.Int64).alias("count")).collect()
    forms = raw.select(collapse(pl.col("raw")).alias("spelling"), "count")
    return forms.group_by("spelling").agg(pl.col("count").sum())


def partition(path: Path, folder: Path, parts: int) -> tuple[int, int]:
    """Pass 1: every chunk's spellings into ``parts`` files; (occurrences, blank)."""
    occurrences = blank = 0
    by_line = False
    for number, chunk in enumerate(chunks(path)):
        try:
            forms = _forms(chunk, by_line)
        except pl.exceptions.ComputeError:
            from goldset_tui.sampling.stream import NeedsCarefulRead, _raise_bad_utf8

            _raise_bad_utf8(path)
            raise NeedsCarefulRead from None
        lines = int(forms.get_column("count").sum() or 0)
        by_line = forms.height > MOSTLY_DISTINCT * lines
        occurrences += lines
        empty = pl.col("spelling") == ""
        blank += int(forms.filter(empty).get_column("count").sum() or 0)
        key = pl.col("spelling").str.to_lowercase().hash(seed=0) % parts
        keyed = forms.filter(~empty).with_columns(key.alias("part"))
        for (part,), piece in keyed.partition_by("part", as_dict=True, include_key=False).items():
            piece.write_parquet(folder / f"p{part}-c{number}.parquet", compression="lz4")
    return occurrences, blank


def _read_part(folder: Path, part: int) -> pl.DataFrame:
    files = sorted(folder.glob(f"p{part}-c*.parquet"))
    if not files:
        return pl.DataFrame(schema=SPILL_COLUMNS)
    spelled = pl.scan_parquet(files).group_by("spelling").agg(pl.col("count").sum()).collect()
    for file in files:
        file.unlink()
    return spelled


def sort_key() -> pl.Expr:
    """A string whose byte order is the labels' order: count descending, then query."""
    descending = (pl.lit(2**63 - 1, dtype=pl.Int64) - pl.col("count")).cast(pl.String)
    return pl.concat_str([descending.str.zfill(19), pl.col("query")])


def classify_spilled(
    path: Path,
    output: Path,
    write: Callable[[pl.LazyFrame, Path], None],
    labeller: Callable[[pl.DataFrame], pl.DataFrame],
    spill_folder: Path | None = None,
) -> Spilled:
    """Passes 1-3 for the text log ``path``; ``labeller`` runs the rules on one part (query,
    count, spelling -> query, count, stratum, spelling); ``write(lazy, output)`` streams the
    ordered labels into the output file."""
    parts = part_count(path.stat().st_size)
    with tempfile.TemporaryDirectory(prefix="goldset-classify-", dir=spill_folder) as tmp:
        folder = Path(tmp)
        occurrences, blank = partition(path, folder, parts)
        strata: list[pl.DataFrame] = []
        samples: list[pl.Series] = []
        distinct = 0
        for part in range(parts):
            labels = labeller(pick_spellings(_read_part(folder, part)))
            distinct += labels.height
            strata.append(
                labels.group_by("stratum").agg(
                    pl.len().cast(pl.Int64).alias("distinct"),
                    pl.col("count").sum().alias("occurrences"),
                )
            )
            samples.append(labels.select(sort_key()).to_series().gather_every(SAMPLE_EVERY))
            labels.write_parquet(folder / f"labels{part}.parquet", compression="lz4")
        if distinct == 0:
            raise InputError(path, "no queries: every line or value is blank")
        ranges = _order(folder, parts, samples)
        write(pl.scan_parquet(ranges), output)
        counts = pl.concat(strata).group_by("stratum").agg(pl.col("distinct", "occurrences").sum())
        return Spilled(occurrences - blank, blank, distinct, counts)


def _order(folder: Path, parts: int, samples: list[pl.Series]) -> list[Path]:
    """Pass 3: the labels in sorted ranges, one file per range, in order."""
    keys = pl.concat(samples).sort()
    step = max(1, keys.len() // parts)
    bounds = keys.gather_every(step, offset=step).unique(maintain_order=True)
    for part in range(parts):
        source = folder / f"labels{part}.parquet"
        labels = pl.read_parquet(source)
        where = bounds.search_sorted(labels.select(sort_key()).to_series(), side="right")
        ranged = labels.with_columns(where.alias("range"))
        for (index,), piece in ranged.partition_by("range", as_dict=True).items():
            piece.drop("range").write_parquet(
                folder / f"r{index}-p{part}.parquet", compression="lz4"
            )
        source.unlink()
    out = []
    for index in range(bounds.len() + 1):
        files = sorted(folder.glob(f"r{index}-p*.parquet"))
        if not files:
            continue
        ordered = in_order(pl.read_parquet(files))
        target = folder / f"ordered{index}.parquet"
        ordered.write_parquet(target, compression="lz4")
        for file in files:
            file.unlink()
        out.append(target)
    return out
