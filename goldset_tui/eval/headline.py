"""The two weighted headlines as estimates of named population quantities, with their intervals.

A search log holds N distinct queries; query i was searched c_i times and a system answers it
with value y_i (1 or 0 for Success@k). Two numbers describe the system on that log:

- the **per-search rate** (per occurrence): sum(c_i y_i) / sum(c_i), what users experience,
  the share of searches answered. Per stratum h it is R_h = sum_h(c y) / sum_h(c), and the
  whole is sum_h W_h R_h with W_h the stratum's traffic share;
- the **per-distinct-query mean**: sum(y_i) / N, the share of distinct queries answered.

``goldset sample`` draws k_h queries of stratum h without replacement with probability growing
with min(c, 50), and records each drawn query's inclusion probability pi_i and count c_i. From
that sample (docs/report.md works an example by hand):

- **traffic-weighted** (:func:`per_search_estimates`): within each stratum the Hajek ratio
  R^_h = sum(w y) / sum(w) with w_i = c_i / pi_i, then sum_h W_h R^_h. The plain stratum mean
  the report gave before weights every drawn query alike, so it estimates neither number when
  the draw favours the head (it averaged 0.44 where the per-search rate was 0.61, table in
  docs/report.md). The sampler caps the weight at 50, so a stratum's head (every query searched
  50 times or more) is drawn with one small probability while it carries much of the traffic:
  one ratio over the stratum then gives the head the weight of the heads that happened to be
  drawn, and ran 0.02-0.04 low. `goldset sample` writes the head's share of each stratum's
  traffic (``head_share``, with ``head_count``), so the head and the tail are estimated as two
  ratios and weighted by their known shares (post-stratification), which halved that bias
  (bench/interval_coverage.py ``--only headline``). A stratum whose head or tail carries
  traffic but had no query drawn stays one ratio;
- **design-weighted** (:func:`per_query_estimates`): sum(w y) / sum(w) over the whole sample with
  w_i = 1 / pi_i, the distinct-query mean.

Both are ratio estimators and get the same interval. Per cell h (a stratum, or its head or
tail), the linearised variance of
the ratio (the Taylor form R's ``survey`` computes: z_i = w_i (y_i - R^) / sum(w), with-
replacement variance n_h / (n_h - 1) sum (z_i - zbar_h)^2) carries the design effect of unequal
weights. But it is small exactly when the heavy queries were not drawn (then the estimate is low
too) and 0 when every drawn query of a stratum scores the same, so it is floored by the variance
the design implies for a stratum of that rate: D_h phi_h r_h (1 - r_h) / n_h. D_h is Kish's design
effect of the weights with the finite-population factor, k_h sum((1 - pi) c^2 / pi) / (sum c)^2
over **every** query of the cell (c = 1 for the distinct-query mean; k_h the stratum's drawn
queries), which `goldset sample` computes from the log and writes to the traffic file
(``design_effect_per_search``, ``design_effect_per_query``, ``design_effect_head``,
``design_effect_tail``); without them, its estimate from the drawn queries,
n_h sum((1 - pi) w^2) / (sum w)^2. A head of one drawn query has no variance of its own and the
floor stands in for it. A query drawn for certain adds nothing (1 - pi = 0). r_h is the
stratum's rate pulled in by z^2/2 pseudo-queries each side (Agresti-Coull: 7 of 7 keeps a
variance) and phi_h the graded measure's dispersion (``intervals.dispersion``; 1 for a 0/1
measure). The interval is Wilson's form at the estimate with the effective number of queries
r (1 - r) / var and a Student t quantile at n - H degrees of freedom, inside the measure's range.
Chosen by the coverage study (bench/interval_coverage.py ``--only headline``, docs/report.md): on
goldset's own samples of logs where head queries succeed more often, the plain linearised t
interval covered 73-93% of the per-search rate; this one 0.99 or more on the 12,500-query logs,
0.92 on a 3,000-query log whose biggest head query fails (docs/report.md says why). It is
conservative where the head succeeds 90% of the time, because the floor assumes every query of
a cell varies at the cell's rate while the heavy head queries in truth vary less.

A stratum taken in full (every pi = 1) has no sampling error; a stratum of one drawn query has
no variance (interval nan, as the ``survey`` package stops there too).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import polars as pl

from goldset_tui.eval.intervals import (
    DEFAULT_CONFIDENCE,
    at_bound,
    dispersion,
    wilson_form,
    z_value,
)
from goldset_tui.eval.t_distribution import t_quantile
from goldset_tui.eval.weighting import WeightedEstimate
from goldset_tui.io.strata_and_traffic import (
    COUNT,
    DEFF_HEAD,
    DEFF_QUERY,
    DEFF_SEARCH,
    DEFF_TAIL,
    HEAD_COUNT,
    HEAD_SHARE,
    INCLUSION,
)

PER_SEARCH = "per_search"
PER_QUERY = "per_query"
STRATUM_MEANS = "stratum_means"
UNWEIGHTED = "unweighted"


def estimand_text(kind: str, metric: str, *, binary: bool) -> str:
    """The population quantity a headline estimates, in plain words."""
    if kind == PER_SEARCH:
        return "share of searches answered" if binary else f"mean {metric} per search"
    if kind == PER_QUERY:
        return (
            "share of distinct queries answered" if binary else f"mean {metric} per distinct query"
        )
    if kind == UNWEIGHTED:
        return (
            "plain mean over the golden set's queries: it describes the set as drawn, not the log"
        )
    # A strata file without counts and inclusion probabilities: only the strata's plain means.
    return (
        "traffic-share-weighted mean of the strata's plain means: the share of searches answered "
        "only if each stratum was sampled in proportion to its traffic (the strata file lacks "
        "count or inclusion_probability, which `goldset sample` writes)"
        if binary
        else f"traffic-share-weighted mean of the strata's plain {metric} means: the mean per "
        "search only if each stratum was sampled in proportion to its traffic (the strata file "
        "lacks count or inclusion_probability, which `goldset sample` writes)"
    )


def estimand_brief(kind: str, *, binary: bool) -> str:
    """:func:`estimand_text` short enough for a line under the report screen's table."""
    if kind == PER_SEARCH:
        return "share of searches answered" if binary else "mean per search"
    if kind == PER_QUERY:
        return "share of distinct queries answered" if binary else "mean per distinct query"
    return "stratum means by share (per search only if sampled in proportion to traffic)"


