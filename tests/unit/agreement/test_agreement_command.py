"""`goldset agreement` end to end: the fixed JSON keys, numbers cross-checked, bad input."""

from __future__ import annotations

import json
from itertools import combinations

import krippendorff
import numpy as np
import polars as pl
import pytest
from sklearn.metrics import cohen_kappa_score

from goldset_tui.adjudication.consensus import consensus_qrels, provenance_path
from goldset_tui.adjudication.decisions import AdjudicationWriter
from goldset_tui.agreement.example import DOCS, GRADES, build_example_store
from goldset_tui.cli import main
from goldset_tui.store.project import Project

TOP_KEYS = [
    "labellers",
    "units",
    "queries",
    "scale",
    "ci_method",
    "pairs",
    "alpha",
    "fleiss_kappa",
    "binary",
    "strata",
    "position_bias",
]
PAIR_KEYS = [
    "a",
    "b",
    "n",
    "agreement",
    "agreement_ci95",
    "kappa",
    "kappa_ci95",
    "kappa_linear",
    "kappa_linear_ci95",
    "kappa_quadratic",
    "kappa_quadratic_ci95",
    "confusion",
]


def reliability_matrix() -> np.ndarray:
    """Labellers x units (example store order), NaN where a labeller skipped a unit."""
    return np.array(
        [
            [np.nan if g is None else g for q in DOCS for g in GRADES[name][q]]
            for name in sorted(GRADES)
        ],
        dtype=float,
    )


@pytest.fixture
def store(tmp_path):
    return build_example_store(tmp_path / "demo")


