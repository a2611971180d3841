"""Labelling a plain-text log larger than memory: ``goldset classify`` in bounded memory.

Counting distinct queries in one hash table holds every distinct string at once, and a log from a
public web search engine has tens of millions of them. So a large log goes through spill files in
a temporary folder (removed afterwards, also on an error or Ctrl-C), in three passes:

1. **Partition.** The log is read in chunks of ``CHUNK_BYTES`` cut at a newline. Each chunk's
   lines are normalised and counted, and each spelling goes to the file of its *range of normal
   forms* (``boundaries``: normal forms read at places spread over the log), so every spelling
   of a query lands in the same part, and the parts follow one another in query order. A chunk
   whose lines were mostly repeats groups the raw lines before normalising them (a log's head
   repeats thousands of times) and sums their counts in memory, up to ``HOLD_ROWS`` spellings,
   before spilling them; where the last chunk so grouped held mostly distinct lines, the next
   ones are normalised line by line and not grouped at all (grouping would cost more than it
   saves: the part's own count sums the few repeats). Spill files are Arrow IPC, uncompressed:
   written and read back once.
2. **Label.** Each part alone: spellings summed, the query's spelling picked, the rules run,
   exactly as the in-memory path does (``normalise.pick_spellings``, ``rules.classify_frame``),
   and the part sorted by count descending, then query, and written as Arrow IPC, uncompressed
   (each count's rows are then one slice of the file). Memory follows one part, never the log.
3. **Order.** The parts are in query order, so one count's rows are in order part after part: a
   count with many rows is streamed slice by slice as it is, runs of rarer counts are gathered
   (one slice of each part) and stably sorted by count (``_ordered``), and the whole is
   streamed into the output.

Which logs: plain text, CSV, TSV, Parquet and JSON lines above ``SPILL_ABOVE`` bytes, and Parquet
of more rows than such a text log has lines (a table's first pass reads it in batches instead of
chunks of lines: ``spill_tables``); small logs keep the in-memory path (``stream.count_raw``).
A spilled log's CSV/TSV labels are the same bytes as the in-memory path's, its Parquet labels the
same rows in the same order (Parquet's row groups may be cut elsewhere). Why and what it costs:
docs/sampling.md#logs-of-any-size.
"""

from __future__ import annotations

import bisect
import contextlib
import itertools
import math
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.sampling.normalise import collapse, in_order, normalise, pick_spellings

SPILL_ABOVE = 32 << 20  # a text log at most this large is counted in memory (peak < 0.7 GB)
# About a text log's bytes per line (the 6 M-line log of bench/log_scale.py: 18): a Parquet log of
# more rows than a text log of SPILL_ABOVE bytes has lines spills too, whatever its file's size.
ROW_BYTES = 16
CHUNK_BYTES = 16 << 20  # log read per step of the partition pass
# Log bytes per part: a part's distinct strings, at worst. Small enough that sorting a part by
# query stays in the processor's caches (12 MB parts sorted 30% slower on 6 M distinct lines).
PART_BYTES = 3 << 20
SAMPLE_WINDOWS = 256  # places in the log whose lines give the ranges' boundaries
SAMPLE_BYTES = 16 << 10  # read at each place
MOSTLY_DISTINCT = 0.5  # distinct raw lines / lines above which chunks are normalised line by line
REMEASURE = 8  # while normalising line by line, every so many chunks are grouped to re-measure
HOLD_ROWS = 1_000_000  # distinct spellings of repeated lines summed in memory before spilling
BATCH_ROWS = 1 << 14  # rows per record batch of a part's labels: a slice reads only its own
BOM = b"\xef\xbb\xbf"
SPILL_COLUMNS = {"spelling": pl.String, "count": pl.Int64}


Cutter = Callable[[Path, int], pl.Series]  # (log, parts) -> the ranges' boundaries
Splitter = Callable[[Path, Path, pl.Series], tuple[int, int]]  # pass 1: (occurrences, blank)


@dataclass(frozen=True)
class Spilled:
    """What was written: the totals the manifest and the summary need."""

    occurrences: int  # every line but the blank ones (the labels' counts summed)
    blank: int
    distinct: int
    strata: pl.DataFrame  # stratum, distinct, occurrences (any order)


