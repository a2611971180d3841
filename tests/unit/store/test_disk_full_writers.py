"""A full disk at the moment goldset writes a Parquet or CSV file: one line naming the file, exit
status 2, and nothing left behind (no temporary file, no empty folder, no half-written output).

The error is injected at Polars' writers: each fake writer first leaves a partial file where it was
asked to write (as a real writer does before the disk fills), then raises. Polars reports a full disk
in three shapes, and each is tried: its Parquet writer's ``ComputeError("... (os error 28)")``, its
CSV writer's errno-less ``OSError("... (os error 28)")``, and a plain ``OSError(28, ...)``.
Writing to ``/dev/full`` (a real ENOSPC from the kernel) checks that those shapes are the real ones.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.cli import main
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.files import atomic_write

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "sample_data"
QRELS = SAMPLE / "judgments" / "alice.qrels"

ERRORS = {
    "parquet-compute-error": lambda: pl.exceptions.ComputeError(
        "parquet: File out of specification: underlying IO error: No space left on device (os error 28)"
    ),
    "csv-errnoless-oserror": lambda: OSError("No space left on device (os error 28)"),
    "oserror-28": lambda: OSError(errno.ENOSPC, "No space left on device"),
}


@pytest.fixture(params=list(ERRORS))
def full_disk(request, monkeypatch):
    """Every Polars file writer leaves a partial file, then fails as on a full disk."""
    make_error = ERRORS[request.param]

    def failing(original):
        def write(self, file=None, *args, **kwargs):
            if isinstance(file, (str, Path)):
                Path(file).write_bytes(b"PAR1 half a file")
                raise make_error()
            return original(self, file, *args, **kwargs)  # into memory: no disk involved

        return write

    for name in ("write_parquet", "write_csv", "write_ndjson"):
        monkeypatch.setattr(pl.DataFrame, name, failing(getattr(pl.DataFrame, name)))
    return request.param


def listing(folder: Path) -> set[str]:
    """Every file and folder under ``folder``, hidden ones included."""
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def one_line(capsys, status: int, names: Path) -> str:
    err = capsys.readouterr().err
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert str(names) in lines[0] and "No space left on device" in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("writer", ["write_parquet", "write_csv"])
def test_the_injected_errors_are_the_ones_polars_raises_on_a_real_full_disk(writer):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    with pytest.raises(Exception) as raised:
        getattr(pl.DataFrame({"a": list(range(100_000))}), writer)("/dev/full")
    assert "(os error 28)" in str(raised.value)


def test_atomic_write_says_which_file_and_leaves_nothing(tmp_path, full_disk):
    target = tmp_path / "new" / "deeper" / "labels.parquet"
    with pytest.raises(OSError) as raised:
        atomic_write(target, lambda tmp: pl.DataFrame({"a": [1]}).write_parquet(tmp))
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == str(target)
    assert listing(tmp_path) == set()  # neither the temporary file nor the folders made for it


def test_import_machine(tmp_path, full_disk, capsys):
    store = tmp_path / "store"
    Project.create(
        store, pool_path=SAMPLE / "pool.jsonl", pool_sha256=sha256_file(SAMPLE / "pool.jsonl")
    )
    before = listing(store)
    manifest = (store / "manifest.toml").read_bytes()
    status = main(["import", "--store", str(store), "--labeller", "llm", "--machine", str(QRELS)])
    one_line(capsys, status, store / "machine" / "llm")
    # No empty machine/llm/ and no .tmp-* file. The writer's journal and lock files stay, as after
    # any session: a lock file is never removed (another process may be waiting on it).
    left = listing(store) - before
    assert left <= {".manifest.lock", "journal", "journal/llm.jsonl", "journal/llm.jsonl.lock"}
    assert (store / "journal" / "llm.jsonl").stat().st_size == 0
    assert (store / "manifest.toml").read_bytes() == manifest
    assert "llm" not in Project.open(store).labellers()


def pool_args(out: Path) -> list[str]:
    return [
        "pool", "--run", f"bm25={SAMPLE / 'runs' / 'bm25.run'}", "--run",
        f"minilm={SAMPLE / 'runs' / 'minilm.run'}", "--depth", "3", "--topics",
        str(SAMPLE / "topics.tsv"), "--corpus", str(SAMPLE / "corpus.jsonl"), "-o", str(out),
    ]  # fmt: skip


@pytest.mark.parametrize("name", ["pool.parquet", "pool.csv", "pool.jsonl"])
def test_pool_output(tmp_path, full_disk, capsys, name):
    out = tmp_path / "out" / name
    out.parent.mkdir()
    status = main(pool_args(out))
    capsys.readouterr()  # the summary is printed before the write; the error is on stderr
    assert status == 2
    assert listing(out.parent) == set()  # no .pool.parquet.tmp, no half pool


def test_pool_output_says_so_in_one_line(tmp_path, full_disk, capsys):
    out = tmp_path / "pool.parquet"
    status = main(pool_args(out))
    one_line(capsys, status, out)
    assert os.listdir(tmp_path) == []


def test_pool_extend(tmp_path, full_disk, capsys):
    store = tmp_path / "store"
    pool = SAMPLE / "pool.jsonl"
    Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    manifest = (store / "manifest.toml").read_bytes()
    out = tmp_path / "out"
    out.mkdir()
    args = [
        "pool", "--extend", str(pool), "--run",
        f"dense-v2={SAMPLE / 'releases' / '2026.3' / 'dense-v2.run'}", "--depth", "10",
        "--corpus", str(SAMPLE / "corpus.jsonl"), "-o", str(out / "pool2.parquet"),
        "--store", str(store),
    ]  # fmt: skip
    status = main(args)
    one_line(capsys, status, out / "pool2.parquet")
    assert listing(out) == set()
    assert (store / "manifest.toml").read_bytes() == manifest  # the store still names the old pool


def test_the_reports_missing_pairs_file(tmp_path, full_disk):
    from goldset_tui.ui.widgets.report_judge import write_pairs

    pairs = pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"]})
    with pytest.raises(OSError) as raised:
        write_pairs(pairs, tmp_path / "missing.csv")
    assert raised.value.filename == str(tmp_path / "missing.csv")
    assert listing(tmp_path) == set()  # no .missing.csv.tmp
