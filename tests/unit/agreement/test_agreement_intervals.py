"""Intervals resample whole queries (a cluster bootstrap), checked by hand and against naive
bootstraps written here with numpy and the krippendorff package / scikit-learn."""

from __future__ import annotations

import krippendorff
import numpy as np
import polars as pl
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa

from goldset_tui.agreement.bootstrap import draw_counts, percentile_interval, resample_sums
from goldset_tui.agreement.intervals import (
    bootstrap_alpha,
    coincidence_cells,
    figures,
    per_query_table,
)
from goldset_tui.agreement.report import agreement_report
from goldset_tui.agreement.units import with_unit_ids
from goldset_tui.model import GradeScale

SCALE = GradeScale.from_range(0, 3)


def ratings_frame(grades: dict[str, dict[str, list[int | None]]]) -> pl.DataFrame:
    """``grades[labeller][query]`` = grades of that query's documents d0, d1, ... (None: skipped)."""
    rows = [
        (labeller, query, f"{query}-d{i}", g)
        for labeller, per_query in grades.items()
        for query, gs in per_query.items()
        for i, g in enumerate(gs)
        if g is not None
    ]
    frame = pl.DataFrame(rows, schema=["labeller", "query_id", "doc_id", "grade"], orient="row")
    return with_unit_ids(
        frame.with_columns(seconds=pl.lit(None, pl.Float64), note=pl.lit(None, pl.Utf8))
    )


def clustered(seed: int, queries: int = 30, docs: int = 10) -> dict[str, dict[str, list[int]]]:
    """Two labellers; on half the queries they agree exactly, on the other half bob's grade is
    unrelated to ann's: whether they agree depends on the query, so pairs of a query are alike."""
    rng = np.random.default_rng(seed)
    ann: dict[str, list[int]] = {}
    bob: dict[str, list[int]] = {}
    for q in range(queries):
        a = rng.integers(0, 4, docs)
        b = a.copy() if q % 2 == 0 else rng.integers(0, 4, docs)
        ann[f"q{q:02d}"], bob[f"q{q:02d}"] = a.tolist(), b.tolist()
    return {"ann": ann, "bob": bob}


def reliability(grades: dict[str, dict[str, list[int]]], queries: list[str]) -> np.ndarray:
    """The labellers x units matrix the krippendorff package reads, units of ``queries`` in order
    (a query drawn twice brings its units twice)."""
    names = sorted(grades)
    return np.array([[g for q in queries for g in grades[n][q]] for n in names], dtype=float)


# --- the resampling itself, traced by hand ----------------------------------------------------


def test_each_replicate_draws_as_many_queries_as_there_are() -> None:
    for chunk in draw_counts(7, 50, seed=3):
        per_rep = chunk.group_by("rep").agg(pl.col("count").sum())
        assert per_rep.get_column("count").to_list() == [7] * per_rep.height
        assert chunk.get_column("query").is_between(0, 6).all()


def test_sums_over_two_queries_take_only_the_three_values_a_hand_trace_gives() -> None:
    # Two queries holding 1 and 10. Drawing two queries with replacement gives {1, 1} = 2 with
    # probability 1/4, {1, 10} = 11 with 1/2 and {10, 10} = 20 with 1/4. Resampling the three
    # pairs underneath (say 1 = one pair, 10 = two pairs of 5) would give other totals.
    sums = resample_sums(pl.DataFrame({"x": [1.0, 10.0]}), replicates=400, seed=1)
    assert sums.height == 400
    totals = sums.get_column("x").to_list()
    assert set(totals) == {2.0, 11.0, 20.0}
    share = {v: totals.count(v) / 400 for v in (2.0, 11.0, 20.0)}
    assert share[2.0] == pytest.approx(0.25, abs=0.08)
    assert share[11.0] == pytest.approx(0.5, abs=0.08)
    assert share[20.0] == pytest.approx(0.25, abs=0.08)


