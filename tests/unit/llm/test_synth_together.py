"""`goldset synth`'s three files go together: the queries, their qrels and the manifest naming
both files' sha256. A full disk at the manifest used to leave the new queries and qrels beside the
earlier run's manifest (which vouches for other files), while the command said it had failed; now
the earlier three files are all there as they were (the fault sweep, tests/faults, found it)."""

from __future__ import annotations

import errno
from pathlib import Path

from fake_provider import FakeProvider
from test_synth import by_title, small_corpus, synth

import goldset_tui.sampling.manifest as manifest_module


def test_a_full_disk_at_the_manifest_leaves_the_earlier_three_files(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    corpus = small_corpus(tmp_path)
    fake_provider.answer = by_title
    out = tmp_path / "synth.csv"
    drawn = ("--documents", "3", "--concurrency", "1")
    status, _, err = synth(monkeypatch, capsys, fake_provider, corpus, out, *drawn, "--seed", "1")
    assert status == 0, err
    files = [out, out.with_suffix(".qrels"), out.with_name("synth.manifest.toml")]
    earlier = {path.name: path.read_bytes() for path in files}

    def full(path, data) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(manifest_module, "atomic_write_bytes", full)
    status, _, err = synth(monkeypatch, capsys, fake_provider, corpus, out, *drawn, "--seed", "2")
    assert status == 2
    assert [line for line in err.splitlines() if line.startswith("goldset: error:")] == [
        f"goldset: error: {files[2]}: could not write (No space left on device)"
    ]
    assert {path.name: path.read_bytes() for path in files} == earlier
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp")) == []
