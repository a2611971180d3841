"""trec_eval's `-m` forms where `goldset eval` is not the one naming measures: `compare -m`
(several measures, each compared), `report --metric` (one measure: a form standing for several
is refused) and the Python API's `expand_measures`.

The numbers are checked against trec_eval 10's own stored output (`out.test.a`, `trec_eval -m
all_trec qrels.test results.test`) and against `compare` run on one measure at a time; each
form here was an "unknown measure" error, or the refusal of a second -m, before.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from goldset_tui.cli import main
from goldset_tui.errors import InputError


@pytest.fixture
def te(peers):
    return peers / "trec_eval"


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _trec_eval_all(te, name: str) -> float:
    """trec_eval's `all` value of `name` in out.test.a (results.test, tag STANDARD)."""
    for line in (te / "out.test.a").read_text().splitlines():
        measure, qid, value = (part.strip() for part in line.split("\t"))
        if measure == name and qid == "all":
            return float(value)
    raise AssertionError(f"{name} not in out.test.a")


def _compare(capsys, te, *args: str) -> tuple[int, str, str]:
    a, b = f"a={te / 'results.test'}", f"b={te / 'results.trunc'}"
    return _run(capsys, "compare", te / "qrels.test", a, b, "--samples", "300", *args)


# compare -m


def test_compare_a_list_compares_each_measure_as_compare_alone_does(te, capsys):
    code, out, _ = _compare(capsys, te, "-m", "P.5,10")
    assert code == 0
    blocks = out.rstrip("\n").split("\n\n")
    alone = []
    for single in ("P@5", "P@10"):
        c, o, _ = _compare(capsys, te, "-m", single)
        assert c == 0
        alone.append(o.rstrip("\n"))
    # Each block is, line for line, what `compare -m` that measure alone prints (same seed).
    assert blocks == alone
    assert [b.splitlines()[0] for b in blocks] == ["measure\tP@5", "measure\tP@10"]
    # Run A is trec_eval's results.test, scored over the same (relevant) queries: its means are
    # trec_eval's P_5 and P_10.
    means = [float(b.splitlines()[2].split("\t")[1]) for b in blocks]
    assert means == pytest.approx([_trec_eval_all(te, "P_5"), _trec_eval_all(te, "P_10")], abs=1e-4)


def test_compare_several_m_in_json_is_a_list_of_the_single_objects(te, capsys):
    code, out, _ = _compare(capsys, te, "-m", "success", "-m", "AP", "--format", "json")
    assert code == 0
    docs = json.loads(out)
    assert [d["measure"] for d in docs] == ["Success@1", "Success@5", "Success@10", "AP"]
    for doc in docs:
        c, single, _ = _compare(capsys, te, "-m", doc["measure"], "--format", "json")
        assert c == 0 and json.loads(single) == doc
    assert "mcnemar_p" in docs[0] and "mcnemar_p" not in docs[3]  # 0/1 by definition, or not
    assert docs[0]["mean_a"] == pytest.approx(_trec_eval_all(te, "success_1"), abs=1e-4)


