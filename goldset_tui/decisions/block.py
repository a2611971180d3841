"""The decision block: every option side by side, per stratum and overall, in points and in
queries (docs/report.md, "Decisions: route, fuse or keep both").

The options: each single system, the fused run the report already computes, the routed run
(every stratum to its system, the router never wrong), the routed run with the router's errors
(``router_error``), and the oracle (each query's best single system: a ceiling). Each carries,
per stratum, its mean with the table's interval and, overall, the traffic-weighted mean of the
strata's means with the report's stratified interval (the same estimator as the report's
``weighted_mean`` of a hand-made strata file, so a system's row here is that headline).

Points of different denominators do not compare: three points on a stratum of 54 queries is
under two queries, eighteen on 96 is over seventeen. So every option is also set against a
baseline (the best single system by the weighted headline, unless named) in queries: per
stratum the difference times the stratum's queries in the golden set (``set_queries``) and
times its traffic share per ``per`` searches (``per_n``), and overall the searches gained and
lost per ``per`` searches, apart, before they net out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from goldset_tui.decisions.cells import mixture_estimate, stratum_stats
from goldset_tui.decisions.router_error import Misrouting, Precision, misrouting
from goldset_tui.decisions.routing import (
    ORACLE,
    ROUTED,
    Routing,
    oracle_scores,
    route_map,
    routed_scores,
    stratum_means,
)
from goldset_tui.eval.intervals import DEFAULT_CONFIDENCE, interval_from
from goldset_tui.eval.weighting import weighted_difference

ROUTED_WITH_ERRORS = "routed_with_errors"
PER_N = 1000  # searches the query counts are given per


@dataclass
class DecisionBlock:
    """The block as data; ``to_json`` gives the keys docs/report.md lists."""

    metric: str
    estimand: str
    per: int
    baseline: str
    strata: list[str]
    shares: dict[str, float]
    routes: dict[str, str]
    routing: Routing
    precision: list[Precision]
    options: list[dict[str, Any]]
    misrouting: Misrouting
    sensitivity: list[dict[str, Any]] = field(default_factory=list)
    traffic_now: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)

    def option(self, name: str) -> dict[str, Any]:
        return next(o for o in self.options if o["name"] == name)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = _clean(
            {
                "metric": self.metric,
                "estimand": self.estimand,
                "per": self.per,
                "baseline": self.baseline,
                "routing": {
                    "rules": self.routing.rules,
                    "default": self.routing.default,
                    "best_per_stratum": self.routing.best_per_stratum,
                    "routes": self.routes,
                },
                "precision": [p.to_json() for p in self.precision],
                "misfiled": [
                    {"stratum": h, "share": s} for h, s in self.misrouting.misfiled.items()
                ],
                "misrouted_flows": self.misrouting.flows,
                "options": self.options,
                "sensitivity": self.sensitivity,
                "traffic_now": self.traffic_now,
                "notes": self.notes,
            }
        )
        return out


def _clean(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    return x


def traffic_frame(shares: dict[str, float]) -> pl.DataFrame:
    return pl.DataFrame(
        {"stratum": list(shares), "share": list(shares.values())},
        schema={"stratum": pl.Utf8, "share": pl.Float64},
    )


def decision_block(
    scores: pl.DataFrame,
    strata: pl.DataFrame,
    shares: dict[str, float],
    *,
    metric: str,
    estimand: str,
    systems: list[str],
    fused: str | None,
    routing: Routing,
    precision: list[Precision],
    table_method: str,
    binary: bool,
    bounded: bool,
    baseline: str | None = None,
    per: int = PER_N,
    population: dict[str, float] | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> DecisionBlock:
    """The block over ``scores`` (system, query_id, value: the single ``systems`` and ``fused``),
    ``strata`` (query_id, stratum) and the traffic ``shares`` (stratum -> share)."""
    strata = strata.select("query_id", "stratum")
    scored = scores.get_column("query_id").unique().implode()
    in_table = strata.filter(pl.col("query_id").is_in(scored))
    order = [s for s in dict.fromkeys(in_table.get_column("stratum").to_list())]
    order = [s for s in shares if s in order] + [s for s in order if s not in shares]
    singles = scores.filter(pl.col("system").is_in(systems))
    routes = route_map(routing, order, systems, stratum_means(singles, strata))
    errors = misrouting(
        singles,
        in_table,
        shares,
        routes,
        precision,
        table_method=table_method,
        bounded=bounded,
        name=ROUTED_WITH_ERRORS,
        population=population,
        confidence=confidence,
    )
    every = pl.concat(
        [
            scores.select("system", "query_id", "value"),
            routed_scores(singles, in_table, routes),
            errors.scores,
            oracle_scores(singles, systems),
        ]
    )
    kinds = (
        [(s, "system") for s in systems]
        + ([(fused, "fused")] if fused else [])
        + [(ROUTED, "routed"), (ROUTED_WITH_ERRORS, "routed_with_errors"), (ORACLE, "oracle")]
    )
    joined = every.join(in_table, on="query_id", how="inner")
    options: list[dict[str, Any]] = []
    for name, kind in kinds:
        part = joined.filter(pl.col("system") == name).select("stratum", "value")
        method = errors.method if name == ROUTED_WITH_ERRORS else table_method
        stats = stratum_stats(part)
        total = mixture_estimate(
            {g: shares.get(g, 0.0) for g in order},
            stats,
            method=method,
            population=population,
            confidence=confidence,
        )
        rows = []
        for g in order:
            n, mean, var, at_bounds = stats[g]
            row: dict[str, Any] = {
                "stratum": g,
                "n": n,
                "mean": mean,
                "ci95": list(interval_from(method, n, mean, var, at_bounds, confidence)),
                "system": routes[g] if kind in ("routed", "routed_with_errors") else None,
            }
            if binary and method == table_method:
                row["hits"] = int(round(mean * n))
            if kind == "routed_with_errors" and g in errors.route_means:
                route = errors.route_means[g]
                row["route_mean"] = route.mean
                row["route_ci95"] = list(route.ci)
            rows.append(row)
        weighted = sum(shares.get(g, 0.0) * stats[g][1] for g in order)
        options.append(
            {
                "name": name,
                "kind": kind,
                "ci_method": method,
                "strata": rows,
                "overall": {"weighted_mean": weighted, "weighted_ci95": list(total.ci)},
            }
        )
    base = baseline or max(systems, key=lambda s: _overall(options, s))
    if base not in systems + ([fused] if fused else []):
        from goldset_tui.errors import InputError

        raise InputError(None, f"--baseline {base}: no run of that name")
    binary_of = {o["name"]: o["ci_method"] == table_method and binary for o in options}
    for o in options:
        o["vs_baseline"] = (
            None
            if o["name"] == base
            else _against(
                o,
                _option(options, base),
                every,
                in_table,
                shares,
                per,
                population=population,
                confidence=confidence,
                bounded=bounded,
                binary=binary_of[o["name"]] and binary_of[base],
            )
        )
    return DecisionBlock(
        metric=metric,
        estimand=estimand,
        per=per,
        baseline=base,
        strata=order,
        shares={g: shares.get(g, 0.0) for g in order},
        routes=routes,
        routing=routing,
        precision=precision,
        options=options,
        misrouting=errors,
    )


def _option(options: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(o for o in options if o["name"] == name)


def _overall(options: list[dict[str, Any]], name: str) -> float:
    return float(_option(options, name)["overall"]["weighted_mean"])


def _against(
    option: dict[str, Any],
    base: dict[str, Any],
    every: pl.DataFrame,
    strata: pl.DataFrame,
    shares: dict[str, float],
    per: int,
    *,
    population: dict[str, float] | None,
    confidence: float,
    bounded: bool,
    binary: bool,
) -> dict[str, Any]:
    """The option against the baseline: per stratum in points, golden-set queries and searches
    per ``per``; overall in points (with the paired weighted interval) and searches gained and
    lost per ``per``."""
    rows = []
    for mine, theirs in zip(option["strata"], base["strata"], strict=True):
        points = mine["mean"] - theirs["mean"]
        rows.append(
            {
                "stratum": mine["stratum"],
                "points": points,
                "set_queries": points * mine["n"],
                "per_n": points * shares.get(mine["stratum"], 0.0) * per,
            }
        )
    diff = weighted_difference(
        every,
        strata,
        traffic_frame(shares),
        option["name"],
        base["name"],
        population=population,
        confidence=confidence,
        bounded=bounded,
        binary=binary,
    )
    gained = sum(r["per_n"] for r in rows if r["per_n"] > 0)
    lost = -sum(r["per_n"] for r in rows if r["per_n"] < 0)
    points = option["overall"]["weighted_mean"] - base["overall"]["weighted_mean"]
    return {
        "baseline": base["name"],
        "strata": rows,
        "points": points,
        "ci95": list(diff.ci),
        "gained_per_n": gained,
        "lost_per_n": lost,
        "net_per_n": gained - lost,
    }
