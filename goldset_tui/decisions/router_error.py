"""The router's error folded into the routed score (docs/report.md, "Routing with the router's
error").

A router that files a query under the wrong stratum sends it to that stratum's system. With
precision p_h for stratum h (of the queries the router files under h, the share truly of h), the
route of h carries misfiled queries from the other strata, which are then served by h's system
instead of their own. The model, in the report's population (stratum g has traffic share W_g,
the traffic file's):

- the route of h receives all of its own stratum's traffic W_h (a router built for a shape finds
  that shape: precision, not recall, is the question) and misfiled traffic
  I_h = W_h (1 - p_h) / p_h, so that its precision is W_h / (W_h + I_h) = p_h;
- the misfiled traffic comes from the other strata in proportion c_hg: the spot-check's
  confusion for h (the strata its misfiled queries truly belong to, among the golden set's), or,
  without one, the other strata's traffic shares (a misfiled query is more likely to come from
  a stratum with more traffic). The "other system" is therefore never drawn at random: it is
  the system of the route the query was filed under, which with three or more systems is
  whatever ``route_map`` gave that stratum; a misfiled query whose own stratum goes to the same
  system costs nothing;
- the route's realised mean: E_h = p_h m_{R(h)}(h) + (1 - p_h) sum_g c_hg m_{R(h)}(g);
- per query of stratum g, the expected routed score is the mixture
  u = (1 - f_g) v_{R(g)} + sum_h f_hg v_{R(h)}, f_hg = I_h c_hg / W_g, f_g = sum_h f_hg; the
  overall figure sum_g W_g mean_g(u) is the routed-perfect headline minus
  sum_h sum_g I_h c_hg (m_{R(g)}(g) - m_{R(h)}(g)).

Each figure gets the report's stratified interval (``cells``): the route's over the cells it
mixes, the overall one over the strata of u with the traffic shares. Both take the precision as
known; a spot-check of a few dozen queries per stratum leaves its own uncertainty, which the
JSON shows beside it (``precision_ci95``) but which the interval does not carry.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from goldset_tui.decisions.cells import Stats, method_of_values, mixture_estimate, stratum_stats
from goldset_tui.errors import InputError
from goldset_tui.eval.intervals import DEFAULT_CONFIDENCE, wilson_cc
from goldset_tui.eval.weighting import WeightedEstimate

GIVEN = "--precision"
SPOT_CHECK = "spot-check"
ASSUMED = "assumed 1"
BY_CONFUSION = "spot-check confusion"
BY_TRAFFIC = "traffic shares of the other strata"


@dataclass(frozen=True)
class Precision:
    """The router's precision for one stratum and where its misfiled queries come from."""

    stratum: str
    precision: float
    source: str  # GIVEN, SPOT_CHECK or ASSUMED
    destinations: dict[str, float]  # true stratum -> share of the misfiled (sums to 1, or empty)
    destinations_from: str | None  # BY_CONFUSION, BY_TRAFFIC; None when nothing is misfiled
    checked: int | None = None  # spot-check: queries checked under this stratum, and agreeing
    agree: int | None = None
    dropped: list[str] = field(default_factory=list)  # confusion strata not in the golden set

    def to_json(self) -> dict[str, Any]:
        ci = (
            wilson_cc(self.agree, self.checked) if self.checked and self.agree is not None else None
        )
        return {
            "stratum": self.stratum,
            "precision": self.precision,
            "source": self.source,
            "checked": self.checked,
            "agree": self.agree,
            "precision_ci95": list(ci) if ci else None,
            "misfiled_from": self.destinations,
            "misfiled_from_basis": self.destinations_from,
            "confusion_strata_not_in_golden_set": self.dropped,
        }


def parse_precision(items: dict[str, str]) -> dict[str, float]:
    """``--precision STRATUM=P`` values: P in (0, 1], written 0.97 or 97%."""
    out = {}
    for stratum, raw in items.items():
        text = raw.strip()
        try:
            value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            raise InputError(None, f"--precision {stratum}={raw}: not a number") from None
        if not (0.0 < value <= 1.0) or math.isnan(value):
            raise InputError(
                None, f"--precision {stratum}={raw}: a precision lies in (0, 1] (0.97 or 97%)"
            )
        out[stratum] = value
    return out


def precisions(
    strata: list[str],
    shares: dict[str, float],
    given: dict[str, float],
    confusion: dict[str, dict[str, int]] | None = None,
) -> list[Precision]:
    """One :class:`Precision` per stratum of the golden set: ``given`` wins, then the spot-check's
    ``confusion`` (assigned -> correct -> count), else 1 (said as assumed)."""
    for name in given:
        if name not in strata:
            raise InputError(None, f"--precision {name}=...: no stratum {name!r} in the golden set")
    out = []
    for h in strata:
        row = (confusion or {}).get(h, {})
        checked = sum(row.values())
        misfiled = {g: c for g, c in row.items() if g != h and c > 0}
        dropped = sorted(g for g in misfiled if g not in strata)
        kept = {g: c for g, c in misfiled.items() if g in strata}
        if h in given:
            p, source = given[h], GIVEN
        elif checked:
            p, source = row.get(h, 0) / checked, SPOT_CHECK
            if p == 0:
                raise InputError(
                    None,
                    f"spot-check: none of the {checked} queries filed under {h!r} belongs there; "
                    f"give --precision {h}=P",
                )
        else:
            p, source = 1.0, ASSUMED
        if p >= 1.0:
            dest: dict[str, float] = {}
            basis = None
        elif kept:
            counted = sum(kept.values())
            dest, basis = {g: c / counted for g, c in kept.items()}, BY_CONFUSION
        else:
            others = {g: shares.get(g, 0.0) for g in strata if g != h}
            total = sum(others.values())
            if total <= 0:
                raise InputError(None, f"--precision {h}: no other stratum with traffic to misfile")
            dest, basis = {g: w / total for g, w in others.items() if w > 0}, BY_TRAFFIC
        out.append(
            Precision(
                h,
                p,
                source,
                dest,
                basis,
                checked or None,
                row.get(h, 0) if checked else None,
                dropped,
            )
        )
    return out


