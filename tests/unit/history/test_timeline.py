"""Recurrence and paired changes between releases, checked against hand calculations written out
here (and the exact permutation p-value from scipy)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from goldset_tui.history.records import Record
from goldset_tui.history.timeline import (
    build_history,
    paired_change,
    parse_recurring,
    recurring_failures,
    release_order,
)

V1 = {"id": "v1", "pool_sha256": "a", "pool_extensions": [], "judgments": 100, "qrels_sha256": "x"}
V2 = {
    "id": "v2",
    "pool_sha256": "b",
    "pool_extensions": ["dense-v2"],
    "judgments": 114,
    "qrels_sha256": "y",
}


def rec(
    release: str, time: str, scores: dict[str, float], *, system="bm25", version=V1, strata=None
):
    return Record(
        release=release,
        system=system,
        measure="nDCG@10",
        time=time,
        version=dict(version),
        binary=False,
        k=10,
        scores=scores,
        strata=strata or {},
    )


def test_paired_change_is_on_the_common_queries_only():
    old = rec("r1", "t1", {"q0": 1.0, "q1": 0.5, "q2": 0.2, "q3": 0.0, "q4": 1.0, "q5": 0.4})
    new = rec("r2", "t2", {"q1": 0.7, "q2": 0.2, "q3": 0.3, "q4": 1.0, "q5": 0.8, "q6": 0.0})
    change = paired_change(old, new, samples=20_000)
    # By hand: common queries q1..q5; new - old = 0.2, 0.0, 0.3, 0.0, 0.4; mean = 0.9 / 5 = 0.18.
    # (Unpaired, over each release's own queries, it would be 3.0/6 - 3.1/6 = -0.0167: the other
    # sign, which is why the change is paired on the same queries.)
    assert change["n"] == 5
    assert change["mean_diff"] == pytest.approx(0.18)
    # Exact sign-flip test by hand: the zeros flip to themselves; |0.2 ± 0.3 ± 0.4| reaches 0.9
    # only with all three signs alike: 2 of the 8 sign patterns, p = 0.25.
    a = np.array([0.7, 0.2, 0.3, 1.0, 0.8])
    b = np.array([0.5, 0.2, 0.0, 1.0, 0.4])
    exact = stats.permutation_test(
        (a, b),
        lambda x, y: np.mean(x - y),
        permutation_type="samples",
        n_resamples=math.inf,
        alternative="two-sided",
    ).pvalue
    assert exact == pytest.approx(0.25)
    assert change["p_value"] == pytest.approx(exact, abs=0.015)
    # The interval, by hand (docs/report.md): u = (d + 1) / 2 = .6, .5, .65, .5, .7; two of five
    # at 0.5 (ties) take 2/5 of a pseudo-query of spread; Wilson at mean(u) with n / phi queries
    # and t(4). It holds 0, as the test's p = 0.25 does. (The percentile bootstrap it replaced
    # gave (0.04, 0.32) and called this change significant on five queries, three of them moved.)
    u = (a - b + 1) / 2
    m, var = u.mean(), u.var(ddof=1)
    phi = (5 * var / (m * (1 - m)) + 2 / 5) / (5 + 2 / 5)
    n_eff, q = 5 / phi, stats.t.ppf(0.975, 4)
    centre = (m + q * q / (2 * n_eff)) / (1 + q * q / n_eff)
    half = q / (1 + q * q / n_eff) * math.sqrt(m * (1 - m) / n_eff + q * q / (4 * n_eff**2))
    assert change["ci95"] == pytest.approx([2 * (centre - half) - 1, 2 * (centre + half) - 1])
    lo, hi = change["ci95"]
    assert lo < 0 < 0.18 < hi < 1
    assert change["significant"] is False and change["ci_method"] == "difference-score-t"
    assert change["set_changed"] == []


def test_a_change_of_golden_set_is_named():
    old = rec("r1", "t1", {"q1": 1.0, "q2": 0.0})
    new = rec("r2", "t2", {"q1": 0.0, "q2": 0.0}, version=V2)
    change = paired_change(old, new, samples=200)
    assert change["set_changed"] == ["14 judgments added", "pool extended by run dense-v2"]
    assert change["mean_diff"] == pytest.approx(-0.5)  # (0 - 1 + 0 - 0) / 2


def test_every_query_moving_the_same_way_is_not_a_point():
    # Seven queries from 0 to 1: the percentile bootstrap gave [1, 1] (every resample is seven 1s).
    old = rec("r1", "t1", {f"q{i}": 0.0 for i in range(7)})
    new = rec("r2", "t2", {f"q{i}": 1.0 for i in range(7)})
    lo, hi = paired_change(old, new, samples=200)["ci95"]
    assert -1 <= lo < hi == 1 and lo == pytest.approx(2 * 7 / (7 + stats.t.ppf(0.975, 6) ** 2) - 1)
    # A release that changed nothing: [0, 0] before, now a width around 0.
    lo, hi = paired_change(old, old, samples=200)["ci95"]
    assert -1 < lo < 0 < hi < 1 and lo == pytest.approx(-hi)


def test_a_measure_with_no_known_range_keeps_student_t():
    old = rec("r1", "t1", {"q1": 3.0, "q2": 5.0, "q3": 1.0})
    new = rec("r2", "t2", {"q1": 4.0, "q2": 9.0, "q3": 2.0})
    change = paired_change(old, new, samples=200, bounded=False)
    d = np.array([1.0, 4.0, 1.0])
    half = stats.t.ppf(0.975, 2) * d.std(ddof=1) / math.sqrt(3)
    assert change["ci95"] == pytest.approx([d.mean() - half, d.mean() + half])
    assert change["ci_method"] == "student-t"


def test_no_query_in_common_gives_no_difference():
    change = paired_change(rec("r1", "t1", {"q1": 1.0}), rec("r2", "t2", {"q2": 1.0}))
    assert change["n"] == 0 and change["mean_diff"] is None and change["significant"] is False


def _five_releases():
    # Failing (0) by hand, releases r0 (oldest) .. r5:
    #   q1 fails in r1, r2, r3           -> 3 of the last 5 (r1..r5): recurring at 3/5
    #   q2 fails in r0, r1, r5           -> r0 is outside the window: 2 of 5, not recurring
    #   q3 fails in r2, r3, r4, r5       -> 4 of 5: recurring
    #   q4 fails in r3, is missing in r4 -> 1 of 5 (a missing query is not a failure)
    fails = {
        "r0": {"q2"},
        "r1": {"q1", "q2"},
        "r2": {"q1", "q3"},
        "r3": {"q1", "q3", "q4"},
        "r4": {"q3"},
        "r5": {"q2", "q3"},
    }
    out = []
    for i, (release, failed) in enumerate(fails.items()):
        queries = ["q1", "q2", "q3"] + ([] if release == "r4" else ["q4"])
        scores = {q: 0.0 if q in failed else 0.5 for q in queries}
        out.append(rec(release, f"2026-0{i + 1}", scores, strata={"q3": "negation"}))
    return out


def test_recurring_failures_match_the_hand_count():
    records = _five_releases()
    got = recurring_failures(records, 3, 5)
    assert [(r["query_id"], r["failed_in"]) for r in got] == [
        ("q1", ["r1", "r2", "r3"]),
        ("q3", ["r2", "r3", "r4", "r5"]),
    ]
    assert got[1]["stratum"] == "negation" and got[0]["stratum"] == "(no stratum)"
    # 2/3: the window is r3, r4, r5; only q3 fails in two of them (in all three).
    assert [r["query_id"] for r in recurring_failures(records, 2, 3)] == ["q3"]


def test_history_orders_releases_by_first_record_and_pairs_each_step():
    records = list(reversed(_five_releases()))
    assert release_order(records) == ["r0", "r1", "r2", "r3", "r4", "r5"]
    history = build_history(records, samples=200)
    assert [c["to"] for c in history.changes] == ["r1", "r2", "r3", "r4", "r5"]
    assert history.changes[3]["n"] == 3  # r3 -> r4: q4 was not evaluated in r4
    doc = history.to_json()
    assert set(doc) == {"metric", "releases", "changes", "recurring"}
    assert set(doc["releases"][0]) >= {
        "release",
        "system",
        "time",
        "version",
        "mean",
        "ci95",
        "strata",
    }
    assert set(doc["changes"][0]) >= {"system", "from", "to", "mean_diff", "ci95", "p_value"}
    assert set(doc["recurring"][0]) == {"query_id", "stratum", "system", "failed_in"}


@pytest.mark.parametrize("text", ["3", "0/5", "4/3", "a/b", "3/"])
def test_bad_recurring_is_refused(text):
    with pytest.raises(ValueError):
        parse_recurring(text)
    assert parse_recurring("3/5") == (3, 5)


def test_json_has_null_not_nan_where_no_interval_exists():
    # One graded query: the score interval needs two (eval.intervals gives NaN below that).
    history = build_history([rec("r1", "t1", {"q1": 0.5})], samples=50)
    import json

    text = json.dumps(history.to_json(), allow_nan=False)
    assert json.loads(text)["releases"][0]["ci95"] == [None, None]


def test_text_and_markdown_name_the_change_and_escape_pipes():
    from goldset_tui.history.format import to_markdown, to_text

    records = [
        rec("r|1", "t1", {"q1": 1.0, "q2": 0.0}),
        rec("r2", "t2", {"q1": 0.0, "q2": 0.0}, version=V2),
    ]
    history = build_history(records, samples=100)
    md = to_markdown(history, recurring=(3, 5))
    assert "| r\\|1 |" in md and "14 judgments added, pool extended by run dense-v2" in md
    text = to_text(history, recurring=(3, 5))
    assert "^ the golden set changed here: 14 judgments added" in text
    assert "-0.500" in text  # (0 - 1 + 0 - 0) / 2 on the two common queries


def test_text_columns_stay_aligned_under_a_name_with_an_escape_or_a_bidi_mark():
    from goldset_tui.history.format import to_text
    from goldset_tui.text import visible

    records = [
        rec("r\x1b[31m\u202e1", "t1", {"q1": 1.0, "q2": 0.0}),
        rec("r2", "t2", {"q1": 0.0, "q2": 0.0}),
    ]
    shown = visible(to_text(build_history(records, samples=100), recurring=(3, 5)))
    (header,) = [line for line in shown.splitlines() if line.startswith("  release ")]
    rows = [line for line in shown.splitlines() if V1["id"] in line]
    assert len(rows) == 2 and "r␛[31m<U+202E>1" in rows[0]
    assert {row.index(V1["id"]) for row in rows} == {header.index("version")}


def test_a_change_whose_interval_and_p_disagree_says_why():
    # 5 of 42 queries from 0 to 1, the rest tied: the interval excludes 0 (by hand, [+0.007,
    # +0.228]: see tests/unit/report/test_report_paired.py) while five sign flips cannot give a
    # p under 2/32 = 0.0625. The history marks the change and says why in words.
    from goldset_tui.history.format import DISAGREE_LINE, to_markdown, to_text

    old = rec("r1", "t1", {f"q{i:02d}": 0.0 for i in range(42)})
    new = rec("r2", "t2", {f"q{i:02d}": 1.0 if i < 5 else 0.0 for i in range(42)})
    history = build_history([old, new], samples=2000)
    (change,) = history.changes
    assert change["ci95"][0] > 0 and change["p_value"] > 0.05 and change["significant"] is True
    text = to_text(history, recurring=(3, 5))
    assert "on 42 * ‡" in text and DISAGREE_LINE in text
    assert DISAGREE_LINE in to_markdown(history, recurring=(3, 5))
    # Where they agree, no mark and no line.
    agree = build_history([old, old], samples=200)
    assert "‡" not in to_text(agree, recurring=(3, 5))


def test_a_one_way_change_says_so_in_words_beside_its_interval():
    from goldset_tui.history.format import change_text, to_markdown, to_text

    # Seven queries, none better, three worse by 0.2: the covering interval reaches across 0
    # (kept: it is what covers at 95%), and the words say what it cannot.
    before = [0.5, 0.6, 0.7, 0.4, 0.3, 0.9, 0.8]
    after = [0.5, 0.6, 0.7, 0.4, 0.1, 0.7, 0.6]
    old = rec("r1", "t1", {f"q{i}": v for i, v in enumerate(before)})
    new = rec("r2", "t2", {f"q{i}": v for i, v in enumerate(after)})
    change = paired_change(old, new)
    lo, hi = change["ci95"]
    assert lo < 0 < hi  # the interval alone reads "better or worse"
    # Counted independently of the module: the signs of the differences.
    signs = np.sign(np.array(after) - np.array(before))
    assert (change["improved"], change["worse"]) == (int((signs > 0).sum()), int((signs < 0).sum()))
    assert (change["improved"], change["worse"]) == (0, 3)
    text = change_text(change)
    assert "on 7 (no query improved; 3 got worse)" in text
    assert f"[{lo:+.3f}, {hi:+.3f}]" in text
    history = build_history([old, new])
    assert "no query improved; 3 got worse" in to_text(history, recurring=(3, 5))
    assert "no query improved; 3 got worse" in to_markdown(history, recurring=(3, 5))
    # The other way, nothing moved, and a mixed change (no sentence: its interval says it).
    up = paired_change(new, old)
    assert "(no query got worse; 3 improved)" in change_text(up)
    assert "(no query changed)" in change_text(paired_change(old, old))
    mixed = rec("r3", "t3", {f"q{i}": v for i, v in enumerate([0.6, *after[1:6], 0.5])})
    assert "(" not in change_text(paired_change(new, mixed)).split(" on 7")[1]


def test_a_0_1_measure_changes_by_the_paired_rate_interval():
    # Success@k in the history: the change is Tango's interval from the discordant counts (two of
    # 42 queries newly answered), as `goldset compare` and the report give it; the difference
    # score interval read [-0.034, +0.129] here, narrower than the counts allow.
    from goldset_tui.eval.paired_interval import paired_rate_interval

    old = rec("r1", "t1", {f"q{i}": float(i >= 2 and i % 3 == 0) for i in range(42)})
    new = rec("r2", "t2", {f"q{i}": float(i < 2 or i % 3 == 0) for i in range(42)})
    change = paired_change(old, new, samples=200, binary=True)
    assert change["ci_method"] == "paired-score-t"
    assert change["ci95"] == pytest.approx(list(paired_rate_interval(2, 0, 42)))
    assert change["ci95"][0] < 0 < change["ci95"][1]