@dataclass(frozen=True)
class RatioCell:
    """One cell of a ratio estimate (a stratum, or the head or tail of one): ``share`` its
    weight in the headline, ``n`` drawn queries, ``mean`` its weighted mean (on [0, 1] when
    bounded), ``variance`` the linearised variance of that mean, ``floor`` the variance per unit
    of phi r (1 - r) the design implies (design effect / the stratum's drawn queries), ``phi`` the
    values' dispersion, ``census`` every pi = 1, ``lone`` a cell of one query that still has an
    interval (the head of a stratum: its floor stands in for the variance one query cannot show)."""

    share: float
    n: int
    mean: float
    variance: float
    floor: float
    phi: float
    census: bool
    lone: bool = False


def _cell_stats(frame: pl.DataFrame, centre: pl.Expr | None, key: str = "stratum") -> pl.DataFrame:
    """Per ``key`` of ``frame`` (key, value, w, pi): n, sums, the weighted mean, the linearised
    sum of squares (about ``centre``, each group's own mean when None) and the pieces of the
    floor."""
    sw = pl.col("w").sum()
    mean_h = (pl.col("w") * pl.col("value")).sum() / sw
    per = frame.with_columns(
        _c=(mean_h.over(key) if centre is None else centre),
    ).with_columns(_z=pl.col("w") * (pl.col("value") - pl.col("_c")))
    return per.group_by(key, maintain_order=True).agg(
        n=pl.len(),
        sw=sw,
        mean=mean_h,
        zz=((pl.col("_z") - pl.col("_z").mean()) ** 2).sum(),
        sw2f=((1.0 - pl.col("pi")) * pl.col("w") ** 2).sum(),
        census=(pl.col("pi") >= 1.0).all(),
        raw_mean=pl.col("value").mean(),
        raw_var=pl.col("value").var(ddof=1),
        at_bounds=at_bound(pl.col("value")).mean(),
    )


