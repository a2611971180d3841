"""Label each distinct query of a log with a stratum: ``goldset classify``'s core.

The vocabulary for the misspelling rule is either a word list or a corpus: a ``.txt`` file is read
as text (one word per line is just a special case), a table (CSV, TSV, Parquet, JSONL) as a corpus
whose ``text`` (and ``title``, if present) columns are split into words. Words are runs of letters,
lowercased, so ``API-keys`` gives ``api`` and ``keys``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.io.tables import check_file, raise_if_not_utf8, read_table
from goldset_tui.sampling.allocation import stratum_counts
from goldset_tui.sampling.files import stream_frame, write_frame
from goldset_tui.sampling.normalise import TABLE_SUFFIXES, count_distinct
from goldset_tui.sampling.origin import has_origin_column, query_origins
from goldset_tui.sampling.rules import Rule, apply_rule, classify_frame
from goldset_tui.sampling.stream import count_raw

WORD = r"\p{L}+"
LABEL_COLUMNS = ("query", "count", "stratum", "spelling")


@dataclass(frozen=True)
class Classified:
    labels: pl.DataFrame  # query, count, stratum, spelling
    occurrences: int
    blank: int  # blank lines or empty query values dropped
    misspelling_checked: bool


def read_vocab(path: str | Path) -> frozenset[str]:
    p = Path(path)
    if p.suffix.lower() in TABLE_SUFFIXES:
        df = read_table(p)
        columns = [c for c in ("text", "title") if c in df.columns]
        if not columns:
            raise InputError(
                p,
                f"a corpus used as vocabulary needs a 'text' column (found: {', '.join(df.columns)})",
            )
        text = pl.concat([df.get_column(c).cast(pl.Utf8) for c in columns])
    else:
        check_file(p)
        data = p.read_bytes()
        raise_if_not_utf8(p, data)
        text = pl.Series([data.decode("utf-8").removeprefix("\ufeff")])
    words = (
        text.drop_nulls().str.to_lowercase().str.extract_all(WORD).explode().drop_nulls().unique()
    )
    if words.len() == 0:
        raise InputError(p, "no words found for the vocabulary")
    return frozenset(words.to_list())


def classify_log(
    log_path: str | Path, vocab: frozenset[str] | None = None, rule: Rule | None = None
) -> Classified:
    # Streamed: memory follows the log's distinct strings, not its length (stream.py).
    distinct, blank = count_distinct(count_raw(log_path))
    if distinct.height == 0:
        raise InputError(log_path, "no queries: every line or value is blank")
    labels = label(distinct, vocab, rule)
    if has_origin_column(log_path):
        # Real and synthetic queries stay told apart downstream (sampling/origin.py).
        labels = labels.join(query_origins(log_path), on="query", how="left", maintain_order="left")
    return Classified(
        labels, int(labels.get_column("count").sum()), blank, vocab is not None or rule is not None
    )


def label(distinct: pl.DataFrame, vocab: frozenset[str] | None, rule: Rule | None) -> pl.DataFrame:
    """``query, count, stratum, spelling`` from ``query, count, spelling``, in the same order."""
    spellings = distinct.get_column("spelling")
    strata = (
        # A query is its spelling lowercased (normalise.pick_spellings): the rules reuse it.
        classify_frame(spellings, vocab, collapsed=True, lowered=distinct.get_column("query"))
        if rule is None
        else apply_rule(rule, spellings, vocab)
    )
    return distinct.with_columns(strata.alias("stratum")).select(LABEL_COLUMNS)


@dataclass(frozen=True)
class Written:
    """What ``classify_to_file`` wrote: the labels file's totals, without holding its rows."""

    occurrences: int  # the labels' counts summed: the log's queries, blank ones left out
    distinct: int
    blank: int
    strata: pl.DataFrame  # stratum, distinct, occurrences, share; by occurrences descending


def classify_to_file(
    log_path: str | Path,
    output: Path,
    vocab: frozenset[str] | None = None,
    rule: Rule | None = None,
) -> Written:
    """Label ``log_path`` into ``output`` (CSV, TSV or Parquet by extension). A large log goes
    through spill files (spill.py); any other is counted in memory."""
    path = Path(log_path)
    done = classify_spilled(path, output, vocab, rule)
    if done is not None:
        return done
    result = classify_log(path, vocab, rule)
    write_frame(result.labels, output)
    table = stratum_table(result.labels)
    return Written(result.occurrences, result.labels.height, result.blank, table)


def classify_spilled(
    path: Path, output: Path, vocab: frozenset[str] | None = None, rule: Rule | None = None
) -> Written | None:
    """``classify_to_file`` through spill files when the log is large (``spill.spills``), or
    None when it must be counted in memory: a small log, one the careful reader must name a
    line of, or one with an ``origin`` column (the spill files carry the query alone)."""
    from goldset_tui.sampling import spill
    from goldset_tui.sampling.stream import NeedsCarefulRead, needs_careful_read

    if not spill.spills(path) or has_origin_column(path):
        return None
    # The "\r line ends" sniff is for text: a Parquet file's bytes may hold a \r and no \n.
    if spill.spills_as_table(path) or not needs_careful_read(path):
        try:
            first_pass = None
            if spill.spills_as_table(path):
                from goldset_tui.sampling import spill_tables

                first_pass = spill_tables.first_pass(path)
            done = spill.classify_spilled(
                path, output, stream_frame, lambda d: label(d, vocab, rule), first_pass=first_pass
            )
        except NeedsCarefulRead:
            pass  # the careful reader names what is wrong (in memory: the error path only)
        else:
            return Written(done.occurrences, done.distinct, done.blank, _table(done.strata))
    return None


def classified_labels(
    log_path: str | Path, vocab: frozenset[str] | None = None, rule: Rule | None = None
) -> pl.DataFrame:
    """The log's labels as `goldset classify` writes them, for a reader that needs them whole
    (the draw, drift's new side): a large log counted through the spill files (memory bounded
    while counting; the labels read back), any other counted in memory."""
    import tempfile

    path = Path(log_path)
    with tempfile.TemporaryDirectory(prefix="goldset-labels-") as folder:
        written = Path(folder) / "labels.parquet"
        if classify_spilled(path, written, vocab, rule) is not None:
            return pl.read_parquet(written)
    return classify_log(path, vocab, rule).labels


def _table(counts: pl.DataFrame) -> pl.DataFrame:
    total = counts.get_column("occurrences").sum()
    shares = counts.select(
        "stratum",
        pl.col("distinct").cast(pl.get_index_type()),
        "occurrences",
        (pl.col("occurrences") / total).alias("share"),
    )
    return shares.sort(["occurrences", "stratum"], descending=[True, False])


def stratum_table(labels: pl.DataFrame) -> pl.DataFrame:
    """Per stratum: distinct queries, occurrences, traffic share; by occurrences descending."""
    return stratum_counts(labels).sort(["occurrences", "stratum"], descending=[True, False])
