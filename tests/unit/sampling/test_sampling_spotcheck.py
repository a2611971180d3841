"""Spot-check core: folding the journal, agreement with a Wilson interval (continuity-corrected,
as the report's 0/1 rates), confusion, the verdict, the JSON report and the corrected labels.
Cross-checked with scipy and scikit-learn."""

from __future__ import annotations

import json
import random
from pathlib import Path

import polars as pl
import pytest
from scipy.stats import binomtest
from sklearn.metrics import confusion_matrix

from goldset_tui.cli import main
from goldset_tui.sampling.spotcheck import (
    Answer,
    SpotCheckSession,
    agreement,
    check_items,
    corrected_labels,
    fold,
    journal_path,
)
from goldset_tui.store.journal import Journal

STRATA = ["howto", "navigational", "error", "entity_attr", "migration", "tail"]


def sampled_log_answers() -> list[Answer]:
    """200 checks, 183 agreeing (as in docs/background.md#the-sampled-log), the 17 misfiled spread
    over the strata."""
    rng = random.Random(5)
    answers = []
    for i in range(200):
        assigned = STRATA[i % 6]
        correct = assigned if i >= 17 else STRATA[(i + 1 + rng.randrange(5)) % 6]
        answers.append(Answer(f"q{i}", assigned, correct))
    return answers


def wilson_cc_by_scipy(hits: int, n: int) -> tuple[float, float]:
    ci = binomtest(hits, n).proportion_ci(method="wilsoncc")
    return ci.low, ci.high


def test_sampled_log_agreement_and_wilson_interval() -> None:
    result = agreement(sampled_log_answers(), STRATA)
    assert (result.n, result.agree) == (200, 183)
    assert result.rate == pytest.approx(0.915)
    lo, hi = wilson_cc_by_scipy(183, 200)
    assert result.ci95 == pytest.approx((lo, hi), abs=1e-12)


def test_confusion_matches_scikit_learn() -> None:
    answers = sampled_log_answers()
    result = agreement(answers, STRATA)
    expected = confusion_matrix(
        [a.assigned for a in answers], [a.correct for a in answers], labels=STRATA
    )
    got = [[result.confusion.get(r, {}).get(c, 0) for c in STRATA] for r in STRATA]
    assert got == expected.tolist()
    for row in result.per_stratum:
        i = STRATA.index(row.stratum)
        assert row.n == expected[i].sum() and row.agree == expected[i][i]


def test_undo_takes_back_the_latest_answer_and_skips_count_apart() -> None:
    records = [
        {"kind": "spotcheck", "action": "check", "query": "a", "assigned": "x", "correct": "x"},
        {"kind": "spotcheck", "action": "check", "query": "b", "assigned": "x", "correct": "y"},
        {"kind": "spotcheck", "action": "undo"},
        {"kind": "spotcheck", "action": "skip", "query": "b", "assigned": "x"},
        {"kind": "judgment", "query_id": "ignored"},
        {"kind": "spotcheck", "action": "check", "query": "c", "assigned": "y", "correct": "x"},
    ]
    answers = fold(records)
    assert [(a.query, a.correct) for a in answers] == [("a", "x"), ("b", None), ("c", "x")]
    result = agreement(answers, ["x", "y"])
    assert (result.n, result.agree, result.skipped) == (2, 1, 1)
    assert fold(records + [{"kind": "spotcheck", "action": "undo"}] * 9) == []


def test_check_items_are_a_seeded_sample_independent_of_row_order() -> None:
    labels = pl.DataFrame(
        {"query": [f"q{i}" for i in range(50)], "count": [1] * 50, "stratum": ["s"] * 50}
    )
    a = check_items(labels, 20, 3)
    b = check_items(labels.reverse(), 20, 3)
    assert a.equals(b) and a.height == 20 and a["query"].n_unique() == 20
    assert not a.equals(check_items(labels, 20, 4))
    assert check_items(labels, None, 0).height == 50


def test_corrected_labels_keep_columns_and_order() -> None:
    labels = pl.DataFrame(
        {
            "query": ["a", "b", "c"],
            "count": [3, 2, 1],
            "stratum": ["x", "x", "y"],
            "spelling": ["A", "b", "c"],
        }
    )
    answers = [Answer("a", "x", "y"), Answer("b", "x", None), Answer("c", "y", "y")]
    fixed = corrected_labels(labels, answers)
    assert fixed.columns == labels.columns
    assert fixed["stratum"].to_list() == ["y", "x", "y"] and fixed["query"].to_list() == [
        "a",
        "b",
        "c",
    ]


def test_session_resumes_after_a_crash_mid_write(tmp_path: Path) -> None:
    items = pl.DataFrame({"query": ["a", "b", "c"], "stratum": ["x", "x", "y"]})
    path = journal_path(tmp_path, "ana")
    session = SpotCheckSession.open(items, ["x", "y"], path, "ana")
    session.agree()
    session.answer("y")
    session.close()
    with open(path, "ab") as fh:
        fh.write(b'{"kind":"spotcheck","action":"che')  # a torn last line, never acknowledged
    again = SpotCheckSession.open(items, ["x", "y"], path, "ana")
    assert again.position() == 2 and again.current()["query"] == "c"
    assert any("incomplete last line" in w for w in again.warnings)
    again.close()


