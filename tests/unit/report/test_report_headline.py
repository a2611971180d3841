"""The two weighted headlines estimate named quantities from goldset's own samples.

A log where head queries succeed more often (as in real products) is sampled with
``goldset sample``'s own sampler; the traffic-weighted headline must estimate the log's
per-search rate sum(c y) / sum(c) and the design-weighted one its distinct-query mean. Before,
the traffic-weighted headline was the plain stratum means weighted by share and covered the
per-search rate in 14-21% of samples. Numbers are checked against statsmodels (a weighted mean
and its robust variance are a WLS intercept and its HC1 variance) and a hand computation with
numpy and scipy, written here from the formulas in docs/report.md, not from the code.
"""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest

from goldset_tui.cli import main
from goldset_tui.report.pipeline import assemble_report, to_dict, to_markdown
from goldset_tui.sampling.sample import report_frames, stratified_sample

STRATA = ("a", "b", "c")


def count_log(n: int, k: float, seed: int) -> tuple[pl.DataFrame, dict[str, float]]:
    """A fixed log: Zipf counts max(1, round(k / rank)), strata at random (50/30/20%), success
    0.9 for a query searched 50 times or more, 0.6 for 5-49, 0.3 below 5."""
    rng = np.random.default_rng(seed)
    counts = np.maximum(1, np.round(k / np.arange(1, n + 1))).astype(np.int64)
    p = np.where(counts >= 50, 0.9, np.where(counts >= 5, 0.6, 0.3))
    log = pl.DataFrame(
        {
            "query": [f"query {i}" for i in range(n)],
            "count": counts,
            "stratum": rng.choice(list(STRATA), p=[0.5, 0.3, 0.2], size=n),
        }
    )
    return log, dict(zip(log["query"].to_list(), (rng.random(n) < p).astype(float), strict=True))


def _report(log: pl.DataFrame, y: dict[str, float], targets: dict[str, int], seed: int):
    result = stratified_sample(log, targets, seed=seed)
    frames = report_frames(result)
    scores = result.sample.select(
        "query_id",
        system=pl.lit("a"),
        value=pl.col("query").replace_strict(y, return_dtype=pl.Float64),
    )
    return assemble_report(
        scores, frames["strata"], traffic=frames["traffic"], metric="Success@10", binary=True
    )


def test_headlines_estimate_the_log_on_goldsets_own_samples() -> None:
    # 2,000 distinct queries, 75 drawn (30/25/20), 200 samples: a few seconds. The old headline
    # (plain stratum means by share) averaged 0.49 here against a per-search rate of 0.61.
    log, y = count_log(2000, 600.0, seed=5)
    values = np.array([y[q] for q in log["query"].to_list()])
    counts = log["count"].to_numpy()
    per_search = float((counts * values).sum() / counts.sum())
    per_query = float(values.mean())
    reps = 200
    means, covered, covered_design = [], 0, 0
    for r in range(reps):
        o = to_dict(_report(log, y, {"a": 30, "b": 25, "c": 20}, seed=r))["overall"]["a"]
        lo, hi = o["weighted_ci95"]
        means.append(o["weighted_mean"])
        covered += lo <= per_search <= hi
        lo, hi = o["design_weighted_ci95"]
        covered_design += lo <= per_query <= hi
    assert abs(np.mean(means) - per_search) < 0.02, (np.mean(means), per_search)
    assert covered / reps >= 0.93, covered / reps
    assert covered_design / reps >= 0.93, covered_design / reps


