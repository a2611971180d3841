"""Weighted headlines: the stratified interval with the finite-population correction,
the design-weighted (Hajek) mean from inclusion probabilities and its validation, Holm's adjustment
and the per-stratum randomization test -- each against a hand calculation or statsmodels."""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl
import pytest

from goldset_tui.cli import main
from goldset_tui.errors import InputError
from goldset_tui.eval.stats import holm, stratum_comparisons
from goldset_tui.eval.weighting import stratified_estimate
from goldset_tui.io.strata_and_traffic import read_strata, read_traffic
from goldset_tui.report.pipeline import assemble_report, to_dict, to_markdown

from .worked_examples import SAMPLED_LOG_TARGETS, SAMPLED_LOG_TRAFFIC


def test_stratified_interval_with_fpc_by_hand() -> None:
    from scipy import stats

    # Two strata written out: W = (0.7, 0.3), n = (4, 3), values below, N = (10, None).
    a, b = [0.2, 0.4, 0.9, 0.5], [0.0, 0.3, 0.6]
    ta = 0.7**2 * np.var(a, ddof=1) / 4 * (1 - 4 / 10)  # corrected: 4 of 10 queries sampled
    tb = 0.3**2 * np.var(b, ddof=1) / 3  # population unknown: no correction
    df = (ta + tb) ** 2 / (ta**2 / 3 + tb**2 / 2)
    half = stats.t.ppf(0.975, df) * math.sqrt(ta + tb)
    mean = 0.7 * np.mean(a) + 0.3 * np.mean(b)
    est = stratified_estimate(
        [
            (0.7, 4, float(np.mean(a)), float(np.var(a, ddof=1)), 10.0),
            (0.3, 3, float(np.mean(b)), float(np.var(b, ddof=1)), None),
        ],
        method="student-t",  # a measure with no known range: the plain stratified t
    )
    assert est.mean == pytest.approx(mean)
    assert est.se == pytest.approx(math.sqrt(ta + tb))
    assert est.df == pytest.approx(df)
    assert est.ci == pytest.approx((mean - half, mean + half))
    # A stratum of one query has no variance: no interval rather than a falsely exact one.
    assert all(math.isnan(x) for x in stratified_estimate([(1.0, 1, 0.5, math.nan, None)]).ci)


def test_sampled_log_weighted_headline_band_shrinks_with_the_population() -> None:
    # The sampled log's strata and shares (docs/background.md#the-sampled-log), every stratum at 0.7
    # hits: the stratified se is the weighted combination; sampling a stratum's whole population
    # leaves it no sampling error at all.
    cells = [
        (SAMPLED_LOG_TRAFFIC[s], n, 0.7, 0.7 * 0.3 * n / (n - 1), None)
        for s, n in SAMPLED_LOG_TARGETS.items()
    ]
    se = math.sqrt(sum(w * w * v / n for w, n, _, v, _ in cells))
    assert stratified_estimate(cells, method="student-t").se == pytest.approx(se)
    census = [(w, n, m, v, float(n)) for w, n, m, v, _ in cells]
    assert stratified_estimate(census, method="student-t").ci == pytest.approx((0.7, 0.7))
    # The bounded interval of a 0/1 measure: the census is certain there too, and nothing else is.
    assert stratified_estimate(census, method="wilson").ci == pytest.approx((0.7, 0.7))
    lo, hi = stratified_estimate(cells, method="wilson").ci
    assert 0.0 < lo < 0.7 < hi < 1.0


def test_hajek_mean_and_which_headline_is_which(tmp_path) -> None:
    scores = pl.DataFrame(
        {"system": "a", "query_id": ["q1", "q2", "q3", "q4"], "value": [1.0, 0.0, 1.0, 1.0]}
    )
    path = tmp_path / "strata.csv"
    path.write_text(
        "query_id,stratum,inclusion_probability\nq1,x,0.5\nq2,x,0.1\nq3,y,1\nq4,y,0.25\n"
    )
    strata = read_strata(path)
    report = assemble_report(scores, strata)
    # By hand: weights 2, 10, 1, 4; sum(y w) = 2 + 0 + 1 + 4 = 7; sum(w) = 17.
    assert to_dict(report)["overall"]["a"]["design_weighted_mean"] == pytest.approx(7 / 17)
    assert "design-weighted (Hajek)" in to_markdown(report)
    # Without the column there is no design-weighted headline at all.
    plain = assemble_report(scores, strata.select("query_id", "stratum"))
    assert to_dict(plain)["overall"]["a"]["design_weighted_mean"] is None
    assert "Hajek" not in to_markdown(plain)