def spills(path: Path) -> bool:
    """Whether ``path`` is classified through spill files: a log (plain text, CSV, TSV, Parquet or
    JSON lines) larger than ``SPILL_ABOVE`` bytes, or a Parquet log holding more than
    ``SPILL_ABOVE // ROW_BYTES`` rows, however small its file (a column of repeated or similar
    queries compresses tenfold and more, and the in-memory count holds them uncompressed). The
    rows are read from the file's footer, not its data."""
    from goldset_tui.io.tables import PARQUET_SUFFIXES

    if not path.is_file():
        return False
    if path.stat().st_size > SPILL_ABOVE:
        return True
    return path.suffix.lower() in PARQUET_SUFFIXES and parquet_rows(path) > SPILL_ABOVE // ROW_BYTES


def parquet_rows(path: Path) -> int:
    """The rows a Parquet file says it holds (its footer alone); 0 when it cannot say (the
    reader then names what is wrong)."""
    try:
        return int(pl.scan_parquet(path, glob=False).select(pl.len()).collect().item())
    except (pl.exceptions.PolarsError, OSError):
        return 0


def spills_as_table(path: Path) -> bool:
    from goldset_tui.io.tables import JSONL_SUFFIXES, PARQUET_SUFFIXES, TEXT_FORMATS

    return path.suffix.lower() in set(TEXT_FORMATS) | PARQUET_SUFFIXES | JSONL_SUFFIXES


# Every chunk of the partition pass writes one spill file per part, so files = chunks x parts:
# with parts of a fixed size that grows with the square of the log (48 M lines: 294 parts x 56
# chunks, about 16,000 files in one temporary folder). Past this many parts, parts grow with
# the log instead, and the count of files only linearly (48 M lines: about 5,400). The CPU
# time was the same either way on this machine's file system (85.4 and 85.5 s).
MAX_PARTS = 96


def part_count(size: int) -> int:
    return max(2, min(MAX_PARTS, math.ceil(size / PART_BYTES)))


def chunks(path: Path, size: int | None = None) -> Iterator[bytes]:
    """The file in pieces of about ``size`` bytes (``CHUNK_BYTES``), each ending at a newline
    (the last may not); a BOM opening the file is dropped (an encoding mark, not part of the
    first query)."""
    size = size or CHUNK_BYTES
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


def _lines(chunk: bytes) -> pl.LazyFrame:
    return pl.scan_lines(chunk, name="raw")


def _grouped(chunk: bytes) -> pl.DataFrame:
    """``raw, count``: one chunk's distinct lines."""
    return _lines(chunk).group_by("raw").agg(pl.len().cast(pl.Int64).alias("count")).collect()


