"""Position bias: does a labeller's grade drift with where a document was shown, or with how long
they had been judging without a break?

goldset shows each labeller a query's candidates in an order that is random per (labeller, query)
(``judging.blind_order``) and records the shown position with every judgment. Within one query,
then, the documents a labeller saw first and last are alike on average: a trend of grade with
position is the labeller's (fatigue, anchoring on the first documents), not the documents'.

For each labeller, over the grades in force (``store.frames.latest``), ``position_bias`` gives:

- ``by_position``: judgments grouped by shown position (1-based) into bands 1-5, 6-10, 11-20, 21+,
  each with n, the mean grade, the relevant rate (grade >= ``relevant_from``) and ``vs_query``, the
  mean of (grade - this labeller's mean grade in that query). Raw means by band mix labeller and
  queries: only long pools reach position 21, and their documents may be less relevant overall;
  ``vs_query`` takes each query's level out.
- ``position_trend``: the within-query change of grade, and of the relevant rate, per 10
  positions, each with the two-sided p-value of Mantel's (1963) test for linear trend stratified by
  query. That test is the normal approximation to a permutation test that reshuffles the shown
  positions within each query, which is exactly how the order was drawn, so it assumes nothing
  about how grades are distributed; for the relevant rate it is the stratified Cochran-Armitage
  test. Comparing positions only within a query keeps easy and hard queries from posing as a trend.
- ``by_time`` and ``time_trend``: the same with minutes into the sitting instead of position. A
  sitting ends when the labeller's journal is idle for more than ``gap_minutes`` (default 30:
  longer than a pause to read a hard document, shorter than a meeting or lunch). Time is compared
  within a query too: across queries it is confounded with which queries came first.

Contract: plain dicts with fixed keys (``null`` where a figure is undefined: fewer than two
judgments in any query, or no spread in grade or position; and every trend figure ``null``, with
``too_few`` true, when fewer than ``MIN_TREND_JUDGMENTS`` (30) judgments sit in queries judged at
least twice; every time-trend figure ``null``, with ``too_short`` true, when those judgments
span less than ``MIN_TREND_MINUTES`` (10) minutes into a sitting); one labeller is enough. Judgments with
no recorded position, or a time that does not parse, are left out of that part; grades imported
from a file (``goldset import``: no seconds spent) have no sitting and are left out of the time. ``None`` from
``position_bias_of`` when the source holds no positions (qrels files).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import polars as pl

from goldset_tui.model import GradeScale
from goldset_tui.scalar import as_float, as_int

if TYPE_CHECKING:
    from goldset_tui.agreement.sources import AgreementData

POSITION_BANDS: tuple[tuple[str, int, int | None], ...] = (
    ("1-5", 1, 5),
    ("6-10", 6, 10),
    ("11-20", 11, 20),
    ("21+", 21, None),
)
# Minutes into the sitting: [low, high).
TIME_BANDS: tuple[tuple[str, float, float | None], ...] = (
    ("0-15 min", 0.0, 15.0),
    ("15-30 min", 15.0, 30.0),
    ("30-60 min", 30.0, 60.0),
    ("60+ min", 60.0, None),
)
DEFAULT_GAP_MINUTES = 30.0
_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S%.f%#z"


def trend(frame: pl.DataFrame, score: str, response: str, per: float = 10.0) -> dict[str, Any]:
    """Within-query linear trend of ``response`` with ``score`` (columns of ``frame``, grouped by
    ``query_id``): the slope per ``per`` units of score, Mantel's z and its two-sided p-value.

    Per query s: Sxy = sum (x - mean x)(y - mean y), Sxx, Syy likewise. Under reshuffling within
    queries, sum_s Sxy has mean 0 and variance sum_s Sxx * Syy / (n_s - 1) (Mantel 1963), so
    z = sum Sxy / sqrt(that); the slope is sum Sxy / sum Sxx (the fixed-effects slope).
    """
    parts = (
        frame.select(
            "query_id", x=pl.col(score).cast(pl.Float64), y=pl.col(response).cast(pl.Float64)
        )
        .with_columns(
            dx=pl.col("x") - pl.col("x").mean().over("query_id"),
            dy=pl.col("y") - pl.col("y").mean().over("query_id"),
        )
        .group_by("query_id")
        .agg(
            n=pl.len(),
            sxy=(pl.col("dx") * pl.col("dy")).sum(),
            sxx=(pl.col("dx") ** 2).sum(),
            syy=(pl.col("dy") ** 2).sum(),
        )
        .filter(pl.col("n") >= 2)
    )
    sxy = as_float(parts.get_column("sxy").sum()) if parts.height else 0.0
    sxx = as_float(parts.get_column("sxx").sum()) if parts.height else 0.0
    variance = (
        as_float((parts["sxx"] * parts["syy"] / (parts["n"] - 1)).sum()) if parts.height else 0.0
    )
    z = sxy / math.sqrt(variance) if variance > 0 else None
    return {
        "slope": sxy / sxx * per if sxx > 0 else None,
        "z": z,
        "p_value": math.erfc(abs(z) / math.sqrt(2)) if z is not None else None,
    }


def bands(
    frame: pl.DataFrame, score: str, edges: tuple[tuple[str, Any, Any], ...]
) -> list[dict[str, Any]]:
    """n, mean grade, relevant rate and mean (grade - query mean) per band of ``score``."""
    out = []
    for label, low, high in edges:
        inside = pl.col(score) >= low
        if high is not None:
            # Position bands are closed ("6-10"); time bands are [low, high).
            inside &= pl.col(score) <= high if isinstance(high, int) else pl.col(score) < high
        part = frame.filter(inside)
        n = part.height
        out.append(
            {
                "band": label,
                "n": n,
                "mean_grade": as_float(part["grade"].mean()) if n else None,
                "relevant_rate": as_float(part["relevant"].mean()) if n else None,
                "vs_query": as_float(part["vs_query"].mean()) if n else None,
            }
        )
    return out


def sitting_minutes(history: pl.DataFrame, gap_minutes: float) -> pl.DataFrame:
    """``labeller, seq, minutes, sitting`` for every event whose time parses: minutes since the
    start of its sitting, a sitting ending where the labeller was idle more than ``gap_minutes``."""
    timed = (
        history.select(
            "labeller",
            "seq",
            t=pl.col("time").str.to_datetime(_TIME_FORMAT, time_zone="UTC", strict=False),
        )
        .drop_nulls("t")
        .sort("labeller", "t", "seq")
    )
    gap = pl.col("t").diff().over("labeller").dt.total_milliseconds() / 60_000
    return (
        timed.with_columns(sitting=(gap.fill_null(0) > gap_minutes).cum_sum().over("labeller"))
        .with_columns(
            minutes=(
                pl.col("t") - pl.col("t").min().over("labeller", "sitting")
            ).dt.total_milliseconds()
            / 60_000
        )
        .select("labeller", "seq", "minutes", "sitting")
    )


def position_bias(
    judgments: pl.DataFrame,
    scale: GradeScale,
    *,
    history: pl.DataFrame | None = None,
    relevant_from: int | None = None,
    gap_minutes: float = DEFAULT_GAP_MINUTES,
) -> list[dict[str, Any]]:
    """Per labeller (sorted by name), the figures the module docstring lists.

    ``judgments``: the grades in force (``labeller, query_id, doc_id, grade, time, position, seq``);
    ``history``: every event of the store, for the sittings (default: ``judgments`` alone).
    """
    threshold = scale.min + 1 if relevant_from is None else relevant_from
    graded = judgments.filter(pl.col("grade").is_not_null()).with_columns(
        relevant=(pl.col("grade") >= threshold).cast(pl.Int64)
    )
    events = history if history is not None else judgments
    if {"kind", "seconds"} <= set(events.columns):  # imported grades (no seconds): no sitting
        events = events.filter(
            ~(pl.col("kind").is_in(["judge", "repeat"]) & pl.col("seconds").is_null())
        )
    minutes = sitting_minutes(events, gap_minutes)
    out = []
    for labeller in sorted(graded.get_column("labeller").unique().to_list()):
        mine = graded.filter(pl.col("labeller") == labeller)
        shown = (
            mine.filter(pl.col("position").is_not_null())
            .with_columns(shown=pl.col("position") + 1)
            .with_columns(vs_query=pl.col("grade") - pl.col("grade").mean().over("query_id"))
        )
        timed = mine.join(
            minutes.filter(pl.col("labeller") == labeller), on=["labeller", "seq"]
        ).with_columns(vs_query=pl.col("grade") - pl.col("grade").mean().over("query_id"))
        mine_minutes = minutes.filter(pl.col("labeller") == labeller)
        out.append(
            {
                "labeller": labeller,
                "n": mine.height,
                "relevant_from": threshold,
                "by_position": bands(shown, "shown", POSITION_BANDS),
                "position_trend": trend_pair(shown, "shown"),
                "gap_minutes": gap_minutes,
                "sittings": as_int(mine_minutes["sitting"].max()) + 1 if mine_minutes.height else 0,
                "by_time": bands(timed, "minutes", TIME_BANDS),
                "time_trend": trend_pair(timed, "minutes", min_span=MIN_TREND_MINUTES),
            }
        )
    return out


# A trend needs this many judgments in queries judged at least twice (only those compare
# positions). With three, one grade moves the slope by whole grades per 10 positions ("+15 per 10
# positions" was printed from three judgments) and Mantel's normal approximation is no guide to
# the permutation p-value it stands for; 30 is the usual floor for a normal approximation to a
# sum, and a labeller passes it after two or three queries of a normal pool.
MIN_TREND_JUDGMENTS = 30
# A time trend is quoted per 10 minutes, so the judgments it is read from must cover at least
# 10 minutes into a sitting: forty judgments in one minute printed "-37.52 per 10 minutes", a
# slope measured over one minute and stretched ten times past the data, and fatigue (what the
# trend is for) does not show in a minute anyway. Below the span: no trend, and the report says
# why.
MIN_TREND_MINUTES = 10.0


def trend_pair(frame: pl.DataFrame, score: str, *, min_span: float | None = None) -> dict[str, Any]:
    """The trend of the grade and of the relevant rate, per 10 positions or 10 minutes; every
    figure ``None`` and ``too_few`` true below ``MIN_TREND_JUDGMENTS`` judgments, or
    ``too_short`` true when the judgments compared span less than ``min_span`` of ``score``
    (``span``: the highest minus the lowest, among the judgments in queries judged twice)."""
    within = frame.filter(pl.len().over("query_id") >= 2)
    too_few = within.height < MIN_TREND_JUDGMENTS
    values = within.get_column(score).cast(pl.Float64) if within.height else None
    span = as_float(values.max()) - as_float(values.min()) if values is not None else 0.0
    too_short = min_span is not None and span < min_span
    grade = trend(frame, score, "grade")
    relevant = trend(frame, score, "relevant")
    none = too_few or too_short
    return {
        "queries": within.get_column("query_id").n_unique(),
        "judgments": within.height,
        "min_judgments": MIN_TREND_JUDGMENTS,
        "too_few": too_few,
        "span": span,
        "min_span": min_span,
        "too_short": too_short,
        "grade_per_10": None if none else grade["slope"],
        "grade_p_value": None if none else grade["p_value"],
        "relevant_per_10": None if none else relevant["slope"],
        "relevant_p_value": None if none else relevant["p_value"],
    }


def position_bias_of(
    data: AgreementData,
    *,
    relevant_from: int | None = None,
    gap_minutes: float = DEFAULT_GAP_MINUTES,
) -> list[dict[str, Any]] | None:
    """From an ``AgreementData``: ``None`` when no judgment in it records a shown position (qrels
    files never do)."""
    from goldset_tui.store.frames import latest

    history = data.history
    if history is None or history.get_column("position").drop_nulls().len() == 0:
        return None
    return position_bias(
        latest(history),
        data.scale,
        history=history,
        relevant_from=relevant_from,
        gap_minutes=gap_minutes,
    )
