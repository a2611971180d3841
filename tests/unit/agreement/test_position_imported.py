"""Grade by time into a sitting counts only grades given on a screen: a person's earlier qrels
imported with `goldset import --human` share one time stamp and no seconds spent, and were
counted as one more sitting of hundreds of judgments in its first minutes."""

from __future__ import annotations

import json
from pathlib import Path

from goldset_tui.cli import main
from goldset_tui.io.pools import load_pool
from goldset_tui.model import Judgment
from goldset_tui.store import Project, sha256_file

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"


def test_imported_grades_have_no_sitting(tmp_path: Path, capsys) -> None:
    pool, store = SAMPLE / "pool.jsonl", tmp_path / "store"
    Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    bob = SAMPLE / "judgments" / "bob.qrels"
    assert main(["import", "--store", str(store), "--labeller", "alice", "--human", str(bob)]) == 0
    project = Project.open(store)
    graded = set(project.qrels("alice").select("query_id", "doc_id").rows())
    rest = [
        r
        for r in load_pool(pool).frame.iter_rows(named=True)
        if (r["query_id"], r["doc_id"]) not in graded
    ]
    with project.writer("alice") as w:  # the rest on the screen: one sitting, a grade every 10 s
        for i, r in enumerate(rest):
            at = f"2026-01-01T10:{i * 10 // 60:02d}:{i * 10 % 60:02d}.000Z"
            w.record(
                Judgment(
                    "alice", r["query_id"], r["doc_id"], i % 4, at, seconds=10.0, position=i % 20
                )
            )
    capsys.readouterr()
    assert main(["agreement", "--store", str(store), "--format", "json"]) == 0
    (alice,) = json.loads(capsys.readouterr().out)["position_bias"]
    assert alice["sittings"] == 1
    assert sum(band["n"] for band in alice["by_time"]) == len(rest)
    assert sum(band["n"] for band in alice["by_position"]) == len(rest)
