"""`goldset eval --trec-eval-compat -m ...` prints what trec_eval given the same -m prints: only
those measures (no runid or num_* lines it was not asked for), in trec_eval's order (its table
of measures, then cutoff), not in the order of -m.

Reference: trec_eval 10.0's own test output `out.test.meas_params`, made by (its
quicktest_commands.txt) `trec_eval -q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3
-m recall.20,2000 ... -mndcg_cut.10,20,23.4 -msuccess.2,5,20 test/qrels.test test/results.test`.
"""

from __future__ import annotations

from goldset_tui.cli import main

# The measures of that command goldset has, given in a shuffled order on purpose.
MEASURES = [
    *["Success@20", "P@7", "nDCG@23", "R@2000", "IPrec@0.75", "P@3", "IPrec@0.1", "Success@2"],
    *["nDCG@10", "IPrec@0.25", "R@20", "IPrec@0.5", "P@5", "nDCG@20", "IPrec@0.2", "Success@5"],
]


def _lines(text: str) -> list[tuple[str, str, str]]:
    return [tuple(part.strip() for part in line.split("\t")) for line in text.splitlines()]


def test_measures_given_with_m_are_printed_as_trec_eval_prints_them(peers, capsys):
    te = peers / "trec_eval"
    argv = ["eval", "--trec-eval-compat", "-q", str(te / "qrels.test"), str(te / "results.test")]
    for m in MEASURES:
        argv += ["-m", m]
    assert main(argv) == 0
    got = _lines(capsys.readouterr().out)
    printed = {name for name, _, _ in got}
    assert len(printed) == len(MEASURES)  # one trec_eval name each, nothing else
    assert not printed & {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret"}
    expected = [line for line in _lines((te / "out.test.meas_params").read_text())]
    assert got == [line for line in expected if line[0] in printed]


def test_default_measures_still_start_with_runid_and_the_counts(peers, capsys):
    te = peers / "trec_eval"
    argv = ["eval", "--trec-eval-compat", str(te / "qrels.test"), str(te / "results.test")]
    assert main(argv) == 0
    names = [name for name, _, _ in _lines(capsys.readouterr().out)]
    assert names[:5] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret"]


def test_counts_asked_for_are_printed_in_trec_eval_order(peers, capsys):
    te = peers / "trec_eval"
    argv = ["eval", "--trec-eval-compat", str(te / "qrels.test"), str(te / "results.test")]
    assert main([*argv, "-m", "P@10", "-m", "NumRet", "-m", "map"]) == 0
    names = [name for name, _, _ in _lines(capsys.readouterr().out)]
    assert names == ["num_ret", "map", "P_10"]