def test_alpha_replicates_are_whole_queries_traced_by_hand() -> None:
    # q1: both labellers give (1, 1) and (0, 0); q2: (1, 0) and (0, 1). Coincidences (binary):
    #   q1 alone or doubled: no disagreement -> alpha 1.
    #   q1 + q2: o00 = o11 = o01 = o10 = 2, n = 8, n0 = n1 = 4:
    #            alpha = 1 - (n-1) * (o01 + o10) / (2 n0 n1) = 1 - 7 * 4 / 32 = 0.125.
    #   q2 doubled: o01 = o10 = 4, n = 8: alpha = 1 - 7 * 8 / 32 = -0.75.
    # Drawing pairs instead would also give mixtures such as three of q1's pairs and one of q2's.
    ratings = ratings_frame(
        {"ann": {"q1": [1, 0], "q2": [1, 0]}, "bob": {"q1": [1, 0], "q2": [0, 1]}}
    )
    table = per_query_table(coincidence_cells(ratings, [0, 1]))
    assert table.height == 2
    sums = resample_sums(table, replicates=300, seed=4).drop("rep")
    alphas = [figures(row, [0, 1], 0)["alpha.nominal"] for row in sums.iter_rows(named=True)]
    assert {round(a, 12) for a in alphas} == {1.0, 0.125, -0.75}
    assert alphas.count(0.125) / 300 == pytest.approx(0.5, abs=0.1)
    # alpha's interval is the jackknife's: q2 alone has alpha 1 - 3 x 4 / 8 = -0.5, q1 alone 1.0
    # (1 - alpha = 0, so t on alpha itself): 0.125 -+ t(1) x 0.75 = 12.7 x 0.75, cut to [-1, 1].
    interval = bootstrap_alpha(ratings, "nominal", [0, 1], replicates=300, seed=4)
    assert interval == (-1.0, 1.0)


def test_percentile_interval_matches_numpy_and_skips_undefined_replicates() -> None:
    values = [0.3, None, 0.1, 0.9, 0.5, None, 0.7, 0.2]
    defined = [v for v in values if v is not None]
    assert percentile_interval(values) == pytest.approx(tuple(np.percentile(defined, [2.5, 97.5])))
    assert percentile_interval([None, None]) is None


# --- the wrong answer: intervals over pairs of one query were too narrow ------------------------


def naive_jackknife(alpha_without, queries: list[str]) -> tuple[float, float]:
    """docs/agreement.md's alpha interval written out with numpy and scipy: alpha with each query
    left out, Student t (Q - 1) on log(1 - alpha), carried back."""
    from scipy.stats import t

    q = len(queries)
    whole = alpha_without(queries)
    logs = np.log1p(-np.array([alpha_without([x for x in queries if x != y]) for y in queries]))
    se = np.sqrt((q - 1) / q * ((logs - logs.mean()) ** 2).sum())
    half = t.ppf(0.975, q - 1) * se
    return 1 - np.exp(np.log1p(-whole) + half), 1 - np.exp(np.log1p(-whole) - half)


def naive_wilson(share_without, queries: list[str]) -> tuple[float, float]:
    """docs/agreement.md's agreement interval written out with numpy and scipy: the jackknife
    variance v of the share over queries, n_eff = p (1 - p) / v, Wilson's score interval on n_eff
    with Student t (Q - 1) for z."""
    from scipy.stats import t

    q = len(queries)
    p = share_without(queries)
    values = np.array([share_without([x for x in queries if x != y]) for y in queries])
    v = (q - 1) / q * ((values - values.mean()) ** 2).sum()
    n = p * (1 - p) / v
    z = t.ppf(0.975, q - 1)
    centre = (p + z**2 / (2 * n)) / (1 + z**2 / n)
    half = z / (1 + z**2 / n) * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    return centre - half, centre + half


def test_alpha_interval_is_a_jackknife_over_queries_and_wider_than_resampling_pairs() -> None:
    grades = clustered(seed=7)
    queries = sorted(grades["ann"])
    ours = agreement_report(ratings_frame(grades), SCALE, seed=1, replicates=400)["alpha"][
        "ordinal_ci95"
    ]
    rng = np.random.default_rng(5)

    def ordinal(qs: list[str]) -> float:
        m = reliability(grades, qs)
        return krippendorff.alpha(m, level_of_measurement="ordinal", value_domain=[0, 1, 2, 3])

    cluster = naive_jackknife(ordinal, queries)
    matrix = reliability(grades, queries)
    pairs = [
        krippendorff.alpha(
            matrix[:, rng.integers(0, matrix.shape[1], matrix.shape[1])],
            level_of_measurement="ordinal",
            value_domain=[0, 1, 2, 3],
        )
        for _ in range(400)
    ]
    c_lo, c_hi = cluster
    p_lo, p_hi = np.percentile(pairs, [2.5, 97.5])
    # The premise: on this data resampling pairs gives a much narrower interval.
    assert (c_hi - c_lo) > 1.5 * (p_hi - p_lo)
    assert ours == pytest.approx([c_lo, c_hi], abs=1e-9)


