"""`goldset merge`: union of labellers, history and times kept, idempotence, conflicts, pool and
lock refusals, and crash safety under real SIGKILLs."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.cli import main
from goldset_tui.errors import StoreLockedError
from goldset_tui.model import Judgment
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.merge import IDENTITY, merge_histories, merge_stores

HERE = Path(__file__).parent
ROOT = HERE.resolve().parents[2]


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), e.get("PYTHONPATH")]))
    return e


def pool(tmp_path: Path, text: str = '{"query_id": "q1"}\n') -> Path:
    path = tmp_path / "pool.jsonl"
    if not path.exists():
        path.write_text(text)
    return path


def store(tmp_path: Path, name: str, pool_path: Path) -> Project:
    return Project.create(tmp_path / name, pool_path=pool_path, pool_sha256=sha256_file(pool_path))


def judge(project: Project, labeller: str, rows: list[tuple[str, str, int, str]]) -> None:
    with project.writer(labeller) as w:
        for qid, did, grade, when in rows:
            w.record(Judgment(labeller, qid, did, grade, when, seconds=1.0, position=0))


def t(minute: int) -> str:
    return f"2026-11-30T10:{minute:02d}:00.000Z"


def events(project: Project) -> list[tuple]:
    """Every event, without the store's own numbering, in history order per labeller."""
    return Project.open(project.path).judgments(history=True).select(IDENTITY).rows()


def tree_digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.name.endswith(".lock"):
            h.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def test_labellers_unioned_history_and_time_kept_latest_counts(tmp_path: Path) -> None:
    p = pool(tmp_path)
    a, b = store(tmp_path, "a", p), store(tmp_path, "b", p)
    judge(a, "ana", [("q1", "d1", 1, t(1)), ("q1", "d2", 0, t(3)), ("q1", "d1", 2, t(5))])
    judge(b, "ana", [("q1", "d1", 3, t(4)), ("q1", "d3", 2, t(6))])  # d1: 3 at :04, a's 2 at :05
    judge(b, "bob", [("q1", "d1", 0, t(2))])
    result = merge_stores(a.path, [b.path])
    assert result.added == {"ana": 2, "bob": 1}
    assert result.new_labellers == ["bob"]
    merged = Project.open(a.path)
    assert merged.labellers() == ["ana", "bob"]
    history = merged.judgments("ana", history=True)
    # interleaved by time, each event with its own time, numbered afresh 1..n
    assert history["time"].to_list() == [t(1), t(3), t(4), t(5), t(6)]
    assert history["grade"].to_list() == [1, 0, 3, 2, 2]
    assert history["seq"].to_list() == [1, 2, 3, 4, 5]
    # the latest by time counts: a's 2 at :05 beats b's 3 at :04
    assert dict(((r[0], r[1]), r[2]) for r in merged.qrels("ana").iter_rows()) == {
        ("q1", "d1"): 2,
        ("q1", "d2"): 0,
        ("q1", "d3"): 2,
    }
    assert merged.qrels("bob").rows() == [("q1", "d1", 0)]
    # the conflict is listed with both places' grades and the one that stands
    (conflict,) = result.conflicts
    assert (conflict.labeller, conflict.query_id, conflict.doc_id, conflict.kept) == (
        "ana",
        "q1",
        "d1",
        2,
    )
    assert sorted(g for _, g, _ in conflict.grades) == [2, 3]


def test_merging_the_same_store_twice_changes_nothing(tmp_path: Path) -> None:
    p = pool(tmp_path)
    a, b = store(tmp_path, "a", p), store(tmp_path, "b", p)
    judge(a, "ana", [("q1", "d1", 1, t(1))])
    judge(b, "bob", [("q1", "d1", 0, t(2)), ("q1", "d2", 3, t(3))])
    merge_stores(a.path, [b.path])
    before = tree_digest(a.path)
    again = merge_stores(a.path, [b.path])
    assert not again.changed and tree_digest(a.path) == before
    # and merging the merged store back into the source adds only what the source lacked
    back = merge_stores(b.path, [a.path])
    assert back.added == {"ana": 1, "bob": 0}
    assert sorted(events(a)) == sorted(events(b))


