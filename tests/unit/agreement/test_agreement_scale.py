"""`goldset agreement --qrels`: the scale is declared or, when guessed, said to be guessed; a grade
off the declared scale is named by file and line."""

from __future__ import annotations

import json

from sklearn.metrics import cohen_kappa_score

from goldset_tui.cli import main


def test_inferred_scale_is_warned_about_and_drops_cut_offs(tmp_path, capsys) -> None:
    a, b = tmp_path / "one.qrels", tmp_path / "other.qrels"
    a.write_text("q 0 d1 0\nq 0 d2 1\nq 0 d3 1\nq 0 d4 0\nq 0 d5 1\n")
    b.write_text("q 0 d1 1\nq 0 d2 1\nq 0 d3 0\nq 0 d4 0\nq 0 d5 1\n")
    base = [
        "agreement",
        "--qrels",
        f"one={a}",
        "--qrels",
        f"other={b}",
        "--format",
        "json",
        "--samples",
        "0",
    ]
    assert main(base) == 0
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and "scale 0-1 was inferred" in err and "--scale" in err
    guessed = json.loads(out)
    assert main([*base, "--scale", "0-3"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    declared = json.loads(out)
    # What the guess changes: the cut-offs reported and the confusion matrix.
    assert [c["threshold"] for c in guessed["binary"]] == [1]
    assert [c["threshold"] for c in declared["binary"]] == [1, 2, 3]
    assert (
        len(guessed["pairs"][0]["confusion"]) == 2 and len(declared["pairs"][0]["confusion"]) == 4
    )
    # What it does not: weighted kappa (sklearn over either label set gives the same number).
    first, second = [0, 1, 1, 0, 1], [1, 1, 0, 0, 1]
    for labels, report in (([0, 1], guessed), ([0, 1, 2, 3], declared)):
        expected = cohen_kappa_score(first, second, labels=labels, weights="quadratic")
        assert abs(report["pairs"][0]["kappa_quadratic"] - expected) < 1e-12


def test_grade_outside_scale_names_the_line(tmp_path, capsys) -> None:
    ok, big = tmp_path / "ok.qrels", tmp_path / "big.qrels"
    ok.write_text("q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 3\n")
    # A -1 ("pooled but unjudged") before the bad line is not the grade at fault.
    big.write_text("q1 0 d1 1\nq1 0 d9 -1\n\nq1 0 d2 7\nq1 0 d3 9\n")
    assert (
        main(["agreement", "--qrels", f"alice={ok}", "--qrels", f"bob={big}", "--scale", "0-3"])
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert (
        f"{big}:4:" in err
        and "grade 7 for (q1, d2) by bob is outside the scale 0-3 (2 such grades)" in err
    )