def test_compare_one_measure_keeps_its_json_object(te, capsys):
    code, out, _ = _compare(capsys, te, "-m", "ndcg_cut.10", "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert isinstance(doc, dict) and doc["measure"] == "nDCG@10"
    assert doc["mean_a"] == pytest.approx(_trec_eval_all(te, "ndcg_cut_10"), abs=1e-4)


@pytest.mark.parametrize(
    ("form", "why"),
    [
        ("runid", "the run's tag is a line of text, not a per-query score"),
        ("official", "a group of trec_eval's measures"),
        ("all_trec", "a group of trec_eval's measures"),
    ],
)
def test_compare_refuses_the_run_s_tag_and_groups_in_one_line(te, capsys, form, why):
    code, out, err = _compare(capsys, te, "-m", "AP", "-m", form)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"measure {form!r}" in err and why in err and "Traceback" not in err


def test_compare_refuses_gmap_whose_mean_is_not_the_mean_it_compares(te, capsys):
    # compare printed AP's arithmetic mean as GMAP's: 0.1785 for results.test, where trec_eval's
    # gm_map is 0.1051 (out.test.a); its interval and test are of arithmetic means.
    assert _trec_eval_all(te, "gm_map") == pytest.approx(0.1051)
    assert _trec_eval_all(te, "map") == pytest.approx(0.1785)
    for name in ("GMAP", "gm_map"):
        code, out, err = _compare(capsys, te, "-m", name)
        assert code == 2 and out == "" and err.count("\n") == 1
        assert f"measure {name!r}: its mean is geometric" in err


# report --metric


@pytest.fixture
def report_files(tmp_path):
    """Six queries in two strata, fully judged; run `a` finds each one's relevant document at
    rank 1, `b` at rank 3."""
    qrels, a, b, strata = [], [], [], ["query_id,stratum"]
    for i in range(6):
        q = f"q{i}"
        qrels += [f"{q} 0 rel{i} 1", f"{q} 0 x 0", f"{q} 0 y 0"]
        strata.append(f"{q},{'head' if i < 3 else 'tail'}")
        for rank, doc in enumerate([f"rel{i}", "x", "y"], start=1):
            a.append(f"{q} Q0 {doc} {rank} {10 - rank} a")
        for rank, doc in enumerate(["x", "y", f"rel{i}"], start=1):
            b.append(f"{q} Q0 {doc} {rank} {10 - rank} b")
    files = {"qrels": qrels, "a.run": a, "b.run": b, "strata.csv": strata}
    for name, lines in files.items():
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    return tmp_path


def _report(capsys, d, metric: str) -> tuple[int, str, str]:
    return _run(
        capsys,
        *("report", "--qrels", d / "qrels", "--run", f"a={d / 'a.run'}"),
        *("--run", f"b={d / 'b.run'}", "--strata", d / "strata.csv", "--samples", "100"),
        *("--measure", metric, "--format", "json"),
    )


@pytest.mark.parametrize(
    ("form", "said"),
    [
        ("P.5,10", "stands for 2 measures (P@5, P@10)"),
        ("ndcg_cut", "stands for 9 measures (nDCG@5, nDCG@10, nDCG@15, nDCG@20, nDCG@30, "),
        ("success.1,3", "stands for 2 measures (Success@1, Success@3)"),
        ("runid", "stands for the run's tag"),
        ("official", "stands for 29 measures (NumQ, NumRet, "),
    ],
)
def test_report_metric_refuses_a_form_standing_for_several(report_files, capsys, form, said):
    code, out, err = _report(capsys, report_files, form)
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert f"--measure {form!r} {said}" in err and "--measure takes one measure" in err


def test_report_metric_takes_a_form_standing_for_one(report_files, capsys):
    code, out, _ = _report(capsys, report_files, "ndcg_cut.3")
    assert code == 0
    doc = json.loads(out)
    assert (doc["metric"], doc["k"]) == ("nDCG@3", 3)
    # By hand: a's relevant document at rank 1 is nDCG 1; b's at rank 3 is 1/log2(4) = 0.5.
    assert doc["overall"]["a"]["mean"] == pytest.approx(1.0)
    assert doc["overall"]["b"]["mean"] == pytest.approx(0.5)


# Python API


def test_expand_measures_is_exported_and_gives_canonical_names():
    from goldset_tui.eval import __all__, expand_measures

    assert "expand_measures" in __all__
    assert expand_measures("P.5,10") == ["P@5", "P@10"]
    assert expand_measures("P.10,5") == ["P@5", "P@10"]  # sorted, as trec_eval's meas_init.c
    assert expand_measures(["map", "runid", "P_10", "P.10"]) == ["AP", "P@10"]  # tag out, once
    assert expand_measures("iprec_at_recall.0.5") == ["IPrec@0.5"]
    assert expand_measures("P", trec_eval_compat=True)[:2] == ["P@5", "P@10"]
    with pytest.raises(InputError, match="P needs a cutoff"):
        expand_measures("P")  # ir_measures' P, whose cut-off is required
    with pytest.raises(InputError, match="not a positive integer"):
        expand_measures("P.5,x")


def test_expand_measures_gives_trec_eval_s_numbers(te):
    from goldset_tui.eval import expand_measures, mean_scores
    from goldset_tui.io.trec import read_qrels, read_run

    names = expand_measures(["ndcg_cut.10,20", "success"])
    means = mean_scores(
        read_qrels(te / "qrels.test"), read_run(te / "results.test"), names, trec_eval_compat=True
    )
    trec = ["ndcg_cut_10", "ndcg_cut_20", "success_1", "success_5", "success_10"]
    assert list(means) == names
    assert list(means.values()) == pytest.approx([_trec_eval_all(te, t) for t in trec], abs=1e-4)


def test_expand_measures_names_what_a_group_leaves_out():
    from goldset_tui.eval import expand_measures

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        names = expand_measures("all_trec")
    assert len(caught) == 1 and "15 of trec_eval's measures are not in goldset" in str(
        caught[0].message
    )
    assert "rbp" in str(caught[0].message) and len(names) == len(set(names)) == 65


def test_expanding_forms_imports_neither_polars_nor_textual():
    code = (
        "import sys; from goldset_tui.eval import expand_measures; expand_measures('P.5,10'); "
        "print(sorted(m for m in ('polars', 'textual') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_review_from_a_store_checks_its_metric_as_report_does(tmp_path):
    # `goldset review --store DIR` builds the report's inputs from the store, not from files:
    # its --metric is checked by the same rule before any work.
    import argparse
    from pathlib import Path

    from goldset_tui.commands import review
    from goldset_tui.io.trec import read_qrels
    from goldset_tui.store.files import sha256_file
    from goldset_tui.store.project import Project

    pool = Path(__file__).resolve().parents[3] / "sample_data" / "pool.jsonl"
    store = tmp_path / "store"
    project = Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    project.import_prior(read_qrels(pool.parent / "judgments" / "alice.qrels"))
    parser = argparse.ArgumentParser()
    review.add_arguments(parser)
    args = ["--store", str(store), "--labeller", "ana", "--measure", "P.5,10"]
    with pytest.raises(InputError, match=r"'P\.5,10' stands for 2 measures \(P@5, P@10\)"):
        review.build_context(parser.parse_args(args))


@pytest.mark.parametrize("form", ["GMAP", "gm_map"])
def test_report_metric_refuses_a_geometric_mean(report_files, capsys, form):
    # It printed AP's arithmetic mean under GMAP's name (the sample's bm25: 0.917, where its
    # GMAP is 0.902): the report's strata, intervals and weighting are arithmetic means.
    code, out, err = _report(capsys, report_files, form)
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert "its mean is geometric" in err and "use AP" in err


def test_commands_that_rank_systems_by_their_means_refuse_gmap(capsys):
    # Each ranked the systems by the arithmetic mean of AP while naming GMAP (agreement's
    # system ranking printed those means; simulate's tau ranked by them).
    sample = Path(__file__).resolve().parents[3] / "sample_data"
    qrels = sample / "judgments" / "alice.qrels"
    runs = [f"{r}={sample / 'runs' / f'{r}.run'}" for r in ("bm25", "minilm")]
    agreement = ("agreement", "--qrels", f"alice={qrels}")
    agreement += ("--qrels", f"bob={sample / 'judgments' / 'bob.qrels'}", "--scale", "0-3")
    agreement += ("--run", runs[0], "--run", runs[1], "--measure", "GMAP", "--format", "json")
    simulate = ("simulate", "--qrels", qrels, "--run", runs[0], "--run", runs[1])
    simulate += ("--budget", "50", "-m", "gm_map")
    for argv in (agreement, simulate):
        code, out, err = _run(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1, (argv[0], err)
        assert "its mean is geometric" in err and "use AP" in err, err
