"""sign_flip_means: each sample's mean of the differences with the seeded flips, in sample order,
across batch boundaries; checked against the plain definition computed in Python."""

from __future__ import annotations

import random

import polars as pl
import pytest

from goldset_tui.eval import stats


def plain(diff: list[float], samples: int, seed: int) -> list[float]:
    n = len(diff)
    signs = pl.Series("sign", [-1.0, 1.0])
    out: list[float] = []
    for index, (_start, count) in enumerate(stats._batches(n, samples)):
        flips = signs.sample(n * count, with_replacement=True, seed=seed + 1_000_003 + index)
        values = flips.to_list()
        for k in range(count):
            row = values[k * n : (k + 1) * n]
            out.append(sum(d * f for d, f in zip(diff, row, strict=True)) / n)
    return out


@pytest.mark.parametrize(("n", "samples"), [(1, 5), (7, 300), (50, 1000), (333, 97)])
def test_means_are_the_flipped_means(n: int, samples: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stats, "_BATCH_CELLS", 1000)  # several batches, and a partial last one
    rng = random.Random(n)
    diff = [rng.uniform(-1, 1) for _ in range(n)]
    got = stats.sign_flip_means(pl.Series("d", diff), samples=samples, seed=9)
    assert got.len() == samples
    assert got.dtype == pl.Float64
    assert got.to_list() == pytest.approx(plain(diff, samples, 9), abs=1e-15)


def test_integer_differences_and_no_samples() -> None:
    got = stats.sign_flip_means(pl.Series("d", [1, -2, 3]), samples=4, seed=1)
    assert got.to_list() == pytest.approx(plain([1.0, -2.0, 3.0], 4, 1), abs=1e-15)
    assert stats.sign_flip_means(pl.Series("d", [1.0]), samples=0, seed=1).len() == 0
