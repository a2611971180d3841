"""Files written through a temporary file and a rename get the umask's mode, like any Unix tool's.

mkstemp always creates 0600, so without a chmod a shared store, labels, samples, scores or a fused
run are unreadable to teammates whatever the umask says (an acceptance audit found it).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from goldset_tui.cli import main
from goldset_tui.store import files

SAMPLE_DATA = Path(__file__).parents[3] / "sample_data"


@pytest.fixture(params=[0o022, 0o027, 0o002], ids=lambda m: f"umask{m:03o}")
def umask(request: pytest.FixtureRequest):
    old = os.umask(request.param)
    files._umask = None  # the helper reads the umask once per process: make it read this one
    try:
        yield request.param
    finally:
        os.umask(old)
        files._umask = None


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_atomic_write_follows_the_umask(tmp_path: Path, umask: int) -> None:
    target = tmp_path / "labels.csv"
    files.atomic_write_bytes(target, b"query,count\n")
    assert mode(target) == 0o666 & ~umask
    # The same as a plain open() would give: what every other Unix tool does.
    plain = tmp_path / "plain.csv"
    plain.write_bytes(b"x")
    assert mode(target) == mode(plain)
    # Replacing an existing file keeps following the umask, and leaves no temporary file behind.
    files.atomic_write_bytes(target, b"query,count\na,1\n")
    assert mode(target) == 0o666 & ~umask and target.read_bytes() == b"query,count\na,1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["labels.csv", "plain.csv"]


def test_a_private_umask_stays_private(tmp_path: Path) -> None:
    old = os.umask(0o077)
    files._umask = None
    try:
        files.atomic_write_bytes(tmp_path / "secret.toml", b"x = 1\n")
    finally:
        os.umask(old)
        files._umask = None
    assert mode(tmp_path / "secret.toml") == 0o600


def test_saved_scores_follow_the_umask(tmp_path: Path, umask: int) -> None:
    import polars as pl

    from goldset_tui.eval.scores import load_scores, save_scores

    per_query = pl.DataFrame({"query_id": ["q1"], "measure": ["P@10"], "value": [0.5]})
    written = save_scores(per_query, "bm25", tmp_path / "scores")
    assert mode(written) == 0o666 & ~umask
    assert load_scores(tmp_path / "scores").get_column("value").to_list() == [0.5]


def test_a_fused_run_follows_the_umask(tmp_path: Path, umask: int) -> None:
    out = tmp_path / "fused.run"
    runs = [str(SAMPLE_DATA / "runs" / "bm25.run"), str(SAMPLE_DATA / "runs" / "minilm.run")]
    assert main(["fuse", *runs, "-o", str(out)]) == 0
    assert mode(out) == 0o666 & ~umask and out.stat().st_size > 0


def test_classify_and_sample_outputs_follow_the_umask(tmp_path: Path, umask: int) -> None:
    log = tmp_path / "log.csv"
    log.write_text(
        "query,count\nhow to rotate keys,5\nERR_4021 on webhook delivery,2\n", encoding="utf-8"
    )
    labels, sample = tmp_path / "labels.csv", tmp_path / "golden.csv"
    assert main(["classify", str(log), "-o", str(labels)]) == 0
    assert (
        main(
            [
                "sample",
                str(labels),
                "-o",
                str(sample),
                "--seed",
                "1",
                "--total",
                "2",
                "--min-per-stratum",
                "1",
            ]
        )
        == 0
    )
    for written in (labels, sample, tmp_path / "golden.manifest.toml"):
        assert mode(written) == 0o666 & ~umask, written.name


def test_journal_and_locks_follow_the_umask(tmp_path: Path) -> None:
    # A team sharing a store under umask 002 must be able to append to each other's journals.
    from goldset_tui.store.journal import Journal

    old = os.umask(0o002)
    try:
        path = tmp_path / "journal" / "ana.jsonl"
        with Journal(path) as journal:
            journal.append({"kind": "judge", "query_id": "q1"})
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in path.parent.iterdir()}
    finally:
        os.umask(old)
    assert modes["ana.jsonl"] == 0o664
    assert all(mode == 0o664 for mode in modes.values()), modes


def test_provenance_file_follows_the_umask(tmp_path: Path) -> None:
    import polars as pl

    from goldset_tui.adjudication.consensus import write_provenance

    old = os.umask(0o022)
    try:
        target = tmp_path / "adjudication" / "provenance-median.tsv"
        write_provenance(
            pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "how": ["unanimous"]}), target
        )
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert target.read_text().splitlines() == ["query_id\tdoc_id\thow", "q1\td1\tunanimous"]
    assert not list(target.parent.glob(".tmp-*"))


@pytest.mark.parametrize("before", [None, b"old"], ids=["new-file", "overwrite"])
def test_a_failed_folder_fsync_after_the_rename_leaves_the_file_as_it_was(
    tmp_path, monkeypatch, before
) -> None:
    # The rename is the commit point: when the folder's fsync after it fails, the error used to be
    # raised with the new file in place, so a command said "failed" about something done.
    import errno

    import goldset_tui.store.files as files_module

    target = tmp_path / "sub" / "f.json" if before is None else tmp_path / "f.json"
    if before is not None:
        target.write_bytes(before)
    real = files_module.fsync_path

    def folders_fail(path):
        if Path(path).is_dir():
            raise OSError(errno.EIO, "Input/output error")
        real(path)

    monkeypatch.setattr(files_module, "fsync_path", folders_fail)
    with pytest.raises(OSError, match="Input/output error") as info:
        files_module.atomic_write_bytes(target, b"new")
    assert info.value.filename == str(target)
    if before is None:
        assert not target.exists() and not target.parent.exists()  # nor the folder made for it
    else:
        assert target.read_bytes() == b"old"
    assert not list(tmp_path.rglob(".tmp-*"))


def test_a_folder_fsync_failure_that_cannot_be_taken_back_says_the_file_is_in_place(
    tmp_path, monkeypatch
) -> None:
    # A disk refusing every write: the folder's fsync fails, and so does putting the old file
    # back. The error used to be the bare errno, which reads as "nothing changed" though the new
    # file is what every reader sees.
    import errno

    import goldset_tui.store.files as files_module

    target = tmp_path / "f.json"
    target.write_bytes(b"old")
    real_fsync, real_replace = files_module.fsync_path, os.replace
    renamed = []

    def folders_fail(path):
        if Path(path).is_dir():
            raise OSError(errno.EIO, "Input/output error")
        real_fsync(path)

    def once(src, dst):  # the write's own rename works; the one taking it back fails
        if renamed:
            raise OSError(errno.EIO, "Input/output error", str(src))
        renamed.append(dst)
        real_replace(src, dst)

    monkeypatch.setattr(files_module, "fsync_path", folders_fail)
    monkeypatch.setattr(files_module.os, "replace", once)
    with pytest.raises(OSError, match="the new file IS in place") as info:
        files_module.atomic_write_bytes(target, b"new")
    monkeypatch.undo()
    assert info.value.filename == str(target)
    assert target.read_bytes() == b"new"


def test_a_failed_rename_over_a_file_leaves_it_and_nothing_else(tmp_path, monkeypatch) -> None:
    import errno

    import goldset_tui.store.files as files_module

    target = tmp_path / "f.json"
    target.write_bytes(b"old")

    def refuse(*_args):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(files_module.os, "replace", refuse)
    with pytest.raises(OSError):
        files_module.atomic_write_bytes(target, b"new")
    monkeypatch.undo()
    assert target.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == [
        "f.json"
    ]
