"""Position bias: the trend test against scipy / statsmodels / an exact enumeration, the bands and
sittings by hand, and the report end to end (several labellers, one labeller, qrels)."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import polars as pl
import pytest
import statsmodels.api as sm
from scipy import stats

from goldset_tui.agreement.position import position_bias, sitting_minutes, trend
from goldset_tui.cli import main
from goldset_tui.judging import blind_order
from goldset_tui.model import GradeScale, Judgment
from goldset_tui.store import Project, sha256_file

SCALE = GradeScale.from_range(0, 3)


def frame(queries: list[str], x: list[float], y: list[int]) -> pl.DataFrame:
    return pl.DataFrame({"query_id": queries, "x": x, "y": y})


def test_one_query_trend_is_the_linear_by_linear_test_of_statsmodels_and_pearson_of_scipy() -> None:
    rng = np.random.default_rng(1)
    pos = np.arange(1, 31)
    grade = np.clip(np.round(2 - pos / 15 + rng.normal(0, 1, 30)), 0, 3).astype(int)
    ours = trend(frame(["q"] * 30, pos.tolist(), grade.tolist()), "x", "y", per=1.0)
    table = np.zeros((30, 4))
    table[np.arange(30), grade] = 1
    # shift_zeros=False: statsmodels otherwise adds 0.5 to every empty cell.
    theirs = sm.stats.Table(table, shift_zeros=False).test_ordinal_association(
        row_scores=pos, col_scores=np.arange(4)
    )
    assert ours["z"] == pytest.approx(theirs.zscore, abs=1e-9)
    assert ours["p_value"] == pytest.approx(theirs.pvalue, abs=1e-12)
    # Mantel's statistic is (n - 1) r^2, chi-squared with one degree of freedom.
    r = stats.pearsonr(pos, grade).statistic
    assert ours["z"] ** 2 == pytest.approx(29 * r**2)
    assert ours["p_value"] == pytest.approx(stats.chi2.sf(29 * r**2, 1))
    assert ours["slope"] == pytest.approx(stats.linregress(pos, grade).slope)


def test_null_mean_and_variance_match_an_exact_enumeration_of_within_query_shuffles() -> None:
    # Three queries of four judgments: every way of reshuffling positions within each query
    # (24^3 = 13,824) gives the exact null distribution of the statistic sum x*y.
    data = {
        "a": ([1, 2, 3, 4], [3, 2, 0, 0]),
        "b": ([1, 2, 3, 4], [1, 1, 0, 2]),
        "c": ([1, 2, 3, 5], [2, 3, 3, 0]),
    }
    observed = sum(np.dot(x, y) for x, y in data.values())
    totals = [
        sum(np.dot(perm, data[q][1]) for q, perm in zip(data, perms, strict=True))
        for perms in itertools.product(*(list(itertools.permutations(x)) for x, _ in data.values()))
    ]
    mean, var = np.mean(totals), np.var(totals)
    queries = [q for q in data for _ in range(4)]
    xs = [v for x, _ in data.values() for v in x]
    ys = [v for _, y in data.values() for v in y]
    ours = trend(frame(queries, xs, ys), "x", "y")
    assert ours["z"] == pytest.approx((observed - mean) / math.sqrt(var), abs=1e-9)
    # And the p-value is close to the exact two-sided permutation p-value, as an approximation.
    exact = np.mean(np.abs(np.array(totals) - mean) >= abs(observed - mean) - 1e-9)
    assert ours["p_value"] == pytest.approx(exact, abs=0.05)


def test_slope_is_the_fixed_effects_regression_slope_and_p_near_a_permutation_test() -> None:
    rng = np.random.default_rng(4)
    rows = []
    for q in range(30):
        size = int(rng.integers(8, 30))
        level = rng.uniform(0.5, 2.5)
        for pos in range(1, size + 1):
            rows.append(
                (f"q{q}", pos, int(np.clip(round(level - 0.01 * pos + rng.normal(0, 0.8)), 0, 3)))
            )
    df = pl.DataFrame(rows, schema=["query_id", "x", "y"], orient="row")
    ours = trend(df, "x", "y", per=10.0)
    names = sorted(df["query_id"].unique())
    dummies = np.array([[qid == n for n in names] for qid in df["query_id"]], dtype=float)
    design = np.column_stack([df["x"].to_numpy(), dummies])  # one intercept per query
    fit = sm.OLS(df["y"].to_numpy().astype(float), design).fit()
    assert ours["slope"] == pytest.approx(10 * fit.params[0], abs=1e-9)
    # Monte Carlo reshuffles of positions within each query (numpy), two-sided.
    x, y, q = df["x"].to_numpy(), df["y"].to_numpy().astype(float), df["query_id"].to_numpy()
    groups = [np.flatnonzero(q == name) for name in np.unique(q)]
    centred = np.concatenate([y[g] - y[g].mean() for g in groups])
    xs = np.concatenate([x[g] for g in groups]).astype(float)
    observed = np.dot(xs, centred)
    shuffled = sum(  # 3000 reshuffles at once: random keys sorted within each query
        (x[g][rng.random((3000, g.size)).argsort(axis=1)] * (y[g] - y[g].mean())).sum(axis=1)
        for g in groups
    )
    hits = int((np.abs(shuffled) >= abs(observed) - 1e-9).sum())
    assert ours["p_value"] == pytest.approx(hits / 3000, abs=0.03)


def test_bands_and_vs_query_by_hand() -> None:
    # One labeller, two queries. q1 shown at 1, 2, 7 with grades 3, 1, 2 (mean 2);
    # q2 shown at 3 and 12 with grades 0, 2 (mean 1).
    judgments = pl.DataFrame(
        {
            "labeller": ["ann"] * 5,
            "query_id": ["q1", "q1", "q1", "q2", "q2"],
            "doc_id": ["a", "b", "c", "d", "e"],
            "grade": [3, 1, 2, 0, 2],
            "time": [f"2026-01-05T09:0{i}:00Z" for i in range(5)],
            "position": [0, 1, 6, 2, 11],
            "seq": [0, 1, 2, 3, 4],
        }
    )
    (ann,) = position_bias(judgments, SCALE)
    first, second, third, last = ann["by_position"]
    # 1-5: grades 3, 1, 0 -> mean 4/3; relevant (>= 1) 2 of 3; vs query: +1, -1, -1 -> -1/3.
    assert (first["band"], first["n"]) == ("1-5", 3)
    assert first["mean_grade"] == pytest.approx(4 / 3)
    assert first["relevant_rate"] == pytest.approx(2 / 3)
    assert first["vs_query"] == pytest.approx(-1 / 3)
    # 6-10: grade 2 in q1 -> vs query 0; 11-20: grade 2 in q2 -> vs query +1; 21+: empty.
    assert (second["n"], second["vs_query"]) == (1, 0.0)
    assert (third["n"], third["vs_query"]) == (1, 1.0)
    assert (last["n"], last["mean_grade"]) == (0, None)
    assert ann["relevant_from"] == 1 and ann["n"] == 5


def test_sittings_split_at_idle_gaps_by_hand() -> None:
    history = pl.DataFrame(
        {
            "labeller": ["ann"] * 4 + ["bob"],
            "seq": [0, 1, 2, 3, 0],
            # ann: 09:00, 09:10, then 40 idle minutes (> 30): a new sitting at 09:50, 10:05.
            "time": [
                "2026-01-05T09:00:00Z",
                "2026-01-05T09:10:00.500+00:00",
                "2026-01-05T09:50:00Z",
                "2026-01-05T10:05:00Z",
                "not a time",
            ],
        }
    )
    out = sitting_minutes(history, 30.0).sort("labeller", "seq")
    assert out["minutes"].to_list() == pytest.approx([0.0, 10 + 0.5 / 60, 0.0, 15.0])
    assert out["sitting"].to_list() == [0, 0, 1, 1]  # bob's time does not parse: left out


def store_with_fatigue(tmp_path, labellers: list[str], drop: float, seed: int = 3):
    """Labellers grade docs in the blind order the judging screen uses; each query's grades come
    from the documents' relevance, minus ``drop`` per position shown (fatigue)."""
    rng = np.random.default_rng(seed)
    pool = tmp_path / "pool.jsonl"
    docs = {f"q{q}": [f"q{q}-d{i}" for i in range(25)] for q in range(12)}
    pool.write_text(
        "".join(f'{{"query_id": "{q}", "doc_id": "{d}"}}\n' for q in docs for d in docs[q])
    )
    relevance = {d: rng.uniform(0, 3) for ds in docs.values() for d in ds}
    project = Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))
    for name in labellers:
        minute = 0
        with project.writer(name) as w:
            for q, ds in docs.items():
                for pos, i in enumerate(blind_order(name, q, ds)):
                    grade = int(
                        np.clip(round(relevance[ds[i]] - drop * pos + rng.normal(0, 0.5)), 0, 3)
                    )
                    time = f"2026-01-05T{9 + minute // 60:02d}:{minute % 60:02d}:00Z"
                    w.record(Judgment(name, q, ds[i], grade, time, seconds=20.0, position=pos))
                    minute += 1
    return project.path