def _by_hand(frame: pl.DataFrame, shares: dict[str, float], traffic: pl.DataFrame | None):
    """The per-search estimate, its linearised se and its interval, from docs/report.md's
    formulas with numpy and scipy. With ``traffic`` (what `goldset sample` writes): each stratum
    split into head (count >= head_count) and tail, weighted by head_share, each with its design
    effect; without it one ratio per stratum with the sample's own design effect."""
    from scipy import stats

    z = stats.norm.ppf(0.975)
    info = {} if traffic is None else {r["stratum"]: r for r in traffic.iter_rows(named=True)}
    cells = []  # (share, n, mean, linearised variance, floor per unit r (1 - r))
    for (h,), g in frame.group_by("stratum"):
        k = g.height
        parts = [(g, 1.0, None)]
        if h in info:
            head = g["count"].to_numpy() >= info[h]["head_count"]
            a = info[h]["head_share"]
            split = [(g.filter(head), a, "design_effect_head")]
            split.append((g.filter(~head), 1 - a, "design_effect_tail"))
            split = [p for p in split if p[1] > 0]
            whole = [(g, 1.0, "design_effect_per_search")]
            parts = split if all(p[0].height for p in split) else whole
        for part, a, deff in parts:
            y = part["value"].to_numpy()
            pi = part["inclusion_probability"].to_numpy()
            w = part["count"].to_numpy() / pi
            n = len(y)
            r_hat = (w * y).sum() / w.sum()
            zs = w * (y - r_hat) / w.sum()
            v = n / (n - 1) * ((zs - zs.mean()) ** 2).sum() if n > 1 else 0.0
            floor = ((1 - pi) * w**2).sum() / w.sum() ** 2 if deff is None else info[h][deff] / k
            cells.append((shares[h] * a, n, r_hat, v, floor))
    mean = sum(s * m for s, _, m, _, _ in cells)
    linear = sum(s * s * v for s, _, _, v, _ in cells)
    var = centre = 0.0
    for s, n, m, v, floor in cells:
        r = (n * m + z * z / 2) / (n + z * z)
        var += s * s * max(v, floor * r * (1 - r))
        centre += s * r
    n_eff = centre * (1 - centre) / var
    q = stats.t.ppf(0.975, frame.height - len(cells))
    q2 = q * q
    mid = (mean + q2 / (2 * n_eff)) / (1 + q2 / n_eff)
    half = q / (1 + q2 / n_eff) * math.sqrt(mean * (1 - mean) / n_eff + q2 / (4 * n_eff**2))
    return mean, math.sqrt(linear), (max(0.0, mid - half), min(1.0, mid + half))


def test_per_search_estimate_against_statsmodels_and_by_hand() -> None:
    import statsmodels.api as sm

    from goldset_tui.eval.headline import per_search_estimates

    log, y = count_log(2000, 600.0, seed=11)
    result = stratified_sample(log, {"a": 20, "b": 15, "c": 12}, seed=3)
    frames = report_frames(result)
    frame = result.sample.select(
        "query_id",
        "stratum",
        "count",
        "inclusion_probability",
        value=pl.col("query").replace_strict(y, return_dtype=pl.Float64),
    )
    shares = dict(frames["traffic"].select("stratum", "share").iter_rows())
    # statsmodels: per stratum the Hajek ratio is the WLS intercept with weights count / pi, and
    # the with-replacement linearised variance is its HC1 (sandwich) variance.
    mean = var = 0.0
    for (h,), g in frame.group_by("stratum"):
        fit = sm.WLS(
            g["value"].to_numpy(),
            np.ones(g.height),
            weights=(g["count"] / g["inclusion_probability"]).to_numpy(),
        ).fit(cov_type="HC1")
        mean += shares[h] * fit.params[0]
        var += shares[h] ** 2 * fit.bse[0] ** 2
    scores = frame.select("query_id", "value", system=pl.lit("a"))
    # Without the traffic file's design effects, the floor uses the sample's own.
    plain = frames["traffic"].select("stratum", "share")
    est = per_search_estimates(scores, frames["strata"], plain, binary=True)["a"]
    assert est.mean == pytest.approx(mean, abs=1e-12)
    assert est.se == pytest.approx(math.sqrt(var), rel=1e-9)
    hand_mean, hand_se, hand_ci = _by_hand(frame, shares, None)
    assert est.mean == pytest.approx(hand_mean, abs=1e-12)
    assert est.se == pytest.approx(hand_se, rel=1e-9)
    assert est.ci == pytest.approx(hand_ci, rel=1e-6)
    # With what `goldset sample` writes: head and tail post-stratified, the log's design effects.
    est = per_search_estimates(scores, frames["strata"], frames["traffic"], binary=True)["a"]
    hand_mean, _, hand_ci = _by_hand(frame, shares, frames["traffic"])
    assert est.mean == pytest.approx(hand_mean, abs=1e-12)
    assert est.ci == pytest.approx(hand_ci, rel=1e-6)
    # The head is the queries at the sampler's cap. This sample drew heads in two strata (split
    # into head and tail) and none in the third (one ratio): both paths are checked above.
    assert frames["traffic"]["head_count"].to_list() == [50.0] * 3
    assert frame.filter(pl.col("count") >= 50)["stratum"].n_unique() == 2


