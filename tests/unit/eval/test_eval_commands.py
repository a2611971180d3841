"""`goldset eval`, `compare` and `fuse` end to end: output formats, files written, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.cli import main
from goldset_tui.io.trec import read_run

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 a 0\nq3 0 x 3\nq3 0 y -1\nq5 0 m 1\n"
RUN = (
    "q1 Q0 d1 1 1.0 t\nq1 Q0 d2 2 1.0 t\nq1 Q0 d3 3 1.0 t\nq2 Q0 a 1 2 t\n"
    "q3 Q0 y 1 3 t\nq3 Q0 x 2 1 t\nq4 Q0 x 1 1 t\n"
)
OTHER = "q1 Q0 d3 1 9 o\nq3 Q0 x 1 1 o\nq5 Q0 m 1 1 o\n"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, text in {"qrels": QRELS, "bm25.run": RUN, "other.run": OTHER}.items():
        out[name] = tmp_path / name
        out[name].write_text(text)
    return out


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_text_output_is_trec_eval_layout(files, capsys):
    code, out, _ = run_cli(
        capsys, "eval", files["qrels"], files["bm25.run"], "-m", "P@2", "-m", "NumRet", "-q"
    )
    assert code == 0
    lines = out.splitlines()
    # Per query (q1, q3, q5: those with a relevant document), then `all`. The run ranks q1 as
    # d3, d2, d1 (ties by doc id descending) so P@2 = 1/2; q3 has y (unjudged) then x: 1/2.
    assert lines == [
        "P@2                   \tq1\t0.5000",
        "NumRet                \tq1\t3",
        "P@2                   \tq3\t0.5000",
        "NumRet                \tq3\t2",
        "P@2                   \tq5\t0.0000",
        "NumRet                \tq5\t0",
        "P@2                   \tall\t0.3333",
        "NumRet                \tall\t5",
    ]
    assert [line.split("\t")[0].strip() for line in lines] == ["P@2", "NumRet"] * 4


def test_trec_eval_compat_averages_over_queries_in_both(files, capsys):
    _, out, _ = run_cli(
        capsys, "eval", files["qrels"], files["bm25.run"], "-m", "P@2", "--trec-eval-compat", "-q"
    )
    # Under compat the measure is printed under trec_eval's name, P_2.
    lines = [line for line in out.splitlines() if line.startswith("P_2 ")]
    queries = [line.split("\t")[1] for line in lines]
    assert queries == [
        "q1",
        "q2",
        "q3",
        "all",
    ]  # q2 (no relevant doc) in, q5 (not run) out, q4 ignored
    assert lines[-1].endswith("\t0.3333")  # (0.5 + 0 + 0.5) / 3


def test_several_runs_json_and_scores_saved(files, capsys, tmp_path):
    code, out, err = run_cli(
        capsys,
        "eval",
        files["qrels"],
        f"a={files['bm25.run']}",
        files["other.run"],
        "-m",
        "AP",
        "-m",
        "NumRel",
        "--format",
        "json",
        "-q",
        "-o",
        tmp_path / "scores",
    )
    assert code == 0
    doc = json.loads(out)
    assert list(doc) == ["runs"] and list(doc["runs"]) == ["a", "other"]
    assert set(doc["runs"]["a"]) == {"runid", "queries", "mean", "per_query"}
    assert doc["runs"]["other"]["mean"]["NumRel"] == 4 and isinstance(
        doc["runs"]["other"]["mean"]["NumRel"], int
    )
    # other: q1 d3 first (AP 1/2: 1 of 2 relevant found at rank 1), q3 x (1), q5 m (1).
    assert doc["runs"]["other"]["per_query"]["q1"]["AP"] == pytest.approx(0.5)
    assert doc["runs"]["other"]["mean"]["AP"] == pytest.approx((0.5 + 1 + 1) / 3)
    saved = pl.read_parquet(tmp_path / "scores" / "other.parquet")
    assert saved.schema == pl.Schema(
        {"system": pl.String, "query_id": pl.String, "measure": pl.String, "value": pl.Float64}
    )
    assert saved.height == 6 and set(saved["system"]) == {"other"}
    assert "per-query scores" in err
    _, out, _ = run_cli(
        capsys, "eval", files["qrels"], files["bm25.run"], "-m", "AP", "--format", "json"
    )
    # per_query only with -q
    assert set(json.loads(out)["runs"]["bm25"]) == {"runid", "queries", "mean"}


def test_store_as_qrels(files, capsys, tmp_path):
    from goldset_tui.store.project import Project

    store = tmp_path / "store"
    project = Project.create(store, pool_path=files["qrels"], pool_sha256="0" * 64)
    project.import_prior(
        pl.DataFrame(
            {"query_id": ["q1", "q1", "q3"], "doc_id": ["d1", "d3", "x"], "grade": [1, 2, 3]}
        )
    )
    code, out, _ = run_cli(capsys, "eval", store, files["bm25.run"], "-m", "NumRel")
    assert code == 0 and out.splitlines() == ["NumRel                \tall\t3"]
    assert (store / "scores" / "bm25.parquet").exists()


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["-m", "nDGC@10"], "did you mean 'nDCG@10'"),
        (["-m", "mapp"], "did you mean 'AP'"),
    ],
)
def test_bad_measure_is_one_line_exit_2(files, capsys, argv, words):
    code, out, err = run_cli(capsys, "eval", files["qrels"], files["bm25.run"], *argv)
    assert code == 2 and out == "" and words in err and err.count("\n") == 1


def test_bad_run_file_names_line_and_field(files, capsys, tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 1.0 t\nq1 Q0 d2 2 lots t\n")
    code, _, err = run_cli(capsys, "eval", files["qrels"], bad, "-m", "AP")
    assert code == 2 and f"{bad}:2" in err and "'score'" in err and err.count("\n") == 1


def test_same_run_name_twice(files, capsys):
    code, _, err = run_cli(capsys, "eval", files["qrels"], files["bm25.run"], files["bm25.run"])
    assert code == 2 and "given twice" in err


def test_compare(files, capsys):
    code, out, _ = run_cli(
        capsys,
        "compare",
        files["qrels"],
        files["bm25.run"],
        files["other.run"],
        "-m",
        "Success@1",
        "--format",
        "json",
        "--samples",
        "500",
    )
    assert code == 0
    doc = json.loads(out)
    # Success@1 on q1, q3, q5: bm25 (1, 0, 0), other (1, 1, 1).
    assert (doc["mean_a"], doc["mean_b"]) == pytest.approx((1 / 3, 1.0))
    assert (doc["wins"], doc["losses"], doc["ties"]) == (0, 2, 1)
    assert doc["discordant"] == {"only_a": 0, "only_b": 2}
    assert doc["mcnemar_p"] == pytest.approx(0.5)
    code, out, _ = run_cli(
        capsys,
        "compare",
        files["qrels"],
        files["bm25.run"],
        files["bm25.run"].with_name("bm25.run"),
        "-m",
        "AP",
    )
    assert code == 2  # same name twice


def test_compare_text(files, capsys):
    code, out, _ = run_cli(
        capsys,
        "compare",
        files["qrels"],
        f"x={files['bm25.run']}",
        files["other.run"],
        "-m",
        "AP",
        "--samples",
        "200",
    )
    assert (
        code == 0
        and "difference (x - other)" in out
        and "p-value" in out
        and "seed 0, 200 samples" in out
    )


def test_fuse_writes_a_trec_run(files, capsys, tmp_path):
    fused = tmp_path / "out" / "fused.run"
    code, _, err = run_cli(capsys, "fuse", files["bm25.run"], files["other.run"], "-o", fused)
    assert code == 0 and "wrote" in err
    run = read_run(fused)
    q1 = run.filter(pl.col("query_id") == "q1")
    # d3: 1/(60+1) twice; d2 and d1 from bm25 alone at ranks 2 and 3.
    assert q1.get_column("doc_id").to_list() == ["d3", "d2", "d1"]
    assert q1.get_column("score")[0] == pytest.approx(2 / 61)
    assert set(run.get_column("tag")) == {"fused-rrf"}
    code, _, err = run_cli(capsys, "fuse", files["bm25.run"], "-o", fused)
    assert code == 2 and "at least two" in err


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_qrels_without_a_relevant_document_is_one_line_exit_2(files, capsys, tmp_path, fmt):
    zero = tmp_path / "zero.qrels"
    zero.write_text("q1 0 d1 0\nq2 0 a -1\n")
    code, out, err = run_cli(capsys, "eval", zero, files["bm25.run"], "--format", fmt)
    assert code == 2 and out == ""  # never an empty "mean": {} on stdout
    assert err.count("\n") == 1 and str(zero) in err and "no query with a relevant document" in err


def test_compat_run_sharing_no_query_is_one_line_exit_2(files, capsys, tmp_path):
    # trec_eval stops too ("No queries with both results and relevance info"): a wrong qrels file.
    stranger = tmp_path / "stranger.run"
    stranger.write_text("z1 Q0 d1 1 1.0 t\nz2 Q0 d2 1 1.0 t\n")
    for fmt in ("text", "json"):
        code, out, err = run_cli(
            capsys, "eval", files["qrels"], stranger, "--trec-eval-compat", "--format", fmt
        )
        assert code == 2 and out == ""
        assert (
            err.count("\n") == 1
            and str(files["qrels"]) in err
            and "'stranger'" in err
            and "shares no query" in err
        )


@pytest.mark.parametrize("mode", [[], ["-c"], ["--trec-eval-compat"], ["--trec-eval-compat", "-c"]])
def test_run_sharing_no_query_is_an_error_in_every_mode(files, capsys, tmp_path, mode):
    # This printed `AP all 0.0000` with exit 0 (goldset's mean, and -c).
    stranger = tmp_path / "stranger.run"
    stranger.write_text("z1 Q0 d1 1 1.0 t\nz2 Q0 d2 1 1.0 t\n")
    code, out, err = run_cli(capsys, "eval", files["qrels"], stranger, "-m", "AP", *mode)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and str(files["qrels"]) in err and str(stranger) in err
    assert "shares no query" in err


def test_partial_mismatch_is_one_warning_line_and_json_records_it(files, capsys):
    # bm25.run has q1, q2, q3 and q4 (q4 not judged); the qrels have q1, q2, q3, q5 (q2 without
    # a relevant document). goldset's mean is over q1, q3, q5: q5 is missing from the run.
    code, out, err = run_cli(capsys, "eval", files["qrels"], files["bm25.run"], "-m", "AP")
    assert code == 0
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 2 and err.count("\n") == 2
    assert "1 qrels queries missing from the run (scored 0: q5)" in warnings[0]
    assert "1 run queries not in the qrels (ignored: q4)" in warnings[0]
    # q2 is judged but has no relevant document: left out of goldset's mean, and said so.
    assert "1 judged queries" in warnings[1] and "left out of the mean (q2)" in warnings[1]
    code, out, err = run_cli(
        capsys, "eval", files["qrels"], files["bm25.run"], "-m", "AP", "--format", "json"
    )
    queries = json.loads(out)["runs"]["bm25"]["queries"]
    assert queries == {
        "evaluated": 3,
        "missing_from_run": ["q5"],
        "only_in_run": ["q4"],
        "left_out_no_relevant": ["q2"],
    }
    # -c: every qrels query (q2 too) is averaged, q5 scored 0.
    code, out, err = run_cli(
        capsys, "eval", files["qrels"], files["bm25.run"], "-m", "AP", "-c", "--format", "json"
    )
    queries = json.loads(out)["runs"]["bm25"]["queries"]
    assert queries == {
        "evaluated": 4,
        "missing_from_run": ["q5"],
        "only_in_run": ["q4"],
        "left_out_no_relevant": [],
    }


def test_matching_query_sets_say_nothing(files, capsys, tmp_path):
    run = tmp_path / "exact.run"
    run.write_text("q1 Q0 d1 1 1 t\nq3 Q0 x 1 1 t\nq5 Q0 m 1 1 t\n")
    code, _, err = run_cli(capsys, "eval", files["qrels"], run, "-m", "AP")
    # The only line is about the qrels' q2 (judged, nothing relevant), not about the run.
    assert code == 0 and err.count("\n") == 1 and "left out of the mean (q2)" in err


def test_relevance_level_says_how_many_judged_queries_it_leaves_out(peers, capsys):
    # Robust 2003 at -l 2: many judged topics have no document graded 2. They used to vanish from
    # the mean without a word (43 of 100 averaged). Counted here from the file itself.
    import gzip

    qrels = peers / "trectools" / "robust03_cs_qrels.txt.gz"
    best: dict[str, int] = {}
    with gzip.open(qrels, "rt") as fh:
        for line in fh:
            qid, _, _, grade = line.split()
            best[qid] = max(best.get(qid, -1), int(grade))
    without = sorted(q for q, g in best.items() if g < 2)
    assert 0 < len(without) < len(best)
    run = peers / "trectools" / "input.uic0301.gz"
    code, out, err = run_cli(capsys, "eval", qrels, run, "-m", "AP", "-l", "2", "--format", "json")
    assert code == 0
    assert f"{len(without)} judged queries in {qrels} have no document graded >= 2" in err
    queries = json.loads(out)["runs"]["uic0301"]["queries"]
    assert queries["left_out_no_relevant"] == without
    assert queries["evaluated"] == len(best) - len(without)


def test_per_query_text_shows_control_characters_visibly(files, capsys, tmp_path):
    qrels = tmp_path / "esc.qrels"
    qrels.write_text("\x1b[2Jq1 0 d1 1\n")
    run = tmp_path / "esc.run"
    run.write_text("\x1b[2Jq1 Q0 d1 1 1.0 t\n")
    code, out, _ = run_cli(
        capsys, "eval", qrels, f"r\x1b]0;x\x07={run}", f"s={run}", "-m", "P@1", "-q"
    )
    assert code == 0 and "\x1b" not in out and "\x07" not in out
    assert "r\u241b]0;x\u2407\tP@1                   \t\u241b[2Jq1\t1.0000" in out.splitlines()
    # JSON is data: its own escaping keeps the id exact.
    code, out, _ = run_cli(capsys, "eval", qrels, run, "-m", "P@1", "-q", "--format", "json")
    assert json.loads(out)["runs"]["esc"]["per_query"] == {"\x1b[2Jq1": {"P@1": 1.0}}


def test_compare_several_measures_compares_each(files, capsys):
    # It refused a second -m once (argparse would have kept only the last, silently); now each
    # measure is compared on its own, with the same seed, as if given alone.
    argv = ["compare", files["qrels"], files["bm25.run"], files["other.run"], "--samples", "200"]
    code, out, err = run_cli(capsys, *argv, "-m", "AP", "-m", "P@5")
    assert code == 0 and err.count("warning") == 1  # the query-set warning, once, not per measure
    alone = [run_cli(capsys, *argv, "-m", m)[1].rstrip("\n") for m in ("AP", "P@5")]
    assert out.rstrip("\n").split("\n\n") == alone


def test_bad_output_folder_is_one_line_before_any_output(files, capsys, tmp_path):
    taken = tmp_path / "ro.txt"
    taken.write_text("not a folder\n")
    for out in (taken, taken / "sub"):
        code, stdout, err = run_cli(capsys, "eval", files["qrels"], files["bm25.run"], "-o", out)
        assert code == 2 and stdout == "" and err.count("\n") == 1 and str(out) in err
    assert taken.read_text() == "not a folder\n"


def test_run_name_is_the_tag_when_the_file_name_says_nothing_more(peers, capsys, tmp_path):
    # `input.uic0301.gz` is `uic0301`, as trec_eval's runid; NAME=PATH still wins.
    qrels = peers / "trectools" / "robust03_cs_qrels.txt.gz"
    run = peers / "trectools" / "input.uic0301.gz"
    plain = tmp_path / "results.txt"  # a plain file name: the tag names the run
    plain.write_text("303 Q0 d1 1 1.0 mysys\n")
    named = tmp_path / "bm25.run"  # a file name that says something: kept
    named.write_text("303 Q0 d1 1 1.0 t\n")
    code, out, _ = run_cli(capsys, "eval", qrels, run, plain, named, "-m", "AP", "--format", "json")
    assert code == 0
    assert list(json.loads(out)["runs"]) == ["uic0301", "mysys", "bm25"]
    assert json.loads(out)["runs"]["bm25"]["runid"] == "t"
    code, out, _ = run_cli(capsys, "eval", qrels, f"mine={run}", "-m", "AP", "--format", "json")
    assert list(json.loads(out)["runs"]) == ["mine"]
    assert json.loads(out)["runs"]["mine"]["runid"] == "uic0301"


def test_aliases_are_noted_and_output_keeps_the_canonical_name(files, capsys):
    code, out, err = run_cli(
        capsys, "eval", files["qrels"], files["bm25.run"], "-m", "map", "-m", "ndcg@10"
    )
    assert code == 0
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == ["AP", "nDCG@10"]
    assert "measure 'map' read as 'AP'" in err and "measure 'ndcg@10' read as 'nDCG@10'" in err
    code, out, _ = run_cli(
        capsys, "eval", files["qrels"], files["bm25.run"], "-m", "P_2", "--format", "json"
    )
    doc = json.loads(out)
    assert doc["aliases"] == {"P_2": "P@2"} and list(doc["runs"]["bm25"]["mean"]) == ["P@2"]


def test_compare_refuses_a_run_sharing_no_query(files, capsys, tmp_path):
    stranger = tmp_path / "stranger.run"
    stranger.write_text("z1 Q0 d1 1 1.0 t\n")
    code, out, err = run_cli(capsys, "compare", files["qrels"], files["bm25.run"], stranger)
    assert code == 2 and out == "" and "shares no query" in err and err.count("\n") == 2
    assert "warning" in err.splitlines()[0]  # bm25: q5 missing, q4 not judged
