"""`goldset eval --trec-eval-compat -m ...` prints what trec_eval given the same -m prints: only
those measures (no runid or num_* lines it was not asked for), in trec_eval's order (its table
of measures, then cutoff), not in the order of -m. And nothing on stderr but errors (and the
measures goldset lacks) unless --verbose: trec_eval says nothing there when it succeeds.

Reference: trec_eval 10.0's own test output `out.test.meas_params`, made by (its
quicktest_commands.txt) `trec_eval -q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3
-m recall.20,2000 ... -mndcg_cut.10,20,23.4 -msuccess.2,5,20 test/qrels.test test/results.test`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


# Compat mode is quiet on stderr: a script swapping goldset in for trec_eval may take any line
# there for a failure. On the sample data this command line would say all three kinds of remark:
# notes on the trec_eval names read, query-set warnings (both runs rank 4 queries Bob did not
# judge) and the unjudged advice (both runs' top 100 are mostly unjudged).
SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"
REMARKS = [
    SAMPLE / "judgments/bob.qrels",
    SAMPLE / "runs/bm25.run",
    SAMPLE / "runs/minilm.run",
    *["-m", "map", "-m", "recall_100", "-m", "P.5,10", "-q"],
]


def _eval(capsys, *argv) -> tuple[int, str, str]:
    code = main(["eval", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_compat_mode_says_nothing_on_stderr_unless_verbose(capsys):
    code, out, err = _eval(capsys, "--trec-eval-compat", *REMARKS)
    assert (code, err) == (0, "")
    v_code, v_out, v_err = _eval(capsys, "--trec-eval-compat", "--verbose", *REMARKS)
    assert (v_code, v_out) == (code, out)  # stdout byte for byte, the same exit status
    said = v_err.splitlines()
    assert "goldset: note: measure 'map' read as 'AP'" in said
    assert "goldset: note: measure 'P.5,10' read as P@5, P@10" in said
    for run in ("bm25", "minilm"):
        assert f"goldset: warning: run '{run}': 4 run queries not in the qrels" in v_err
        assert any(
            line.startswith(f"goldset: {run}: ")
            and "of its top 100 is unjudged (above 20%)" in line
            for line in said
        ), said


def _process(*options: str) -> subprocess.CompletedProcess[str]:
    argv = ["eval", "--trec-eval-compat", *options, *map(str, REMARKS)]
    code = f"import sys; from goldset_tui.cli import main; sys.exit(main({argv!r}))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_compat_mode_is_quiet_as_a_whole_process():
    # What a script sees: the process's stderr, empty (no warning from a library either).
    quiet, verbose = _process(), _process("--verbose")
    assert (quiet.returncode, quiet.stderr) == (0, "")
    assert (verbose.returncode, verbose.stdout) == (0, quiet.stdout)
    assert len(verbose.stderr.splitlines()) == 7  # 3 notes; per run, a warning and the advice


def test_outside_compat_mode_verbose_changes_nothing(capsys):
    plain = _eval(capsys, *REMARKS)
    assert plain == _eval(capsys, "--verbose", *REMARKS)
    assert "goldset: note: measure 'map' read as 'AP'" in plain[2]
    assert "of its top 100 is unjudged (above 20%)" in plain[2]


def test_compat_mode_still_says_errors_and_what_it_leaves_out(tmp_path, capsys):
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 high t\n")
    code, out, err = _eval(capsys, "--trec-eval-compat", SAMPLE / "judgments/bob.qrels", bad)
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1 and f"{bad}:2" in err
    # A run sharing no query with the qrels: the one-line error, not silenced with the warnings.
    other = tmp_path / "other.run"
    other.write_text("zz Q0 d1 1 0.5 t\n")
    code, out, err = _eval(capsys, "--trec-eval-compat", SAMPLE / "judgments/bob.qrels", other)
    assert code == 2 and len(err.splitlines()) == 1 and "shares no query" in err
    # Measures of a trec_eval group goldset lacks: the output is not trec_eval's, so it is said.
    qrels, run = SAMPLE / "judgments/bob.qrels", SAMPLE / "runs/bm25.run"
    code, out, err = _eval(capsys, "--trec-eval-compat", qrels, run, "-m", "all_trec")
    assert code == 0 and err.startswith("goldset: warning: ") and "relstring" in err
    assert len(err.splitlines()) == 1
