"""Inclusion probabilities of the stratified draw, the files `goldset report` reads, and one count
of the strata per run.

The probabilities are checked against independent references: a full enumeration of successive
draws (every order) for small pools, and a numpy Monte Carlo of the Efraimidis-Spirakis draw (keys
``log(u) / w``, the k largest) for large ones.
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from goldset_tui.cli import main
from goldset_tui.io.strata_and_traffic import read_strata, read_traffic
from goldset_tui.sampling import sample as sample_module
from goldset_tui.sampling.inclusion import inclusion_probabilities
from goldset_tui.sampling.sample import query_ids, stratified_sample


def enumerated(weights: list[float], k: int) -> list[float]:
    """Every order of k successive draws, each with its probability: the exact answer."""
    probs = [0.0] * len(weights)

    def walk(chosen: tuple[int, ...], p: float) -> None:
        if len(chosen) == k:
            for i in chosen:
                probs[i] += p
            return
        rest = sum(w for i, w in enumerate(weights) if i not in chosen)
        for i, w in enumerate(weights):
            if i not in chosen:
                walk((*chosen, i), p * w / rest)

    walk((), 1.0)
    return probs


@pytest.mark.parametrize(
    ("weights", "k"),
    [
        ([1, 2, 3, 4, 50], 2),
        ([1, 1, 1, 10, 20, 50, 3], 3),
        ([5, 1, 1, 1, 1, 1, 1, 1], 4),
        ([7, 7, 7, 7, 7, 7], 4),  # equal weights: k / N = 2/3
    ],
)
def test_small_pools_are_exact(weights: list[float], k: int) -> None:
    assert inclusion_probabilities(weights, k) == pytest.approx(enumerated(weights, k), abs=1e-12)


def monte_carlo(weights: np.ndarray, k: int, draws: int, seed: int) -> np.ndarray:
    """The ES draw itself, repeated: keys log(u)/w, the k largest kept."""
    rng = np.random.default_rng(seed)
    hits = np.zeros(len(weights))
    for _ in range(draws // 1000):
        keys = np.log(1.0 - rng.random((1000, len(weights)))) / weights
        top = np.argpartition(-keys, k - 1, axis=1)[:, :k]
        np.add.at(hits, top.ravel(), 1)
    return hits / draws


@pytest.mark.parametrize(("n", "k"), [(60, 25), (300, 40), (1000, 40)])
def test_large_strata_match_a_monte_carlo_of_the_draw(n: int, k: int) -> None:
    # A head-heavy stratum: counts ~ 1000 / rank, capped at 50 (so the head shares one weight).
    rng = np.random.default_rng(n)
    counts = np.minimum(np.floor(1000 / np.arange(1, n + 1)) + rng.integers(0, 3, n), 50)
    weights = np.maximum(counts, 1.0)
    draws = 20_000
    got = np.array(inclusion_probabilities(weights.tolist(), k))
    mc = monte_carlo(weights, k, draws, seed=k)
    # Within the Monte Carlo's own noise (4 standard errors) plus half a percentage point for the
    # approximation; and the probabilities add to k exactly.
    se = np.sqrt(mc * (1 - mc) / draws)
    assert np.all(np.abs(got - mc) <= 4 * se + 0.005)
    assert got.sum() == pytest.approx(k, abs=1e-9)
    # Heavier queries are likelier, and no probability leaves (0, 1].
    assert np.all(np.diff(got[np.argsort(weights)]) >= -1e-15) and got.min() > 0 and got.max() <= 1


def labels_frame() -> pl.DataFrame:
    # "a" stratum: 40 queries with head-heavy counts; "b": 5 queries, taken in full.
    a = [(f"a{i:02d}", max(1, 400 // (i + 1)), "a") for i in range(40)]
    b = [(f"b{i}", 3, "b") for i in range(5)]
    return pl.DataFrame(a + b, schema=["query", "count", "stratum"], orient="row")


def test_the_sample_carries_each_querys_probability_and_count(tmp_path: Path) -> None:
    labels = labels_frame()
    path = tmp_path / "labels.csv"
    labels.write_csv(path)
    out = tmp_path / "golden.csv"
    args = ["sample", "draw", str(path), "-o", str(out), "--seed", "4", "--targets", "a=10,b=8"]
    assert main(args) == 0
    got = pl.read_csv(out)
    assert got.columns == ["query_id", "query", "count", "stratum", "inclusion_probability"]
    # Stratum a: the probabilities of a successive draw of 10 by min(count, 50), per query.
    pool = labels.filter(pl.col("stratum") == "a").sort("query")
    expected = dict(
        zip(
            pool["query"].to_list(),
            inclusion_probabilities([min(c, 50) for c in pool["count"].to_list()], 10),
            strict=True,
        )
    )
    for row in got.filter(pl.col("stratum") == "a").iter_rows(named=True):
        assert row["inclusion_probability"] == pytest.approx(expected[row["query"]], rel=1e-12)
    # Stratum b: 5 queries for a target of 8, all taken: probability 1.
    assert got.filter(pl.col("stratum") == "b")["inclusion_probability"].to_list() == [1.0] * 5
    manifest = tomllib.loads((tmp_path / "golden.manifest.toml").read_text(encoding="utf-8"))
    assert manifest["kind"] == "sample" and "Rosen" in manifest["inclusion_probability"]
    rows = {q["query_id"]: q for q in manifest["queries"]}
    assert len(rows) == got.height
    for row in got.iter_rows(named=True):
        listed = rows[row["query_id"]]
        assert listed["count"] == row["count"] and listed["weight"] == min(row["count"], 50)
        assert listed["inclusion_probability"] == pytest.approx(row["inclusion_probability"])


def test_report_reads_the_strata_and_traffic_files_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "labels.csv"
    labels_frame().write_csv(path)
    out = tmp_path / "golden.csv"
    assert (
        main(["sample", "draw", str(path), "-o", str(out), "--seed", "4", "--targets", "a=10,b=5"])
        == 0
    )
    sample = pl.read_csv(out)
    strata = read_strata(tmp_path / "golden.strata.csv")
    traffic = read_traffic(tmp_path / "golden.traffic.csv")
    assert pl.read_csv(tmp_path / "golden.strata.csv").columns == [
        "query_id",
        "stratum",
        "count",
        "inclusion_probability",
    ]
    assert strata["query_id"].to_list() == sample["query_id"].to_list()
    # Shares of the log's traffic: a has sum(400 // (i + 1)) occurrences, b 15.
    a_total = sum(max(1, 400 // (i + 1)) for i in range(40))
    shares = dict(zip(traffic["stratum"].to_list(), traffic["share"].to_list(), strict=True))
    assert shares == pytest.approx({"a": a_total / (a_total + 15), "b": 15 / (a_total + 15)})
    assert math.isclose(sum(shares.values()), 1.0)
    # The whole report runs on them, with qrels and a run keyed by the sample's query ids.
    ids = sample["query_id"].to_list()
    (tmp_path / "q.qrels").write_text("".join(f"{q} 0 d1 1\n" for q in ids), encoding="utf-8")
    (tmp_path / "r.run").write_text(
        "".join(f"{q} Q0 {'d1' if i % 2 else 'd9'} 1 1.0 r\n" for i, q in enumerate(ids)),
        encoding="utf-8",
    )
    capsys.readouterr()
    report = [
        "report",
        "--qrels",
        str(tmp_path / "q.qrels"),
        "--run",
        f"r={tmp_path / 'r.run'}",
        "--strata",
        str(tmp_path / "golden.strata.csv"),
        "--traffic",
        str(tmp_path / "golden.traffic.csv"),
    ]
    assert main(report) == 0, capsys.readouterr().err
    # The report's design-weighted headline reads the inclusion_probability column (the contract).
    assert "design-weighted" in capsys.readouterr().out.lower()


def test_query_ids_are_stable_and_labels_ids_are_kept() -> None:
    ids = query_ids(pl.Series(["api key", "api key", "other"])).to_list()
    assert ids[0] == ids[1] != ids[2] and ids[0].startswith("q_") and len(ids[0]) == 14
    import hashlib

    assert ids[0] == "q_" + hashlib.sha256(b"api key").hexdigest()[:12]
    own = labels_frame().with_columns(pl.format("my{}", pl.col("query")).alias("query_id"))
    result = stratified_sample(own, {"a": 3}, seed=1)
    assert all(q.startswith("my") for q in result.sample["query_id"].to_list())


def test_a_sample_is_not_sampled_again(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "labels.csv"
    labels_frame().write_csv(path)
    out = tmp_path / "golden.csv"
    assert (
        main(["sample", "draw", str(path), "-o", str(out), "--seed", "4", "--targets", "a=10"]) == 0
    )
    again = tmp_path / "again.csv"
    capsys.readouterr()
    assert (
        main(["sample", "draw", str(out), "-o", str(again), "--seed", "4", "--targets", "a=3"]) == 2
    )
    err = capsys.readouterr().err
    assert "inclusion_probability" in err and err.count("\n") == 1 and not again.exists()
    assert err.startswith(f"goldset: error: {out}")


def test_strata_are_counted_once_per_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "labels.csv"
    labels_frame().write_csv(path)
    calls = []
    real = sample_module.stratum_counts

    def counting(labels: pl.DataFrame) -> pl.DataFrame:
        calls.append(labels.height)
        return real(labels)

    monkeypatch.setattr(sample_module, "stratum_counts", counting)
    out = tmp_path / "golden.csv"
    assert main(["sample", "draw", str(path), "-o", str(out), "--seed", "1", "--total", "20"]) == 0
    assert calls == [45]
