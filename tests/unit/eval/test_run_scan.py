"""scan_run reads runs in slices: it must give read_run's frames and read_run's errors exactly.

Slices are made tiny here (a few hundred bytes) so every file, even the small ones, is read in
many slices, with lines, queries, ties and duplicates falling across slice boundaries.
"""

from __future__ import annotations

import gzip
import os
import random
from pathlib import Path
from unittest import mock

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from goldset_tui.errors import InputError
from goldset_tui.io import run_scan, trec
from goldset_tui.io.run_scan import scan_run
from goldset_tui.io.trec import read_run

PEERS = Path(__file__).resolve().parents[2] / "data" / "peers"
PEER_RUNS = [
    PEERS / "trectools" / "input.uic0301.gz",
    PEERS / "trectools" / "r1.run",
    PEERS / "trectools" / "r4.run",
    PEERS / "trec_eval" / "results.test",
    PEERS / "trec_eval" / "results.comment.test",
    PEERS / "ir_measures" / "compat.run",
]
DEPTHS = [None, 1, 3, 20, 100]


@pytest.fixture(autouse=True)
def small_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_scan, "SLICE_BYTES", 300)
    monkeypatch.setattr(run_scan, "_MERGE_ROWS", 25)


def same(path: Path, depth: int | None, queries: list[str] | None = None) -> None:
    expected = read_run(path, tag=False, order=False, depth=depth)
    if queries is not None:
        expected = expected.filter(pl.col("query_id").is_in(queries))
    if read_run_is_fast(path):
        # A file read_run parses at once is read in slices, never handed back to read_run.
        with mock.patch.object(run_scan, "read_run", side_effect=AssertionError("fell back")):
            got = scan_run(path, depth=depth, queries=queries)
    else:  # padded or mixed whitespace: read_run's careful path does it
        got = scan_run(path, depth=depth, queries=queries)
    assert_frame_equal(got, expected)


def read_run_is_fast(path: Path) -> bool:
    try:
        trec._fast(trec.open_source(path).data, trec.RUN_FIELDS, run_scan._KEEP)
    except trec._Unparsed:
        return False
    return True


@pytest.mark.parametrize("path", PEER_RUNS, ids=lambda p: p.name)
@pytest.mark.parametrize("depth", DEPTHS)
def test_peer_runs_give_read_runs_frame(
    path: Path, depth: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_scan, "SLICE_BYTES", 2**16)  # 60 slices for the 4 MB uic0301
    monkeypatch.setattr(run_scan, "_MERGE_ROWS", 5_000)
    same(path, depth)


def test_only_the_wanted_queries_are_kept() -> None:
    path = PEERS / "trectools" / "r1.run"
    qids = read_run(path).get_column("query_id").unique().sort().to_list()
    for depth in (None, 5):
        same(path, depth, qids[::2])
        same(path, depth, [])
        same(path, depth, ["not a query"])


def tied_run(seed: int, *, shuffle: bool, separator: str = " ") -> str:
    """Two-decimal scores (ties everywhere), ids of varied length, grouped or shuffled lines."""
    rng = random.Random(seed)
    lines = []
    for q in range(rng.randint(1, 12)):
        docs = rng.sample(range(400), rng.randint(1, 60))
        for rank, d in enumerate(docs):
            score = round(rng.choice([1.0, 0.5, -0.0, 0.0, rng.uniform(-2, 2)]), 2)
            fields = [f"q{q * 7}", "Q0", f"d{d}", str(rank), repr(score), "tag"]
            lines.append(separator.join(fields))
    if shuffle:
        rng.shuffle(lines)
    return "\n".join(lines) + ("\n" if rng.random() < 0.5 else "")


@pytest.mark.parametrize("seed", range(6))
def test_generated_runs_with_ties(tmp_path: Path, seed: int) -> None:
    for shuffle in (False, True):
        for separator in (" ", "\t"):
            path = tmp_path / f"run{seed}{shuffle}{separator == ' '}.txt"
            path.write_text(tied_run(seed, shuffle=shuffle, separator=separator))
            for depth in DEPTHS:
                same(path, depth)
            same(path, 4, ["q0", "q14"])


def test_gzipped_and_commented_runs(tmp_path: Path) -> None:
    text = "# a comment\n" + tied_run(3, shuffle=True) + "\n#another\n"
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(text.encode()))
    for depth in DEPTHS:
        same(path, depth)