def test_cluster_bootstrap_covers_the_true_agreement_where_resampling_pairs_does_not() -> None:
    # 150 simulated studies of 40 queries x 8 pairs; in each query the labellers agree on a pair
    # with probability 0.5 or 1.0 (each query draws one, evens), so the true agreement is 0.75.
    rng = np.random.default_rng(12)
    covered_cluster = covered_pairs = 0
    studies = 150
    for study in range(studies):
        p = rng.choice([0.5, 1.0], 40)
        agree = rng.random((40, 8)) < p[:, None]
        per_query = pl.DataFrame({"agree": agree.sum(axis=1).astype(float), "n": [8.0] * 40})
        sums = resample_sums(per_query, replicates=200, seed=study)
        lo, hi = percentile_interval((sums["agree"] / sums["n"]).to_list())
        covered_cluster += lo <= 0.75 <= hi
        flat = agree.ravel()
        naive = flat[rng.integers(0, flat.size, (200, flat.size))].mean(axis=1)
        n_lo, n_hi = np.percentile(naive, [2.5, 97.5])
        covered_pairs += n_lo <= 0.75 <= n_hi
    assert 0.89 <= covered_cluster / studies <= 0.99
    assert covered_pairs / studies < 0.85


# --- every interval of the report against a naive jackknife written here ---------------------------


@pytest.fixture(scope="module")
def three_labellers() -> dict[str, dict[str, list[int | None]]]:
    rng = np.random.default_rng(21)
    out: dict[str, dict[str, list[int | None]]] = {"ann": {}, "bob": {}, "cy": {}}
    for q in range(24):
        truth = rng.integers(0, 4, 8)
        noise = 0.15 if q % 3 else 0.7  # a third of the queries are hard to agree on
        for name in out:
            flip = rng.random(8) < noise
            g = np.where(flip, rng.integers(0, 4, 8), truth).tolist()
            if name == "cy":
                g[q % 8] = None  # cy skipped one pair per query: missing, not 0
            out[name][f"q{q:02d}"] = g
    return out


def test_kappa_agreement_binary_and_stratum_intervals_match_naive_jackknives(
    three_labellers,
) -> None:
    grades = three_labellers
    queries = sorted(grades["ann"])
    strata = pl.DataFrame(
        {"query_id": queries, "stratum": ["even" if i % 2 == 0 else "odd" for i in range(24)]}
    )
    report = agreement_report(ratings_frame(grades), SCALE, strata=strata, seed=3, replicates=300)
    assert report["queries"] == 24
    assert report["ci_method"] == (
        "alpha and kappas: jackknife over queries, Student t on log(1 - value); agreements: "
        "Wilson's form on the jackknife's effective n, Student t; where a figure is undefined "
        "with a query left out: cluster bootstrap over queries, B=300, seed=3, 95% percentile "
        "interval"
    )

    def confusion(a: str, b: str, qs: list[str]) -> np.ndarray:
        table = np.zeros((4, 4))
        for q in qs:
            for i, j in zip(grades[a][q], grades[b][q], strict=True):
                if i is not None and j is not None:
                    table[i, j] += 1
        return table

    ann_cy = next(p for p in report["pairs"] if (p["a"], p["b"]) == ("ann", "cy"))
    x = [g for q in queries for g in grades["ann"][q]]
    y = [g for q in queries for g in grades["cy"][q]]
    both = [(i, j) for i, j in zip(x, y, strict=True) if j is not None]
    for key, weights in [
        ("kappa", None),
        ("kappa_linear", "linear"),
        ("kappa_quadratic", "quadratic"),
    ]:
        point = cohen_kappa_score(*zip(*both, strict=True), labels=[0, 1, 2, 3], weights=weights)
        assert ann_cy[key] == pytest.approx(point, abs=1e-12)
        # statsmodels for the leave-one-out kappas: scikit-learn's argument checks cost 10 ms a call.
        naive = naive_jackknife(
            lambda qs, w=weights: cohens_kappa(
                confusion("ann", "cy", qs), wt=w, return_results=False
            ),
            queries,
        )
        assert ann_cy[f"{key}_ci95"] == pytest.approx(list(naive), abs=1e-9)

    def agreement(qs: list[str]) -> float:
        table = confusion("ann", "cy", qs)
        return float(np.trace(table) / table.sum())

    assert ann_cy["agreement_ci95"] == pytest.approx(
        list(naive_wilson(agreement, queries)), abs=1e-9
    )

    def binary_alpha(qs: list[str], t: int) -> float:
        m = reliability(grades, qs)
        return krippendorff.alpha(
            np.where(np.isnan(m), np.nan, m >= t), level_of_measurement="nominal"
        )

    at2 = next(b for b in report["binary"] if b["threshold"] == 2)
    assert at2["alpha"] == pytest.approx(binary_alpha(queries, 2), abs=1e-12)
    naive = naive_jackknife(lambda qs: binary_alpha(qs, 2), queries)
    assert at2["alpha_ci95"] == pytest.approx(list(naive), abs=1e-9)

    def binary_agreement(qs: list[str]) -> float:
        # Pairable values of each unit at the cut-off: agreeing ordered pairs over all ordered
        # pairs, each unit weighted by 1 / (m - 1), as Krippendorff's coincidences count them.
        agree = total = 0.0
        for q in qs:
            for d in range(8):
                g = [grades[n][q][d] for n in sorted(grades) if grades[n][q][d] is not None]
                m = len(g)
                if m < 2:
                    continue
                hits = sum(v >= 2 for v in g)
                agree += (hits * (hits - 1) + (m - hits) * (m - hits - 1)) / (m - 1)
                total += m
        return agree / total

    assert at2["agreement"] == pytest.approx(binary_agreement(queries), abs=1e-12)
    naive = naive_wilson(binary_agreement, queries)
    assert at2["agreement_ci95"] == pytest.approx(list(naive), abs=1e-9)

    odd = [q for i, q in enumerate(queries) if i % 2]
    row = next(s for s in report["strata"] if s["stratum"] == "odd")
    assert row["queries"] == 12
    naive = naive_jackknife(
        lambda qs: krippendorff.alpha(
            reliability(grades, qs), level_of_measurement="ordinal", value_domain=[0, 1, 2, 3]
        ),
        odd,
    )
    assert row["alpha_ordinal_ci95"] == pytest.approx(list(naive), abs=1e-9)


