"""`compute_report` from a notebook (docs/report.md, "From Python") takes what the notebook API
takes and refuses what `goldset report` refuses.

Before: GMAP gave AP's arithmetic mean under GMAP's name (0.917 where GMAP is 0.902 on the
sample's bm25), which the command line refuses; a path for the qrels, a run or the strata failed
with an AttributeError deep inside; a strata frame read with ``pl.read_csv`` (numeric ids) failed
with Polars' join SchemaError, and one without a ``stratum`` column with ColumnNotFoundError."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
import pytrec_eval

from goldset_tui.cli import main
from goldset_tui.errors import InputError
from goldset_tui.io.trec import read_qrels, read_run
from goldset_tui.report.pipeline import compute_report, to_json

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"
QRELS = SAMPLE / "judgments" / "alice.qrels"
RUNS = {"bm25": SAMPLE / "runs" / "bm25.run", "minilm": SAMPLE / "runs" / "minilm.run"}
STRATA, TRAFFIC = SAMPLE / "strata.csv", SAMPLE / "traffic.csv"


def test_gmap_is_refused_as_on_the_command_line():
    runs = {"bm25": read_run(RUNS["bm25"])}
    with pytest.raises(InputError, match="geometric"):
        compute_report(read_qrels(QRELS), runs, pl.read_csv(STRATA), metric="GMAP")


def test_paths_give_the_command_lines_numbers(capsys):
    argv = ["report", "--qrels", str(QRELS), "--strata", str(STRATA), "--traffic", str(TRAFFIC)]
    argv += [a for name, p in RUNS.items() for a in ("--run", f"{name}={p}")]
    assert main([*argv, "-m", "P@10", "--format", "json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    report = compute_report(str(QRELS), RUNS, STRATA, traffic=TRAFFIC, metric="P@10")
    assert json.loads(to_json(report)) == cli
    # And the overall means are trec_eval's P_10 over the queries with a relevant document.
    with open(QRELS) as q, open(RUNS["bm25"]) as r:
        qrels, run = pytrec_eval.parse_qrel(q), pytrec_eval.parse_run(r)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"P"}).evaluate(run)
    relevant = [q for q, docs in qrels.items() if max(docs.values()) >= 1]
    expected = sum(per_query[q]["P_10"] for q in relevant) / len(relevant)
    assert report.overall.filter(system="bm25")["mean"].item() == pytest.approx(expected)


def test_a_strata_frame_with_numeric_ids_matches_text_ids(tmp_path):
    (tmp_path / "q.qrels").write_text("301 0 a 1\n302 0 b 1\n303 0 c 1\n")
    (tmp_path / "r.run").write_text(
        "301 Q0 a 1 3.0 t\n302 Q0 x 1 3.0 t\n302 Q0 b 2 2.0 t\n303 Q0 y 1 1.0 t\n"
    )
    (tmp_path / "s.csv").write_text("query_id,stratum\n301,short\n302,short\n303,long\n")
    strata = pl.read_csv(tmp_path / "s.csv")  # what a notebook does: query_id read as i64
    assert strata.schema["query_id"] == pl.Int64
    report = compute_report(tmp_path / "q.qrels", {"t": tmp_path / "r.run"}, strata, metric="RR")
    means = dict(report.table.select("stratum", "mean").iter_rows())
    assert means == {"short": pytest.approx((1 + 1 / 2) / 2), "long": 0.0}


def test_a_strata_frame_without_its_columns_names_the_one_missing():
    with pytest.raises(ValueError, match="'stratum'"):
        compute_report(QRELS, {"bm25": RUNS["bm25"]}, pl.DataFrame({"query_id": ["q01"]}))


def test_no_run_is_one_clear_error():
    with pytest.raises(ValueError, match="at least one run"):
        compute_report(QRELS, {}, STRATA)


def test_the_repr_is_the_headlines_with_what_each_estimates():
    report = compute_report(QRELS, RUNS, STRATA, traffic=TRAFFIC, metric="Success@3")
    text = repr(report)
    # Before: the dataclass repr, every frame it holds (qrels and runs among them) in full.
    assert len(text.splitlines()) < 15 and "shape:" not in text
    for row in report.overall.iter_rows(named=True):
        ci = f"[{row['ci_lo']:.4f}, {row['ci_hi']:.4f}]"
        assert f"{row['system']} {row['mean']:.4f} {ci}" in text
    assert report.weighted is not None and report.weighted_ci is not None
    lo, hi = report.weighted_ci["minilm"]
    assert f"minilm {report.weighted['minilm']:.4f} [{lo:.4f}, {hi:.4f}]" in text
    assert all(f"{name} estimates: {what}" in text for name, what in report.estimands.items())


def test_the_repr_shows_hostile_names_literally(tmp_path):
    (tmp_path / "q.qrels").write_text("q1 0 a 1\nq2 0 b 1\n")
    (tmp_path / "r.run").write_text("q1 Q0 a 1 2.0 t\nq2 Q0 c 1 2.0 t\n")
    hostile = "s\x1b[2J\u202eX"
    strata = pl.DataFrame({"query_id": ["q1", "q2"], "stratum": [hostile, "plain"]})
    text = repr(compute_report(tmp_path / "q.qrels", {"r\x1b]0;t\x07": tmp_path / "r.run"}, strata))
    assert not any(c in text for c in "\x1b\x07\u202e")  # in a terminal: obeyed, not shown
    assert "s␛[2J<U+202E>X" in text and "r␛]0;t␇" in text


def test_frames_are_refused_where_the_files_are(tmp_path):
    # Before: a query in two strata was counted in both, and a negative share weighted the
    # headline, with nothing said; the same rows in a file are refused by `goldset report`.
    strata = pl.DataFrame({"query_id": ["q01", "q01"], "stratum": ["a", "b"]})
    with pytest.raises(ValueError, match="query_id 'q01' two strata"):
        compute_report(QRELS, {"bm25": RUNS["bm25"]}, strata)
    (tmp_path / "s.csv").write_text("query_id,stratum\nq01,a\nq01,b\n")
    with pytest.raises(InputError):
        compute_report(QRELS, {"bm25": RUNS["bm25"]}, tmp_path / "s.csv")
    shares = pl.read_csv(TRAFFIC).with_columns(share=pl.col("share") * -1)
    with pytest.raises(ValueError, match="not a number >= 0"):
        compute_report(QRELS, {"bm25": RUNS["bm25"]}, STRATA, traffic=shares)
    doubled = pl.concat(
        [pl.read_csv(TRAFFIC), pl.DataFrame({"stratum": ["negation"], "share": [0.5]})]
    )
    with pytest.raises(ValueError, match="stratum 'negation' two shares"):
        compute_report(QRELS, {"bm25": RUNS["bm25"]}, STRATA, traffic=doubled)
    # The frames read from the sample's own files give the files' report.
    from_frames = compute_report(QRELS, RUNS, pl.read_csv(STRATA), traffic=pl.read_csv(TRAFFIC))
    assert to_json(from_frames) == to_json(compute_report(QRELS, RUNS, STRATA, traffic=TRAFFIC))
