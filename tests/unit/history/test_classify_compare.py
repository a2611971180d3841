"""`goldset classify --compare`: the divergence against scipy, the features by hand."""

from __future__ import annotations

import json

import pytest
from scipy.spatial.distance import jensenshannon

from goldset_tui.cli import main
from goldset_tui.sampling.compare import compare_logs, js_divergence, verdict


def test_js_divergence_matches_scipy():
    p = {"a": 3.0, "b": 1.0}
    q = {"b": 2.0, "c": 2.0}
    # scipy returns the Jensen-Shannon *distance*, the square root of the divergence
    expected = jensenshannon([0.75, 0.25, 0.0], [0.0, 0.5, 0.5], base=2) ** 2
    assert js_divergence(p, q) == pytest.approx(expected)
    assert js_divergence(p, p) == pytest.approx(0.0)
    assert js_divergence({"a": 1.0}, {"b": 1.0}) == pytest.approx(1.0)  # disjoint: one bit
    assert [verdict(x) for x in (0.0, 0.05, 0.5)] == ["alike", "differ somewhat", "differ a lot"]


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
    assert main(["classify", "--compare", str(real), str(real), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert all(r["divergence"] == 0 for r in doc["rows"]) and "look like real" in doc["verdict"]
    assert main(["classify", "--compare", str(real), str(real), "-o", "x.csv"]) == 2
    assert main(["classify", str(real)]) == 2  # labelling still needs -o
