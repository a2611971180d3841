"""The Textual-free parts of `goldset review`: runs rebuilt from a pool, the top-k frame with
grades, the missing pairs and their pool, the sampling manifest's closure checks."""

from __future__ import annotations

import polars as pl
import pytest
import tomli_w

from goldset_tui.app.review import runs_from_pool
from goldset_tui.errors import InputError
from goldset_tui.report.closure import ClosureCheck
from goldset_tui.report.pipeline import (
    missing_pairs,
    missing_pool,
    read_sampling_closure,
    topk_frame,
)


def test_runs_rebuilt_from_pool_systems_and_ranks() -> None:
    pool = pl.DataFrame(
        {
            "query_id": ["q1", "q1", "q1", "q2"],
            "doc_id": ["a", "b", "c", "a"],
            "systems": [["bm25", "dense"], ["dense"], ["bm25"], ["dense"]],
            "ranks": [[1, 2], [1], [2], [1]],
        }
    )
    runs = runs_from_pool(pool)
    assert set(runs) == {"bm25", "dense"}
    assert runs["bm25"].select("query_id", "doc_id", "rank").rows() == [
        ("q1", "a", 1),
        ("q1", "c", 2),
    ]
    assert runs["dense"].select("query_id", "doc_id", "rank").rows() == [
        ("q1", "b", 1),
        ("q1", "a", 2),
        ("q2", "a", 1),
    ]
    # Scores keep the recorded order under trec_eval's ordering (score descending).
    assert runs["dense"].filter(pl.col("query_id") == "q1").sort(
        "score", descending=True
    ).get_column("doc_id").to_list() == ["b", "a"]
    assert runs_from_pool(pool.with_columns(systems=pl.lit(None, dtype=pl.List(pl.Utf8)))) == {}


def test_topk_grades_and_missing_pairs() -> None:
    run_a = pl.DataFrame(
        {
            "query_id": ["q1"] * 3 + ["q2"] * 2,
            "doc_id": ["a", "b", "c", "x", "y"],
            "score": [3.0, 2, 1, 2, 1],
            "rank": [1, 2, 3, 1, 2],
        }
    )
    run_b = pl.DataFrame(
        {"query_id": ["q1", "q1"], "doc_id": ["c", "d"], "score": [2.0, 1.0], "rank": [1, 2]}
    )
    qrels = pl.DataFrame(
        {
            "query_id": ["q1", "q1", "q1", "q2"],
            "doc_id": ["a", "b", "d", "x"],
            "grade": [2, 0, -1, 1],
        }
    )
    top = topk_frame(qrels, {"a": run_a, "b": run_b}, 2, pl.Series(["q1", "q2"]))
    assert top.rows() == [
        ("a", "q1", 1, "a", 2),
        ("a", "q1", 2, "b", 0),
        ("a", "q2", 1, "x", 1),
        ("a", "q2", 2, "y", None),
        ("b", "q1", 1, "c", None),
        ("b", "q1", 2, "d", None),  # d is "pooled but unjudged" (-1)
    ]
    assert missing_pairs(top).rows() == [("q1", "c"), ("q1", "d"), ("q2", "y")]
    assert missing_pairs(top, ["q2"]).rows() == [("q2", "y")]
    topics = pl.DataFrame({"query_id": ["q1"], "query": ["how do I"]})
    corpus = pl.DataFrame(
        {"doc_id": ["c", "y"], "text": ["C text", "Y text"], "title": ["C", None]}
    )
    pool = missing_pool(missing_pairs(top), topics, corpus)
    assert pool.columns == ["query_id", "query", "doc_id", "text", "title"]
    assert pool.rows() == [
        ("q1", "how do I", "c", "C text", "C"),
        ("q1", "how do I", "d", None, None),
        ("q2", "q2", "y", "Y text", None),
    ]


def test_sampling_manifest_closure(tmp_path) -> None:
    checks = [
        ClosureCheck("traffic shares sum to 1", 1.0, 1.0),
        ClosureCheck("sample sizes sum to the set size", 160, 159),
    ]
    m = tmp_path / "sample.manifest.toml"
    m.write_text(tomli_w.dumps({"seed": 1, "closure": [c.to_dict() for c in checks]}))
    got = read_sampling_closure(m)
    assert [(c["name"], c["residual"], c["ok"]) for c in got] == [
        ("traffic shares sum to 1", 0.0, True),
        ("sample sizes sum to the set size", -1, False),
    ]
    m.write_text(tomli_w.dumps({"closure": {"checks": [checks[0].to_dict()]}}))
    assert read_sampling_closure(m)[0]["name"] == "traffic shares sum to 1"
    m.write_text("seed = 1\n")
    with pytest.raises(InputError, match="closure"):
        read_sampling_closure(m)
    m.write_text("seed = \n")
    with pytest.raises(InputError, match="not valid TOML"):
        read_sampling_closure(m)


def test_review_refuses_bad_arguments_before_any_screen(tmp_path, capsys) -> None:
    from goldset_tui.cli import main

    assert main(["review"]) == 2
    assert "give --qrels, --run and --strata" in capsys.readouterr().err
    assert main(["review", "--store", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(tmp_path) in err
    strata = tmp_path / "strata.csv"
    strata.write_text("query_id,stratum\nq1,a\n")
    assert (
        main(
            [
                "review",
                "--qrels",
                str(tmp_path / "missing.qrels"),
                "--run",
                f"a={tmp_path / 'a.run'}",
                "--strata",
                str(strata),
            ]
        )
        == 2
    )
    assert "no such file" in capsys.readouterr().err
