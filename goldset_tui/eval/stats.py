"""Paired comparison of two systems on the same queries (docs/background.md#paired-comparison).

Per-query scores of A and B become differences d = a - b. The mean difference gets a 95%
interval, and a seeded paired randomization test (sign flips: under the null hypothesis the
labels A and B are exchangeable within a query) gives a two-sided p-value,
(1 + #{|mean flipped| >= |observed|}) / (1 + samples) so that it is never 0. Wins, losses and
ties count queries; for binary measures the discordant pairs and the exact McNemar p-value are
added.

The interval, for a 0/1 measure (``eval.measure_kind``), is Tango's score interval for a difference
of paired rates (``paired_interval``, ``paired-score-t``), from the discordant counts: the score
interval on the differences covered 0.87 where 1-2% of queries flip one way. For a graded measure
bounded in [0, 1] (d in [-1, 1]) it is ``intervals.difference_interval``: the score interval of
(d + 1) / 2 carried back to [-1, 1], the one the traffic-weighted difference uses on each stratum
(and, when every query ties, at least Tango's bound at no discordant query). It replaced a
percentile bootstrap of the mean difference, which is a point whenever every difference is the same
(7 of 7 queries from 0 to 1 gave [1, 1]; a run tied everywhere but on unsampled queries gave
[0, 0]) and covered 11-83% where few queries differ or the difference is near +-1
(bench/interval_coverage.py --only paired, docs/report.md). A measure with no known range (a count)
gets Student's t on the differences, and no interval (nan) when every difference is the same: with
no range and no spread seen there is nothing honest to say about the next query.

:func:`stratum_comparisons` runs the same question on each stratum (exact McNemar for 0/1
measures, the randomization test otherwise) and :func:`holm` adjusts a family of p-values for
multiple comparisons (step-down, family-wise error), so that with several systems one pair does
not look separated by chance alone.

Resampling is done in Polars (numpy is not a run-time dependency), in batches so that memory
stays bounded whatever the number of queries times samples.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import polars as pl

from goldset_tui.eval.defaults import COMPARE_SAMPLES, REPORT_SAMPLES
from goldset_tui.eval.intervals import (
    DIFFERENCE_SCORE,
    STUDENT_T,
    difference_interval,
    student_t,
)
from goldset_tui.eval.paired_interval import PAIRED_SCORE, paired_rate_interval
from goldset_tui.scalar import as_float

DEFAULT_SEED = 0
_BATCH_CELLS = 2_000_000  # resampled values held at once
_CHUNK_CELLS = 131_072  # of those, multiplied at once (1 MB)
_TIE = 1e-12


@dataclass(frozen=True)
class PairedResult:
    """Two systems on the same ``n`` queries. ``mean_diff`` is mean_a - mean_b over those queries
    and ``ci95`` its 95% interval: an estimate of the mean per-query difference over the
    population of queries the set was drawn from, each query counting once (not weighted by how
    often it is searched: the report's traffic-weighted difference is that). ``p_value``: the
    seeded paired randomization test of no difference (``samples`` sign flips, ``seed``);
    ``wins``/``losses``/``ties``: queries where A is above, below, equal to B."""

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
    # How ci95 was computed: ``paired_interval.PAIRED_SCORE`` (0/1 measure),
    # ``intervals.DIFFERENCE_SCORE`` (graded, in [0, 1]) or ``STUDENT_T``.
    ci_method: str = DIFFERENCE_SCORE


def _as_series(values: pl.Series | Sequence[float], name: str) -> pl.Series:
    # A frame from evaluate() is the natural thing to pass from a notebook; Polars would then
    # fail casting its rows (structs) to floats, naming neither the argument nor the fix.
    if isinstance(values, pl.DataFrame):
        raise TypeError(
            f"paired_comparison's {name} is one score per query (a Series or a list), not a frame:"
            ' pass one measure\'s column, e.g. evaluate_wide(qrels, run, ["nDCG@10"])["nDCG@10"]'
        )
    return (
        pl.Series(name, values, dtype=pl.Float64)
        if not isinstance(values, pl.Series)
        else values.cast(pl.Float64).rename(name)
    )


def _batches(n: int, samples: int) -> list[tuple[int, int]]:
    per = max(1, _BATCH_CELLS // max(n, 1))
    return [(start, min(per, samples - start)) for start in range(0, samples, per)]


def _rows_of(n: int, count: int) -> list[tuple[int, int]]:
    """(first, rows) chunks of ``count`` samples of ``n`` values, ``_CHUNK_CELLS`` values or so
    each: a product that stays in the processor's cache rather than one written out to memory."""
    per = max(1, _CHUNK_CELLS // max(n, 1))
    return [(first, min(per, count - first)) for first in range(0, count, per)]


def _flipped(flips: pl.Series, diffs: list[pl.Series], n: int, *, mean: bool) -> list[pl.Series]:
    """Per difference, each sample's flipped mean (``mean``) or total: ``flips`` holds the samples'
    signs one sample after another, n each. Each sample is one row of a fixed-width array, the
    difference one row broadcast over them (no group-by, no copy of the difference per sample);
    the products are d * f exactly as before, their row sums in the same order."""
    matrix = flips.reshape((flips.len() // n, n))
    rows = [d.reshape((1, n)) for d in diffs]
    out: list[list[pl.Series]] = [[] for _ in diffs]
    for first, count in _rows_of(n, matrix.len()):
        part = matrix.slice(first, count)
        for i, row in enumerate(rows):
            product = part * row
            out[i].append(product.arr.mean() if mean else product.arr.sum())
    return [pl.concat(o) for o in out]


def sign_flip_means(diff: pl.Series, *, samples: int, seed: int) -> pl.Series:
    """Means of ``diff`` with each value's sign flipped at random, ``samples`` times."""
    return sign_flip_means_many([diff], samples=samples, seed=seed)[0]


def sign_flip_means_many(diffs: Sequence[pl.Series], *, samples: int, seed: int) -> list[pl.Series]:
    """:func:`sign_flip_means` of each of ``diffs``, the flips drawn once for all of the same
    length: they depend only on the length, the batch and the seed, so every pair of systems on
    the same queries is flipped alike, and drawing them was the larger part of the work."""
    out: list[list[pl.Series]] = [[] for _ in diffs]
    signs = pl.Series("sign", [-1.0, 1.0])
    for n in dict.fromkeys(d.len() for d in diffs):
        mine = [i for i, d in enumerate(diffs) if d.len() == n]
        cast = {i: diffs[i].cast(pl.Float64) for i in mine}
        for index, (_start, count) in enumerate(_batches(n, samples)):
            flips = signs.sample(n * count, with_replacement=True, seed=seed + 1_000_003 + index)
            # A sample's mean is a row mean of a fixed-width array (where a group-by over a
            # sample number cost four times the CPU; the same flips, so the same means up to
            # the order of a sum's terms, ~1e-17, far under the 1e-12 the p-value's count
            # allows for ties).
            means = _flipped(flips, [cast[i] for i in mine], n, mean=True)
            for i, m in zip(mine, means, strict=True):
                out[i].append(m.rename("d"))
    return [pl.concat(means) if means else pl.Series("d", [], dtype=pl.Float64) for means in out]


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value: binomial(only_a + only_b, 1/2) tail, doubled, capped at 1."""
    m = only_a + only_b
    if m == 0:
        return 1.0
    tail = sum(math.comb(m, i) for i in range(min(only_a, only_b) + 1)) / 2**m
    p_value: float = min(1.0, 2 * tail)
    return p_value


def paired_comparison(
    a: pl.Series | Sequence[float],
    b: pl.Series | Sequence[float],
    *,
    seed: int = DEFAULT_SEED,
    samples: int = COMPARE_SAMPLES,
    binary: bool | None = None,
    bounded: bool | None = None,
) -> PairedResult:
    """Compare per-query scores ``a`` and ``b`` (same queries, same order). ``binary``: the
    measure is 0 or 1 per query by definition (``eval.measure_kind``), which adds the discordant
    counts, McNemar's exact p and the paired-rate interval; never inferred from the values
    (nDCG@10 at 0 or 1 on every query of a small set is still graded). ``bounded``: every
    per-query value lies in [0, 1] by definition, which gives the difference's score interval;
    otherwise Student's t (module docstring). The interval is (nan, nan) below two queries.

    Left out, both come from the measure's definition when ``a`` and ``b`` are Series named
    after the same measure (``evaluate_wide(...)["Success@10"]``), as `goldset compare` takes
    them; otherwise graded and bounded. R@k, SetR and Rprec are binary only when each query has
    one relevant document, which the scores cannot tell: ``eval.compare`` decides it from the
    qrels, or pass ``binary``."""
    named = _named_measure(a, b)
    if binary is None:
        from goldset_tui.eval.measure_kind import binary_by_name

        binary = named is not None and binary_by_name(named) is True
    if bounded is None:
        from goldset_tui.eval.measure_kind import is_bounded_measure

        bounded = named is None or is_bounded_measure(named)
    return paired_comparison_many(
        [(a, b)], seed=seed, samples=samples, binary=binary, bounded=bounded
    )[0]


def _named_measure(a: object, b: object) -> str | None:
    """The measure both Series are named after, if they are (evaluate_wide's columns)."""
    if not (isinstance(a, pl.Series) and isinstance(b, pl.Series) and a.name == b.name):
        return None
    from goldset_tui.errors import InputError
    from goldset_tui.eval.measures import parse_measure

    try:
        parse_measure(a.name)
    except (InputError, ValueError, KeyError):
        return None
    return a.name


def paired_comparison_many(
    pairs: Sequence[tuple[pl.Series | Sequence[float], pl.Series | Sequence[float]]],
    *,
    seed: int = DEFAULT_SEED,
    samples: int = COMPARE_SAMPLES,
    binary: bool = False,
    bounded: bool = True,
) -> list[PairedResult]:
    """:func:`paired_comparison` of each pair, the same results, with the sign flips drawn once
    for every pair of the same number of queries (:func:`sign_flip_means_many`)."""
    prepared = [
        _prepare_pair(a, b, samples=samples, binary=binary, bounded=bounded) for a, b in pairs
    ]
    flipped = sign_flip_means_many([p.diff for p in prepared], samples=samples, seed=seed)
    out = []
    for p, means in zip(prepared, flipped, strict=True):
        extreme = int((means.abs() >= abs(p.observed) - _TIE).sum())
        out.append(replace(p.result, p_value=(1 + extreme) / (1 + samples), seed=seed))
    return out


@dataclass(frozen=True)
class _Prepared:
    diff: pl.Series
    observed: float
    result: PairedResult  # all but the p-value and the seed


def _prepare_pair(
    a: pl.Series | Sequence[float],
    b: pl.Series | Sequence[float],
    *,
    samples: int,
    binary: bool,
    bounded: bool,
) -> _Prepared:
    """One pair checked and described: everything :func:`paired_comparison` gives but the
    randomization test's p-value."""
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
    if binary and not (sa.is_in([0.0, 1.0]).all() and sb.is_in([0.0, 1.0]).all()):
        raise ValueError("binary measure, but the scores hold values other than 0 and 1")
    only_a = int(((sa == 1.0) & (sb == 0.0)).sum())
    only_b = int(((sa == 0.0) & (sb == 1.0)).sum())
    if binary:
        ci, method = paired_rate_interval(only_a, only_b, n), PAIRED_SCORE
    elif bounded:
        inside = sa.is_between(-_TIE, 1.0 + _TIE).all() and sb.is_between(-_TIE, 1.0 + _TIE).all()
        if not inside:
            raise ValueError("bounded measure, but the scores hold values outside [0, 1]")
        ci, method = difference_interval(diff), DIFFERENCE_SCORE
        if n > 1 and bool((diff.abs() <= _TIE).all()):
            # Every query tied: the mean difference is at most the share of queries that differ
            # (|d| <= 1), and no query differing out of n bounds that share by Tango's interval
            # at 0 discordant queries (+-0.038 at n = 100; the score interval alone gave +-0.020,
            # under the rule of three's 3 / n).
            tied = paired_rate_interval(0, 0, n)
            ci = (min(ci[0], tied[0]), max(ci[1], tied[1]))
    else:
        spread = as_float(diff.var(ddof=1)) if n > 1 else 0.0
        ci = student_t(diff) if spread > 0.0 else (math.nan, math.nan)
        method = STUDENT_T
    wins = int((diff > _TIE).sum())
    losses = int((diff < -_TIE).sum())
    discordant = mcnemar = None
    if binary:
        discordant, mcnemar = (only_a, only_b), mcnemar_exact(only_a, only_b)
    result = PairedResult(
        n=n,
        mean_a=as_float(sa.mean()),
        mean_b=as_float(sb.mean()),
        mean_diff=observed,
        ci95=ci,
        p_value=math.nan,
        wins=wins,
        losses=losses,
        ties=n - wins - losses,
        samples=samples,
        seed=DEFAULT_SEED,
        discordant=discordant,
        mcnemar_p=mcnemar,
        ci_method=method,
    )
    return _Prepared(diff=diff, observed=observed, result=result)


def randomization_p(diff: pl.Series, *, samples: int, seed: int) -> float:
    """Two-sided paired randomization p-value of the mean of ``diff`` (signs flipped at random),
    (1 + #{|flipped mean| >= |observed|}) / (1 + samples), as :func:`paired_comparison` gives it."""
    return randomization_ps([diff], samples=samples, seed=seed)[0]


def randomization_ps(diffs: Sequence[pl.Series], *, samples: int, seed: int) -> list[float]:
    """:func:`randomization_p` of each of ``diffs``; the flips are drawn once for every
    difference of the same length (a report tests every pair on every stratum, and strata of one
    size share them).

    Each batch of flips is one fixed-width array column whose row sums are the flipped totals (a
    reshape, no group-by)."""
    out = [math.nan] * len(diffs)
    for n in dict.fromkeys(d.len() for d in diffs):
        if n == 0:
            continue
        mine = [i for i, d in enumerate(diffs) if d.len() == n]
        cast = {i: diffs[i].cast(pl.Float64) for i in mine}
        observed = {i: abs(as_float(cast[i].sum())) for i in mine}
        extreme = dict.fromkeys(mine, 0)
        for done, count in _rows_of(n, samples):
            # One seeded bit per (sample, query) from a hash of its position: as random as a
            # draw for this purpose, and far cheaper than sampling a series of signs. A flip
            # depends on its position alone, so the flips are made a cache's worth of samples
            # at a time (six passes over them, each a fresh array) and none of them changes.
            slot = pl.int_range(done * n, (done + count) * n, eager=True)
            flips = (slot.hash(seed=seed + 1_000_003) & 1).cast(pl.Float64) * 2.0 - 1.0
            totals = _flipped(flips, [cast[i] for i in mine], n, mean=False)
            for i, t in zip(mine, totals, strict=True):
                extreme[i] += int((t.abs() >= observed[i] - _TIE * max(1, n)).sum())
        for i in mine:
            out[i] = (1 + extreme[i]) / (1 + samples)
    return out


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment (family-wise error): sort ascending, multiply the i-th smallest
    (0-based) by (m - i), carry the running maximum so the order is kept, cap at 1. NaN stays NaN
    and is not counted in m."""
    indexed = sorted((p, i) for i, p in enumerate(p_values) if not math.isnan(p))
    m = len(indexed)
    out = [math.nan] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(indexed):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


def stratum_comparisons(
    scores: pl.DataFrame,
    strata: pl.DataFrame,
    systems: list[str],
    *,
    binary: bool,
    seed: int = DEFAULT_SEED,
    samples: int = REPORT_SAMPLES,
) -> list[dict[str, object]]:
    """Every pair of ``systems`` compared on each stratum's queries, paired per query (on a
    stratum of 18 queries, "cannot tell them apart" is often this test's honest answer).

    Binary measures: the exact McNemar test on the discordant queries (only a / only b scored 1).
    Graded: the paired randomization test on the per-query differences. ``p_adjusted`` is Holm's
    adjustment over the pairs compared on that stratum (equal to ``p_value`` with one pair).
    Rows: stratum, a, b, n, mean_diff, test, only_a, only_b (binary), p_value, p_adjusted.
    """
    from itertools import combinations

    wide = (
        scores.filter(pl.col("system").is_in(systems))
        .pivot(on="system", index="query_id", values="value")
        .fill_null(0.0)
        .join(strata.select("query_id", "stratum"), on="query_id", how="inner")
    )
    out: list[dict[str, object]] = []
    tested: list[tuple[dict[str, object], pl.Series]] = []  # randomization rows, p to come
    families: list[list[dict[str, object]]] = []
    for (stratum,), part in wide.partition_by("stratum", as_dict=True, maintain_order=True).items():
        rows: list[dict[str, object]] = []
        for a, b in combinations(systems, 2):
            diff = (part.get_column(a) - part.get_column(b)).rename("d")
            row: dict[str, object] = {
                "stratum": stratum,
                "a": a,
                "b": b,
                "n": part.height,
                "mean_diff": as_float(diff.mean()) if part.height else math.nan,
            }
            if binary:
                only_a = int(((part.get_column(a) == 1) & (part.get_column(b) == 0)).sum())
                only_b = int(((part.get_column(a) == 0) & (part.get_column(b) == 1)).sum())
                row |= {"test": "mcnemar-exact", "only_a": only_a, "only_b": only_b}
                row["p_value"] = mcnemar_exact(only_a, only_b)
            else:
                row |= {"test": "randomization", "only_a": None, "only_b": None}
                tested.append((row, diff))
            rows.append(row)
        families.append(rows)
    # Every stratum's tests at once: strata of the same size share their flips.
    p_values = randomization_ps([d for _, d in tested], samples=samples, seed=seed)
    for (row, _), p in zip(tested, p_values, strict=True):
        row["p_value"] = p
    for rows in families:
        adjusted = holm([float(r["p_value"]) for r in rows])  # type: ignore[arg-type]
        for r, q in zip(rows, adjusted, strict=True):
            r["p_adjusted"] = q
        out += rows
    return out


def with_holm_over_strata(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    """``stratum_comparisons``' rows with ``p_holm_strata``: Holm's adjustment over every row,
    every stratum and pair at once. ``p_adjusted`` guards the pairs of one stratum; with six
    strata and two systems, one stratum's gap is likely to pass p < 0.05 by chance alone
    (docs/drift.md), and this is the family that guards against it."""
    adjusted = holm([float(r["p_value"]) for r in rows])  # type: ignore[arg-type]
    return [{**r, "p_holm_strata": q} for r, q in zip(rows, adjusted, strict=True)]
