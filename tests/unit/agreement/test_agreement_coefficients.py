"""Every coefficient against an independent implementation and a published worked example."""

from __future__ import annotations

import math
import random

import krippendorff
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from goldset_tui.agreement import coefficients as co

NAN = float("nan")

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four observers,
# twelve units, values 1-5, with missing data. Published: nominal .743, ordinal .815, interval .849.
K2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]


def long_frame(matrix: list[list[float]]) -> pl.DataFrame:
    rows = [(u, int(v)) for row in matrix for u, v in enumerate(row) if not math.isnan(v)]
    return pl.DataFrame(rows, schema=["unit", "value"], orient="row")


@pytest.mark.parametrize(
    ("level", "published"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)]
)
def test_alpha_krippendorff_2011_worked_example(level: str, published: float) -> None:
    alpha = co.krippendorff_alpha(long_frame(K2011), level)
    assert alpha == pytest.approx(published, abs=5e-4)
    assert alpha == pytest.approx(
        krippendorff.alpha(np.array(K2011), level_of_measurement=level), abs=1e-12
    )


def random_reliability_data(
    rng: random.Random, raters: int, units: int, lo: int, hi: int, missing: float
):
    matrix = []
    truth = [rng.randint(lo, hi) for _ in range(units)]
    for _ in range(raters):
        row = []
        for t in truth:
            if rng.random() < missing:
                row.append(NAN)
            else:
                row.append(float(min(hi, max(lo, t + rng.choice([-2, -1, 0, 0, 0, 1])))))
        matrix.append(row)
    return matrix


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("level", co.LEVELS)
def test_alpha_matches_krippendorff_package_with_missing_and_wide_scales(
    seed: int, level: str
) -> None:
    rng = random.Random(seed)
    lo, hi = [(0, 3), (1, 5), (-2, 2), (0, 10), (0, 1), (0, 3)][seed]
    matrix = random_reliability_data(
        rng, raters=rng.randint(2, 6), units=60, lo=lo, hi=hi, missing=0.3
    )
    ours = co.krippendorff_alpha(long_frame(matrix), level)
    theirs = krippendorff.alpha(np.array(matrix), level_of_measurement=level)
    assert ours == pytest.approx(theirs, abs=1e-9)


def test_alpha_ordinal_ignores_unused_grades_but_interval_uses_distances() -> None:
    # A scale 0-3 where nobody used 1 or 2: ordinal distance counts only used values' marginals.
    frame = long_frame([[0, 3, 3, 0, 3], [0, 3, 0, 0, 3]])
    assert co.krippendorff_alpha(frame, "ordinal", [0, 1, 2, 3]) == pytest.approx(
        krippendorff.alpha(
            np.array([[0, 3, 3, 0, 3], [0, 3, 0, 0, 3]], dtype=float),
            level_of_measurement="ordinal",
        )
    )


def test_alpha_undefined_without_variation_or_pairs() -> None:
    assert co.krippendorff_alpha(long_frame([[2, 2, 2], [2, 2, 2]]), "ordinal") is None
    assert co.krippendorff_alpha(long_frame([[1, NAN], [NAN, 2]]), "nominal") is None
    assert (
        co.krippendorff_alpha(pl.DataFrame(schema={"unit": pl.Int64, "value": pl.Int64}), "nominal")
        is None
    )


def test_alpha_perfect_agreement_is_one() -> None:
    assert co.krippendorff_alpha(
        long_frame([[0, 1, 2, 3], [0, 1, 2, 3]]), "ordinal"
    ) == pytest.approx(1.0)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize("seed", range(5))
def test_cohen_kappa_matches_sklearn_on_the_full_scale(weights: str | None, seed: int) -> None:
    rng = random.Random(100 + seed)
    lo, hi = [(0, 3), (1, 5), (0, 3), (0, 6), (-1, 2)][seed]
    grades = list(range(lo, hi + 1))
    # Seed 0 and 2 leave grades unused: the full scale must still be the categories.
    used = grades if seed not in (0, 2) else [lo, hi - 1, hi]
    a = [rng.choice(used) for _ in range(80)]
    b = [x if rng.random() < 0.6 else rng.choice(used) for x in a]
    m = co.confusion_matrix(a, b, grades)
    expected = cohen_kappa_score(a, b, labels=grades, weights=weights)
    assert co.cohen_kappa(m, weights) == pytest.approx(expected, abs=1e-12)


def test_weighted_kappa_depends_on_declared_scale() -> None:
    # Only 0 and 3 used: on a 0-3 scale the distance is 3 steps, on a {0, 3} "scale" it would be 1.
    a, b = [0, 0, 3, 3, 0, 3], [0, 3, 3, 0, 0, 3]
    full = co.cohen_kappa(co.confusion_matrix(a, b, [0, 1, 2, 3]), "linear")
    assert full == pytest.approx(cohen_kappa_score(a, b, labels=[0, 1, 2, 3], weights="linear"))