@pytest.mark.parametrize(
    ("value", "line"), [("0", 3), ("1.5", 3), ("abc", 3), ("-0.2", 3), ("", 3)]
)
def test_bad_inclusion_probability_is_one_line_exit_2(tmp_path, capsys, value, line) -> None:
    path = tmp_path / "strata.csv"
    path.write_text(f"query_id,stratum,inclusion_probability\nq1,x,0.5\nq2,x,{value}\n")
    if value:
        with pytest.raises(InputError) as err:
            read_strata(path)
        assert (err.value.line, err.value.column) == (line, "inclusion_probability")
    (tmp_path / "qrels").write_text("q1 0 d 1\n")
    (tmp_path / "a.run").write_text("q1 Q0 d 1 1.0 a\n")
    out = tmp_path / "out"
    code = main(
        [
            "report",
            "--qrels",
            str(tmp_path / "qrels"),
            "--run",
            str(tmp_path / "a.run"),
            "--strata",
            str(path),
            "-o",
            str(out),
        ]
    )
    err_text = capsys.readouterr().err
    assert code == 2 and len(err_text.strip().splitlines()) == 1
    assert "strata.csv" in err_text and "Traceback" not in err_text
    assert not out.exists() or not any(out.iterdir())


def test_population_column_is_checked(tmp_path) -> None:
    path = tmp_path / "traffic.csv"
    path.write_text("stratum,share,population\nx,0.5,100\ny,0.5,2.5\n")
    with pytest.raises(InputError) as err:
        read_traffic(path)
    assert (err.value.line, err.value.column) == (3, "population")
    path.write_text("stratum,share,population\nx,0.5,100\ny,0.5,40\n")
    assert read_traffic(path).get_column("population").to_list() == [100.0, 40.0]


def test_holm_matches_statsmodels() -> None:
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(3)
    for m in (1, 2, 3, 6, 10):
        p = rng.random(m).tolist()
        p[0] = p[-1] if m > 1 else p[0]  # a tie
        assert holm(p) == pytest.approx(list(multipletests(p, method="holm")[1]))
    assert math.isnan(holm([0.01, math.nan])[1]) and holm([0.01, math.nan])[0] == 0.01


def test_stratum_randomization_p_against_exact_enumeration() -> None:
    # Graded scores on a stratum of 8: the exact two-sided sign-flip p over all 2^8 patterns,
    # enumerated here, against the seeded Monte Carlo p of the report.
    a = [0.9, 0.5, 0.7, 0.3, 0.8, 0.6, 0.55, 0.2]
    b = [0.4, 0.5, 0.2, 0.35, 0.1, 0.6, 0.3, 0.25]
    d = np.subtract(a, b)
    observed = abs(d.mean())
    flips = [abs((d * np.array(s)).mean()) for s in itertools.product([-1, 1], repeat=len(d))]
    exact = sum(f >= observed - 1e-12 for f in flips) / len(flips)
    scores = pl.DataFrame(
        {
            "system": ["a"] * 8 + ["b"] * 8,
            "query_id": [f"q{i}" for i in range(8)] * 2,
            "value": a + b,
        }
    )
    strata = pl.DataFrame({"query_id": [f"q{i}" for i in range(8)], "stratum": "s"})
    (row,) = stratum_comparisons(scores, strata, ["a", "b"], binary=False, samples=20000, seed=1)
    assert row["test"] == "randomization" and row["p_adjusted"] == row["p_value"]
    assert row["p_value"] == pytest.approx(exact, abs=0.01)


def _sample_report(capsys, metric: str = "Success@3") -> dict:
    import json
    from pathlib import Path

    data = Path(__file__).resolve().parents[3] / "sample_data"
    code = main(
        [
            "report",
            "--qrels",
            str(data / "judgments" / "alice.qrels"),
            "--run",
            f"bm25={data / 'runs' / 'bm25.run'}",
            "--run",
            f"minilm={data / 'runs' / 'minilm.run'}",
            "--strata",
            str(data / "strata.csv"),
            "--traffic",
            str(data / "traffic.csv"),
            "--measure",
            metric,
            "--format",
            "json",
        ]
    )
    assert code == 0
    return json.loads(capsys.readouterr().out)


def test_weighted_intervals_on_the_sample_data_stay_in_range_and_keep_a_width(capsys) -> None:
    # The audit's case: Success@3 on the sample data gave rrf [0.921, 1.033] (past 1) and bm25,
    # 7 of 7 in every stratum, [1, 1]. Every weighted interval now lies inside [0, 1] (differences
    # inside [-1, 1]), holds its estimate and has a width.
    d = _sample_report(capsys)
    for name, o in d["overall"].items():
        lo, hi = o["weighted_ci95"]
        assert 0.0 <= lo <= o["weighted_mean"] <= hi <= 1.0, name
        assert hi - lo > 0.01, name
    assert d["overall"]["bm25"]["weighted_mean"] == 1.0
    assert d["overall"]["bm25"]["weighted_ci95"][0] < 0.95  # 42 queries cannot prove 100%
    for p in d["paired"]:
        lo, hi = p["weighted_ci95"]
        assert -1.0 <= lo <= p["weighted_mean_diff"] <= hi <= 1.0
        assert hi - lo > 0.01


