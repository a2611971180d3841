"""The two files that describe the golden set's design: the strata file (``query_id, stratum``,
with the sampling's ``inclusion_probability`` and ``count`` when `goldset sample` wrote them) and
the traffic file (``stratum, share``, with ``population`` and the design effects per stratum).

Every value is checked as it is read: a bad one is an ``InputError`` naming the file, its line
or row and the column, so the stratified table (``eval/strata.py``) and the headlines
(``eval/headline.py``) only ever see numbers in range.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.io.strata_file import refuse_two_strata
from goldset_tui.io.tables import location, location_text, read_table, table_format
from goldset_tui.scalar import as_int

# The column names below are the contract with `goldset sample`, which writes these files: they
# are defined here once and the sampling code imports them.
INCLUSION = "inclusion_probability"
COUNT = "count"  # times the query was searched in the log (`goldset sample` writes it)
POPULATION = "population"
# Per stratum, written by `goldset sample` (``sampling.sample.design_effects``): the design
# effects that floor the two headlines' variances (``eval.headline``).
DEFF_SEARCH = "design_effect_per_search"
DEFF_QUERY = "design_effect_per_query"
# The stratum's head (queries searched at least head_count times, all drawn with one
# probability), its share of the stratum's traffic and the design effects of head and tail.
HEAD_COUNT = "head_count"
HEAD_SHARE = "head_share"
DEFF_HEAD = "design_effect_head"
DEFF_TAIL = "design_effect_tail"
DESIGN_COLUMNS = (DEFF_SEARCH, DEFF_QUERY, HEAD_COUNT, HEAD_SHARE, DEFF_HEAD, DEFF_TAIL)


def _numbers(df: pl.DataFrame, path: Path, column: str, ok: pl.Expr, wanted: str) -> pl.Series:
    """``column`` as floats; the first value that is not a number or fails ``ok`` is an
    InputError naming the file, its line or row, and the column."""
    raw = df.get_column(column)
    values = raw.cast(pl.Utf8).str.strip_chars().cast(pl.Float64, strict=False)
    bad = (
        pl.DataFrame({column: values})
        .select((pl.col(column).is_null() | pl.col(column).is_nan() | ~ok).fill_null(True))
        .to_series()
    )
    if bad.any():
        i = as_int(bad.arg_max())
        raise InputError(
            path,
            f"{column} {raw[i]!r} is not {wanted}",
            column=column,
            **location(table_format(path), i, path),
        )
    return values.alias(column)


def read_strata(path: str | Path) -> pl.DataFrame:
    """``query_id, stratum`` (text), exact duplicate rows dropped, file order kept, plus
    ``inclusion_probability`` (float in (0, 1]) when the file has that column: the probability the
    sampling design drew the query, for the design-weighted (Hajek) headline; and ``count`` (a
    number > 0: how often the query was searched in the log) when the file has it. With both, the
    traffic-weighted headline estimates the per-search rate (``eval.headline``).

    A query listed under two different strata is refused, naming both lines
    (``io.strata_file``): counted in both, it would change each stratum's n and mean.
    """
    p = Path(path)
    df = read_table(
        p,
        required=("query_id", "stratum"),
        non_empty=("query_id", "stratum"),
        string_columns=("query_id", "stratum"),
    )
    refuse_two_strata(df, p)
    columns = ["query_id", "stratum"]
    if INCLUSION in df.columns:
        # The contract with `goldset sample`: a probability, so 0 < p <= 1; a 0 would give an
        # infinite weight and a value above 1 is no probability at all.
        prob = pl.col(INCLUSION)
        df = df.with_columns(
            _numbers(df, p, INCLUSION, (prob > 0) & (prob <= 1), "a probability in (0, 1]")
        )
        columns.append(INCLUSION)
    if COUNT in df.columns:
        # A weight count / pi: 0 would drop a drawn query, a negative one is no count.
        n = pl.col(COUNT)
        df = df.with_columns(_numbers(df, p, COUNT, (n > 0) & n.is_finite(), "a count > 0"))
        columns.append(COUNT)
    return df.select(columns).unique(maintain_order=True)


def _parse_shares(raw: pl.Series) -> pl.Expr:
    text = raw.cast(pl.Utf8).str.strip_chars()
    percent = text.str.ends_with("%")
    number = text.str.strip_suffix("%").str.strip_chars().cast(pl.Float64, strict=False)
    return pl.when(percent).then(number / 100.0).otherwise(number).alias("share")


def read_traffic(path: str | Path) -> pl.DataFrame:
    """``stratum, share`` with share a fraction (``0.31``) or a percentage (``31%``), plus
    ``population`` (distinct queries of that stratum in the log, a whole number >= 1) when the
    file has that column: it gives the weighted interval its finite-population correction."""
    p = Path(path)
    df = read_table(
        p,
        required=("stratum", "share"),
        non_empty=("stratum", "share"),
        string_columns=("stratum",),
    )
    fmt = table_format(p)
    frame = pl.DataFrame({"stratum": df.get_column("stratum")}).with_columns(
        pl.select(_parse_shares(df.get_column("share"))).to_series()
    )
    bad = frame.get_column("share").is_null() | frame.get_column("share").is_nan()
    if bad.any():
        i = as_int(bad.arg_max())
        raise InputError(
            p,
            f"share {df.get_column('share')[i]!r} is not a number",
            column="share",
            **location(fmt, i, p),
        )
    negative = frame.get_column("share") < 0
    if negative.any():
        i = as_int(negative.arg_max())
        raise InputError(p, "share is negative", column="share", **location(fmt, i, p))
    # Point at the repeat (the line to delete), and say where the name first appeared.
    names = frame.get_column("stratum")
    repeat = ~names.is_first_distinct()
    if repeat.any():
        i = as_int(repeat.arg_max())
        name = names[i]
        first = int((names == name).arg_max())
        raise InputError(
            p,
            f"stratum {name!r} listed more than once (first on {location_text(fmt, first, p)})",
            column="stratum",
            **location(fmt, i, p),
        )
    if POPULATION in df.columns:
        n = pl.col(POPULATION)
        frame = frame.with_columns(
            _numbers(df, p, POPULATION, (n >= 1) & (n == n.floor()), "a whole number >= 1")
        )
    for column in DESIGN_COLUMNS:
        if column in df.columns:
            # Empty for a stratum the sample did not draw from; else a number >= 0.
            raw = df.get_column(column).cast(pl.Utf8).str.strip_chars().fill_null("")
            values = raw.replace("", None).cast(pl.Float64, strict=False)
            bad = (raw != "") & (values.is_null() | values.is_nan() | (values < 0)).fill_null(True)
            if bad.any():
                i = as_int(bad.arg_max())
                raise InputError(
                    p,
                    f"{column} {raw[i]!r} is not a number >= 0",
                    column=column,
                    **location(fmt, i, p),
                )
            frame = frame.with_columns(values.alias(column))
    return frame