def test_report_finds_planted_fatigue_and_not_where_there_is_none(tmp_path, capsys) -> None:
    store = store_with_fatigue(tmp_path, ["ann", "bob"], drop=0.04)
    assert main(["agreement", "--store", str(store), "--format", "json", "--samples", "0"]) == 0
    report = json.loads(capsys.readouterr().out)
    ann, bob = report["position_bias"]
    assert ann["labeller"] == "ann" and ann["n"] == 300
    assert ann["position_trend"]["grade_p_value"] < 0.01
    # Planted: -0.4 per 10 positions before grades are rounded and clipped to 0-3, which flattens it.
    assert -0.4 <= ann["position_trend"]["grade_per_10"] <= -0.15
    assert [b["band"] for b in ann["by_position"]] == ["1-5", "6-10", "11-20", "21+"]
    assert sum(b["n"] for b in ann["by_position"]) == 300
    # 300 judgments a minute apart with no break: one sitting, 300 minutes long.
    assert ann["sittings"] == 1 and ann["by_time"][-1]["n"] == 240

    (tmp_path / "fresh").mkdir()
    fresh = store_with_fatigue(tmp_path / "fresh", ["cy"], drop=0.0)
    assert main(["agreement", "--store", str(fresh), "--format", "json"]) == 0
    (cy,) = json.loads(capsys.readouterr().out)["position_bias"]
    assert cy["position_trend"]["grade_p_value"] > 0.05


