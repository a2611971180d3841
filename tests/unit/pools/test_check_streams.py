"""`goldset check` reads a pool from a pipe or standard input, once, with --format: it chose the
format by extension and read the file several times, so `goldset check <(zcat pool.jsonl.gz)`
was refused. Messages name the pipe, never the temporary copy."""

from __future__ import annotations

import gzip
import io
import os
import sys
import threading
from pathlib import Path

import pytest
from conftest import rows_to_file

ROWS = [
    {"query_id": f"q{q}", "query": f"query {q}", "doc_id": f"d{q}-{d}", "text": f"text {q} {d}"}
    for q in range(3)
    for d in range(q + 2)
]  # 3 queries, 2 + 3 + 4 = 9 candidates


def summary(stdout: str) -> list[str]:
    """The report less its first line (which names the input)."""
    return stdout.splitlines()[1:]


def feed_fifo(tmp_path: Path, data: bytes) -> tuple[Path, threading.Thread]:
    """A named pipe with a writer that writes ``data`` once, then closes (the reader's open and
    the writer's open meet: no timing involved)."""
    fifo = tmp_path / "pool.pipe"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as fh:
            fh.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return fifo, writer


@pytest.mark.parametrize("name", ["pool.jsonl", "pool.csv", "pool.tsv", "pool.parquet"])
def test_a_fifo_with_format_is_read_once_and_checked_like_the_file(
    tmp_path: Path, cli, name: str
) -> None:
    path = rows_to_file(tmp_path, name, ROWS)
    status, expected, _ = cli("check", path)
    assert status == 0 and "queries:     3" in expected and "candidates:  9" in expected
    fifo, writer = feed_fifo(tmp_path, path.read_bytes())
    status, stdout, stderr = cli("check", "--input-format", path.suffix[1:], fifo)
    writer.join(timeout=30)
    assert (status, stderr) == (0, "")
    assert stdout.splitlines()[0].startswith(f"{fifo} (flat, sha256 ")
    assert summary(stdout) == summary(expected)
    # The same sha256 as the file: the pool's identity is its content, however it arrived.
    assert (
        stdout.splitlines()[0].split("sha256 ")[1] == expected.splitlines()[0].split("sha256 ")[1]
    )


def test_a_gzipped_pool_on_standard_input(tmp_path: Path, cli, monkeypatch) -> None:
    path = rows_to_file(tmp_path, "pool.jsonl", ROWS)
    _, expected, _ = cli("check", path)
    stdin = io.TextIOWrapper(io.BytesIO(gzip.compress(path.read_bytes())))
    monkeypatch.setattr(sys, "stdin", stdin)
    status, stdout, stderr = cli("check", "--input-format", "jsonl", "-")
    assert (status, stderr) == (0, "")
    assert stdout.splitlines()[0].startswith("<stdin> (flat, sha256 ")
    assert summary(stdout) == summary(expected)


def test_a_pipe_without_format_is_one_line_asking_for_it(tmp_path: Path, cli) -> None:
    fifo, writer = feed_fifo(tmp_path, b"")
    status, stdout, stderr = cli("check", fifo)
    assert status == 2 and stdout == ""
    assert stderr.count("\n") == 1 and f"{fifo}: is a pipe" in stderr and "--input-format" in stderr
    with open(fifo, "rb"):  # let the waiting writer go (nothing read it)
        writer.join(timeout=30)


def test_errors_name_the_pipe_and_the_line_not_a_temporary_file(
    tmp_path: Path, cli, monkeypatch
) -> None:
    bad = b'{"query_id": "q1", "query": "x", "doc_id": "d1", "text": "t"}\n{"query_id": "q1"\n'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(bad)))
    status, _, stderr = cli("check", "--input-format", "jsonl", "-")
    assert status == 2 and stderr.count("\n") == 1
    assert stderr.startswith("goldset: error: <stdin>:2: ") and "goldset-check-" not in stderr


def test_format_overrides_an_extension_that_does_not_say_it(tmp_path: Path, cli) -> None:
    path = rows_to_file(tmp_path, "pool.tsv", ROWS)
    odd = path.rename(tmp_path / "pool.txt")
    status, _, stderr = cli("check", odd)
    assert status == 2 and "unknown file type '.txt'" in stderr
    status, stdout, stderr = cli("check", "--input-format", "tsv", odd)
    assert (status, stderr) == (0, "") and stdout.startswith(f"{odd} (flat,")
    assert odd.exists() and not odd.is_symlink()  # read in place, left as it was