def write_labels(tmp_path: Path) -> Path:
    labels = tmp_path / "labels.csv"
    rows = "".join(f"q{i},{i + 1},{STRATA[i % 6]}\n" for i in range(30))
    labels.write_text("query,count,stratum\n" + rows, encoding="utf-8")
    return labels


def test_report_json_and_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = write_labels(tmp_path)
    store = tmp_path / "store"
    with Journal(journal_path(store, "ana")) as journal:
        journal.append(
            {
                "kind": "spotcheck",
                "action": "check",
                "query": "q0",
                "assigned": "howto",
                "correct": "howto",
            }
        )
        journal.append(
            {
                "kind": "spotcheck",
                "action": "check",
                "query": "q1",
                "assigned": "navigational",
                "correct": "error",
            }
        )
        journal.append({"kind": "spotcheck", "action": "skip", "query": "q2", "assigned": "error"})
    out = tmp_path / "fixed.csv"
    code = main(
        [
            "spotcheck",
            str(labels),
            "--print",
            "--store",
            str(store),
            "--labeller",
            "ana",
            "--format",
            "json",
            "--export",
            str(out),
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert {"n", "agree", "rate", "ci95", "confusion", "per_stratum"} <= set(data)
    assert (data["n"], data["agree"], data["rate"]) == (2, 1, 0.5)
    assert data["ci95"] == pytest.approx(list(wilson_cc_by_scipy(1, 2)))
    assert data["confusion"] == {"howto": {"howto": 1}, "navigational": {"error": 1}}
    per = {p["stratum"]: p for p in data["per_stratum"]}
    assert per["navigational"] == {
        "stratum": "navigational",
        "n": 1,
        "agree": 0,
        "precision": 0.0,
        "precision_ci95": pytest.approx(list(wilson_cc_by_scipy(0, 1))),
    }
    fixed = pl.read_csv(out)
    assert fixed.filter(pl.col("query") == "q1")["stratum"].item() == "error"
    assert fixed.height == 30


def test_report_text_and_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = write_labels(tmp_path)
    assert (
        main(
            [
                "spotcheck",
                str(labels),
                "--print",
                "--store",
                str(tmp_path / "s"),
                "--labeller",
                "ana",
            ]
        )
        == 0
    )
    assert "no checks yet" in capsys.readouterr().out
    assert main(["spotcheck", str(labels), "--print", "--export", str(tmp_path / "x.txt")]) == 2
    assert main(["spotcheck", str(tmp_path / "missing.csv"), "--print"]) == 2
    assert main(["spotcheck", str(labels), "--print", "--labeller", " "]) == 2


def test_a_targets_stratum_not_in_labels_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Audit: `spotcheck ... --targets bogus=5 --print` exited 0 and ignored the typo.
    labels = write_labels(tmp_path)
    store = str(tmp_path / "s")
    assert (
        main(
            [
                "spotcheck",
                str(labels),
                "--print",
                "--store",
                store,
                "--labeller",
                "ana",
                "--targets",
                "bogus=5",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.startswith("goldset: error:") and err.count("\n") == 1
    assert "'bogus'" in err and ", ".join(sorted(STRATA)) in err
    known = ",".join(f"{s}=5" for s in STRATA)
    assert (
        main(
            [
                "spotcheck",
                str(labels),
                "--print",
                "--store",
                store,
                "--labeller",
                "ana",
                "--targets",
                known,
            ]
        )
        == 0
    )
    assert "--targets" in capsys.readouterr().out


def test_export_into_a_missing_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = write_labels(tmp_path)
    out = tmp_path / "nope" / "fixed.csv"
    assert (
        main(
            [
                "spotcheck",
                str(labels),
                "--print",
                "--store",
                str(tmp_path / "s"),
                "--export",
                str(out),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err and not (tmp_path / "nope").exists()


def test_targets_may_name_a_classify_stratum_with_no_rows_but_not_a_typo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # LABELS labelled by `goldset classify` without a misspelled query: the golden set's size for
    # misspelled is still a real stratum; "mispelled" is a typo.
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "query,count,stratum\nerr_4021,3,exact_identifier\napi key,5,short_keyword\n",
        encoding="utf-8",
    )
    common = [
        "spotcheck",
        str(labels),
        "--print",
        "--store",
        str(tmp_path / "s"),
        "--labeller",
        "ana",
        "--targets",
    ]
    assert main([*common, "exact_identifier=5,misspelled=22"]) == 0
    capsys.readouterr()
    assert main([*common, "exact_identifier=5,mispelled=22"]) == 2
    err = capsys.readouterr().err
    assert "'mispelled'" in err and "misspelled" in err and err.count("\n") == 1