def run_json(capsys, *argv: str) -> dict:
    assert main(["agreement", *argv, "--format", "json", "--samples", "200"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_keys_and_numbers_against_independent_implementations(store, capsys) -> None:
    report = run_json(capsys, "--store", str(store))
    assert list(report) == TOP_KEYS
    assert report["labellers"] == ["ann", "bob", "cy"]
    assert report["units"] == 12 and report["scale"] == [0, 3]
    assert list(report["alpha"]) == [
        "nominal",
        "ordinal",
        "interval",
        "nominal_ci95",
        "ordinal_ci95",
        "interval_ci95",
    ]
    assert report["queries"] == 3
    assert report["ci_method"] == (
        "alpha and kappas: jackknife over queries, Student t on log(1 - value); agreements: "
        "Wilson's form on the jackknife's effective n, Student t; where a figure is undefined "
        "with a query left out: cluster bootstrap over queries, B=200, seed=0, 95% percentile "
        "interval"
    )
    matrix = reliability_matrix()
    for level in ("nominal", "ordinal", "interval"):
        expected = krippendorff.alpha(matrix, level_of_measurement=level, value_domain=[0, 1, 2, 3])
        assert report["alpha"][level] == pytest.approx(expected, abs=1e-12)
    lo, hi = report["alpha"]["ordinal_ci95"]
    assert lo < report["alpha"]["ordinal"] < hi
    # cy skipped two pairs: unequal ratings per unit, so Fleiss does not apply.
    assert report["fleiss_kappa"] is None
    names = sorted(GRADES)
    for pair, (i, j) in zip(report["pairs"], combinations(range(3), 2), strict=True):
        assert list(pair) == PAIR_KEYS and (pair["a"], pair["b"]) == (names[i], names[j])
        both = ~np.isnan(matrix[i]) & ~np.isnan(matrix[j])
        a, b = matrix[i][both].astype(int), matrix[j][both].astype(int)
        assert pair["n"] == both.sum()
        assert pair["agreement"] == pytest.approx((a == b).mean())
        for key, w in (
            ("kappa", None),
            ("kappa_linear", "linear"),
            ("kappa_quadratic", "quadratic"),
        ):
            assert pair[key] == pytest.approx(
                cohen_kappa_score(a, b, labels=[0, 1, 2, 3], weights=w), abs=1e-12
            )
        assert sum(map(sum, pair["confusion"])) == pair["n"] and len(pair["confusion"]) == 4
    assert [b["threshold"] for b in report["binary"]] == [1, 2, 3]
    for b in report["binary"]:
        binary = np.where(np.isnan(matrix), np.nan, (matrix >= b["threshold"]).astype(float))
        assert b["alpha"] == pytest.approx(
            krippendorff.alpha(binary, level_of_measurement="nominal"), abs=1e-12
        )
    # Strata come from the pool file the manifest names.
    strata = {s["stratum"]: s for s in report["strata"]}
    assert set(strata) == {"howto", "error"}
    assert strata["howto"]["n"] == 8 and strata["error"]["n"] == 4
    error_units = matrix[:, 8:]
    assert strata["error"]["alpha_ordinal"] == pytest.approx(
        krippendorff.alpha(error_units, level_of_measurement="ordinal"), abs=1e-12
    )


def test_fleiss_present_when_every_unit_has_equal_ratings(tmp_path, capsys) -> None:
    paths = []
    grades = {"x": [0, 1, 2, 3, 3, 2], "y": [0, 1, 1, 3, 2, 2], "z": [1, 1, 2, 3, 3, 0]}
    for name, gs in grades.items():
        p = tmp_path / f"{name}.qrels"
        p.write_text("".join(f"q{i // 3} 0 d{i} {g}\n" for i, g in enumerate(gs)))
        paths.append(f"{name}={p}")
    report = run_json(capsys, *sum((["--qrels", p] for p in paths), []), "--scale", "0-3")
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    table, _ = aggregate_raters(np.array(list(grades.values())).T, n_cat=4)
    assert report["fleiss_kappa"] == pytest.approx(fleiss_kappa(table), abs=1e-12)
    assert report["strata"] == []


def test_qrels_scale_inferred_and_negative_grades_missing(tmp_path, capsys) -> None:
    a, b = tmp_path / "a.qrels", tmp_path / "b.qrels"
    a.write_text("1 0 d1 4\n1 0 d2 0\n1 0 d3 -1\n")
    b.write_text("1 0 d1 4\n1 0 d2 1\n1 0 d3 2\n")
    report = run_json(capsys, "--qrels", f"a={a}", "--qrels", f"b={b}")
    assert report["scale"] == [0, 4]
    assert report["pairs"][0]["n"] == 2  # d3's -1 means "pooled, not judged"
    assert report["units"] == 3
    # The same with a declared 0-4 scale; a scale with negative grades keeps them as grades.
    assert (
        run_json(capsys, "--qrels", f"a={a}", "--qrels", f"b={b}", "--scale", "0-4")["pairs"][0][
            "n"
        ]
        == 2
    )
    assert (
        run_json(capsys, "--qrels", f"a={a}", "--qrels", f"b={b}", "--scale=-1-4")["pairs"][0]["n"]
        == 3
    )


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--qrels", "a=/nonexistent.qrels", "--qrels", "b=/nonexistent.qrels"], "no such file"),
        (["--qrels", "justapath"], "NAME=PATH"),
        (["--scale", "3-0"], "MIN-MAX"),
    ],
)
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, argv, needle) -> None:
    good = tmp_path / "g.qrels"
    good.write_text("1 0 d1 1\n")
    if "--scale" in argv:
        argv = ["--qrels", f"a={good}", "--qrels", f"b={good}", *argv]
    assert main(["agreement", *argv]) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1


def test_grade_outside_declared_scale_is_refused(tmp_path, capsys) -> None:
    a = tmp_path / "a.qrels"
    a.write_text("1 0 d1 5\n")
    assert main(["agreement", "--qrels", f"a={a}", "--qrels", f"b={a}", "--scale", "0-3"]) == 2
    assert "outside the scale 0-3" in capsys.readouterr().err


def test_markdown_lists_biggest_disagreement_first(store, capsys) -> None:
    assert main(["agreement", "--store", str(store), "--samples", "50"]) == 0
    out = capsys.readouterr().out
    assert "Krippendorff's alpha, ordinal" in out and "| ann | bob |" in out
    section = out.split("## Largest disagreements")[1]
    first_row = [
        line for line in section.splitlines() if line.startswith("| q") and "query" not in line
    ][0]
    assert "errors/conn-reset" in first_row and "| 3 |" in first_row


