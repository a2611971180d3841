"""Synthetic queries keep their origin from `goldset synth` through classify, sample, pool, a
machine judge's store and the report, end to end on the sample corpus against the fake provider;
and the store's version and history name the prompt and model behind them."""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path

import polars as pl
import pytest
from fake_provider import ANTHROPIC_KEY, FakeProvider
from judge_support import ROOT, files_holding
from test_synth import by_title

from goldset_tui.cli import main
from goldset_tui.history.version import describe_change, golden_set_version
from goldset_tui.io.pools import load_pool
from goldset_tui.io.trec import read_qrels, write_run
from goldset_tui.machine.synth_prompt import DEFAULT_PROMPT, load_synth_prompt
from goldset_tui.store import Project

CORPUS = ROOT / "sample_data" / "corpus.jsonl"
LOG = ROOT / "sample_data" / "query_log.csv"


def bm25_run(topics: Path, out: Path) -> Path:
    """The sample's own BM25 (sample_data/builder/bm25.py) over the whole corpus."""
    sys.path.insert(0, str(ROOT / "sample_data"))
    try:
        from builder import bm25
    finally:
        sys.path.remove(str(ROOT / "sample_data"))
    corpus = pl.read_ndjson(CORPUS).select("_id", "title", "text")
    frame = pl.read_csv(topics).select("query_id", "query")
    write_run(bm25.search(corpus, frame, 5), out, "bm25")
    return out


def run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    status = main(list(args))
    out, err = capsys.readouterr()
    assert status == 0, err
    return out + err


