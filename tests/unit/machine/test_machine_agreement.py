"""`goldset agreement` with a machine judge: its figures against each human and the consensus,
checked against sklearn and krippendorff; its leniency per stratum, checked by hand."""

from __future__ import annotations

import json
import random
from pathlib import Path

import krippendorff
import numpy as np
import polars as pl
from sklearn.metrics import cohen_kappa_score

from goldset_tui.agreement.units import ratings_from_qrels
from goldset_tui.cli import main
from goldset_tui.machine.agreement import machine_report
from goldset_tui.model import GradeScale


def grades_for(seed: int) -> tuple[list[tuple[str, str]], list[int], list[int], list[int]]:
    rng = random.Random(seed)
    units = [(f"q{q}", f"d{d}") for q in range(12) for d in range(5)]
    alice = [rng.randint(0, 3) for _ in units]
    bob = [min(3, max(0, g + rng.choice([-1, 0, 0, 1]))) for g in alice]
    llm = [min(3, max(0, g + rng.choice([0, 0, 1, 2]))) for g in alice]
    return units, alice, bob, llm


def frame(units: list[tuple[str, str]], grades: list[int]) -> pl.DataFrame:
    return pl.DataFrame(
        {"query_id": [q for q, _ in units], "doc_id": [d for _, d in units], "grade": grades}
    )


def test_pair_figures_match_sklearn_and_krippendorff() -> None:
    units, alice, bob, llm = grades_for(3)
    ratings = ratings_from_qrels(
        {"alice": frame(units, alice), "bob": frame(units, bob), "llm": frame(units, llm)}
    )
    (entry,) = machine_report(ratings, GradeScale.from_range(0, 3), ["llm"], replicates=200)
    assert entry["labeller"] == "llm"
    by_other = {row["b"]: row for row in entry["against"]}
    assert set(by_other) == {"alice", "bob"}
    for name, human in (("alice", alice), ("bob", bob)):
        row = by_other[name]
        assert row["a"] == "llm" and row["n"] == len(units)
        assert abs(row["kappa"] - cohen_kappa_score(llm, human)) < 1e-12
        assert (
            abs(row["kappa_quadratic"] - cohen_kappa_score(llm, human, weights="quadratic")) < 1e-12
        )
        reference = krippendorff.alpha(
            reliability_data=np.array([llm, human], dtype=float),
            level_of_measurement="ordinal",
            value_domain=[0, 1, 2, 3],
        )
        assert abs(row["alpha_ordinal"] - reference) < 1e-9
        diff = sum(m - h for m, h in zip(llm, human, strict=True)) / len(units)
        lenient = row["leniency"]
        assert abs(lenient["mean_difference"] - diff) < 1e-12
        low, high = lenient["mean_difference_ci95"]
        assert low < diff < high and high - low < 1.0
        for key in ("kappa_ci95", "kappa_quadratic_ci95", "alpha_ordinal_ci95"):
            low, high = row[key]
            assert low <= row[key[:-5]] <= high
        # rows: the machine's grade, columns: the human's
        confusion = row["confusion"]
        assert confusion[3][0] == sum(
            1 for m, h in zip(llm, human, strict=True) if (m, h) == (3, 0)
        )


def test_leniency_per_stratum_by_hand(tmp_path: Path, capsys) -> None:
    # Six queries; q1-q3 are paraphrases (the machine agrees), q4-q6 negations (it grades one
    # higher than the human on every pair). Each query has two documents.
    human, machine, strata = [], [], []
    for q in range(1, 7):
        for d, g in (("a", 0), ("b", 2)):
            human.append(f"q{q} 0 {d} {g}")
            machine.append(f"q{q} 0 {d} {g + (1 if q > 3 else 0)}")
        strata.append(f"q{q},{'paraphrase' if q <= 3 else 'negation'}")
    for name, lines in (("h", human), ("m", machine)):
        (tmp_path / f"{name}.qrels").write_text("\n".join(lines) + "\n")
    (tmp_path / "strata.csv").write_text("query_id,stratum\n" + "\n".join(strata) + "\n")
    args = ["agreement", "--qrels", f"alice={tmp_path / 'h.qrels'}"]
    args += ["--qrels", f"llm={tmp_path / 'm.qrels'}", "--machine", "llm", "--scale", "0-3"]
    args += ["--strata", str(tmp_path / "strata.csv"), "--format", "json", "--samples", "100"]
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["labellers"] == ["alice"]  # the human report has the humans only
    (row,) = report["machine"][0]["against"]
    # Overall: 6 of 12 pairs one grade higher -> mean difference 0.5.
    assert row["leniency"]["mean_difference"] == 0.5
    by = {s["stratum"]: s for s in row["strata"]}
    assert by["paraphrase"]["mean_difference"] == 0.0 and by["paraphrase"]["agreement"] == 1.0
    assert by["paraphrase"]["kappa_quadratic"] == 1.0
    neg = by["negation"]
    assert neg["mean_difference"] == 1.0 and neg["agreement"] == 0.0 and neg["n"] == 6
    # Machine 1 where the human said 0 (3 times), 3 where the human said 2 (3 times).
    assert neg["confusion"] == [[0, 0, 0, 0], [3, 0, 0, 0], [0, 0, 0, 0], [0, 0, 3, 0]]
    # Every query of the stratum shifts by exactly 1: every redraw gives 1.
    assert neg["mean_difference_ci95"] == [1.0, 1.0]
    assert main([*args[:-4], "--samples", "0"]) == 0  # markdown
    text = capsys.readouterr().out
    assert "## Machine judge llm" in text and "| alice | negation | 6 |" in text


def test_consensus_comparison_and_unknown_machine_name(tmp_path: Path, capsys) -> None:
    units, alice, bob, llm = grades_for(5)
    paths = {}
    for name, grades in (("alice", alice), ("bob", bob), ("llm", llm)):
        paths[name] = tmp_path / f"{name}.qrels"
        paths[name].write_text(
            "".join(f"{q} 0 {d} {g}\n" for (q, d), g in zip(units, grades, strict=True))
        )
    base = ["agreement", "--scale", "0-3", "--format", "json", "--samples", "0"]
    for name, path in paths.items():
        base += ["--qrels", f"{name}={path}"]
    assert main([*base, "--machine", "robot"]) == 2
    assert "--machine 'robot'" in capsys.readouterr().err
    assert main([*base, "--machine", "llm"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = {r["b"]: r for r in report["machine"][0]["against"]}
    assert list(rows) == ["alice", "bob", "consensus"]
    # Two humans: the consensus is their unanimous grade; where they differ (no majority of two)
    # the pair is pending and left out.
    agreed = [(m, a) for m, a, b in zip(llm, alice, bob, strict=True) if a == b]
    assert rows["consensus"]["n"] == len(agreed)
    assert (
        abs(
            rows["consensus"]["kappa_quadratic"]
            - cohen_kappa_score([m for m, _ in agreed], [a for _, a in agreed], weights="quadratic")
        )
        < 1e-12
    )
    assert report["labellers"] == ["alice", "bob"]