def test_consensus_qrels_from_store_with_provenance(store) -> None:
    project = Project.open(store)
    with AdjudicationWriter(store, "dee", "unanimous-majority-adjudicator") as w:
        w.decide("q3", "errors/conn-reset", 2)  # ann 3, bob 0, cy 1: no majority
    qrels = consensus_qrels(project)
    got = {(q, d): g for q, d, g in qrels.iter_rows()}
    assert got["q1", "api-keys/rotation"] == 3  # unanimous
    assert got["q1", "security/credential-rotation-policy"] == 2  # ann 2, cy 2 vs bob 1
    assert got["q3", "errors/conn-reset"] == 2  # the adjudicator
    assert ("q1", "sdk/auth#refreshing-keys") not in got  # 2, 0, 1: pending
    provenance = pl.read_csv(
        provenance_path(store, "unanimous-majority-adjudicator"), separator="\t"
    )
    row = provenance.filter(pl.col("doc_id") == "errors/conn-reset").row(0, named=True)
    assert (row["how"], row["by"], row["grades"]) == ("adjudicator", "dee", "ann=3 bob=0 cy=1")
    pending = provenance.filter(pl.col("how") == "pending")
    assert pending.height == 12 - qrels.height


def test_goldset_qrels_consensus_exports_the_same_set(store, capsys) -> None:
    assert main(["qrels", "--store", str(store), "--consensus", "--format", "csv"]) == 0
    exported = pl.read_csv(
        __import__("io").StringIO(capsys.readouterr().out), schema_overrides={"grade": pl.Int64}
    )
    expected = consensus_qrels(Project.open(store))
    assert sorted(exported.select("query_id", "doc_id", "grade").rows()) == sorted(expected.rows())
    assert exported.height == 10  # 12 pairs, 2 still pending before adjudication


def test_fleiss_over_overlap_units_ignores_single_rated_units(tmp_path, capsys) -> None:
    # Overlap by design: d0-d3 judged by both, d4-d7 by one labeller each.
    a, b = tmp_path / "a.qrels", tmp_path / "b.qrels"
    a.write_text("q 0 d0 0\nq 0 d1 1\nq 0 d2 2\nq 0 d3 3\nq 0 d4 1\nq 0 d5 2\n")
    b.write_text("q 0 d0 0\nq 0 d1 2\nq 0 d2 2\nq 0 d3 3\nq 0 d6 0\nq 0 d7 3\n")
    report = run_json(capsys, "--qrels", f"a={a}", "--qrels", f"b={b}", "--scale", "0-3")
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    table, _ = aggregate_raters(np.array([[0, 0], [1, 2], [2, 2], [3, 3]]), n_cat=4)
    assert report["fleiss_kappa"] == pytest.approx(fleiss_kappa(table), abs=1e-12)
    assert report["units"] == 8


def test_run_scored_against_each_labeller_and_consensus_matches_pytrec_eval(
    store, tmp_path, capsys
) -> None:
    import pytrec_eval

    run_path = tmp_path / "sys.run"
    run = {q: {d: float(10 - i) for i, d in enumerate(docs)} for q, docs in DOCS.items()}
    run_path.write_text(
        "".join(f"{q} Q0 {d} 1 {s} sys\n" for q, docs in run.items() for d, s in docs.items())
    )
    report = run_json(capsys, "--store", str(store), "--run", f"sys={run_path}")
    rows = {r["qrels"]: r["scores"] for r in report["runs"]}
    assert list(rows) == ["ann", "bob", "cy", "consensus"]
    for name in ("ann", "bob", "cy"):
        qrels: dict[str, dict[str, int]] = {}
        for q, docs in DOCS.items():
            for d, g in zip(docs, GRADES[name][q], strict=True):
                if g is not None:
                    qrels.setdefault(q, {})[d] = g
        per_query = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10", "map"}).evaluate(run)
        assert rows[name]["nDCG@10"] == pytest.approx(
            np.mean([v["ndcg_cut_10"] for v in per_query.values()])
        )
        assert rows[name]["AP"] == pytest.approx(np.mean([v["map"] for v in per_query.values()]))