def _cell(
    row: dict[str, Any],
    share: float,
    scale: float,
    binary: bool,
    deff: float | None,
    drawn: int | None = None,
) -> RatioCell:
    """A :class:`RatioCell` from one row of :func:`_cell_stats`; ``scale`` divides the
    linearised sum of squares (sum(w)^2 of the cell, or of the whole sample for the combined
    ratio, where the stratum's term is then divided by its share squared). ``deff``: the design
    effect `goldset sample` computed from the whole stratum (or cell), relative to ``drawn``
    queries (the stratum's; default the cell's); None: the sample's own estimate."""
    n = int(row["n"])
    sw = float(row["sw"])
    zz = float(row["zz"])
    variance = n / (n - 1) * zz / scale if n > 1 else math.nan
    raw_var = row["raw_var"]
    phi = (
        1.0
        if binary
        else dispersion(
            n,
            float(row["raw_mean"]),
            0.0 if raw_var is None else float(raw_var),
            float(row["at_bounds"]),
        )
    )
    floor = (
        float(row["sw2f"]) / (sw * sw)  # the sample's design effect over n, n cancelled
        if deff is None or math.isnan(deff)
        else deff / (drawn or n)
    )
    return RatioCell(
        share=share,
        n=n,
        mean=float(row["mean"]),
        variance=variance,
        floor=floor,
        phi=phi,
        census=bool(row["census"]),
    )


def ratio_interval(
    cells: list[RatioCell],
    confidence: float = DEFAULT_CONFIDENCE,
    *,
    bounded: bool = True,
) -> WeightedEstimate:
    """sum(share x mean) with its interval (module docstring). ``bounded``: the means lie in
    [0, 1] and so does the interval (scaled by the shares' sum when it is not 1); otherwise the
    interval is mean +- t x se."""
    z = z_value(confidence)
    mean = sum(c.share * c.mean for c in cells)
    total = sum(c.share for c in cells)
    nan = WeightedEstimate(mean=mean, se=math.nan, df=math.nan, ci=(math.nan, math.nan))
    if not cells or total <= 0.0 or any(c.n < 2 and not (c.census or c.lone) for c in cells):
        return nan
    var = 0.0
    linear = 0.0
    centre = 0.0
    for c in cells:
        if c.census:
            continue
        w = c.share / total
        r = (c.n * c.mean + z * z / 2.0) / (c.n + z * z)
        floor = c.floor * c.phi * r * (1.0 - r) if bounded else 0.0
        variance = 0.0 if math.isnan(c.variance) else c.variance  # a lone cell: the floor alone
        var += w * w * max(variance, floor)
        linear += c.share * c.share * variance
        centre += w * r
    if var <= 0.0:
        return WeightedEstimate(
            mean=mean, se=0.0, df=math.inf, ci=(mean, mean), n_effective=math.inf
        )
    n_all = sum(c.n for c in cells)
    df = max(1.0, float(n_all - len(cells)))
    q = t_quantile(0.5 + confidence / 2.0, math.floor(df * 10.0) / 10.0)
    se = math.sqrt(linear)  # the survey's linearised standard error, as printed beside it
    if not bounded:
        half = q * math.sqrt(var) * total
        return WeightedEstimate(mean=mean, se=se, df=df, ci=(mean - half, mean + half))
    n_eff = centre * (1.0 - centre) / var
    lo, hi = wilson_form(mean / total, n_eff, q)
    # Shares that sum to 1 in floating point (1.0000000000000002) must not carry the upper end
    # past the measure's range.
    top = 1.0 if abs(total - 1.0) < 1e-9 else total
    return WeightedEstimate(
        mean=mean,
        se=se,
        df=df,
        ci=(max(0.0, lo * total), min(top, hi * total)),
        n_effective=n_eff,
    )


def _column(traffic: pl.DataFrame, column: str) -> dict[str, float]:
    """Per stratum, the traffic file's ``column`` where given."""
    if column not in traffic.columns:
        return {}
    return {str(s): float(v) for s, v in traffic.select("stratum", column).drop_nulls().iter_rows()}


