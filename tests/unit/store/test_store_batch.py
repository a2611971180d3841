"""Near-duplicate groups are saved as durable batches: one journal write and one fsync per batch
of judgments (50,000 alike candidates took 266 s at one fsync each), every batch on disk before
it is counted, and a batch that fails leaves none of its judgments behind."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import goldset_tui.store.journal as journal_module
import goldset_tui.store.writer as writer_module
from goldset_tui.errors import InputError
from goldset_tui.judging import JudgingSession
from goldset_tui.judging.session import GROUP_BATCH
from goldset_tui.model import Judgment
from goldset_tui.store import Project, sha256_file

SAME = "Rotate an API key: create a second key, deploy it, then revoke the first one for good."


def make(tmp_path: Path) -> Project:
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1"}\n')
    return Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))


def count_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    syncs: list[int] = []
    real = journal_module.fsync_fd

    def counted(fd: int) -> None:
        syncs.append(fd)
        real(fd)

    monkeypatch.setattr(journal_module, "fsync_fd", counted)
    return syncs


def test_record_many_saves_all_with_one_fsync(tmp_path: Path, monkeypatch) -> None:
    project = make(tmp_path)
    with project.writer("alice") as w:
        w.record(Judgment("alice", "q1", "d0", 1, "2026-01-01T00:00:00Z"))
        syncs = count_fsyncs(monkeypatch)
        seqs = w.record_many(
            [Judgment("alice", "q1", f"d{i}", 2, "2026-01-01T00:00:01Z") for i in range(1, 301)]
        )
        assert len(syncs) == 1
        assert seqs == list(range(2, 302))  # after the single record, in order, no gap
    history = project.judgments("alice", history=True)
    assert history["seq"].to_list() == list(range(1, 302))
    assert history["grade"].to_list() == [1] + [2] * 300


def test_a_bad_judgment_in_a_batch_saves_none_of_it(tmp_path: Path) -> None:
    project = make(tmp_path)
    with project.writer("alice") as w:
        batch = [Judgment("alice", "q1", f"d{i}", 2, "t") for i in range(5)]
        batch.append(Judgment("alice", "q1", "d9", 7, "t"))  # outside the 0-3 scale
        with pytest.raises(InputError) as info:
            w.record_many(batch)
        assert info.value.column == "grade"
        w.record(Judgment("alice", "q1", "d0", 3, "t"))
    history = project.judgments("alice", history=True)
    assert history.select("doc_id", "grade", "seq").rows() == [("d0", 3, 1)]


def group_pool(alike: int) -> pl.DataFrame:
    rows = [
        {"query_id": "q1", "query": "rotate key", "doc_id": f"same{i:05d}", "text": SAME}
        for i in range(alike)
    ]
    rows.append({"query_id": "q1", "query": "rotate key", "doc_id": "other", "text": "Unrelated."})
    return pl.DataFrame(rows)


def test_a_group_is_saved_in_batches_with_progress_after_each(tmp_path: Path, monkeypatch) -> None:
    alike = 2 * GROUP_BATCH + 501
    # Compaction (every 1,000 saves) empties the journal with an fsync of its own: not counted.
    monkeypatch.setattr(writer_module, "COMPACT_EVERY", 10**6)
    project = make(tmp_path)
    writer = project.writer("ana")
    s = JudgingSession(group_pool(alike), "ana", writer=writer)
    while not s.current.doc_id.startswith("same"):
        s.move(1)
    s.grade(1)  # one at a time: its own fsync
    syncs = count_fsyncs(monkeypatch)
    on_disk: list[int] = []

    def progress(done: int, total: int) -> None:
        # Whatever is reported saved is on disk already.
        on_disk.append(project.judgments("ana").height - 1)
        assert on_disk[-1] >= done
        seen.append((done, total))

    seen: list[tuple[int, int]] = []
    source = next(p for p in range(s.size) if s.grade_at(p) == 1)
    done = s.grade_group(source, progress=progress)
    todo = alike - 1
    assert len(done) == todo
    assert seen == [(GROUP_BATCH, todo), (2 * GROUP_BATCH, todo), (todo, todo)]
    assert len(syncs) == 3  # one per batch, not one per judgment
    writer.close()
    graded = project.judgments("ana")
    assert graded.filter(pl.col("doc_id").str.starts_with("same"))["grade"].to_list() == [1] * alike


def test_stopping_a_group_keeps_the_batches_saved(tmp_path: Path) -> None:
    project = make(tmp_path)
    with project.writer("ana") as writer:
        s = JudgingSession(group_pool(GROUP_BATCH * 3), "ana", writer=writer)
        while not s.current.doc_id.startswith("same"):
            s.move(1)
        s.grade(2)
        source = next(p for p in range(s.size) if s.grade_at(p) == 2)
        batches = iter([False, True])  # stop before the second batch
        done = s.grade_group(source, stop=lambda: next(batches))
        assert len(done) == GROUP_BATCH
        assert s.overall_progress()[0] == GROUP_BATCH + 1
    assert project.judgments("ana").height == GROUP_BATCH + 1
