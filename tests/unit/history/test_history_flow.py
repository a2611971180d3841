"""The whole flow on the sample's ILLUSTRATIVE releases: three releases recorded by `goldset
report --store --release`, the pool extended for a new system and its pairs judged between the
second and the third, `goldset history` (JSON shape, the change of golden set named), a recurring
failure promoted and reported on by the next release, and `goldset eval --store --release`."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import polars as pl

from goldset_tui.cli import main
from goldset_tui.io.pools import load_pool
from goldset_tui.io.trec import read_qrels
from goldset_tui.store import Project, sha256_file

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"
REL = SAMPLE / "releases"


def _grades(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(
        pl.lit(None, pl.String).alias("time"), pl.lit(None, pl.String).alias("note")
    )


def _report(store: Path, release: str, *extra: str, runs_of: str | None = None) -> list[str]:
    folder = REL / (runs_of or release)
    runs = [f"{n}={folder / (n + '.run')}" for n in ("bm25", "minilm", *extra)]
    args = ["report", "--qrels", str(store), "--strata", str(SAMPLE / "strata.csv")]
    args += [a for r in runs for a in ("--run", r)]
    return [
        *args,
        "--measure",
        "nDCG@10",
        "--samples",
        "200",
        "--store",
        str(store),
        "--release",
        release,
    ]


def _unjudged_share(pool: Path) -> float:
    """By hand from the files: the share of dense-v2's top 10 (its lines with rank <= 10) whose
    document is not a candidate of its query in the pool (alice graded every candidate)."""
    pooled = {
        (row["query_id"], row["doc_id"])
        for row in map(json.loads, pool.read_text(encoding="utf-8").splitlines())
    }
    top = [
        line.split()
        for line in (REL / "2026.3" / "dense-v2.run").read_text(encoding="utf-8").splitlines()
    ]
    top = [(q, d) for q, _, d, rank, _, _ in top if int(rank) <= 10]
    return sum((q, d) not in pooled for q, d in top) / len(top)


def test_a_quarter_on_the_sample(tmp_path, capsys):
    store = tmp_path / "store"
    pool = SAMPLE / "pool.jsonl"
    project = Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    project.add_grades("alice", _grades(read_qrels(SAMPLE / "judgments" / "alice.qrels")))
    for release in ("2026.1", "2026.2"):
        assert main(_report(store, release)) == 0
    capsys.readouterr()

    # 2026.3 brings dense-v2: the report says how much of its top 10 is unjudged, and the command.
    assert main(_report(store, "2026.3", "dense-v2")) == 0
    err = capsys.readouterr().err
    (advice,) = [line for line in err.splitlines() if "goldset pool --extend" in line]
    assert f"dense-v2: {_unjudged_share(pool):.0%} of its top 10 is unjudged" in advice
    command = shlex.split(advice[advice.index("goldset pool") :])
    assert command[:4] == ["goldset", "pool", "--extend", str(pool)]
    # Run the advised command (with the corpus the sample pool's texts come from).
    new_pool = tmp_path / "pool+dense-v2.jsonl"
    args = command[1:]
    args[args.index("-o") + 1] = str(new_pool)
    assert main([*args, "--corpus", str(SAMPLE / "corpus.jsonl")]) == 0
    # alice judges the new pairs (here: grade 1 each), then 2026.3 is recorded again under a
    # new name: a release's numbers never change once recorded.
    fresh = load_pool(new_pool).frame.join(
        load_pool(pool).frame, on=["query_id", "doc_id"], how="anti"
    )
    added = Project.open(store).add_grades(
        "alice", _grades(fresh.select("query_id", "doc_id", pl.lit(1).alias("grade")))
    )
    assert main(_report(store, "2026.3", "dense-v2")) == 2  # same name, other numbers: refused
    assert "never change" in capsys.readouterr().err
    assert main(_report(store, "2026.3b", "dense-v2", runs_of="2026.3")) == 0
    capsys.readouterr()

    assert main(["history", "--store", str(store), "--format", "json", "--samples", "300"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["metric"] == "nDCG@10"
    bm25 = [r["release"] for r in doc["releases"] if r["system"] == "bm25"]
    assert bm25 == ["2026.1", "2026.2", "2026.3", "2026.3b"]
    last = [c for c in doc["changes"] if c["system"] == "bm25" and c["to"] == "2026.3b"][0]
    assert last["set_changed"] == [
        f"{added} judgments added",
        "pool extended by run dense-v2",
        "corpus snapshot recorded",  # --corpus given to `pool --extend`
    ]
    assert last["mean_diff"] is not None
    # The judged new pairs are the only thing that moved bm25 between 2026.3 and 2026.3b.
    assert [c for c in doc["changes"] if c["to"] == "2026.2"][0]["set_changed"] == []
    recurring = {(r["system"], r["query_id"]) for r in doc["recurring"]}
    assert ("minilm", "q36") in recurring

    assert (
        main(["regressions", "--store", str(store), "--promote", "q36", "--name", "q36-para"]) == 0
    )
    capsys.readouterr()
    assert main(_report(store, "2026.4", "dense-v2", runs_of="2026.3")) == 0
    err = capsys.readouterr().err
    assert "regression case 'q36-para' (query q36): fails for minilm in 2026.4" in err
    assert "regression case 'q36-para' (query q36): passes for bm25 in 2026.4" in err

    # A report that is not recorded still says how the named cases fare in it.
    assert main(_report(store, "x", runs_of="2026.3")[:-4]) == 0  # no --store, --release
    assert "regression case 'q36-para' (query q36): fails for minilm in this report" in (
        capsys.readouterr().err
    )
    # Recall, whose 0/1-ness needs the qrels (one relevant document a query?): the unrecorded
    # report's cases are read with the report's own answer, not a guess that cannot be made.
    recall = _report(store, "x", runs_of="2026.3")[:-4]
    recall[recall.index("nDCG@10")] = "R@10"
    assert main(recall) == 0
    assert "regression case 'q36-para' (query q36): fails for minilm in this report" in (
        capsys.readouterr().err
    )

    text_args = ["history", "--store", str(store), "--system", "bm25", "--samples", "300"]
    assert main(text_args) == 0
    text = capsys.readouterr().out
    assert "the golden set changed here: " in text and "pool extended by run dense-v2" in text


def test_eval_records_every_measure(tmp_path, capsys):
    store = tmp_path / "store"
    pool = SAMPLE / "pool.jsonl"
    Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool)).add_grades(
        "alice", _grades(read_qrels(SAMPLE / "judgments" / "alice.qrels"))
    )
    runs = [f"bm25={REL / '2026.1' / 'bm25.run'}"]
    args = ["eval", str(store), *runs, "-m", "nDCG@10", "-m", "P@5", "--store", str(store)]
    assert main([*args, "--release", "2026.1"]) == 0
    assert main([*args, "--release", "2026.1"]) == 0  # idempotent
    err = capsys.readouterr().err
    assert err.count("history: recorded") == 2 and err.count("already recorded") == 2
    assert main(["history", "--store", str(store), "--measure", "P@5", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["releases"][0]["strata"].keys() >= {"negation", "paraphrase"}  # from the pool
    assert main(["eval", str(store), *runs, "--release", "x"]) == 2  # --release without --store


def test_eval_names_the_pool_extend_command_above_a_fifth_unjudged(tmp_path, capsys):
    store = tmp_path / "store"
    pool = SAMPLE / "pool.jsonl"
    Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool)).add_grades(
        "alice", _grades(read_qrels(SAMPLE / "judgments" / "alice.qrels"))
    )
    new = REL / "2026.3" / "dense-v2.run"
    old = REL / "2026.3" / "minilm.run"
    assert main(["eval", str(store), f"dense-v2={new}", f"minilm={old}", "-m", "P@10"]) == 0
    err = capsys.readouterr().err
    (line,) = [x for x in err.splitlines() if "--extend" in x]  # minilm's top 10 is all judged
    assert f"dense-v2: {_unjudged_share(pool):.0%} of its top 10 is unjudged" in line
    assert f"--run dense-v2={new} --depth 10" in line and f"--store {store}" in line


def test_recording_into_the_store_of_another_pool_is_refused(tmp_path, capsys):
    other = tmp_path / "other.csv"
    other.write_text("query_id,query,doc_id,text\nz1,a,d1,x\n", encoding="utf-8")
    store = tmp_path / "store"
    Project.create(store, pool_path=other, pool_sha256=sha256_file(other))
    qrels = SAMPLE / "judgments" / "alice.qrels"
    run = f"bm25={REL / '2026.1' / 'bm25.run'}"
    args = ["eval", str(qrels), run, "-m", "nDCG@10", "--store", str(store), "--release", "r1"]
    assert main(args) == 2
    (line,) = [x for x in capsys.readouterr().err.splitlines() if "error" in x]
    assert f"{store}: none of the 42 queries these runs were scored on" in line
    assert not (store / "history").exists()


def test_a_bad_seed_or_an_unknown_system_is_one_line_and_exit_2(tmp_path, capsys):
    store = tmp_path / "store"
    pool = SAMPLE / "pool.jsonl"
    Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool)).add_grades(
        "alice", _grades(read_qrels(SAMPLE / "judgments" / "alice.qrels"))
    )
    for release in ("2026.1", "2026.2"):  # two releases: one paired change, seeded
        runs = [f"bm25={REL / release / 'bm25.run'}"]
        args = ["eval", str(store), *runs, "-m", "nDCG@10", "--store", str(store)]
        assert main([*args, "--release", release]) == 0
    capsys.readouterr()
    cases = {
        "--seed -5: expected a whole number": ["--seed", "-5"],  # was a Polars traceback
        "--seed 99999999999999999999: expected": ["--seed", "99999999999999999999"],
        "no system 'bm52' recorded (recorded: 'bm25')": ["--system", "bm52"],  # was exit 0
    }
    for expected, extra in cases.items():
        assert main(["history", "--store", str(store), *extra]) == 2, expected
        err = capsys.readouterr().err
        assert expected in err and len(err.strip().splitlines()) == 1, err


def test_eval_records_recall_as_binary_only_with_one_relevant_document(tmp_path, capsys):
    # The record's binary flag comes from the qrels, counted here by hand from alice's file:
    # R@10 is 0 or 1 only if no query has two documents graded >= 1.
    store = tmp_path / "store"
    pool = SAMPLE / "pool.jsonl"
    alice = SAMPLE / "judgments" / "alice.qrels"
    Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool)).add_grades(
        "alice", _grades(read_qrels(alice))
    )
    relevant: dict[str, set[str]] = {}
    for line in alice.read_text(encoding="utf-8").splitlines():
        q, _, d, g = line.split()
        if int(g) >= 1:
            relevant.setdefault(q, set()).add(d)
    one_each = all(len(docs) == 1 for docs in relevant.values())
    runs = [f"bm25={REL / '2026.1' / 'bm25.run'}"]
    args = ["eval", str(store), *runs, "-m", "R@10", "--store", str(store), "--release", "r"]
    assert main(args) == 0
    (path,) = (store / "history").glob("*.json")
    assert json.loads(path.read_text())["binary"] is one_each
    capsys.readouterr()
    assert main(["history", "--store", str(store), "--format", "json", "--samples", "50"]) == 0
    assert json.loads(capsys.readouterr().out)["metric"] == "R@10"