def test_intervals_are_determined_by_the_seed(three_labellers) -> None:
    ratings = ratings_frame(three_labellers)
    first = agreement_report(ratings, SCALE, seed=5, replicates=100)
    again = agreement_report(ratings, SCALE, seed=5, replicates=100)
    other = agreement_report(ratings, SCALE, seed=6, replicates=100)
    assert first == again
    # Every interval here is a jackknife (no figure is undefined with a query left out): none
    # depends on the seed.
    assert first["pairs"][0]["kappa_ci95"] == other["pairs"][0]["kappa_ci95"]
    assert first["binary"][0]["agreement_ci95"] == other["binary"][0]["agreement_ci95"]
    assert first["alpha"]["ordinal_ci95"] == other["alpha"]["ordinal_ci95"]
    assert first["alpha"]["ordinal"] == other["alpha"]["ordinal"]


def test_no_replicates_no_intervals(three_labellers) -> None:
    report = agreement_report(ratings_frame(three_labellers), SCALE, replicates=0)
    assert report["ci_method"] is None
    assert report["alpha"]["ordinal_ci95"] is None
    assert all(p["kappa_ci95"] is None for p in report["pairs"])
    assert report["alpha"]["ordinal"] is not None


def test_one_query_gives_no_interval() -> None:
    ratings = ratings_frame({"ann": {"q1": [0, 1, 2, 3]}, "bob": {"q1": [0, 1, 3, 3]}})
    report = agreement_report(ratings, SCALE, replicates=50)
    assert report["queries"] == 1
    assert report["alpha"]["ordinal_ci95"] is None


def test_sums_do_not_depend_on_how_the_gathered_rows_are_split(monkeypatch) -> None:
    from goldset_tui.agreement import bootstrap

    table = pl.DataFrame({"x": [1.0, 10.0, 100.0], "y": [2.0, 3.0, 4.0]})
    whole = resample_sums(table, replicates=50, seed=3)
    monkeypatch.setattr(bootstrap, "_CELLS_PER_STEP", 4)  # two rows per step: replicates split
    assert resample_sums(table, replicates=50, seed=3).equals(whole)


@pytest.mark.parametrize("big", [3.0, 3e9, 3e17])  # Int32, Int64, beyond: left in Float64
def test_sums_equal_a_plain_loop_over_the_draws_whatever_the_size_of_the_counts(big) -> None:
    # Whole-number columns are summed as integers, in 32 bits when no sum can pass 2^31: a count
    # near 2^31 / queries must move them to 64 bits, never wrap around.
    rng = np.random.default_rng(5)
    queries = 200
    table = pl.DataFrame(
        {
            "whole": rng.integers(0, 40, queries).astype(float),
            "big": np.where(rng.random(queries) < 0.5, big, 1.0),
            "fraction": rng.integers(0, 40, queries) / 3.0,
        }
    )
    sums = resample_sums(table, replicates=30, seed=7)
    expected = np.zeros((30, 3))
    columns = table.to_numpy()
    for draws in draw_counts(queries, 30, 7):
        for rep, query, count in draws.iter_rows():
            expected[rep] += count * columns[query]
    for i, name in enumerate(table.columns):
        assert sums.get_column(name).dtype == pl.Float64
        np.testing.assert_allclose(sums.get_column(name).to_numpy(), expected[:, i], rtol=1e-12)
    assert sums.get_column("whole").to_list() == expected[:, 0].tolist()  # integers: exact