def design_effects_of(traffic: pl.DataFrame | None) -> dict[str, float] | None:
    """The traffic file's per-query design effects, or None."""
    return _column(traffic, DEFF_QUERY) if traffic is not None else None


def _prepared(
    scores: pl.DataFrame, strata: pl.DataFrame, weight: pl.Expr, bounds: tuple[float, float] | None
) -> pl.DataFrame:
    """scores joined to their stratum, inclusion probability and weight; values carried to
    [0, 1] when ``bounds`` are given."""
    low, high = bounds or (0.0, 1.0)
    joined = scores.join(
        strata.unique("query_id", keep="first", maintain_order=True), on="query_id", how="inner"
    )
    return joined.with_columns(
        w=weight,
        pi=pl.col(INCLUSION),
        value=(pl.col("value") - low) / (high - low),
    ).select("system", "stratum", "value", "w", "pi", *([COUNT] if COUNT in joined.columns else []))


def _back(est: WeightedEstimate, bounds: tuple[float, float] | None) -> WeightedEstimate:
    low, high = bounds or (0.0, 1.0)
    span = high - low
    lo, hi = est.ci
    return WeightedEstimate(
        mean=low + span * est.mean,
        se=span * est.se,
        df=est.df,
        ci=(low + span * lo, low + span * hi),
        n_effective=est.n_effective,
    )


def per_search_estimates(
    scores: pl.DataFrame,
    strata: pl.DataFrame,
    traffic: pl.DataFrame,
    *,
    bounds: tuple[float, float] | None = (0.0, 1.0),
    binary: bool = False,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, WeightedEstimate]:
    """Per system, the per-search (per-occurrence) rate: sum_h W_h R^_h, R^_h the Hajek ratio
    with weights count / inclusion_probability (``strata``: query_id, stratum, count,
    inclusion_probability; ``traffic``: stratum, share). With the traffic file's ``head_count``
    and ``head_share`` each stratum is split into its head and tail (module docstring) when both
    were drawn. Strata without a share are left out, as the closure checks report them.
    ``bounds`` None: a measure with no known range."""
    shares = dict(traffic.select("stratum", "share").iter_rows())
    info = {
        c: _column(traffic, c) for c in (DEFF_SEARCH, HEAD_COUNT, HEAD_SHARE, DEFF_HEAD, DEFF_TAIL)
    }
    frame = _prepared(scores, strata, pl.col(COUNT) / pl.col(INCLUSION), bounds)
    limit = info[HEAD_COUNT]
    frame = frame.with_columns(
        head=pl.col(COUNT) >= pl.col("stratum").replace_strict(limit, default=math.inf)
    )
    out: dict[str, WeightedEstimate] = {}
    for (system,), part in frame.partition_by("system", as_dict=True, maintain_order=True).items():
        cells: list[RatioCell] = []
        whole = {r["stratum"]: r for r in _cell_stats(part, None).iter_rows(named=True)}
        split = {
            (r["stratum"], r["head"]): r
            for r in _cell_stats(
                part.with_columns(cell=pl.struct("stratum", "head")), None, key="cell"
            )
            .unnest("cell")
            .iter_rows(named=True)
        }
        for stratum, row in whole.items():
            if stratum not in shares:
                continue
            share = float(shares[stratum])
            cells += _head_and_tail(stratum, share, row, split, info, binary)
        out[str(system)] = _back(
            ratio_interval(cells, confidence, bounded=bounds is not None), bounds
        )
    return out


