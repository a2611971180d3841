"""`goldset pool --extend`: every candidate and its provenance kept, the new system's ranks added,
new pairs counted per query; the store switches to the new pool keeping every judgment, and the
judging session serves only the new pairs; a SIGKILL at any moment leaves a consistent store."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.cli import main
from goldset_tui.io.pools import load_pool
from goldset_tui.io.trec import read_qrels
from goldset_tui.judging.session import JudgingSession
from goldset_tui.pooling.extension import extend_pool
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.manifest import read_manifest

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"
NEW_RUN = SAMPLE / "releases" / "2026.3" / "dense-v2.run"


def test_extend_keeps_provenance_and_adds_ranks():
    pool = pl.DataFrame(
        {
            "query_id": ["q1", "q1", "q2"],
            "query": ["a", "a", "b"],
            "doc_id": ["d1", "d2", "d3"],
            "text": ["t1", "t2", "t3"],
            "title": [None, None, None],
            "stratum": ["s", "s", "t"],
            "systems": [["bm25"], ["bm25", "dense"], ["dense"]],
            "ranks": [[1], [2, 1], [1]],
        },
        schema_overrides={"title": pl.Utf8},
    )
    # new's top 2 by score: q1 -> d2 (rank 1), d9 (rank 2); q2 -> d3; q3 is not in the pool.
    run = pl.DataFrame(
        {
            "query_id": ["q1", "q1", "q1", "q2", "q3"],
            "doc_id": ["d2", "d9", "d8", "d3", "x"],
            "score": [3.0, 2.0, 1.0, 1.0, 1.0],
        }
    )
    extended, counts = extend_pool(pool, run, "new", 2)
    assert extended.select("query_id", "doc_id", "systems", "ranks").rows() == [
        ("q1", "d1", ["bm25"], [1]),
        ("q1", "d2", ["bm25", "dense", "new"], [2, 1, 1]),
        ("q1", "d9", ["new"], [2]),
        ("q2", "d3", ["dense", "new"], [1, 1]),
    ]
    assert (
        extended.row(2, named=True)["query"] == "a" and extended.row(2, named=True)["text"] is None
    )
    assert counts.rows() == [("q1", 2, 1, 3), ("q2", 1, 0, 1)]
    with pytest.raises(ValueError, match="already in the pool"):
        extend_pool(pool, run, "dense", 2)


KILL_CHILD = Path(__file__).with_name("kill_child.py")


def _judged_store(tmp_path: Path) -> Path:
    store = tmp_path / "store"
    pool = SAMPLE / "pool.jsonl"
    project = Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    qrels = read_qrels(SAMPLE / "judgments" / "alice.qrels")
    project.add_grades(
        "alice",
        qrels.with_columns(
            pl.lit(None, pl.String).alias("time"), pl.lit(None, pl.String).alias("note")
        ),
    )
    return store


def _extend_args(store: Path, out: Path) -> list[str]:
    return [
        "pool", "--extend", str(SAMPLE / "pool.jsonl"), "--run", f"dense-v2={NEW_RUN}",
        "--depth", "10", "--corpus", str(SAMPLE / "corpus.jsonl"), "-o", str(out),
        "--store", str(store),
    ]  # fmt: skip


def test_the_store_keeps_every_judgment_and_judging_serves_only_new_pairs(tmp_path, capsys):
    store = _judged_store(tmp_path)
    before = Project.open(store).qrels("alice")
    out = tmp_path / "pool2.jsonl"
    assert main(_extend_args(store, out)) == 0
    printed = capsys.readouterr().out
    manifest = read_manifest(store)
    (ext,) = manifest["pool_extensions"]
    assert ext["run"] == "dense-v2" and ext["from_sha256"] == sha256_file(SAMPLE / "pool.jsonl")
    assert manifest["pool"]["sha256"] == sha256_file(out) == ext["to_sha256"]
    assert manifest["corpus"]["sha256"] == sha256_file(SAMPLE / "corpus.jsonl")
    new_pool = load_pool(out)
    old_pool = load_pool(SAMPLE / "pool.jsonl")
    new_pairs = new_pool.frame.join(old_pool.frame, on=["query_id", "doc_id"], how="anti")
    assert ext["new_pairs"] == new_pairs.height > 0
    assert f"adds {new_pairs.height} new pairs" in printed
    # every old candidate kept with its provenance (the new system's rank added at the end)
    joined = old_pool.frame.join(new_pool.frame, on=["query_id", "doc_id"], how="left")
    assert joined.filter(pl.col("systems_right").is_null()).height == 0
    assert all(
        new[: len(old)] == old for old, new in joined.select("systems", "systems_right").rows()
    )
    project = Project.open(store)
    assert project.pool_warning(sha256_file(out)) is None
    assert project.qrels("alice").equals(before)
    # The judging session on the extended pool serves exactly the new pairs.
    session = JudgingSession(new_pool.frame, "alice", judged=project.judgments("alice"))
    served = set()
    for _ in range(new_pairs.height):
        served.add((session.query_id, session.current.doc_id))
        session.grade(1)
    assert served == set(new_pairs.select("query_id", "doc_id").iter_rows())
    assert session.overall_progress()[0] == session.overall_progress()[1]
    # Running it again: the same pool, and the store says it already records the extension.
    assert main(_extend_args(store, out)) == 0
    assert "already records" in capsys.readouterr().err
    assert len(read_manifest(store)["pool_extensions"]) == 1


def test_an_extension_whose_candidates_all_have_texts_needs_no_corpus(tmp_path):
    """bm25's top 5 under a new name adds no pair, so no text is missing and --corpus is not
    needed; recording it in the store once stopped on a traceback (the corpus's path and sha256
    were taken even when no --corpus was given)."""
    store = _judged_store(tmp_path)
    corpus_before = read_manifest(store).get("corpus")
    out = tmp_path / "pool2.jsonl"
    args = [
        "pool", "--extend", str(SAMPLE / "pool.jsonl"), "--run", f"bm25-again={SAMPLE / 'runs' / 'bm25.run'}",
        "--depth", "5", "-o", str(out), "--store", str(store),
    ]  # fmt: skip
    assert main(args) == 0
    manifest = read_manifest(store)
    (ext,) = manifest["pool_extensions"]
    assert ext["run"] == "bm25-again" and ext["new_pairs"] == 0
    assert manifest["pool"]["sha256"] == sha256_file(out)
    assert manifest.get("corpus") == corpus_before


def test_a_kill_at_any_moment_leaves_the_old_state_or_the_new(tmp_path):
    """SIGKILL `goldset pool --extend` just before each call that changes the disk (kill_child.py
    counts them); after each kill the manifest is whole and names the old pool or the new one
    (whose file is then complete), every judgment is there, and running the command again finishes
    the job."""
    store = _judged_store(tmp_path)
    judged = Project.open(store).qrels("alice")
    old_sha = sha256_file(SAMPLE / "pool.jsonl")
    out = tmp_path / "pool2.jsonl"
    manifest_text = (store / "manifest.toml").read_text(encoding="utf-8")

    def child(kill_at: int) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, str(KILL_CHILD), str(kill_at), "-", *_extend_args(store, out)]
        return subprocess.run(command, capture_output=True, text=True)

    counted = child(-1)  # from the store as every killed run below starts
    assert counted.returncode == 0, counted.stderr
    calls = int(counted.stdout.strip().splitlines()[-1].removeprefix("calls: "))
    new_sha = sha256_file(out)
    assert calls >= 6  # the new pool and the manifest: a file, its fsync and a rename apiece
    outcomes = []
    for kill_at in range(calls):
        out.unlink(missing_ok=True)
        (store / "manifest.toml").write_text(manifest_text, encoding="utf-8")
        killed = child(kill_at)
        assert killed.returncode == -signal.SIGKILL, (kill_at, killed.stdout, killed.stderr)
        manifest = read_manifest(store)
        sha = manifest["pool"]["sha256"]
        assert sha in (old_sha, new_sha)
        if sha == new_sha:
            assert out.exists() and sha256_file(out) == new_sha
            assert len(manifest["pool_extensions"]) == 1
            outcomes.append("new")
        else:
            assert "pool_extensions" not in manifest
            assert not out.exists() or sha256_file(out) == new_sha
            outcomes.append("old" if not out.exists() else "between")
        assert Project.open(store).qrels("alice").equals(judged)
    # The kills span the command: the first leaves the old state, and they never go back.
    assert outcomes[0] == "old"
    order = ["old", "between", "new"]
    assert outcomes == sorted(outcomes, key=order.index)
    print(f"\npool --extend under SIGKILL: {outcomes}")
    # Running it again after a kill between the two steps finishes the job.
    out.unlink(missing_ok=True)
    (store / "manifest.toml").write_text(manifest_text, encoding="utf-8")
    assert child(outcomes.index("between")).returncode == -signal.SIGKILL
    assert main(_extend_args(store, out)) == 0
    assert read_manifest(store)["pool"]["sha256"] == new_sha
    assert sha256_file(out) == new_sha
