"""`goldset classify --compare`: the divergence, the test and the odds ratios against scipy and
statsmodels, the features by hand, and a doubled rate never called alike."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon
from scipy.stats import chi2, chi2_contingency
from statsmodels.stats.contingency_tables import Table2x2
from statsmodels.stats.proportion import proportions_ztest

from goldset_tui.cli import main
from goldset_tui.sampling.compare import compare_logs, js_divergence
from goldset_tui.sampling.shape_tests import (
    chi2_sf,
    effect,
    homogeneity,
    largest_odds_ratio,
    odds_ratio,
    shape_verdict,
)


def test_js_divergence_is_the_same_number_whatever_the_hash_seed():
    """The keys were summed in the order of a set of strings, which changes with Python's hash
    seed: `goldset classify --compare --format json` printed 0.2649960242548741 in one run and
    0.26499602425487406 in the next on the sample log. Summed in sorted order, it is one number."""
    import os
    import subprocess
    import sys

    code = (
        "from goldset_tui.sampling.compare import js_divergence\n"
        "p = {f'k{i}': 1 / (i + 3) for i in range(12)}\n"
        "q = {f'k{i}': 1 / (2 * i + 1) ** 0.5 for i in range(1, 14)}\n"
        "print(repr(js_divergence(p, q)))"
    )
    printed = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(8)
    }
    assert len(printed) == 1


def test_js_divergence_matches_scipy():
    p = {"a": 3.0, "b": 1.0}
    q = {"b": 2.0, "c": 2.0}
    # scipy returns the Jensen-Shannon *distance*, the square root of the divergence
    expected = jensenshannon([0.75, 0.25, 0.0], [0.0, 0.5, 0.5], base=2) ** 2
    assert js_divergence(p, q) == pytest.approx(expected)
    assert js_divergence(p, p) == pytest.approx(0.0)
    assert js_divergence({"a": 1.0}, {"b": 1.0}) == pytest.approx(1.0)  # disjoint: one bit


def test_features_by_hand(tmp_path):
    real = tmp_path / "real.csv"
    real.write_text("query,count\nERR_42 timeout,3\nrotate key,1\n", encoding="utf-8")
    synthetic = tmp_path / "synthetic.txt"
    synthetic.write_text(
        "how do i rotate an api key without downtime\nrotate key\n", encoding="utf-8"
    )
    vocab = frozenset({"rotate", "key", "api", "timeout"})
    rows = {r.feature: r for r in compare_logs(real, synthetic, vocab)}
    # Real, weighted by count: tokens (2*3 + 2*1) / 4 = 2.0; identifier: ERR_42 in 3 of 4 = 75%;
    # negation 0%; vocabulary share: "err timeout" -> letters err, timeout: 1/2, "rotate key" 2/2:
    # (0.5*3 + 1*1) / 4 = 62.5% (printed 62%: Python rounds half to even).
    assert (rows["length in tokens (mean)"].real, rows["identifier rate"].real) == ("2.0", "75%")
    assert rows["words in the corpus vocabulary (mean share)"].real == "62%"
    # Synthetic, one each: tokens (9 + 2) / 2 = 5.5; negation ("without") 1 of 2 = 50%;
    # vocabulary: {rotate, api, key} of 9 words = 1/3, and 2/2: (1/3 + 1) / 2 = 67%.
    assert rows["length in tokens (mean)"].synthetic == "5.5"
    assert rows["negation rate"].synthetic == "50%"
    assert rows["words in the corpus vocabulary (mean share)"].synthetic == "67%"
    # Length bins: real {2: 4}, synthetic {9+: 1, 2: 1}: JS of (1, 0) against (1/2, 1/2).
    expected = jensenshannon([1.0, 0.0], [0.5, 0.5], base=2) ** 2
    assert rows["length in tokens (mean)"].divergence == pytest.approx(expected)


def test_queries_without_words_have_no_vocabulary_share(tmp_path):
    # "404" and "!!!" have no letters: no share (was 0/0 = NaN, and a traceback).
    real = tmp_path / "real.txt"
    real.write_text("rotate key\n404\n", encoding="utf-8")
    synthetic = tmp_path / "synthetic.txt"
    synthetic.write_text("!!!\n12345\n", encoding="utf-8")
    vocab = frozenset({"rotate"})
    rows = {r.feature: r for r in compare_logs(real, synthetic, vocab)}
    share = rows["words in the corpus vocabulary (mean share)"]
    # By hand: real's only query with words, "rotate key", has 1 of 2 in the vocabulary: 50%;
    # the synthetic side has none, so nothing to compare.
    assert (share.real, share.synthetic, share.verdict) == ("50%", "-", "not measured")


def test_the_command_prints_json_and_refuses_bad_combinations(tmp_path, capsys):
    real = tmp_path / "real.txt"
    real.write_text("a b\nc\n", encoding="utf-8")
    assert main(["classify", "--compare", str(real), str(real), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert all(r["divergence"] == 0 for r in doc["rows"]) and "look like real" in doc["verdict"]
    assert main(["classify", "--compare", str(real), str(real), "-o", "x.csv"]) == 2
    assert main(["classify", str(real)]) == 2  # labelling still needs -o


def _rate_files(tmp_path, name: str, n: int, negated: int):
    """``n`` one-count queries of which ``negated`` hold a negation word, all else alike."""
    path = tmp_path / f"{name}.txt"
    lines = [f"login {'without' if i < negated else 'with'} password {i}" for i in range(n)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("real", "synthetic"), [(0.10, 0.20), (0.05, 0.10), (0.18, 0.30)])
def test_a_doubled_negation_rate_is_never_alike(tmp_path, real, synthetic) -> None:
    # One Jensen-Shannon threshold (0.02 bits) called all three "alike": 10% against 20% is
    # 0.016 bits. Judged by the odds ratio and a two-proportion test, never.
    for n in (40, 200, 2000):
        a = _rate_files(tmp_path, f"real{n}", n, round(real * n))
        b = _rate_files(tmp_path, f"syn{n}", n, round(synthetic * n))
        row = {r.feature: r for r in compare_logs(a, b, None)}["negation rate"]
        assert row.divergence < 0.02  # what the old verdict read as alike
        assert row.verdict != "alike"
        # The test is statsmodels' pooled two-proportion z-test (chi-square on the 2 x 2 table).
        counts = [round(real * n), round(synthetic * n)]
        _z, p = proportions_ztest(counts, [n, n])
        assert row.p_value == pytest.approx(p, rel=1e-9)
        expected = "may differ" if p >= 0.05 else "differ somewhat"
        expected = "differ a lot" if p < 0.05 and row.odds_ratio >= 2 else expected
        assert row.verdict == expected
    assert row.verdict in ("differ somewhat", "differ a lot")  # 2000 a side tells


def test_a_doubled_rate_has_an_odds_ratio_above_two_wherever_it_starts() -> None:
    for p in np.linspace(0.001, 0.499, 200):
        ratio = odds_ratio(p, 2 * p)
        # statsmodels' odds ratio of the 2 x 2 table of shares, by its own code
        table = Table2x2(np.array([[2 * p, 1 - 2 * p], [p, 1 - p]]))
        assert ratio == pytest.approx(table.oddsratio) and ratio > 2
        assert shape_verdict(ratio, 0.5) != "alike" and shape_verdict(ratio, 0.01) == "differ a lot"
    assert shape_verdict(odds_ratio(0.50, 0.52), 1e-9) == "alike"  # a small shift stays alike


def test_the_mix_test_is_scipys_chi_square_and_its_tail() -> None:
    rng = np.random.default_rng(5)
    for bins in (2, 3, 5, 7):
        table = rng.integers(1, 60, size=(2, bins))
        p = {str(k): float(v) for k, v in enumerate(table[0])}
        q = {str(k): float(v) for k, v in enumerate(table[1])}
        statistic, df, p_value = homogeneity(p, q, table[0].sum(), table[1].sum())
        theirs = chi2_contingency(table, correction=False)
        assert (statistic, df) == (pytest.approx(theirs.statistic), theirs.dof)
        assert p_value == pytest.approx(theirs.pvalue, rel=1e-9, abs=1e-15)
    for df in (1, 2, 4, 6, 30):
        for x in (0.01, 0.5, 1.0, 3.0, 6.5, 12.0, 40.0, 120.0):
            assert chi2_sf(x, df) == pytest.approx(chi2.sf(x, df), rel=1e-9, abs=1e-300)
    # The largest one-bin-against-the-rest odds ratio names its bin.
    ratio, where = largest_odds_ratio({"1": 50, "2": 40, "9+": 10}, {"1": 50, "2": 30, "9+": 20})
    assert where == "9+" and ratio == pytest.approx((0.2 / 0.8) / (0.1 / 0.9))


def test_too_few_queries_say_may_differ_in_the_table_and_the_verdict(tmp_path, capsys) -> None:
    a = _rate_files(tmp_path, "real", 40, 4)
    b = _rate_files(tmp_path, "syn", 40, 8)
    assert main(["classify", "--compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    (line,) = [x for x in out.splitlines() if x.startswith("negation rate")]
    assert "may differ" in line and "10% | 20%" in line and "2.25" in line
    assert "negation rate: 10% real, 20% synthetic may differ as much" in out
    assert "look like real traffic" not in out


def test_a_doubled_bin_of_seven_is_not_alike(tmp_path) -> None:
    # Length in tokens over seven bins: 3-token queries go from 10% to 20% of 2000, the rest
    # shrink evenly. JS is small (the rest of the mix is near), the verdict is not "alike".
    def write(name: str, shares: dict[int, float]):
        lines = []
        for tokens, share in shares.items():
            lines += [" ".join([f"w{len(lines) + i}"] * tokens) for i in range(round(share * 2000))]
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    real = {1: 0.15, 2: 0.25, 3: 0.10, 4: 0.20, 5: 0.10, 7: 0.15, 10: 0.05}
    synthetic = {k: (0.20 if k == 3 else v * 0.8 / 0.9) for k, v in real.items()}
    row = {r.feature: r for r in compare_logs(write("real", real), write("syn", synthetic), None)}[
        "length in tokens (mean)"
    ]
    assert row.divergence < 0.02 and row.bin == "3" and row.odds_ratio > 2
    assert row.verdict == "differ a lot" and row.df == 6


def test_the_effect_is_named_from_a_bin_that_tells_once_the_mix_does() -> None:
    # A log of 7,500 searches against 42 queries: the 0.1% bin the 42 lack has an infinite odds
    # ratio but no test could see it (expected 0.04 queries); the 60-80% bin, 3.6% against
    # 16.7%, is where the mix differs, and is what the row names.
    real = {"0-20%": 7.5, "40-60%": 1530.0, "60-80%": 270.0, "80-100%": 5692.5}
    synthetic = {"40-60%": 4.0, "60-80%": 7.0, "80-100%": 31.0}
    assert largest_odds_ratio(real, synthetic)[1] == "0-20%"
    ratio, where, p_value, df = effect(real, synthetic, 7500.0, 42.0)
    assert (where, df) == ("60-80%", 3) and p_value < 0.05
    table = Table2x2(np.array([[7.0, 35.0], [270.0, 7230.0]]))
    assert ratio == pytest.approx(table.oddsratio)
    # That bin's own test is scipy's 2 x 2 chi-square; the 0-20% bin's is far from telling.
    own = chi2_contingency(np.array([[7.0, 35.0], [270.0, 7230.0]]), correction=False).pvalue
    assert own < 0.05
    _s, _d, tiny = homogeneity({"in": 0.0, "out": 1.0}, {"in": 0.001, "out": 0.999}, 42.0, 7500.0)
    assert tiny > 0.5