def test_one_constant_stratum_is_exactly_wilson_and_score_t() -> None:
    from goldset_tui.eval.intervals import score_from, wilson

    # One stratum of 7 hits of 7: the weighted interval reduces to Wilson's (no collapse to [1, 1]).
    est = stratified_estimate([(1.0, 7, 1.0, 0.0, None)], method="wilson")
    assert est.n_effective == pytest.approx(7.0)
    # Wilson with z, but the weighted headline takes t at its df (n - 1 = 6) for small strata.
    from scipy import stats

    q = stats.t.ppf(0.975, 6)
    by_hand = (7 / (7 + q * q), 1.0)  # Wilson's lower end at p = 1: n / (n + q^2)
    assert est.ci == pytest.approx(by_hand)
    assert est.ci[0] < wilson(7, 7)[0] < 1.0
    # A graded stratum: the same construction as the stratum's own score-t interval.
    x = [0.0, 0.2, 0.5, 1.0, 0.7, 0.0, 0.3]
    at_bounds = sum(v in (0.0, 1.0) for v in x) / len(x)
    cell = (1.0, 7, float(np.mean(x)), float(np.var(x, ddof=1)), None, at_bounds)
    assert stratified_estimate([cell]).ci == pytest.approx(score_from(*cell[1:4], at_bounds))


def test_weighted_difference_of_ties_keeps_a_width_unless_a_census() -> None:
    from goldset_tui.eval.weighting import weighted_difference

    # Two systems scoring the same on all 7 + 18 queries: the difference is 0 on this sample, but
    # 25 ties do not show that the next query ties too; only a census (every query of every
    # stratum judged, population = n) makes the difference certain.
    qs = [f"q{i}" for i in range(25)]
    scores = pl.DataFrame(
        {
            "system": ["a"] * 25 + ["b"] * 25,
            "query_id": qs * 2,
            "value": [float(i % 2) for i in range(25)] * 2,
        }
    )
    strata = pl.DataFrame({"query_id": qs, "stratum": ["x"] * 7 + ["y"] * 18})
    traffic = pl.DataFrame({"stratum": ["x", "y"], "share": [0.7, 0.3]})
    est = weighted_difference(scores, strata, traffic, "a", "b")
    lo, hi = est.ci
    assert est.mean == 0.0 and -1.0 < lo < 0.0 < hi < 1.0
    assert weighted_difference(
        scores, strata, traffic, "a", "b", population={"x": 7.0, "y": 18.0}
    ).ci == pytest.approx((0.0, 0.0))


