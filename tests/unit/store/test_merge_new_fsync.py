"""`merge --into NEWDIR` whose new store is renamed into place and then its folder's fsync fails:
the rename is taken back (NEWDIR not made, said so), or, when that fails too, the error says
NEWDIR IS made with everything merged. It used to say only "Input/output error", with the new
store in place."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

import goldset_tui.store.merge as merge_module
from goldset_tui.cli import main
from goldset_tui.model import Judgment
from goldset_tui.store import Project, sha256_file

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"


def two_stores(tmp_path: Path) -> list[str]:
    pool = SAMPLE / "pool.jsonl"
    paths = []
    for name in ("a", "b"):
        store = Project.create(tmp_path / name, pool_path=pool, pool_sha256=sha256_file(pool))
        with store.writer(name) as writer:
            writer.record(Judgment(name, "q1", "d1", 1, "2026-01-01T00:00:00Z", seconds=1.0))
        paths.append(str(store.path))
    return paths


@pytest.mark.parametrize("back", ["works", "fails"])
def test_the_folder_fsync_after_the_new_store_rename_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, back: str
) -> None:
    sources = two_stores(tmp_path)
    new = tmp_path / "new"
    real_fsync, real_rename = merge_module.fsync_path, os.rename

    def fsync(path: Path) -> None:
        if Path(path) == tmp_path:
            raise OSError(errno.EIO, "Input/output error", str(path))
        real_fsync(path)

    def rename(src, dst):
        if Path(src) == new and back == "fails":
            raise OSError(errno.EIO, "Input/output error", str(src))
        real_rename(src, dst)

    monkeypatch.setattr(merge_module, "fsync_path", fsync)
    monkeypatch.setattr(merge_module.os, "rename", rename)
    assert main(["merge", "--into", str(new), *sources]) == 2
    monkeypatch.undo()
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    if back == "works":
        assert f"{new} was not made (nothing changed)" in err
        assert not new.exists()
    else:
        assert f"{new} IS made, with everything merged" in err
        assert Project.open(new).labellers() == ["a", "b"]
    assert [p.name for p in tmp_path.iterdir() if ".merging-" in p.name] == []