def test_origin_from_synth_to_the_report_and_the_setup_in_the_store(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.chdir(tmp_path)
    fake_provider.answer = by_title
    url = ("--base-url", fake_provider.url)
    synth = ["synth", str(CORPUS), "-o", "synth.csv", "--model", "claude-sonnet-4-5", *url]
    synth += ["--documents", "16", "--seed", "11"]
    said = run(capsys, *synth, "--log", str(LOG))
    assert "stratum mix" in said  # classify --compare ran at the end

    # classify: the labels say which queries are synthetic; a real log's labels have no column.
    run(capsys, "classify", "synth.csv", "-o", "labels.csv")
    labels = pl.read_csv("labels.csv")
    assert set(labels["origin"]) == {"synthetic"}
    run(capsys, "classify", str(LOG), "-o", "real_labels.csv")
    assert "origin" not in pl.read_csv("real_labels.csv").columns

    # sample: the drawn queries keep it, and so does the strata file made for the report.
    run(capsys, "sample", "draw", "labels.csv", "-o", "sample.csv", "--seed", "3", "--total", "45")
    sample = pl.read_csv("sample.csv")
    assert set(sample["origin"]) == {"synthetic"}
    # synth's ids, kept: its expected-relevant qrels name the sample's queries
    expected = read_qrels(tmp_path / "synth.qrels")
    assert set(sample["query_id"]) <= set(expected["query_id"])
    strata = pl.read_csv("sample.strata.csv")
    assert set(strata["origin"]) == {"synthetic"}

    # pool: every candidate of a synthetic query carries it.
    bm25_run(Path("sample.csv"), tmp_path / "bm25.run")
    run(capsys, "pool", "--run", "bm25=bm25.run", "--depth", "5", "--topics", "sample.csv",
        "--corpus", str(CORPUS), "-o", "pool.csv")  # fmt: skip
    pool = pl.read_csv("pool.csv")
    assert set(pool["origin"]) == {"synthetic"} and pool["query_id"].n_unique() == sample.height
    assert load_pool("pool.csv").frame.height == pool.height  # the pool reads as any other

    # a machine judge makes the store; `synth --store` (0 requests: the cache) records the setup.
    fake_provider.answer = lambda p: "Rationale: r.\nConfidence: 0.7\nFinal score: 2"
    judge = ["judge", "--machine", "claude-sonnet-4-5", "pool.csv", "--store", "store"]
    run(capsys, *judge, "--labeller", "llm", *url)
    asked = fake_provider.count()
    # A person grades the same pool (a stand-in file here: 1 where the query names the document's
    # title, else 0); agreement reports the machine judge against them.
    person = pool.select(
        "query_id",
        "doc_id",
        pl.when(pl.col("query").str.contains(pl.col("title"), literal=True))
        .then(1)
        .otherwise(0)
        .alias("grade"),
    )
    person.write_csv(tmp_path / "alice.csv")
    run(capsys, "import", "--store", "store", "--labeller", "alice", "--human", "alice.csv")
    agreement = run(capsys, "agreement", "--store", "store")
    assert "Machine judge llm" in agreement
    assert re.search(r"^\| alice \| \d+ \|", agreement, re.M)
    fake_provider.answer = by_title
    said = run(capsys, *synth, "--store", "store")
    assert fake_provider.count() == asked
    assert f"{sample.height} of its pool's queries are these synthetic ones" in said
    manifest = Project.open(tmp_path / "store").manifest
    entry = manifest["synthetic_queries"]
    assert entry["prompt_sha256"] == load_synth_prompt(None).sha256
    assert entry["model"] == "claude-sonnet-4-5" and entry["provider"] == "anthropic"
    assert entry["model_version"] == "claude-sonnet-4-5-20250929"
    version = golden_set_version(
        manifest, pl.DataFrame({"query_id": [], "doc_id": [], "grade": []})
    )
    assert version["synthetic_queries"]["prompt_sha256"] == entry["prompt_sha256"]
    assert version["machine_labels"]["llm"]["model"] == "claude-sonnet-4-5"

    # report on the sample's strata: a line in the header, a key in JSON, a column per query.
    qrels = ["--qrels", "store", "--labeller", "llm", "--run", "bm25=bm25.run"]
    report = ["report", *qrels, "--strata", "sample.strata.csv"]
    md = run(capsys, *report, "-o", "out")
    assert f"origin: all {sample.height} queries are synthetic" in md
    data = json.loads(run(capsys, *report, "--format", "json").split("\n}\n")[0] + "\n}")
    assert data["origin"]["synthetic"] == sample.height and data["origin"]["real"] == 0
    failing = pl.read_csv(tmp_path / "out" / "failing_queries.csv")
    assert failing.height == 0 or set(failing["origin"]) == {"synthetic"}
    assert "origin" in failing.columns

    # history: the record's version names the synthetic queries' setup
    run(capsys, *report, "--store", "store", "--release", "r1")
    (record,) = (tmp_path / "store" / "history").glob("*.json")
    recorded = json.loads(record.read_text(encoding="utf-8"))["version"]
    assert recorded["synthetic_queries"]["model"] == "claude-sonnet-4-5"
    assert files_holding(tmp_path, ANTHROPIC_KEY) == []
    manifest_text = (tmp_path / "synth.manifest.toml").read_text(encoding="utf-8")
    assert tomllib.loads(manifest_text)["prompt"]["text"] == DEFAULT_PROMPT


def test_a_report_of_real_traffic_has_no_origin_line(capsys) -> None:
    data = ROOT / "sample_data"
    args = ["report", "--qrels", str(data / "judgments" / "alice.qrels")]
    args += ["--run", f"bm25={data / 'runs' / 'bm25.run'}", "--strata", str(data / "strata.csv")]
    assert main([*args, "--format", "json"]) == 0
    assert "origin" not in json.loads(capsys.readouterr().out)


def test_a_mixed_set_says_so_and_the_history_says_what_changed() -> None:
    from goldset_tui.sampling.origin import origin_line

    line = origin_line(pl.Series(["synthetic", "real", "real"]))
    assert line is not None and "1 synthetic and 2 real queries mixed" in line
    assert origin_line(pl.Series(["real"])) is None
    old = {"synthetic_queries": {"model": "m1", "prompt_sha256": "a" * 64}}
    new = {"synthetic_queries": {"model": "m2", "prompt_sha256": "a" * 64}}
    assert describe_change(old, new) == [
        "synthetic queries from model m2 replaced those from model m1"
    ]
    assert describe_change({}, new) == ["synthetic queries from model m2 added"]


def test_a_store_whose_pool_holds_none_of_the_queries_is_refused(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    fake_provider.answer = by_title
    store = tmp_path / "store"
    pool = ROOT / "sample_data" / "pool.jsonl"
    assert main(["import", "--pool", str(pool), "--store", str(store), "--labeller", "alice",
                 "--human", str(ROOT / "sample_data" / "judgments" / "alice.qrels")]) == 0  # fmt: skip
    args = ["synth", str(CORPUS), "-o", str(tmp_path / "s.csv"), "--model", "claude-sonnet-4-5"]
    args += ["--base-url", fake_provider.url, "--documents", "3", "--seed", "1"]
    assert main([*args, "--store", str(store)]) == 2
    assert "holds none of these synthetic queries" in capsys.readouterr().err
    assert "synthetic_queries" not in Project.open(store).manifest
    assert read_qrels(tmp_path / "s.qrels").height > 0  # the files themselves were written


def test_classify_a_query_typed_by_a_person_too_is_real(tmp_path: Path, capsys) -> None:
    log = tmp_path / "mixed.csv"
    log.write_text(
        "query,count,origin\n"
        "json loads,3,real\n"
        "JSON  loads,1,synthetic\n"  # the same query once normalised: a person typed it
        "parse a json file,1,Synthetic \n"
        "read csv,2,\n",  # no value: real
        encoding="utf-8",
    )
    run(capsys, "classify", str(log), "-o", str(tmp_path / "labels.csv"))
    labels = pl.read_csv(tmp_path / "labels.csv")
    origins = dict(zip(labels["query"], labels["origin"], strict=True))
    assert origins == {"json loads": "real", "parse a json file": "synthetic", "read csv": "real"}
    assert "query_id" not in labels.columns  # ids come only with a log that has them


def test_a_jsonl_log_with_origin_as_a_value_not_a_key_has_no_origin_column(
    tmp_path: Path, capsys
) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text('{"query": "cors", "header": "origin"}\n{"query": "x y"}\n', encoding="utf-8")
    run(capsys, "classify", str(log), "-o", str(tmp_path / "labels.csv"))
    assert "origin" not in pl.read_csv(tmp_path / "labels.csv").columns