def test_qrels_have_no_positions_and_markdown_shows_the_bands(tmp_path, capsys) -> None:
    for name, text in {
        "a": "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n",
        "b": "q1 0 d1 1\nq1 0 d2 1\nq2 0 d3 2\n",
    }.items():
        (tmp_path / f"{name}.qrels").write_text(text)
    argv = ["agreement", "--qrels", f"a={tmp_path}/a.qrels", "--qrels", f"b={tmp_path}/b.qrels"]
    assert main([*argv, "--scale", "0-3", "--format", "json", "--samples", "20"]) == 0
    assert json.loads(capsys.readouterr().out)["position_bias"] is None
    store = store_with_fatigue(tmp_path, ["ann", "bob"], drop=0.04)
    assert main(["agreement", "--store", str(store), "--samples", "0"]) == 0
    md = capsys.readouterr().out
    assert "## Position bias" in md and "| ann | 21+ | 60 |" in md
    assert "- ann: grade -" in md and "p < 0.001" in md


def test_one_labeller_without_repeats_gets_position_bias(tmp_path, capsys) -> None:
    store = store_with_fatigue(tmp_path, ["rae"], drop=0.04)
    assert main(["agreement", "--store", str(store), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["labellers"] == ["rae"] and report["self_consistency"] == []
    (rae,) = report["position_bias"]
    assert rae["position_trend"]["grade_p_value"] < 0.01
    assert main(["agreement", "--store", str(store)]) == 0
    md = capsys.readouterr().out
    assert "Self-consistency of one labeller" in md and "No blind repeats" in md
    assert "## Position bias" in md


def _one_query_store(tmp_path, grades: list[int]):
    """One labeller, one query, documents graded ``grades`` at shown positions 0, 1, 2, ..."""
    pool = tmp_path / "pool.jsonl"
    docs = [f"d{i}" for i in range(len(grades))]
    pool.write_text("".join(f'{{"query_id": "q1", "doc_id": "{d}"}}\n' for d in docs))
    project = Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))
    with project.writer("rae") as w:
        for pos, (doc, grade) in enumerate(zip(docs, grades, strict=True)):
            time = f"2026-01-05T09:{pos:02d}:00Z"
            w.record(Judgment("rae", "q1", doc, grade, time, seconds=20.0, position=pos))
    return project.path


def test_three_judgments_are_too_few_for_a_trend(tmp_path, capsys) -> None:
    # Grades 3, 0, 0 at positions 1, 2, 3: the fitted slope is -1.5 a position, "-15.00 per 10
    # positions", which the report printed as a finding. Below 30 judgments it says so instead.
    store = _one_query_store(tmp_path, [3, 0, 0])
    assert main(["agreement", "--store", str(store), "--format", "json"]) == 0
    (rae,) = json.loads(capsys.readouterr().out)["position_bias"]
    t = rae["position_trend"]
    assert t["too_few"] and t["judgments"] == 3 and t["min_judgments"] == 30
    assert t["grade_per_10"] is None and t["grade_p_value"] is None
    assert main(["agreement", "--store", str(store)]) == 0
    md = capsys.readouterr().out
    assert (
        "- rae: too few judgments for a trend (3 judgments within 1 query; at least 30 needed)"
        in md
    )
    assert "-15.00" not in md and "per 10 positions" not in md and "1 queries" not in md
    # No blind repeats: the paragraph explaining the repeats table is not printed either.
    assert "share of repeats graded as the first time" not in md and "No blind repeats" in md