def bad_runs() -> dict[str, bytes]:
    good = tied_run(5, shuffle=False).encode()
    lines = good.splitlines(keepends=True)
    first = lines[0].split()
    dup = b" ".join([first[0], b"Q0", first[2], b"9", b"0.01", b"t"]) + b"\n"
    return {
        "too few fields": good + b"q1 Q0 d1 3\n",
        "too many fields": good + b"q1 Q0 d1 3 1.0 t extra\n",
        "score not a number": good + b"q1 Q0 dx 3 high t\n",
        "nan score": good[:200] + b"\nq1 Q0 dz 3 nan t\n" + good[200:],
        "infinite score": good + b"q1 Q0 dz 3 -inf t\n",
        "duplicate far apart": good + dup,  # low score: outside any top k
        "duplicate in first lines": lines[0] + lines[0] + good,
        "mixed separators": good.replace(b" ", b"\t", 40),
        "padded": b"  " + good,
        "blank lines": good + b"\n\n   \n",
        "only comments": b"# nothing\n#\n",
        "not utf-8": good + b"q1 Q0 d\xff 3 1.0 t\n",
        "bad gzip": b"\x1f\x8b" + b"not really",
    }


@pytest.mark.parametrize("case", list(bad_runs()))
@pytest.mark.parametrize("depth", [None, 2])
def test_bad_runs_give_read_runs_answer(tmp_path: Path, case: str, depth: int | None) -> None:
    path = tmp_path / "bad.run"
    path.write_bytes(bad_runs()[case])
    try:
        expected = read_run(path, tag=False, order=False, depth=depth)
    except InputError as exc:
        with pytest.raises(InputError) as info:
            scan_run(path, depth=depth)
        got = info.value
        assert (got.path, got.line, got.row, got.column, got.message) == (
            exc.path,
            exc.line,
            exc.row,
            exc.column,
            exc.message,
        )
    else:  # the careful path accepts it (padding, blank lines): the same frame
        assert_frame_equal(scan_run(path, depth=depth), expected)


@pytest.mark.parametrize("make", ["missing", "directory", "empty"])
def test_paths_that_are_not_runs(tmp_path: Path, make: str) -> None:
    path = tmp_path / "x.run"
    if make == "directory":
        path.mkdir()
    elif make == "empty":
        path.write_bytes(b"")
    with pytest.raises(InputError) as expected:
        read_run(path)
    with pytest.raises(InputError) as got:
        scan_run(path)
    assert str(got.value) == str(expected.value)


def test_paths_are_literal(tmp_path: Path) -> None:
    # A glob would match both files, or none: the name is the file.
    (tmp_path / "run1.txt").write_text("q1 Q0 a 1 1.0 t\n")
    (tmp_path / "run[1].txt").write_text("q1 Q0 b 1 1.0 t\nq1 Q0 c 2 2.0 t\n")
    (tmp_path / "run*.txt").write_text("q2 Q0 d 1 1.0 t\n")
    assert scan_run(tmp_path / "run[1].txt").get_column("doc_id").to_list() == ["b", "c"]
    assert scan_run(tmp_path / "run*.txt", depth=1).get_column("doc_id").to_list() == ["d"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_left_to_read_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # '-' and FIFOs can be read once only: scan_run must not open them but hand them over.
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    seen = []
    frame = pl.DataFrame(
        {"query_id": ["q"], "doc_id": ["d"], "score": [1.0], "rank": [1]},
        schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64, "rank": pl.Int64},
    )

    def fake_read_run(path: Path, **kwargs: object) -> pl.DataFrame:
        seen.append((path, kwargs))
        return frame

    monkeypatch.setattr(run_scan, "read_run", fake_read_run)
    assert_frame_equal(scan_run(fifo, depth=3), frame)
    assert seen == [(fifo, {"tag": False, "order": False, "depth": 3})]
    seen.clear()
    assert_frame_equal(scan_run("-"), frame)
    assert seen == [(Path("-"), {"tag": False, "order": False, "depth": None})]


def test_depth_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        scan_run(tmp_path / "x.run", depth=0)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_gives_the_frame_of_the_same_file(tmp_path: Path) -> None:
    import threading

    text = tied_run(2, shuffle=True)
    plain = tmp_path / "run.txt"
    plain.write_text(text)
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_text, args=(text,))
    writer.start()
    got = scan_run(fifo, depth=3)
    writer.join()
    assert_frame_equal(got, read_run(plain, tag=False, order=False, depth=3))