def test_self_consistency_from_blind_repeats_in_the_store(store, capsys) -> None:
    from goldset_tui.model import Judgment

    project = Project.open(store)
    firsts = {d: g for d, g in zip(DOCS["q1"], GRADES["ann"]["q1"], strict=True)}
    again = {
        "api-keys/rotation": 3,
        "security/credential-rotation-policy": 1,
        "sdk/auth#refreshing-keys": 2,
        "billing/invoices": 1,
    }
    with project.writer("ann") as writer:
        for position, (doc, grade) in enumerate(again.items()):
            writer.record(
                Judgment(
                    "ann",
                    "q1",
                    doc,
                    grade,
                    f"2026-01-05T17:0{position}:00Z",
                    4.0,
                    position,
                    kind="repeat",
                )
            )
    report = run_json(capsys, "--store", str(store))
    # Repeats never overwrite the first judgment: the agreement figures are unchanged.
    assert report["units"] == 12 and report["pairs"][0]["n"] == 12
    (ann,) = report["self_consistency"]
    first, second = [firsts[d] for d in again], list(again.values())
    assert ann["labeller"] == "ann" and ann["n"] == 4
    assert ann["agreement"] == pytest.approx(np.mean(np.array(first) == np.array(second)))
    assert ann["kappa_quadratic"] == pytest.approx(
        cohen_kappa_score(first, second, labels=[0, 1, 2, 3], weights="quadratic")
    )
    assert ann["mean_shift"] == pytest.approx(np.mean(np.array(second) - np.array(first)))
    assert ann["agreement_by_time"] == [1.0, 0.0, 1.0, 0.0]


def test_one_labeller_is_not_enough(tmp_path, capsys) -> None:
    a = tmp_path / "a.qrels"
    a.write_text("q 0 d 1\n")
    assert main(["agreement", "--qrels", f"a={a}"]) == 2
    assert "at least two labellers" in capsys.readouterr().err
    assert main(["agreement", "--qrels", f"a={a}", "--qrels", f"a={a}"]) == 2
    assert "given twice" in capsys.readouterr().err


def test_not_a_store_and_store_scale_checks(tmp_path, store, capsys) -> None:
    assert main(["agreement", "--store", str(tmp_path)]) == 2
    assert "not a goldset store" in capsys.readouterr().err
    assert main(["adjudicate", "--store", str(tmp_path), "--labeller", "dee"]) == 2
    assert "not a goldset store" in capsys.readouterr().err
    assert main(["agreement", "--store", str(store), "--scale", "0-2"]) == 2
    assert "outside the scale 0-2" in capsys.readouterr().err


def test_wider_declared_scale_changes_weighted_kappa_as_sklearn_does(store, capsys) -> None:
    narrow = run_json(capsys, "--store", str(store))
    wide = run_json(capsys, "--store", str(store), "--scale", "0-5")
    assert wide["scale"] == [0, 5] and len(wide["pairs"][0]["confusion"]) == 6
    matrix = reliability_matrix()
    both = ~np.isnan(matrix[0]) & ~np.isnan(matrix[1])
    a, b = matrix[0][both].astype(int), matrix[1][both].astype(int)
    assert wide["pairs"][0]["kappa_linear"] == pytest.approx(
        cohen_kappa_score(a, b, labels=list(range(6)), weights="linear")
    )
    assert narrow["pairs"][0]["kappa"] == pytest.approx(
        wide["pairs"][0]["kappa"]
    )  # unweighted: unused grades add nothing
    assert [b["threshold"] for b in wide["binary"]] == [1, 2, 3, 4, 5]
    assert wide["binary"][3]["alpha"] is None  # nobody graded 4 or 5: no variation at that cut-off


def test_strata_file_per_query_overrides_the_pool(store, tmp_path, capsys) -> None:
    strata = tmp_path / "strata.csv"
    strata.write_text("query_id,stratum\nq1,keys\nq2,keys\n")  # q3 has no stratum here
    report = run_json(capsys, "--store", str(store), "--strata", str(strata))
    got = {s["stratum"]: s for s in report["strata"]}
    assert set(got) == {"keys", "(none)"}
    assert got["keys"]["n"] == 8 and got["(none)"]["n"] == 4
    matrix = reliability_matrix()
    assert got["keys"]["alpha_ordinal"] == pytest.approx(
        krippendorff.alpha(matrix[:, :8], level_of_measurement="ordinal"), abs=1e-12
    )
    bad = tmp_path / "bad.csv"
    bad.write_text("query,stratum\nq1,keys\n")
    assert main(["agreement", "--store", str(store), "--strata", str(bad)]) == 2
    assert "missing required column 'query_id'" in capsys.readouterr().err


def test_markdown_says_what_the_brackets_are_before_the_first_figure(store, capsys) -> None:
    # The explanation stood only at the end, below every table: "0.793 [0.750, 0.829]" was
    # read with no word that the brackets hold a 95% interval over queries.
    assert main(["agreement", "--store", str(store), "--samples", "50"]) == 0
    out = capsys.readouterr().out
    first_figure = out.index("Krippendorff's alpha, nominal")
    assert out.index("[95% interval over queries]") < first_figure