def test_enough_judgments_in_one_query_say_query_in_the_singular(tmp_path, capsys) -> None:
    store = _one_query_store(tmp_path, [3, 2, 1, 0] * 10)
    assert main(["agreement", "--store", str(store)]) == 0
    md = capsys.readouterr().out
    assert (
        "; within 1 query" in md
        and "1 queries" not in md
        and "too few" not in md.split("sitting")[0]
    )


def test_signed_never_prints_minus_zero() -> None:
    from goldset_tui.agreement.markdown import position_lines, signed

    assert signed(-0.0004) == "0.00" and signed(0.0004) == "0.00" and signed(-0.0) == "0.00"
    assert signed(-0.006) == "-0.01" and signed(0.25) == "+0.25" and signed(None) == "-"
    band = {"band": "1-5", "n": 40, "mean_grade": 1.5, "relevant_rate": 0.5, "vs_query": -0.001}
    trend = {
        "queries": 4,
        "judgments": 40,
        "min_judgments": 30,
        "too_few": False,
        "grade_per_10": -0.001,
        "grade_p_value": 0.9,
        "relevant_per_10": -0.0001,
        "relevant_p_value": 0.95,
    }
    report = {
        "position_bias": [
            {
                "labeller": "rae",
                "relevant_from": 1,
                "gap_minutes": 30.0,
                "sittings": 1,
                "by_position": [band],
                "by_time": [band],
                "position_trend": trend,
                "time_trend": trend,
            }
        ]
    }
    text = "\n".join(position_lines(report))
    assert "-0.00" not in text and "grade 0.00 per 10 positions" in text and "| 0.00 |" in text


def test_a_one_minute_sitting_carries_no_time_trend(tmp_path, capsys) -> None:
    # Forty judgments of one query in 58.5 seconds, grades falling from 3 to 0: the fitted slope
    # per minute, stretched to "per 10 minutes", was printed as a finding (-37.52 per 10
    # minutes here) from a sitting a tenth that long.
    pool = tmp_path / "pool.jsonl"
    docs = [f"d{i}" for i in range(40)]
    pool.write_text("".join(f'{{"query_id": "q1", "doc_id": "{d}"}}\n' for d in docs))
    project = Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))
    grades = [3, 2, 1, 0] * 10
    grades.sort(reverse=True)
    with project.writer("rae") as w:
        for pos, (doc, grade) in enumerate(zip(docs, grades, strict=True)):
            seconds = pos * 1.5
            time = f"2026-01-05T09:00:{int(seconds):02d}.{int(seconds * 10) % 10}00Z"
            w.record(Judgment("rae", "q1", doc, grade, time, seconds=1.5, position=pos))
    assert main(["agreement", "--store", str(project.path), "--format", "json"]) == 0
    (rae,) = json.loads(capsys.readouterr().out)["position_bias"]
    t = rae["time_trend"]
    assert not t["too_few"] and t["judgments"] == 40  # enough judgments: the span is what fails
    assert t["too_short"] and t["span"] == pytest.approx(39 * 1.5 / 60) and t["min_span"] == 10
    assert t["grade_per_10"] is None and t["grade_p_value"] is None
    # The position trend, over 40 positions, is still read.
    assert rae["position_trend"]["grade_per_10"] is not None
    assert main(["agreement", "--store", str(project.path)]) == 0
    md = capsys.readouterr().out
    assert "- rae: sittings too short for a trend (the judgments within 1 query span 1.0 " in md
    assert "per 10 minutes" not in md


def test_a_long_enough_sitting_keeps_its_time_trend(tmp_path, capsys) -> None:
    # The planted-fatigue store: 300 judgments a minute apart, one 299-minute sitting.
    store = store_with_fatigue(tmp_path, ["ann"], drop=0.04)
    assert main(["agreement", "--store", str(store), "--format", "json"]) == 0
    (ann,) = json.loads(capsys.readouterr().out)["position_bias"]
    t = ann["time_trend"]
    assert not t["too_short"] and t["span"] == pytest.approx(299.0)
    assert t["grade_per_10"] is not None