def _head_and_tail(
    stratum: str,
    share: float,
    row: dict[str, Any],
    split: dict[tuple[str, bool], dict[str, Any]],
    info: dict[str, dict[str, float]],
    binary: bool,
) -> list[RatioCell]:
    """The stratum as two cells, its head and its tail, each carrying its known share of the
    stratum's traffic (post-stratification), when both were drawn; else as one cell."""
    head_share = info[HEAD_SHARE].get(stratum)
    whole = [_cell(row, share, float(row["sw"]) ** 2, binary, info[DEFF_SEARCH].get(stratum))]
    if head_share is None:
        return whole
    parts = [(True, head_share, info[DEFF_HEAD]), (False, 1.0 - head_share, info[DEFF_TAIL])]
    present = [(split.get((stratum, h)), a, d.get(stratum)) for h, a, d in parts if a > 0.0]
    cells = []
    for r, a, d in present:
        if r is None:
            return whole  # a part carrying traffic went undrawn: the stratum as one ratio
        cell = _cell(r, share * a, float(r["sw"]) ** 2, binary, d, int(row["n"]))
        cells.append(replace(cell, lone=True))
    return cells


def per_query_estimates(
    scores: pl.DataFrame,
    strata: pl.DataFrame,
    *,
    bounds: tuple[float, float] | None = (0.0, 1.0),
    binary: bool = False,
    confidence: float = DEFAULT_CONFIDENCE,
    design_effects: dict[str, float] | None = None,
) -> dict[str, WeightedEstimate]:
    """Per system, the distinct-query mean: sum(y / pi) / sum(1 / pi) over every drawn query
    (``strata``: query_id, stratum, inclusion_probability), its interval over the sampling
    strata, each weighted by its estimated share of the log's distinct queries. ``design_effects``:
    per stratum, the traffic file's ``design_effect_per_query`` (``goldset sample`` writes it)."""
    frame = _prepared(scores, strata, 1.0 / pl.col(INCLUSION), bounds)
    out: dict[str, WeightedEstimate] = {}
    for (system,), part in frame.partition_by("system", as_dict=True, maintain_order=True).items():
        total = float(part.get_column("w").sum())
        overall = float((part.get_column("w") * part.get_column("value")).sum()) / total
        cells = []
        for row in _cell_stats(part, pl.lit(overall)).iter_rows(named=True):
            share = float(row["sw"]) / total
            # The combined ratio's linearised term for this stratum, sum(z^2) / sum(w)^2 over the
            # whole sample, is share^2 x the variance of the stratum's mean.
            deff = (design_effects or {}).get(row["stratum"])
            cells.append(_cell(row, share, (total * share) ** 2, binary, deff))
        out[str(system)] = _back(
            ratio_interval(cells, confidence, bounded=bounds is not None), bounds
        )
    return out


def per_search_difference(
    scores: pl.DataFrame,
    strata: pl.DataFrame,
    traffic: pl.DataFrame,
    a: str,
    b: str,
    *,
    bounded: bool = True,
    confidence: float = DEFAULT_CONFIDENCE,
) -> WeightedEstimate:
    """The per-search rate of a minus that of b, paired per query (a query missing for one
    system counts 0 for it): the same estimator on d = a - b, whose range is [-1, 1] for a
    measure in [0, 1] (no range otherwise)."""
    wide = (
        scores.filter(pl.col("system").is_in([a, b]))
        .pivot(on="system", index="query_id", values="value")
        .fill_null(0.0)
        .select("query_id", system=pl.lit("d"), value=pl.col(a) - pl.col(b))
    )
    bounds = (-1.0, 1.0) if bounded else None
    return per_search_estimates(wide, strata, traffic, bounds=bounds, confidence=confidence)["d"]


def hajek_estimates(
    scores: pl.DataFrame,
    probabilities: pl.DataFrame,
    strata: pl.DataFrame | None = None,
    *,
    bounds: tuple[float, float] | None = (0.0, 1.0),
    binary: bool = False,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, WeightedEstimate]:
    """:func:`per_query_estimates` from a frame of ``query_id, inclusion_probability`` and
    optional ``query_id, stratum`` (without it the whole set is one sampling stratum)."""
    frame = probabilities.select("query_id", INCLUSION).unique("query_id", maintain_order=True)
    if strata is None:
        frame = frame.with_columns(stratum=pl.lit(""))
    else:
        frame = frame.join(
            strata.select("query_id", "stratum").unique("query_id", maintain_order=True),
            on="query_id",
            how="left",
        ).with_columns(pl.col("stratum").fill_null(""))
    return per_query_estimates(scores, frame, bounds=bounds, binary=binary, confidence=confidence)