def test_an_undo_keeps_cancelling_the_grade_before_it() -> None:
    row = {"labeller": "ana", "query_id": "q", "doc_id": "d", "seconds": 1.0, "position": 0}
    here = pl.DataFrame(
        [
            {**row, "grade": 1, "time": t(1), "note": None, "kind": "judge", "seq": 1},
            {**row, "grade": 2, "time": t(5), "note": None, "kind": "judge", "seq": 2},
            {**row, "grade": None, "time": t(6), "note": None, "kind": "undo", "seq": 3},
        ]
    )
    there = pl.DataFrame(
        [{**row, "grade": 3, "time": t(3), "note": None, "kind": "judge", "seq": 1}]
    )
    merged, added = merge_histories([here, there])
    assert added == 1
    assert merged["grade"].to_list() == [1, 3, 2, None]
    # the undo at :06 cancels the 2 of :05, so 3 (given at :03) stands
    from goldset_tui.store.frames import latest

    assert latest(merged)["grade"].to_list() == [3]


def test_a_different_pool_is_refused_in_one_line(tmp_path: Path, capsys) -> None:
    a = store(tmp_path, "a", pool(tmp_path))
    other = tmp_path / "other.jsonl"
    other.write_text('{"query_id": "q2"}\n')
    b = store(tmp_path, "b", other)
    judge(b, "bob", [("q2", "d1", 1, t(1))])
    before = tree_digest(a.path)
    assert main(["merge", "--into", str(a.path), str(b.path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "different pool" in err and str(b.path) in err
    assert tree_digest(a.path) == before


def test_a_changed_pool_file_is_reported(tmp_path: Path, capsys) -> None:
    p = pool(tmp_path)
    a, b = store(tmp_path, "a", p), store(tmp_path, "b", p)
    judge(b, "bob", [("q1", "d1", 1, t(1))])
    p.write_text('{"query_id": "q1"}\n{"query_id": "q9"}\n')
    assert main(["merge", "--into", str(a.path), str(b.path)]) == 0
    err = capsys.readouterr().err
    assert "changed since this store was made" in err


def test_a_labeller_judging_in_the_target_is_refused(tmp_path: Path) -> None:
    p = pool(tmp_path)
    a, b = store(tmp_path, "a", p), store(tmp_path, "b", p)
    judge(a, "ana", [("q1", "d1", 1, t(1))])
    judge(b, "ana", [("q1", "d2", 2, t(2))])
    holder = subprocess.Popen(
        [sys.executable, str(HERE / "store_child.py"), str(a.path), "ana", "hold"],
        stdout=subprocess.PIPE,
        text=True,
        env=env(),
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        before = tree_digest(a.path)
        with pytest.raises(
            StoreLockedError,
            match="writes the judgments of 'ana'.*open for writing in this store right now",
        ):
            merge_stores(a.path, [b.path])
        assert tree_digest(a.path) == before
    finally:
        holder.kill()
        holder.wait()
    assert merge_stores(a.path, [b.path]).added == {"ana": 1}


def test_a_missing_target_becomes_a_store_of_the_pool(tmp_path: Path) -> None:
    p = pool(tmp_path)
    a, b = store(tmp_path, "a", p), store(tmp_path, "b", p)
    judge(a, "ana", [("q1", "d1", 1, t(1))])
    judge(b, "bob", [("q1", "d1", 2, t(2))])
    result = merge_stores(tmp_path / "new", [a.path, b.path])
    assert result.new_labellers == ["ana", "bob"]
    merged = Project.open(tmp_path / "new")
    assert merged.pool_sha256 == sha256_file(p) and merged.labellers() == ["ana", "bob"]
    assert not list(tmp_path.glob(".new.merging-*"))


def _crash_fixture(tmp_path: Path) -> tuple[Path, Path, list[tuple], list[tuple]]:
    """A target and a source with overlapping labellers; the events before and after a merge."""
    p = pool(tmp_path)
    a, b = store(tmp_path, "a", p), store(tmp_path, "b", p)
    rng = random.Random(3)
    for name in ("ana", "bob"):
        judge(a, name, [("q1", f"d{i}", rng.randrange(4), t(i % 60)) for i in range(40)])
    for name in ("ana", "cy", "dee"):
        judge(b, name, [("q1", f"d{i}", rng.randrange(4), t((i + 7) % 60)) for i in range(40)])
    before = sorted(events(a))
    done = tmp_path / "done"
    shutil.copytree(a.path, done)
    merge_stores(done, [b.path])
    after = sorted(events(Project.open(done)))
    assert before != after
    return a.path, b.path, before, after


def _child(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(HERE / "merge_child.py"), *args],
        capture_output=True,
        text=True,
        env=env(),
        timeout=120,
    )


def test_a_kill_at_every_rename_leaves_the_target_as_before_or_fully_merged(
    tmp_path: Path,
) -> None:
    target, source, before, after = _crash_fixture(tmp_path)
    outcomes = []
    k = 1
    while True:
        trial = tmp_path / f"trial-{k}"
        shutil.copytree(target, trial)
        proc = _child(str(trial), str(source), "--die-at-rename", str(k))
        now = sorted(events(Project.open(trial)))  # opening finishes or undoes the merge
        assert now in (before, after), f"kill at rename {k}: a half-merged store"
        outcomes.append("after" if now == after else "before")
        if proc.returncode == 0:  # K was past the last rename: the merge completed
            break
        assert proc.returncode == -signal.SIGKILL, proc.stderr
        k += 1
    print(f"kills at renames 1..{k - 1}: {outcomes}")
    # the commit point splits them: every kill before it rolls back, every one after rolls forward
    assert outcomes[0] == "before" and outcomes[-1] == "after"
    assert outcomes == sorted(outcomes, key=["before", "after"].index)
    assert "before" in outcomes[:-1] and "after" in outcomes[:-1]


def test_random_sigkills_leave_the_target_as_before_or_fully_merged(tmp_path: Path) -> None:
    target, source, before, after = _crash_fixture(tmp_path)
    start = time.monotonic()
    _child(str(tmp_path / "done"), str(source))  # a no-op merge: the start-up cost
    floor = time.monotonic() - start
    rng = random.Random(11)
    seen = []
    for trial_no in range(6):
        trial = tmp_path / f"random-{trial_no}"
        shutil.copytree(target, trial)
        proc = subprocess.Popen(
            [sys.executable, str(HERE / "merge_child.py"), str(trial), str(source)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env(),
        )
        time.sleep(rng.uniform(0.5, 1.5) * floor)
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        now = sorted(events(Project.open(trial)))
        assert now in (before, after), f"trial {trial_no}: a half-merged store"
        seen.append("after" if now == after else "before")
    print(f"random kills: {seen}")


def test_a_machine_labeller_keeps_its_mark_and_provenance(tmp_path: Path) -> None:
    from goldset_tui.store.machine import import_machine, machine_labellers

    p = pool(tmp_path)
    a, b = store(tmp_path, "a", p), store(tmp_path, "b", p)
    labels = tmp_path / "llm.qrels"
    labels.write_text("q1 0 d1 2\nq1 0 d2 0\n")
    import_machine(b, "llm", labels, pool_pairs=None, model="m-1")
    judge(b, "bob", [("q1", "d1", 1, t(1))])
    assert merge_stores(a.path, [b.path]).added == {"bob": 1, "llm": 2}
    merged = Project.open(a.path)
    assert machine_labellers(merged.manifest) == ["llm"]
    entry = next(e for e in merged.manifest["labellers"].values() if e["name"] == "llm")
    assert entry["imports"][0]["model"] == "m-1"
    copied = sorted(p.name for p in (a.path / "machine").rglob("*.parquet"))
    assert copied and copied == sorted(p.name for p in (b.path / "machine").rglob("*.parquet"))
    assert merged.qrels("llm").rows() == [("q1", "d1", 2), ("q1", "d2", 0)]


def test_the_command_lists_conflicts_and_says_when_nothing_is_new(tmp_path: Path, capsys) -> None:
    p = pool(tmp_path)
    a, b = store(tmp_path, "a", p), store(tmp_path, "b", p)
    judge(a, "ana", [("q1", "d1", 1, t(1))])
    judge(b, "ana", [("q1", "d1", 3, t(2))])
    assert main(["merge", "--into", str(a.path), str(b.path)]) == 0
    out = capsys.readouterr().out
    assert "ana: 1 events added" in out
    assert f"ana q1 d1: 1 in {a.path} at {t(1)}, 3 in {b.path} at {t(2)}; now 3" in out
    assert main(["merge", "--into", str(a.path), str(b.path), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["added"] == {"ana": 0} and data["conflicts"] == []
    assert main(["merge", "--into", str(a.path), str(b.path)]) == 0
    assert "nothing new" in capsys.readouterr().out
