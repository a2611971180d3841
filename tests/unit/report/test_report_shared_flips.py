"""The report's randomization tests draw their sign flips once for every difference of the same
length (every pair of systems, every stratum of one size): each p-value and each flipped mean must
be exactly what testing that difference alone gave. The references below are the one-difference
computations as they were written before the flips were shared."""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldset_tui.eval import stats


def alone_p(diff: pl.Series, samples: int, seed: int) -> float:
    n = diff.len()
    if n == 0:
        return math.nan
    d = diff.cast(pl.Float64)
    observed = abs(float(d.sum()))
    extreme = done = 0
    for _, count in stats._batches(n, samples):
        tiled = pl.Series("d", d.to_list() * count)
        slot = pl.int_range(done * n, (done + count) * n, eager=True)
        flips = (slot.hash(seed=seed + 1_000_003) & 1).cast(pl.Float64) * 2.0 - 1.0
        totals = (tiled * flips).reshape((count, n)).arr.sum()
        extreme += int((totals.abs() >= observed - 1e-12 * max(1, n)).sum())
        done += count
    return (1 + extreme) / (1 + samples)


def alone_means(diff: pl.Series, samples: int, seed: int) -> list[float]:
    n = diff.len()
    signs = pl.Series("sign", [-1.0, 1.0])
    out: list[float] = []
    for index, (_start, count) in enumerate(stats._batches(n, samples)):
        flips = signs.sample(n * count, with_replacement=True, seed=seed + 1_000_003 + index)
        tiled = pl.Series("d", diff.cast(pl.Float64).to_list() * count)
        out += (tiled * flips).reshape((count, n)).arr.mean().to_list()
    return out


# Scores on a coarse grid, so that ties (a zero difference, equal differences, a flipped mean
# equal to the observed one) are common.
scores = st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 1 / 3]), min_size=0, max_size=40)
diffs = st.lists(scores.map(lambda v: pl.Series("d", v, dtype=pl.Float64)), max_size=5)


@settings(max_examples=60, deadline=None)
@given(diffs=diffs, samples=st.integers(1, 120), seed=st.integers(0, 50))
def test_shared_flips_give_each_difference_its_own_p(
    diffs: list[pl.Series], samples: int, seed: int
) -> None:
    with pytest.MonkeyPatch.context() as m:
        m.setattr(stats, "_BATCH_CELLS", 97)  # several batches, and a partial last one
        m.setattr(stats, "_CHUNK_CELLS", 37)  # several chunks of samples in each
        got = stats.randomization_ps(diffs, samples=samples, seed=seed)
        want = [alone_p(d, samples, seed) for d in diffs]
    assert [str(x) for x in got] == [str(x) for x in want]  # nan compares equal as text


@settings(max_examples=60, deadline=None)
@given(diffs=diffs, samples=st.integers(0, 120), seed=st.integers(0, 50))
def test_shared_flips_give_each_difference_its_own_means(
    diffs: list[pl.Series], samples: int, seed: int
) -> None:
    diffs = [d for d in diffs if d.len()]
    with pytest.MonkeyPatch.context() as m:
        m.setattr(stats, "_BATCH_CELLS", 97)  # several batches, and a partial last one
        m.setattr(stats, "_CHUNK_CELLS", 37)  # several chunks of samples in each
        got = stats.sign_flip_means_many(diffs, samples=samples, seed=seed)
        want = [alone_means(d, samples, seed) for d in diffs]
    assert [g.to_list() for g in got] == want


def test_pairs_at_once_are_each_pair_alone() -> None:
    a = [0.1 * (i % 7) for i in range(60)]
    b = [0.1 * (i % 5) for i in range(60)]
    c = [0.05 * (i % 11) for i in range(60)]
    pairs = [(a, b), (a, c), (b, c), (a, a)]
    together = stats.paired_comparison_many(pairs, seed=4, samples=300)
    for (x, y), got in zip(pairs, together, strict=True):
        diff = pl.Series("d", x) - pl.Series("d", y)
        observed = abs(float(diff.mean()))  # type: ignore[arg-type]
        means = pl.Series(alone_means(diff, 300, 4))
        p = (1 + int((means.abs() >= observed - 1e-12).sum())) / 301
        assert got.p_value == p
        assert got.seed == 4 and got.samples == 300
        assert stats.paired_comparison(x, y, seed=4, samples=300) == got