@dataclass(frozen=True)
class Misrouting:
    """What the router's errors do: per stratum h the misfiled traffic I_h (a share of all
    traffic) and its flows, per route its realised mean with interval, per stratum the users'
    expected mean (u) with interval, and the overall figure."""

    misfiled: dict[str, float]  # h -> I_h
    flows: list[dict[str, Any]]  # filed_under, from_stratum, share, served_by, instead_of, cost
    route_means: dict[str, WeightedEstimate]  # h -> E_h
    stratum_means: dict[str, WeightedEstimate]  # g -> mean_g(u)
    overall: WeightedEstimate
    scores: pl.DataFrame  # system, query_id, value: u per query
    method: str  # the interval of the overall figure and of the strata's


def misrouting(
    scores: pl.DataFrame,
    strata: pl.DataFrame,
    shares: dict[str, float],
    routes: dict[str, str],
    precision: list[Precision],
    *,
    table_method: str,
    bounded: bool,
    name: str = "routed_with_errors",
    population: dict[str, float] | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Misrouting:
    """The router's errors on ``routes`` (stratum -> system), in the model of the module
    docstring. ``scores`` holds the single systems' per-query values."""
    by_stratum = strata.select("query_id", "stratum")
    joined = scores.join(by_stratum, on="query_id", how="inner")
    stats: dict[str, dict[str, Stats]] = {
        str(system): stratum_stats(part.select("stratum", "value"))
        for (system,), part in joined.partition_by("system", as_dict=True).items()
    }
    misfiled: dict[str, float] = {}
    outflow: dict[str, dict[str, float]] = {g: {} for g in routes}  # g -> h -> I_h c_hg
    for p in precision:
        w = shares.get(p.stratum, 0.0)
        extra = w * (1.0 - p.precision) / p.precision
        misfiled[p.stratum] = extra
        for g, c in p.destinations.items():
            if g in outflow and extra * c > 0:
                outflow[g][p.stratum] = extra * c
    for g, parts in outflow.items():
        total = sum(parts.values())
        if total > shares.get(g, 0.0) + 1e-12:
            raise InputError(
                None,
                f"the router's misfiled queries from {g!r} ({total:.4f} of the traffic) exceed "
                f"its share {shares.get(g, 0.0):.4f}: the precisions are too low for these shares",
            )
    flows = []
    for g, parts in outflow.items():
        for h, mass in parts.items():
            own, wrong = routes[g], routes[h]
            cost = stats[own][g][1] - stats[wrong][g][1]
            flows.append(
                {
                    "filed_under": h,
                    "from_stratum": g,
                    "share": mass,
                    "served_by": wrong,
                    "instead_of": own,
                    "points_lost": cost,
                    "headline_points_lost": mass * cost,
                }
            )
    route_means = {
        p.stratum: mixture_estimate(
            {p.stratum: p.precision}
            | {g: (1.0 - p.precision) * c for g, c in p.destinations.items()},
            stats[routes[p.stratum]],
            method=table_method,
            population=population,
            confidence=confidence,
        )
        for p in precision
        if p.stratum in routes
    }
    u = _mixture_scores(joined, shares, routes, outflow, name)
    if bounded:  # 1 - f + f can come out a hair above 1 in floating point
        u = u.with_columns(pl.col("value").clip(0.0, 1.0))
    values = u.join(by_stratum, on="query_id").select("stratum", "value")
    method = method_of_values(values.get_column("value"), table_method, bounded=bounded)
    u_stats = stratum_stats(values)
    overall = mixture_estimate(
        {g: shares.get(g, 0.0) for g in routes},
        u_stats,
        method=method,
        population=population,
        confidence=confidence,
    )
    per_stratum = {
        g: mixture_estimate({g: 1.0}, u_stats, method=method, confidence=confidence)
        for g in routes
        if g in u_stats
    }
    return Misrouting(misfiled, flows, route_means, per_stratum, overall, u, method)


def _mixture_scores(
    joined: pl.DataFrame,
    shares: dict[str, float],
    routes: dict[str, str],
    outflow: dict[str, dict[str, float]],
    name: str,
) -> pl.DataFrame:
    """u per query: its stratum's system, less the share misfiled, plus each receiving route's
    system at its share (f_hg = I_h c_hg / W_g)."""
    rows = []
    for g, own in routes.items():
        weight = shares.get(g, 0.0)
        coefs: dict[str, float] = {own: 1.0}
        for h, mass in outflow[g].items():
            f = mass / weight if weight > 0 else 0.0
            coefs[own] -= f
            coefs[routes[h]] = coefs.get(routes[h], 0.0) + f
        rows += [(g, s, c) for s, c in coefs.items()]
    coef = pl.DataFrame(
        rows, schema={"stratum": pl.Utf8, "system": pl.Utf8, "coef": pl.Float64}, orient="row"
    )
    return (
        joined.join(coef, on=["stratum", "system"], how="inner")
        .group_by("query_id", maintain_order=True)
        .agg(value=(pl.col("value") * pl.col("coef")).sum())
        .select(pl.lit(name).alias("system"), "query_id", "value")
    )
