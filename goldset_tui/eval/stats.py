"""Paired comparison of two systems on the same queries (seed 000: every comparison is paired).

Per-query scores of A and B become differences d = a - b. The mean difference gets a seeded
paired bootstrap 95% percentile interval (resampling queries), and a seeded paired randomization
test (sign flips: under the null hypothesis the labels A and B are exchangeable within a query)
gives a two-sided p-value, (1 + #{|mean flipped| >= |mean observed|}) / (1 + samples) so that it is
never 0. Wins, losses and ties count queries; for binary measures the discordant pairs and the
exact McNemar p-value are added.

Resampling is done in Polars (numpy is not a run-time dependency), in batches so that memory
stays bounded whatever the number of queries times samples.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from goldset_tui.scalar import as_float

DEFAULT_SAMPLES = 10_000
DEFAULT_SEED = 0
_BATCH_CELLS = 2_000_000  # resampled values held at once
_TIE = 1e-12


@dataclass(frozen=True)
class PairedResult:
    n: int
    mean_a: float
    mean_b: float
    mean_diff: float
    ci95: tuple[float, float]
    p_value: float
    wins: int
    losses: int
    ties: int
    samples: int
    seed: int
    # Binary measures only: queries where only A / only B scored 1, and McNemar's exact p.
    discordant: tuple[int, int] | None = None
    mcnemar_p: float | None = None


def _as_series(values: pl.Series | Sequence[float], name: str) -> pl.Series:
    return (
        pl.Series(name, values, dtype=pl.Float64)
        if not isinstance(values, pl.Series)
        else values.cast(pl.Float64).rename(name)
    )


def _batches(n: int, samples: int) -> list[tuple[int, int]]:
    per = max(1, _BATCH_CELLS // max(n, 1))
    return [(start, min(per, samples - start)) for start in range(0, samples, per)]


def bootstrap_means(diff: pl.Series, *, samples: int, seed: int) -> pl.Series:
    """Means of ``samples`` resamples (with replacement, same size) of ``diff``."""
    n = diff.len()
    means = []
    for index, (_start, count) in enumerate(_batches(n, samples)):
        draws = diff.sample(n * count, with_replacement=True, seed=seed + index)
        frame = pl.DataFrame({"d": draws, "s": pl.int_range(n * count, eager=True) // n})
        means.append(frame.group_by("s").agg(pl.col("d").mean()).sort("s").get_column("d"))
    return pl.concat(means) if means else pl.Series("d", [], dtype=pl.Float64)


def sign_flip_means(diff: pl.Series, *, samples: int, seed: int) -> pl.Series:
    """Means of ``diff`` with each value's sign flipped at random, ``samples`` times."""
    n = diff.len()
    signs = pl.Series("sign", [-1.0, 1.0])
    means = []
    for index, (_start, count) in enumerate(_batches(n, samples)):
        flips = signs.sample(n * count, with_replacement=True, seed=seed + 1_000_003 + index)
        frame = pl.DataFrame(
            {"d": pl.concat([diff] * count) * flips, "s": pl.int_range(n * count, eager=True) // n}
        )
        means.append(frame.group_by("s").agg(pl.col("d").mean()).sort("s").get_column("d"))
    return pl.concat(means) if means else pl.Series("d", [], dtype=pl.Float64)


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value: binomial(only_a + only_b, 1/2) tail, doubled, capped at 1."""
    m = only_a + only_b
    if m == 0:
        return 1.0
    tail = sum(math.comb(m, i) for i in range(min(only_a, only_b) + 1)) / 2**m
    return min(1.0, 2 * tail)


def paired_comparison(
    a: pl.Series | Sequence[float],
    b: pl.Series | Sequence[float],
    *,
    seed: int = DEFAULT_SEED,
    samples: int = DEFAULT_SAMPLES,
) -> PairedResult:
    """Compare per-query scores ``a`` and ``b`` (same queries, same order)."""
    sa, sb = _as_series(a, "a"), _as_series(b, "b")
    if sa.len() != sb.len():
        raise ValueError(
            f"paired scores need the same queries: {sa.len()} values against {sb.len()}"
        )
    if sa.len() == 0:
        raise ValueError("no queries to compare")
    if samples < 1:
        raise ValueError("samples must be at least 1")
    diff = (sa - sb).rename("d")
    n = diff.len()
    observed = as_float(diff.mean())
    boot = bootstrap_means(diff, samples=samples, seed=seed)
    lo, hi = boot.quantile(0.025, "linear"), boot.quantile(0.975, "linear")
    flipped = sign_flip_means(diff, samples=samples, seed=seed)
    extreme = int((flipped.abs() >= abs(observed) - _TIE).sum())
    wins = int((diff > _TIE).sum())
    losses = int((diff < -_TIE).sum())
    discordant = mcnemar = None
    if sa.is_in([0.0, 1.0]).all() and sb.is_in([0.0, 1.0]).all():
        only_a = int(((sa == 1.0) & (sb == 0.0)).sum())
        only_b = int(((sa == 0.0) & (sb == 1.0)).sum())
        discordant, mcnemar = (only_a, only_b), mcnemar_exact(only_a, only_b)
    return PairedResult(
        n=n,
        mean_a=as_float(sa.mean()),
        mean_b=as_float(sb.mean()),
        mean_diff=observed,
        ci95=(as_float(lo), as_float(hi)),
        p_value=(1 + extreme) / (1 + samples),
        wins=wins,
        losses=losses,
        ties=n - wins - losses,
        samples=samples,
        seed=seed,
        discordant=discordant,
        mcnemar_p=mcnemar,
    )