def test_cohen_kappa_sas_worked_example() -> None:
    # SAS PROC FREQ (AGREE) printout reproduced in statsmodels' test suite (test_inter_rater.py):
    # simple kappa 0.4842; weighted kappa with Cicchetti-Allison (linear) weights 0.4701.
    table = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]
    assert co.cohen_kappa(table) == pytest.approx(0.4842, abs=5e-5)
    assert co.cohen_kappa(table, "linear") == pytest.approx(0.4701, abs=5e-5)


def test_cohen_kappa_wikipedia_worked_example_and_raw_agreement() -> None:
    # Wikipedia "Cohen's kappa", worked example: 50 proposals, 20 yes/yes, 15 no/no -> p_o 0.7, kappa 0.4.
    table = [[20, 5], [10, 15]]
    assert co.raw_agreement(table) == pytest.approx(0.7)
    assert co.cohen_kappa(table) == pytest.approx(0.4)


def test_cohen_kappa_undefined_cases() -> None:
    assert co.cohen_kappa([[0, 0], [0, 0]]) is None
    assert (
        co.cohen_kappa([[5, 0], [0, 0]]) is None
    )  # one grade used by both: no chance disagreement
    assert co.raw_agreement([[0, 0], [0, 0]]) is None


def test_confusion_from_frame_equals_loop_version() -> None:
    rng = random.Random(7)
    a = [rng.randint(0, 3) for _ in range(200)]
    b = [rng.randint(0, 3) for _ in range(200)]
    assert co.confusion_from_frame(
        pl.DataFrame({"a": a, "b": b}), [0, 1, 2, 3]
    ) == co.confusion_matrix(a, b, [0, 1, 2, 3])


def test_fleiss_1971_diagnoses_and_wikipedia_example() -> None:
    # Fleiss (1971), 30 patients x 6 psychiatrists x 5 diagnoses: published kappa .430.
    from statsmodels.stats.tests.test_inter_rater import diagnoses, table1

    table, _ = aggregate_raters(diagnoses)
    assert co.fleiss_kappa(table.tolist()) == pytest.approx(0.430, abs=5e-4)
    assert co.fleiss_kappa(table.tolist()) == pytest.approx(sm_fleiss(table), abs=1e-12)
    # Wikipedia "Fleiss' kappa" worked example: 10 subjects x 14 raters, kappa 0.210.
    assert co.fleiss_kappa(table1.astype(int).tolist()) == pytest.approx(0.210, abs=5e-4)


@pytest.mark.parametrize("seed", range(4))
def test_fleiss_matches_statsmodels(seed: int) -> None:
    rng = random.Random(seed)
    raters, k = rng.randint(2, 7), rng.randint(2, 6)
    table = []
    for _ in range(40):
        row = [0] * k
        for _ in range(raters):
            row[rng.randrange(k)] += 1
        table.append(row)
    assert co.fleiss_kappa(table) == pytest.approx(sm_fleiss(np.array(table)), abs=1e-12)


def test_fleiss_is_none_with_unequal_ratings() -> None:
    assert co.fleiss_kappa([[2, 1], [1, 1]]) is None
    assert co.fleiss_kappa([[1, 0], [0, 1]]) is None  # one rating per unit: nothing to agree on


def test_coincidence_agreement_two_raters_is_raw_agreement() -> None:
    a, b = [0, 1, 2, 3, 3, 1], [0, 1, 3, 3, 2, 1]
    o = co.coincidences(long_frame([a, b]))
    assert co.coincidence_agreement(o) == pytest.approx(
        co.raw_agreement(co.confusion_matrix(a, b, [0, 1, 2, 3]))
    )


@st.composite
def reliability_data(draw):
    raters = draw(st.integers(2, 5))
    units = draw(st.integers(2, 25))
    lo = draw(st.integers(-3, 2))
    hi = draw(st.integers(lo + 1, lo + 6))
    cell = st.one_of(st.none(), st.integers(lo, hi))
    rows = draw(
        st.lists(st.lists(cell, min_size=units, max_size=units), min_size=raters, max_size=raters)
    )
    return [[NAN if v is None else float(v) for v in row] for row in rows], list(range(lo, hi + 1))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the package divides 0 by 0 on constant data
@settings(max_examples=60, deadline=None)
@given(reliability_data())
def test_alpha_property_matches_krippendorff_package(case) -> None:
    matrix, grades = case
    frame = long_frame(matrix)
    for level in co.LEVELS:
        ours = co.krippendorff_alpha(frame, level, grades)
        try:
            theirs = krippendorff.alpha(
                np.array(matrix), level_of_measurement=level, value_domain=grades
            )
        except (ValueError, ZeroDivisionError):
            theirs = (
                NAN  # the package refuses data with fewer than two pairable values or one value
            )
        if ours is None:
            assert theirs is None or math.isnan(theirs) or not math.isfinite(theirs)
        else:
            assert ours == pytest.approx(theirs, abs=1e-9)