def boundaries(path: Path, parts: int) -> pl.Series:
    """``parts - 1`` normalised queries cutting the log's queries into ranges of about equal
    numbers of distinct queries, from lines read at ``SAMPLE_WINDOWS`` places spread over the
    file (a log sorted by query is cut as well as a log in time order)."""
    size = path.stat().st_size
    pieces = []
    with path.open("rb") as handle:
        for window in range(SAMPLE_WINDOWS):
            handle.seek(size * window // SAMPLE_WINDOWS)
            block = handle.read(SAMPLE_BYTES)
            if window:
                block = block[block.find(b"\n") + 1 :]  # from the first whole line
            pieces.append(block[: block.rfind(b"\n") + 1].removeprefix(BOM))
    data = b"".join(pieces)
    try:
        lines = pl.scan_lines(data, name="raw").select(normalise(pl.col("raw")).alias("q"))
        sample = lines.unique().collect().get_column("q").sort()
    except pl.exceptions.ComputeError:
        sample = pl.Series("q", [], dtype=pl.String)  # bytes that are not UTF-8: said in pass 1
    if sample.len() < parts:
        return sample.slice(1)  # fewer queries seen than parts: one part per query seen
    step = sample.len() / parts
    return sample.gather([int(step * i) for i in range(1, parts)]).unique(maintain_order=True)


class PartWriter:
    """Writes ``spelling, count`` rows into the file of each one's range of ``cuts`` (one folder a
    range, one file a call); counts the blank spellings and leaves them out."""

    def __init__(self, folder: Path, cuts: pl.Series) -> None:
        self.folder, self.cuts = folder, cuts
        self.files = self.blank = 0

    def spill(self, forms: pl.DataFrame) -> None:
        # A null query (an empty CSV field, a JSON null) is blank, as the in-memory count has it.
        empty = pl.col("spelling").is_null() | (pl.col("spelling") == "")
        self.blank += int(forms.filter(empty).get_column("count").sum() or 0)
        kept = forms.filter(~empty)
        part = self.cuts.search_sorted(kept.get_column("spelling").str.to_lowercase(), side="right")
        keyed = kept.with_columns(part.alias("part"))
        for (index,), piece in keyed.partition_by("part", as_dict=True, include_key=False).items():
            part_folder = self.folder / f"p{index}"  # one folder a part: read back without a search
            part_folder.mkdir(exist_ok=True)
            piece.write_ipc(part_folder / f"c{self.files}.arrow")
        self.files += 1


def partition(path: Path, folder: Path, cuts: pl.Series) -> tuple[int, int]:
    """Pass 1: every chunk's spellings into one file per range of ``cuts``; (occurrences,
    blank). The distinct lines of chunks of mostly repeated lines are summed in memory first,
    up to about ``HOLD_ROWS`` of them, and normalised once (a log with a few hundred thousand
    distinct queries is normalised and written once, not once per chunk)."""
    occurrences = 0
    by_line = False
    held: list[pl.DataFrame] = []  # raw, count
    writer = PartWriter(folder, cuts)
    spill = writer.spill

    def normalised(raw: pl.DataFrame) -> pl.DataFrame:
        return raw.select(collapse(pl.col("raw")).alias("spelling"), "count")

    def merged() -> pl.DataFrame:
        whole = pl.concat(held) if len(held) > 1 else held[0]
        return whole.group_by("raw").agg(pl.col("count").sum()) if len(held) > 1 else whole

    for number, chunk in enumerate(chunks(path)):
        measure = not by_line or number % REMEASURE == 0
        try:
            if not measure:
                one = pl.lit(1, dtype=pl.Int64).alias("count")
                forms = _lines(chunk).select(collapse(pl.col("raw")).alias("spelling"), one)
                spelled = forms.collect()
                occurrences += spelled.height
                spill(spelled)
                continue
            raw = _grouped(chunk)
        except pl.exceptions.ComputeError:
            from goldset_tui.sampling.stream import NeedsCarefulRead, _raise_bad_utf8

            _raise_bad_utf8(path)
            raise NeedsCarefulRead from None
        lines = int(raw.get_column("count").sum() or 0)
        occurrences += lines
        by_line = raw.height > MOSTLY_DISTINCT * lines
        if by_line:
            spill(normalised(raw))
            continue
        held.append(raw)
        if sum(frame.height for frame in held) > HOLD_ROWS:
            whole = merged()
            held = [whole]
            if whole.height > HOLD_ROWS // 2:
                spill(normalised(whole))
                held = []
    if held:
        spill(normalised(merged()))
    return occurrences, writer.blank


def _read_part(folder: Path, part: int) -> pl.DataFrame:
    files = sorted((folder / f"p{part}").glob("c*.arrow"))
    if not files:
        return pl.DataFrame(schema=SPILL_COLUMNS)
    spelled = pl.scan_ipc(files).collect()
    for file in files:
        with contextlib.suppress(OSError):  # still mapped (Windows): the folder goes at the end
            file.unlink()
    return spelled


def classify_spilled(
    path: Path,
    output: Path,
    write: Callable[[pl.LazyFrame, Path], None],
    labeller: Callable[[pl.DataFrame], pl.DataFrame],
    spill_folder: Path | None = None,
    first_pass: tuple[Cutter, Splitter] | None = None,
) -> Spilled:
    """Passes 1-3 for the log ``path``: a text log, or a table given its own ``first_pass`` (its
    boundaries and partition: spill_tables); ``labeller`` runs the rules on one part (query,
    count, spelling -> query, count, stratum, spelling); ``write(lazy, output)`` streams the
    ordered labels into the output file."""
    cutter, split = (boundaries, partition) if first_pass is None else first_pass
    cuts = cutter(path, part_count(path.stat().st_size))
    with tempfile.TemporaryDirectory(prefix="goldset-classify-", dir=spill_folder) as tmp:
        folder = Path(tmp)
        occurrences, blank = split(path, folder, cuts)
        strata: list[pl.DataFrame] = []
        runs: list[pl.DataFrame] = []  # per part: count, rows (count descending)
        files = []
        for part in range(cuts.len() + 1):
            labels = in_order(labeller(pick_spellings(_read_part(folder, part))))
            strata.append(
                labels.group_by("stratum").agg(
                    pl.len().cast(pl.Int64).alias("distinct"),
                    pl.col("count").sum().alias("occurrences"),
                )
            )
            runs.append(labels.group_by("count", maintain_order=True).agg(pl.len().alias("rows")))
            files.append(folder / f"labels{part}.arrow")
            _batched(labels).write_ipc(files[-1], compression="uncompressed")
        totals = pl.concat(strata).group_by("stratum").agg(pl.col("distinct", "occurrences").sum())
        distinct = int(totals.get_column("distinct").sum() or 0)
        if distinct == 0:
            raise InputError(path, "no queries: every line or value is blank")
        write(_ordered(folder, files, runs, distinct // len(files) + 1), output)
        return Spilled(occurrences - blank, blank, distinct, totals)


def _ordered(
    folder: Path, files: list[Path], runs: list[pl.DataFrame], budget: int
) -> pl.LazyFrame:
    """Pass 3: all labels by count descending, then query. The parts are ranges of queries in
    order and each is sorted by count, so the rows of one count are one slice of each part, in
    order part after part: a count with more rows than ``budget`` is streamed slice by slice as
    it is; runs of smaller counts (one slice of each part too) are gathered (at most ``budget``
    rows) and put in count order by a stable sort.

    The slices are read one after the other as the output is written (``_one_by_one``), not as
    one lazy concatenation of every part's file: Polars maps the files it reads, and the pages
    of all of them counted as resident memory (1.6 GB at 48 M lines in 294 parts)."""
    spans = [_Spans(r) for r in runs]
    histogram = pl.concat(runs).group_by("count").agg(pl.col("rows").sum())
    pieces: list[tuple[Path, int, int | None]] = []  # file, first row, rows (None: all)
    group: list[int] = []
    rows = 0

    def sliced(high: int, low: int) -> list[tuple[Path, int, int | None]]:
        """Each part's rows with a count in [low, high], part after part."""
        cut = [(file, *part.rows(high, low)) for file, part in zip(files, spans, strict=True)]
        return [(file, first, n) for file, first, n in cut if n]

    def flush() -> None:
        nonlocal rows
        if not group:
            return
        gathered = pl.concat([_copy(_read(*piece)) for piece in sliced(group[0], group[-1])])
        target = folder / f"ordered{len(pieces)}.arrow"
        gathered.sort("count", descending=True, maintain_order=True).write_ipc(
            target, compression="uncompressed"
        )
        pieces.append((target, 0, None))
        group.clear()
        rows = 0

    for count, n in histogram.sort("count", descending=True).iter_rows():
        if n > budget:
            flush()
            pieces.extend(sliced(count, count))
            continue
        if rows + n > budget:
            flush()
        group.append(count)
        rows += n
    flush()
    return _one_by_one(pieces, pl.scan_ipc(files[0]).collect_schema())


def _batched(labels: pl.DataFrame) -> pl.DataFrame:
    """``labels`` in chunks of ``BATCH_ROWS``, written as as many record batches: a slice of the
    file is then read from the batches that hold it, not from the whole file (reading a few rows
    from each of hundreds of parts mapped all of them: 1.6 GB at 48 M lines)."""
    cut = [labels.slice(start, BATCH_ROWS) for start in range(0, labels.height, BATCH_ROWS)]
    return pl.concat(cut, rechunk=False) if len(cut) > 1 else labels


def _read(file: Path, first: int, rows: int | None) -> pl.DataFrame:
    return pl.scan_ipc(file).slice(first, rows).collect()


def _copy(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with its strings copied: a few rows read from a part's file no longer hold the
    file's pages (hundreds of parts' pages held at once were most of the last pass's memory)."""
    strings = [name for name, dtype in frame.schema.items() if dtype == pl.String]
    return frame.with_columns(pl.concat_str([pl.col(name), pl.lit("")]) for name in strings)


def _one_by_one(pieces: list[tuple[Path, int, int | None]], schema: pl.Schema) -> pl.LazyFrame:
    """The pieces, in order, as one lazy frame that reads one piece at a time."""
    from polars.io.plugins import register_io_source

    def source(
        columns: list[str] | None, predicate: pl.Expr | None, n_rows: int | None, _: int | None
    ) -> Iterator[pl.DataFrame]:
        left = n_rows
        for piece in pieces:
            if left is not None and left <= 0:
                return
            frame = _read(*piece)
            if predicate is not None:
                frame = frame.filter(predicate)
            if columns is not None:
                frame = frame.select(columns)
            if left is not None:
                frame = frame.head(left)
                left -= frame.height
            yield frame

    return register_io_source(source, schema=schema)


class _Spans:
    """Where each count's rows are in a part sorted by count descending."""

    def __init__(self, runs: pl.DataFrame) -> None:
        self.negated = [-c for c in runs.get_column("count").to_list()]  # ascending
        self.starts = [0, *itertools.accumulate(runs.get_column("rows").to_list())]

    def rows(self, high: int, low: int) -> tuple[int, int]:
        """(first row, rows) of the counts in [low, high]: one slice, maybe empty."""
        first = bisect.bisect_left(self.negated, -high)
        end = bisect.bisect_right(self.negated, -low)
        return self.starts[first], self.starts[end] - self.starts[first]