def test_hajek_interval_by_taylor_linearisation_by_hand(tmp_path) -> None:
    from scipy import stats

    # Two sampling strata, five and four queries, written out. w = 1 / pi.
    y = {
        "q1": 1.0,
        "q2": 0.0,
        "q3": 1.0,
        "q4": 1.0,
        "q5": 0.0,
        "q6": 1.0,
        "q7": 0.0,
        "q8": 1.0,
        "q9": 1.0,
    }
    pi = {
        "q1": 0.5,
        "q2": 0.1,
        "q3": 1.0,
        "q4": 0.25,
        "q5": 0.2,
        "q6": 0.8,
        "q7": 0.4,
        "q8": 0.4,
        "q9": 0.5,
    }
    stratum = {q: "x" if i < 5 else "y" for i, q in enumerate(y)}
    w = {q: 1 / pi[q] for q in y}
    mean = sum(w[q] * y[q] for q in y) / sum(w.values())
    # Linearised values z_i = w_i (y_i - mean) / sum(w); with-replacement variance per stratum
    # n_h / (n_h - 1) x sum (z_i - zbar_h)^2, as R's survey (svymean on a stratified design with
    # probs and no fpc); degrees of freedom n - H = 9 - 2.
    z = {q: w[q] * (y[q] - mean) / sum(w.values()) for q in y}
    var = 0.0
    for h in ("x", "y"):
        zs = np.array([z[q] for q in y if stratum[q] == h])
        var += len(zs) / (len(zs) - 1) * ((zs - zs.mean()) ** 2).sum()
    half = stats.t.ppf(0.975, 9 - 2) * math.sqrt(var)
    path = tmp_path / "strata.csv"
    path.write_text(
        "query_id,stratum,inclusion_probability\n"
        + "".join(f"{q},{stratum[q]},{pi[q]}\n" for q in y)
    )
    scores = pl.DataFrame({"system": "a", "query_id": list(y), "value": list(y.values())})
    report = assemble_report(scores, read_strata(path))
    o = to_dict(report)["overall"]["a"]
    assert o["design_weighted_mean"] == pytest.approx(mean)
    assert o["design_weighted_se"] == pytest.approx(math.sqrt(var))
    # The survey's symmetric interval leaves [0, 1] here (its lower end is -0.07). The report's:
    # per sampling stratum the linearised term V_h floored by share_h^2 x D_h r_h (1 - r_h) / n_h
    # (D_h = n_h sum((1 - pi) w^2) / sum(w)^2 over the stratum's drawn queries, r_h the stratum's
    # Hajek mean pulled in by z^2 / 2 pseudo-queries each side), then Wilson's form at the mean with
    # n_eff = r (1 - r) / var and t(n - H) -- each written out here from docs/report.md.
    assert mean - half < 0
    z975 = stats.norm.ppf(0.975)
    total_var = centre = 0.0
    for h in ("x", "y"):
        qs = [q for q in y if stratum[q] == h]
        n_h = len(qs)
        sw = sum(w[q] for q in qs)
        share = sw / sum(w.values())
        m_h = sum(w[q] * y[q] for q in qs) / sw
        zs = np.array([z[q] for q in qs])
        v_h = n_h / (n_h - 1) * ((zs - zs.mean()) ** 2).sum()
        d_h = n_h * sum((1 - pi[q]) * w[q] ** 2 for q in qs) / sw**2
        r_h = (n_h * m_h + z975**2 / 2) / (n_h + z975**2)
        total_var += max(v_h, share**2 * d_h * r_h * (1 - r_h) / n_h)
        centre += share * r_h
    n_eff = centre * (1 - centre) / total_var
    q = stats.t.ppf(0.975, 9 - 2)
    mid = (mean + q**2 / (2 * n_eff)) / (1 + q**2 / n_eff)
    spread = q / (1 + q**2 / n_eff) * math.sqrt(mean * (1 - mean) / n_eff + q**2 / (4 * n_eff**2))
    expected = (mid - spread, mid + spread)
    assert o["design_weighted_ci95"] == pytest.approx(list(expected), rel=1e-6)
    assert 0 < expected[0] < mean < expected[1] < 1
    md = to_markdown(report)
    lo, hi = o["design_weighted_ci95"]
    assert f"[{lo:.3f}, {hi:.3f}]" in md
    # The same variance from the textbook form of the with-replacement estimator: per stratum
    # n_h s_h^2 of the linearised values (s^2 with ddof 1), summed -- a second route to one number.
    second = sum(
        len(v) * np.var(v, ddof=1)
        for v in (np.array([z[q] for q in y if stratum[q] == h]) for h in ("x", "y"))
    )
    assert second == pytest.approx(var)


def test_hajek_interval_keeps_a_width_when_every_query_scores_the_same(tmp_path) -> None:
    # Seven queries at nDCG@10 = 1.0: the linearised variance is 0 and the survey's interval the
    # point [1, 1] (the old report's answer). Seven queries do not show the eighth scores 1.
    path = tmp_path / "strata.csv"
    qids = [f"q{i}" for i in range(7)]
    path.write_text(
        "query_id,stratum,inclusion_probability\n"
        + "".join(
            f"{q},{'a' if i < 4 else 'b'},{0.5 if i < 4 else 0.2}\n" for i, q in enumerate(qids)
        )
    )
    scores = pl.DataFrame({"system": "a", "query_id": qids, "value": [1.0] * 7})
    o = to_dict(assemble_report(scores, read_strata(path), metric="nDCG@10"))["overall"]["a"]
    lo, hi = o["design_weighted_ci95"]
    assert o["design_weighted_mean"] == 1.0 and o["design_weighted_se"] == 0.0
    assert hi == 1.0 and lo < 0.6


def test_hajek_with_one_stratum_and_equal_probabilities_is_the_plain_mean(tmp_path) -> None:
    # Equal probabilities in one stratum: the Hajek mean is the plain mean and its linearised
    # variance (with replacement) is s^2 / n, by numpy.
    values = [0.0, 0.3, 0.55, 0.9, 1.0, 0.0, 0.62, 0.0]
    qids = [f"q{i}" for i in range(len(values))]
    path = tmp_path / "strata.csv"
    path.write_text(
        "query_id,stratum,inclusion_probability\n" + "".join(f"{q},a,0.25\n" for q in qids)
    )
    scores = pl.DataFrame({"system": "a", "query_id": qids, "value": values})
    o = to_dict(assemble_report(scores, read_strata(path), metric="nDCG@10"))["overall"]["a"]
    assert o["design_weighted_mean"] == pytest.approx(np.mean(values))
    assert o["design_weighted_se"] == pytest.approx(math.sqrt(np.var(values, ddof=1) / 8))
    lo, hi = o["design_weighted_ci95"]
    assert 0.0 <= lo < np.mean(values) < hi <= 1.0
