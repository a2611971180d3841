"""How many queries each stratum gets: ``--targets`` read (``STRATUM=N,...``), the log's
per-stratum counts and shares, and ``--total`` split in proportion to traffic with a floor per
stratum (docs/background.md#stratum-depth).

The draw itself (``sampling/sample.py``) takes these sizes as given; `goldset sample`,
`goldset spotcheck`, the drift re-plan and the verdict on a labels file all size strata here, so
they agree on the same numbers.
"""

from __future__ import annotations

import math

import polars as pl

from goldset_tui.errors import InputError

DEFAULT_MIN_PER_STRATUM = 15  # fifteen takes a stratum's resolution to 6.7 points


def parse_targets(spec: str) -> dict[str, int]:
    """``howto=40,error=30`` -> {"howto": 40, "error": 30}, in the order given."""
    targets: dict[str, int] = {}
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        name, sep, value = part.rpartition("=")
        name = name.strip()
        if not sep or not name:
            raise InputError(None, f"--targets: expected STRATUM=N, found {part!r}")
        try:
            n = int(value)
        except ValueError:
            raise InputError(None, f"--targets: {name}={value!r} is not a whole number") from None
        if n < 0:
            raise InputError(None, f"--targets: {name}={n} is negative")
        if name in targets:
            raise InputError(None, f"--targets: stratum {name!r} given twice")
        targets[name] = n
    if not targets:
        raise InputError(None, "--targets: no STRATUM=N given")
    return targets


def stratum_counts(labels: pl.DataFrame) -> pl.DataFrame:
    """stratum, distinct, occurrences, share; sorted by stratum name."""
    total = labels.get_column("count").sum()
    return (
        labels.group_by("stratum")
        .agg(pl.len().alias("distinct"), pl.col("count").sum().alias("occurrences"))
        .with_columns((pl.col("occurrences") / total).alias("share"))
        .sort("stratum")
    )


def allocate_total(counts: pl.DataFrame, total: int, min_per_stratum: int) -> dict[str, int]:
    """Split ``total`` across strata in proportion to traffic, each at least ``min_per_stratum``.

    Proportional allocation would leave a small stratum with ten queries, where one query is ten
    points; the floor keeps every stratum readable (docs/background.md#stratum-depth). Bounds
    per stratum are ``[min(floor, distinct), distinct]``; strata pushed outside their bounds are
    fixed there and the rest re-split, then rounded by largest remainder (ties by name) so the sizes
    add to ``total``.
    """
    if total < 0 or min_per_stratum < 0:
        raise InputError(None, "--total and --min-per-stratum must not be negative")
    names = counts.get_column("stratum").to_list()
    occ = dict(zip(names, counts.get_column("occurrences").to_list(), strict=True))
    hi = dict(zip(names, counts.get_column("distinct").to_list(), strict=True))
    lo = {s: min(min_per_stratum, hi[s]) for s in names}
    if sum(lo.values()) > total:
        raise InputError(
            None,
            f"--total {total} is too small to give {len(names)} strata at least {min_per_stratum} each "
            f"(needs {sum(lo.values())}); lower --min-per-stratum or raise --total",
        )
    if total >= sum(hi.values()):
        return dict(hi)
    fixed: dict[str, int] = {}
    while True:
        free = [s for s in names if s not in fixed]
        remaining = total - sum(fixed.values())
        weight = sum(occ[s] for s in free)
        quota = {s: remaining * occ[s] / weight for s in free}
        low = [s for s in free if quota[s] < lo[s]]
        high = [s for s in free if quota[s] > hi[s]]
        if not low and not high:
            break
        # Fix the floors first: raising a small stratum takes from the others, never the reverse.
        for s in low or high:
            fixed[s] = lo[s] if s in low else hi[s]
    alloc = dict(fixed)
    alloc.update({s: math.floor(quota[s]) for s in quota})
    leftover = total - sum(alloc.values())
    order = sorted(quota, key=lambda s: (-(quota[s] - math.floor(quota[s])), s))
    for s in order:
        if leftover == 0:
            break
        if alloc[s] < hi[s]:
            alloc[s] += 1
            leftover -= 1
    return {s: alloc[s] for s in names}