def test_design_effects_by_hand() -> None:
    from goldset_tui.sampling.inclusion import inclusion_probabilities
    from goldset_tui.sampling.sample import design_effects

    pool = pl.DataFrame({"query": list("abcdefgh"), "count": [900, 120, 40, 9, 5, 2, 1, 1]})
    cap, k = 50, 3
    c = np.array(pool["count"].to_list(), dtype=float)
    pi = np.array(inclusion_probabilities([min(int(x), cap) for x in c], k))
    head = c >= cap
    f = (1 - pi) * c**2 / pi
    got = design_effects(pool, k, cap)
    assert got["design_effect_per_search"] == pytest.approx(k * f.sum() / c.sum() ** 2)
    assert got["design_effect_per_query"] == pytest.approx(k * ((1 - pi) / pi).sum() / 8**2)
    assert got["head_share"] == pytest.approx((900 + 120) / c.sum())
    assert got["design_effect_head"] == pytest.approx(k * f[head].sum() / c[head].sum() ** 2)
    assert got["design_effect_tail"] == pytest.approx(k * f[~head].sum() / c[~head].sum() ** 2)
    assert got["head_count"] == cap
    # A stratum taken in full has no sampling error.
    full = design_effects(pool, 8, cap)
    assert full["design_effect_per_search"] == full["design_effect_head"] == 0.0


def test_upper_end_stays_at_one_when_shares_sum_past_one() -> None:
    # 0.34 + 0.55 + 0.11 is 1.0000000000000002 in floating point: with every query a hit the
    # weighted interval's upper end was that, past the measure's range.
    assert sum([0.34, 0.55, 0.11]) > 1.0
    qids = [f"q{i}" for i in range(21)]
    strata = pl.DataFrame({"query_id": qids, "stratum": [s for s in "xyz" for _ in range(7)]})
    traffic = pl.DataFrame({"stratum": list("xyz"), "share": [0.34, 0.55, 0.11]})
    scores = pl.DataFrame({"system": "a", "query_id": qids, "value": 1.0})
    o = to_dict(assemble_report(scores, strata, traffic=traffic, binary=True))["overall"]["a"]
    assert o["weighted_ci95"][1] <= 1.0
    # The same on the per-search path, with counts and inclusion probabilities.
    sampled = strata.with_columns(count=pl.lit(3), inclusion_probability=pl.lit(0.5))
    o = to_dict(assemble_report(scores, sampled, traffic=traffic, binary=True))["overall"]["a"]
    assert o["weighted_ci95"][1] <= 1.0 and o["design_weighted_ci95"][1] <= 1.0


def test_estimands_are_named_in_json_and_markdown() -> None:
    log, y = count_log(600, 200.0, seed=2)
    report = _report(log, y, {"a": 12, "b": 10, "c": 8}, seed=1)
    heads = to_dict(report)["headlines"]
    assert heads["weighted"]["estimand"] == "share of searches answered"
    assert heads["design_weighted"]["estimand"] == "share of distinct queries answered"
    assert "describes the set" in heads["unweighted"]["estimand"]
    md = to_markdown(report)
    assert "share of searches answered" in md and "share of distinct queries answered" in md
    assert "Taylor" not in md
    # A hand-made strata file (no counts, no probabilities): only the strata's plain means are
    # possible, and the report says what they estimate and when.
    strata = report.strata_frame
    assert strata is not None
    plain = assemble_report(
        report.scores,
        strata.select("query_id", "stratum"),
        traffic=pl.DataFrame({"stratum": list(STRATA), "share": [0.5, 0.3, 0.2]}),
        binary=True,
    )
    words = to_dict(plain)["headlines"]["weighted"]["estimand"]
    assert "only if each stratum was sampled in proportion to its traffic" in words
    assert "design_weighted" not in to_dict(plain)["headlines"]
    assert "only if each stratum was sampled in proportion to its traffic" in to_markdown(plain)


