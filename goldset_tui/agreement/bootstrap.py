"""A seeded cluster bootstrap over queries: percentile intervals for figures built from sums.

Why queries and not pairs: the pairs of one query share its text, its difficulty and each
labeller's reading of it, so whether labellers agree on one pair says a lot about the next pair of
the same query. Resampling pairs treats them as independent and draws intervals that are too
narrow (on the sample data, ordinal alpha [0.837, 0.886] resampling pairs against [0.820, 0.897]
resampling queries). Resampling whole queries keeps that dependence inside every replicate: the
cluster (or "case") bootstrap of Davison & Hinkley (1997, sec. 3.8) and Field & Welsh (2007).

Every agreement figure here (Krippendorff's alpha at any level, Cohen's kappas, raw agreement, the
binary cut-offs) is a function of tables of counts that are sums over queries: the coincidence
matrix and the pairwise confusion matrices. So the caller supplies one row per query holding that
query's share of every count, and this module

1. draws, for each replicate, as many queries as there are, with replacement (one seeded Polars
   ``sample`` per chunk of replicates, run-length counted so repeats of a query are one row);
2. sums the drawn rows per replicate (a gather and a group-by, no Python loop over queries);

and the caller computes its statistics from each replicate's sums (small k x k tables).

Contract: the same seed gives the same replicates (for a given Polars version); a replicate in
which a statistic is undefined (say, no variation left to correct for chance) is left out of that
statistic's interval; an interval is ``None`` when fewer than two queries are given, when no
replicate is asked for, or when no replicate gives a defined value.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import polars as pl

from goldset_tui.agreement.jackknife import JACKKNIFE_TEXT
from goldset_tui.scalar import as_float

DEFAULT_CONFIDENCE = 0.95
# Rows drawn per Polars call: keeps memory flat however many queries there are.
_ROWS_PER_CHUNK = 2_000_000
_CELLS_PER_STEP = 16_000_000


def method_text(replicates: int, seed: int, confidence: float = DEFAULT_CONFIDENCE) -> str:
    """How the intervals were drawn, for the JSON ``ci_method`` key."""
    return (
        f"{JACKKNIFE_TEXT}; where a figure is undefined with a query left out: cluster bootstrap "
        f"over queries, B={replicates}, seed={seed}, {confidence:.0%} percentile interval"
    )


def draw_counts(n_queries: int, replicates: int, seed: int) -> Iterator[pl.DataFrame]:
    """Chunks of ``rep, query, count``: how often each query (0-based row) was drawn in each
    replicate (0-based). Every replicate draws ``n_queries`` queries with replacement."""
    if n_queries < 1 or replicates < 1:
        return
    per_chunk = max(1, _ROWS_PER_CHUNK // n_queries)
    done = 0
    chunk = 0
    while done < replicates:
        reps = min(per_chunk, replicates - done)
        drawn = pl.int_range(n_queries, dtype=pl.Int64, eager=True).sample(
            n=reps * n_queries,
            with_replacement=True,
            # Polars takes an unsigned 64-bit seed; distinct chunks need distinct streams.
            seed=(seed * 100_003 + chunk) % 2**64,
        )
        # Count (replicate, query) pairs by sorting one integer code and run-length encoding it:
        # far cheaper than a hash group-by on millions of rows.
        rep = pl.int_range(drawn.len(), dtype=pl.Int64, eager=True) // n_queries + done
        runs = (rep * n_queries + drawn).sort().rle().struct.unnest()
        code = runs.get_column("value")
        yield pl.DataFrame(
            {
                "rep": code // n_queries,
                "query": code % n_queries,
                "count": runs.get_column("len").cast(pl.Int64),
            }
        )
        done += reps
        chunk += 1


def resample_sums(per_query: pl.DataFrame, *, replicates: int, seed: int) -> pl.DataFrame:
    """One row per replicate: ``rep`` and, for every column of ``per_query`` (one row per query,
    numeric columns), its sum over the queries drawn in that replicate, repeats counted.

    Columns of whole numbers (the confusion counts, most of the columns) are summed as integers:
    exactly, and in 32 bits when no replicate's sum can pass 2^31, which halves what is gathered.
    """
    columns = per_query.columns
    per_query, counts = _narrowed(per_query)
    # Gathered rows x columns per step: many labeller pairs mean many columns (16 per pair on a
    # 0-3 scale), and the gathered block must stay well under a gigabyte.
    step = max(1, _CELLS_PER_STEP // max(1, len(columns)))
    parts = []
    for draws in draw_counts(per_query.height, replicates, seed):
        for offset in range(0, draws.height, step):
            piece = draws.slice(offset, step)
            gathered = per_query.select(pl.all().gather(piece.get_column("query")))
            # Draws come sorted by replicate: saying so lets the group-by sum contiguous slices
            # instead of hashing every row.
            keys = piece.select(pl.col("rep").set_sorted(), pl.col("count").cast(counts))
            weighted = pl.concat([keys, gathered], how="horizontal")
            parts.append(
                weighted.group_by("rep").agg(
                    [(pl.col(c) * pl.col("count")).sum().cast(pl.Float64).alias(c) for c in columns]
                )
            )
    if not parts:
        return pl.DataFrame(schema={"rep": pl.Int64, **dict.fromkeys(columns, pl.Float64)})
    # A replicate cut between two steps has two partial rows: add them up.
    return pl.concat(parts).group_by("rep").agg(pl.all().sum()).sort("rep")


def _narrowed(per_query: pl.DataFrame) -> tuple[pl.DataFrame, type[pl.DataType]]:
    """``per_query`` with its whole-number columns as integers, and the type of the draw counts.

    A replicate draws ``height`` queries, so no sum (nor any count times value) exceeds
    ``height`` times the column's largest value: under 2^31 the columns and the counts are Int32,
    else Int64 (under 2^62), else the column stays Float64.
    """
    if per_query.height == 0:
        return per_query, pl.Int64
    whole = [
        c
        for c in per_query.columns
        if per_query.get_column(c).dtype.is_float()
        and bool(per_query.select((pl.col(c) == pl.col(c).round()).all()).item())
    ]
    bound = per_query.height * max(
        (as_float(per_query.get_column(c).abs().max() or 0.0) for c in whole), default=0.0
    )
    if not whole or bound >= 2**62:
        return per_query, pl.Int64
    narrow: type[pl.DataType] = pl.Int32 if bound < 2**31 else pl.Int64
    return per_query.with_columns(pl.col(whole).cast(narrow)), narrow


def percentile_interval(
    values: Sequence[float | None], confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float] | None:
    """The central ``confidence`` share of the defined replicate values (percentile method)."""
    defined = sorted(v for v in values if v is not None)
    if not defined:
        return None
    tail = (1 - confidence) / 2
    return _quantile(defined, tail), _quantile(defined, 1 - tail)


def _quantile(sorted_values: list[float], q: float) -> float:
    # Linear interpolation between order statistics (numpy's default, "type 7").
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)
