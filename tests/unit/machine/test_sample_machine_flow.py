"""The whole machine-judge flow on the sample data: import -> agreement -> system_ranking ->
validation pool, with the sample's ILLUSTRATIVE machine labeller (sample_data/judgments/llm.jsonl,
made up by sample_data/builder/machine.py with a lenient streak on negation queries)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from goldset_tui.cli import main
from goldset_tui.machine.example import build_sample_machine_store, judged_queries

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"
RUNS = [f"{n}={SAMPLE / 'runs' / f'{n}.run'}" for n in ("bm25", "minilm")]


def test_flow_on_the_sample(tmp_path: Path, capsys) -> None:
    store = build_sample_machine_store(tmp_path, SAMPLE)
    labels = SAMPLE / "judgments" / "llm.jsonl"
    assert "illustrative" in labels.read_text(encoding="utf-8").splitlines()[0]
    assert (
        main(["import", "--store", str(store), "--labeller", "llm", "--machine", str(labels)]) == 0
    )
    capsys.readouterr()

    runs = [arg for r in RUNS for arg in ("--run", r)]
    assert (
        main(["agreement", "--store", str(store), *runs, "-m", "nDCG@10", "--format", "json"]) == 0
    )
    report = json.loads(capsys.readouterr().out)
    against_alice = next(a for a in report["machine"][0]["against"] if a["b"] == "alice")
    by_stratum = {s["stratum"]: s["mean_difference"] for s in against_alice["strata"]}
    # the flaw built into the sample's machine judge shows where it was put
    assert max(by_stratum, key=by_stratum.__getitem__) == "negation"
    assert by_stratum["negation"] > 0.2
    ranking = report["system_ranking"]["pairs"]
    assert {(p["a"], p["b"]) for p in ranking} >= {("alice", "llm"), ("consensus", "llm")}
    assert ranking[0]["note"] == "a ranking correlation needs three or more systems"

    out, why = tmp_path / "check.jsonl", tmp_path / "why.csv"
    args = ["validate", "--store", str(store), "--labeller", "llm", "--budget", "60"]
    assert main([*args, *runs, "-o", str(out), "--why", str(why)]) == 0
    chosen = pl.read_ndjson(out)
    assert chosen.height == 60
    assert "grade" not in chosen.columns and "confidence" not in chosen.columns  # blind
    assert chosen.group_by("stratum").len()["len"].to_list() == [10] * 6
    humans_did = set(judged_queries([f"q{i:02d}" for i in range(1, 43)]))  # q01, q04, ...
    assert len(humans_did) == 14
    assert not humans_did & set(chosen["query_id"].to_list())
    reasons = pl.read_csv(why)
    assert reasons.height == 60 and (reasons["flips"] == 0).all()  # two systems far apart
    # no flip decides anything here, so each stratum's 10 are its least confident unjudged labels
    strata = pl.read_csv(SAMPLE / "strata.csv")
    rest = (
        pl.read_ndjson(labels)
        .join(strata, on="query_id")
        .filter(~pl.col("query_id").is_in(list(humans_did)))
        .join(
            reasons.select("query_id", "doc_id", pl.lit(True).alias("chosen")),
            on=["query_id", "doc_id"],
            how="left",
        )
    )
    for (stratum,), part in rest.group_by("stratum"):
        picked = part.filter(pl.col("chosen").is_not_null())["confidence"]
        left = part.filter(pl.col("chosen").is_null())["confidence"]
        assert picked.len() == 10 and picked.max() <= left.min(), stratum
    # the pool judges like any other: goldset check accepts it
    assert main(["check", str(out)]) == 0


def test_validate_refuses_a_human_labeller(tmp_path: Path, capsys) -> None:
    store = build_sample_machine_store(tmp_path, SAMPLE)
    args = ["validate", "--store", str(store), "--labeller", "alice", "--budget", "5"]
    assert main([*args, "-o", str(tmp_path / "p.jsonl")]) == 2
    assert "is not a machine labeller" in capsys.readouterr().err
    assert not (tmp_path / "p.jsonl").exists()
