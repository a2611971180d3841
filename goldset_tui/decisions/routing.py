"""Which system serves each stratum, and the routed run's per-query scores.

A router sends every query of a stratum to one system. Three ways to say which:

- a rule per stratum (``exact_identifier=bm25``), the rest to a ``default`` system;
- ``best_per_stratum``: each stratum to the single system with the highest stratum mean (the
  first of equals, in the order the systems were given). Picked on the same queries it is then
  scored on, so on a small stratum it flatters itself (the winner of two noisy means is, on
  average, luckier than it is good): read it as what the table suggests, not as a measurement;
- both: the rules win where they speak, the best per stratum elsewhere.

The routed scores are the chosen system's per-query values; the oracle's are each query's best
value over the single systems (a ceiling no router reaches: it would have to know the answer).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from goldset_tui.errors import InputError

ROUTED = "routed"
ORACLE = "oracle"


@dataclass(frozen=True)
class Routing:
    """How strata are routed: ``rules`` stratum -> system, then ``default`` or, with
    ``best_per_stratum``, the best single system of each stratum."""

    rules: dict[str, str] = field(default_factory=dict)
    default: str | None = None
    best_per_stratum: bool = False


def parse_pairs(items: list[str], option: str) -> dict[str, str]:
    """``NAME=VALUE`` items (repeatable, or comma-separated) into a dict; a name given twice,
    or an item without ``=``, is one line naming the option."""
    out: dict[str, str] = {}
    for item in items:
        for part in filter(None, (p.strip() for p in item.split(","))):
            name, eq, value = part.partition("=")
            if not eq or not name.strip() or not value.strip():
                raise InputError(None, f"{option} {part!r}: write STRATUM=VALUE")
            name = name.strip()
            if name in out:
                raise InputError(None, f"{option}: {name!r} is given twice")
            out[name] = value.strip()
    return out


def stratum_means(scores: pl.DataFrame, strata: pl.DataFrame) -> dict[tuple[str, str], float]:
    """(stratum, system) -> the stratum's plain mean of that system."""
    rows = (
        scores.join(strata.select("query_id", "stratum"), on="query_id", how="inner")
        .group_by("stratum", "system")
        .agg(pl.col("value").mean())
        .iter_rows()
    )
    return {(str(st), str(sy)): float(v) for st, sy, v in rows}


def route_map(
    routing: Routing,
    strata: list[str],
    systems: list[str],
    means: dict[tuple[str, str], float],
) -> dict[str, str]:
    """stratum -> system for every stratum of ``strata``; unknown names and unrouted strata are
    one line each (InputError), since a router that silently drops a stratum is no router."""
    for stratum, system in routing.rules.items():
        if stratum not in strata:
            raise InputError(
                None, f"--route {stratum}={system}: no stratum {stratum!r} in the golden set"
            )
        if system not in systems:
            raise InputError(
                None,
                f"--route {stratum}={system}: no run named {system!r} (runs: {', '.join(systems)})",
            )
    if routing.default is not None and routing.default not in systems:
        raise InputError(
            None, f"--default {routing.default}: no run of that name (runs: {', '.join(systems)})"
        )
    out: dict[str, str] = {}
    for stratum in strata:
        if stratum in routing.rules:
            out[stratum] = routing.rules[stratum]
        elif routing.best_per_stratum:
            out[stratum] = max(systems, key=lambda s: means.get((stratum, s), float("-inf")))
        elif routing.default is not None:
            out[stratum] = routing.default
        else:
            raise InputError(
                None,
                f"stratum {stratum!r} has no route: add --route {stratum}=SYSTEM, --default "
                "SYSTEM or --best-per-stratum",
            )
    return out


def routed_scores(
    scores: pl.DataFrame, strata: pl.DataFrame, routes: dict[str, str], name: str = ROUTED
) -> pl.DataFrame:
    """system, query_id, value of the routed run: each query scored by its stratum's system.
    Queries in no stratum (not in the strata file) are left out, as the stratified table
    leaves them out of every row."""
    table = pl.DataFrame(
        {"stratum": list(routes), "system": list(routes.values())},
        schema={"stratum": pl.Utf8, "system": pl.Utf8},
    )
    return (
        strata.select("query_id", "stratum")
        .join(table, on="stratum", how="inner")
        .join(scores, on=["system", "query_id"], how="inner")
        .select(pl.lit(name).alias("system"), "query_id", "value")
    )


def oracle_scores(scores: pl.DataFrame, systems: list[str], name: str = ORACLE) -> pl.DataFrame:
    """system, query_id, value of the oracle over ``systems``: each query's best value."""
    return (
        scores.filter(pl.col("system").is_in(systems))
        .group_by("query_id", maintain_order=True)
        .agg(pl.col("value").max())
        .select(pl.lit(name).alias("system"), "query_id", "value")
    )
