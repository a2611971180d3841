"""Files written as a set (labels and manifest; a sample and its companions): a failure anywhere
in the block leaves every file as it was; what cannot go back is named in the error."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from goldset_tui.errors import InputError
from goldset_tui.store.files import TMP_PREFIX, atomic_write_bytes
from goldset_tui.store.together import written_together


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_failure_after_the_first_file_puts_it_back_and_removes_a_new_one(tmp_path) -> None:
    labels, manifest, extra = tmp_path / "labels.csv", tmp_path / "labels.toml", tmp_path / "x.csv"
    labels.write_text("old labels\n")
    manifest.write_text("old manifest\n")
    with (
        pytest.raises(InputError, match="the manifest refused"),
        written_together([labels, extra, manifest]),
    ):
        atomic_write_bytes(labels, b"new labels\n")
        atomic_write_bytes(extra, b"a file that was not there\n")
        raise InputError(manifest, "the manifest refused")
    assert labels.read_text() == "old labels\n"
    assert manifest.read_text() == "old manifest\n"
    assert _names(tmp_path) == ["labels.csv", "labels.toml"]  # no link, no temp, no new file


def test_success_keeps_the_new_set_and_leaves_no_link(tmp_path) -> None:
    labels, manifest = tmp_path / "labels.csv", tmp_path / "labels.toml"
    labels.write_text("old\n")
    with written_together([labels, manifest]):
        atomic_write_bytes(labels, b"new\n")
        atomic_write_bytes(manifest, b"vouches for new\n")
    assert labels.read_text() == "new\n"
    assert _names(tmp_path) == ["labels.csv", "labels.toml"]


def test_without_hard_links_the_error_names_the_files_that_stay_new(tmp_path, monkeypatch) -> None:
    labels, manifest = tmp_path / "labels.csv", tmp_path / "labels.toml"
    labels.write_text("old\n")

    def refused(*_args, **_kwargs):  # a FAT or network file system
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", refused)
    with pytest.raises(InputError) as info, written_together([labels, manifest]):
        atomic_write_bytes(labels, b"new\n")
        raise InputError(manifest, "could not write (No space left on device)")
    said = str(info.value)
    assert said.startswith(f"{manifest}: could not write (No space left on device); ")
    assert f"{labels} could not be put back (they ARE the new ones" in said
    assert labels.read_text() == "new\n"  # as the error says


def test_a_killed_writers_link_is_removed_by_the_next_set(tmp_path) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text("old\n")
    dead = 2**22 + 12345  # above the default pid_max: no process has it
    stray = tmp_path / f"{TMP_PREFIX}labels.csv.{dead}.abcd1234"
    os.link(labels, stray)
    with written_together([labels]):
        atomic_write_bytes(labels, b"new\n")
    assert _names(tmp_path) == ["labels.csv"]