def test_graded_estimands_name_the_measure() -> None:
    qids = [f"q{i}" for i in range(8)]
    strata = pl.DataFrame(
        {
            "query_id": qids,
            "stratum": ["x"] * 4 + ["y"] * 4,
            "count": [9, 3, 1, 1, 20, 2, 1, 1],
            "inclusion_probability": [0.9, 0.5, 0.2, 0.2, 1.0, 0.4, 0.2, 0.2],
        }
    )
    traffic = pl.DataFrame({"stratum": ["x", "y"], "share": [0.4, 0.6]})
    scores = pl.DataFrame(
        {"system": "a", "query_id": qids, "value": [0.9, 0.5, 0.3, 0.0, 1.0, 0.6, 0.2, 0.4]}
    )
    heads = to_dict(assemble_report(scores, strata, traffic=traffic, metric="nDCG@10"))["headlines"]
    assert heads["weighted"]["estimand"] == "mean nDCG@10 per search"
    assert heads["design_weighted"]["estimand"] == "mean nDCG@10 per distinct query"


def test_sample_then_report_end_to_end(tmp_path, capsys) -> None:
    # `goldset sample` writes count, inclusion probability and the design effects; `goldset
    # report` reads them and estimates the per-search rate.
    log, y = count_log(400, 150.0, seed=8)
    labels = tmp_path / "labels.csv"
    log.write_csv(labels)
    sample = tmp_path / "sample.csv"
    code = main(
        ["sample", str(labels), "--targets", "a=10,b=8,c=6", "--seed", "4", "-o", str(sample)]
    )
    assert code == 0
    err = capsys.readouterr().err
    strata_path = next(tmp_path.glob("*.strata.csv"))
    traffic_path = next(tmp_path.glob("*.traffic.csv"))
    assert strata_path.name in err or code == 0
    strata = pl.read_csv(strata_path)
    assert {"count", "inclusion_probability"} <= set(strata.columns)
    assert {"design_effect_per_search", "design_effect_per_query"} <= set(
        pl.read_csv(traffic_path).columns
    )
    drawn = pl.read_csv(sample)
    hits = drawn.filter(pl.col("query").replace_strict(y, return_dtype=pl.Float64) == 1.0)
    (tmp_path / "qrels").write_text(
        "".join(f"{q} 0 d_{q} 1\n" for q in drawn["query_id"].to_list())
    )
    (tmp_path / "a.run").write_text(
        "".join(f"{q} Q0 d_{q} 1 1.0 a\n" for q in hits["query_id"].to_list())
        + "".join(f"{q} Q0 other 1 1.0 a\n" for q in drawn["query_id"].to_list())
    )
    code = main(
        [
            "report",
            "--qrels",
            str(tmp_path / "qrels"),
            "--run",
            f"a={tmp_path / 'a.run'}",
            "--strata",
            str(strata_path),
            "--traffic",
            str(traffic_path),
            "--format",
            "json",
        ]
    )
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["headlines"]["weighted"]["estimand"] == "share of searches answered"
    # The figure and its interval by hand, from the two files.
    frame = strata.join(drawn.select("query_id", "query"), on="query_id").with_columns(
        value=pl.col("query").replace_strict(y, return_dtype=pl.Float64)
    )
    traffic = pl.read_csv(traffic_path)
    shares = dict(traffic.select("stratum", "share").iter_rows())
    mean, _, ci = _by_hand(frame, shares, traffic)
    assert doc["overall"]["a"]["weighted_mean"] == pytest.approx(mean)
    assert doc["overall"]["a"]["weighted_ci95"] == pytest.approx(list(ci), rel=1e-6)


