"""A seeded bootstrap interval for Krippendorff's alpha, resampling units.

Resampling units (query-document pairs) with replacement keeps each unit's ratings together, which
is what varies when a different sample of pairs is judged. The work is arranged so that no Python
loop touches every unit in every replicate:

- units with the same multiset of values (a "profile": say two 3s and a 2) contribute the same
  coincidences, so they are grouped once;
- Polars draws every replicate's units in one seeded ``sample`` and counts profiles per replicate;
- each replicate's coincidence matrix is then a weighted sum of the few profile matrices.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from goldset_tui.agreement.coefficients import Coincidence, alpha_from_coincidences, pairable_counts

DEFAULT_REPLICATES = 1000
# Rows drawn per Polars call: keeps memory flat however many units there are.
_ROWS_PER_CHUNK = 2_000_000


def unit_profiles(ratings: pl.DataFrame) -> tuple[pl.Series, dict[int, Coincidence]]:
    """(profile id of each pairable unit, coincidence contribution of each profile)."""
    counts = pairable_counts(ratings).sort("unit", "value")
    per_unit = counts.group_by("unit").agg(pl.col("value"), pl.col("count"))
    per_unit = per_unit.with_columns(
        profile=pl.struct("value", "count").rank("dense").cast(pl.Int64) - 1
    )
    contributions: dict[int, Coincidence] = {}
    for values, cnts, profile in (
        per_unit.unique("profile").select("value", "count", "profile").iter_rows()
    ):
        m = sum(cnts)
        o: Coincidence = {}
        for c, nc in zip(values, cnts, strict=True):
            for k, nk in zip(values, cnts, strict=True):
                v = (nc * nk - (nc if c == k else 0)) / (m - 1)
                if v:
                    o[c, k] = v
        contributions[profile] = o
    return per_unit.get_column("profile"), contributions


def bootstrap_alpha(
    ratings: pl.DataFrame,
    level: str = "ordinal",
    grades: Sequence[int] | None = None,
    *,
    replicates: int = DEFAULT_REPLICATES,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float] | None:
    """Percentile interval of alpha over ``replicates`` resamples of the pairable units.

    ``None`` when fewer than two units are pairable or no replicate gives a defined alpha.
    Deterministic for a given seed.
    """
    profiles, contributions = unit_profiles(ratings)
    n_units = profiles.len()
    n_profiles = len(contributions)
    if n_units < 2 or replicates < 1:
        return None
    alphas: list[float] = []
    per_chunk = max(1, _ROWS_PER_CHUNK // n_units)
    done = 0
    chunk_index = 0
    while done < replicates:
        reps = min(per_chunk, replicates - done)
        drawn = profiles.sample(
            n=reps * n_units, with_replacement=True, seed=seed * 100_003 + chunk_index
        )
        # Count (replicate, profile) pairs by sorting one integer code and run-length encoding it:
        # far cheaper than a hash group-by on millions of rows.
        code = (
            pl.int_range(drawn.len(), dtype=pl.Int64, eager=True) // n_units
        ) * n_profiles + drawn
        runs = code.sort().rle().struct.unnest()
        per_rep: dict[int, Coincidence] = {}
        for value, weight in zip(
            runs.get_column("value").to_list(), runs.get_column("len").to_list(), strict=True
        ):
            o = per_rep.setdefault(value // n_profiles, {})
            for key, v in contributions[value % n_profiles].items():
                o[key] = o.get(key, 0.0) + weight * v
        for o in per_rep.values():
            a = alpha_from_coincidences(o, level, grades)
            if a is not None:
                alphas.append(a)
        done += reps
        chunk_index += 1
    if not alphas:
        return None
    alphas.sort()
    tail = (1 - confidence) / 2
    return _quantile(alphas, tail), _quantile(alphas, 1 - tail)


def _quantile(sorted_values: list[float], q: float) -> float:
    # Linear interpolation between order statistics (numpy's default, "type 7").
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)