def test_docs_worked_example() -> None:
    # docs/report.md's seven queries, fed to the report: each bold figure the page quotes.
    from pathlib import Path

    rows = [
        ("q1", "howto", 400, 0.5, 1.0),
        ("q2", "howto", 20, 0.2, 1.0),
        ("q3", "howto", 2, 0.02, 0.0),
        ("q4", "howto", 1, 0.01, 0.0),
        ("q5", "error", 100, 0.5, 1.0),
        ("q6", "error", 3, 0.025, 0.0),
        ("q7", "error", 1, 0.01, 1.0),
    ]
    q, st, c, pi, y = (list(col) for col in zip(*rows, strict=True))
    strata = pl.DataFrame({"query_id": q, "stratum": st, "count": c, "inclusion_probability": pi})
    scores = pl.DataFrame({"system": "a", "query_id": q, "value": y})
    traffic = pl.DataFrame(
        {"stratum": ["howto", "error"], "share": [0.7, 0.3], "head_count": [50.0, 50.0]}
    ).with_columns(head_share=pl.Series([0.6, 0.5]))
    o = to_dict(assemble_report(scores, strata, traffic=traffic, binary=True))["overall"]["a"]
    plain = to_dict(
        assemble_report(scores, strata.select("query_id", "stratum"), traffic=traffic, binary=True)
    )["overall"]["a"]
    # By hand, as the page does it.
    per_search = 0.7 * (0.6 * 1 + 0.4 * 100 / 300) + 0.3 * (0.5 * 1 + 0.5 * 100 / 220)
    per_query = 109 / 299
    assert o["weighted_mean"] == pytest.approx(per_search)
    assert o["design_weighted_mean"] == pytest.approx(per_query)
    assert plain["weighted_mean"] == pytest.approx(0.7 * 2 / 4 + 0.3 * 2 / 3)
    page = (Path(__file__).parents[3] / "docs" / "report.md").read_text(encoding="utf-8")
    for value in (o["weighted_mean"], o["design_weighted_mean"], plain["weighted_mean"]):
        assert f"**{value:.3f}**" in page


def test_weighted_difference_on_the_per_search_path() -> None:
    # Two systems on a sample of goldset's: the weighted difference is the difference of the two
    # per-search headlines (the estimator is linear in the values for fixed weights), and its
    # interval stays inside [-1, 1] around it.
    log, y = count_log(800, 300.0, seed=4)
    result = stratified_sample(log, {"a": 15, "b": 12, "c": 10}, seed=2)
    frames = report_frames(result)
    rng = np.random.default_rng(0)
    base = result.sample.select(
        "query_id", value=pl.col("query").replace_strict(y, return_dtype=pl.Float64)
    )
    flipped = base.with_columns(
        value=pl.when(pl.Series(rng.random(base.height) < 0.2))
        .then(1.0 - pl.col("value"))
        .otherwise(pl.col("value"))
    )
    scores = pl.concat(
        [
            base.select("query_id", "value", system=pl.lit("a")),
            flipped.select("query_id", "value", system=pl.lit("b")),
        ]
    ).select("system", "query_id", "value")
    report = assemble_report(
        scores,
        frames["strata"],
        traffic=frames["traffic"],
        binary=True,
        paired=[
            {"a": "a", "b": "b", "mean_diff": 0.0, "ci95": [0.0, 0.0], "p_value": 1.0},
        ],
    )
    d = to_dict(report)
    (p,) = d["paired"]
    expected = d["overall"]["a"]["weighted_mean"] - d["overall"]["b"]["weighted_mean"]
    assert p["weighted_mean_diff"] == pytest.approx(expected, abs=1e-12)
    lo, hi = p["weighted_ci95"]
    assert -1.0 <= lo < expected < hi <= 1.0


def test_count_column_is_checked(tmp_path) -> None:
    from goldset_tui.errors import InputError
    from goldset_tui.io.strata_and_traffic import read_strata

    path = tmp_path / "strata.csv"
    path.write_text("query_id,stratum,count,inclusion_probability\nq1,x,3,0.5\nq2,x,0,0.5\n")
    with pytest.raises(InputError) as err:
        read_strata(path)
    assert (err.value.line, err.value.column) == (3, "count")
    path.write_text("query_id,stratum,count,inclusion_probability\nq1,x,3,0.5\nq2,x,7,0.5\n")
    assert read_strata(path)["count"].to_list() == [3.0, 7.0]
