"""`goldset report --run` opens and names runs as `goldset eval` does (one open_runs): a file
whose name says nothing is named by the run's tag (trec_eval's runid), standard input and a
FIFO are read once and named by their tag; before, `input.bm25` was "input", `-` was "-" and a
pipe was "63" (from /dev/fd/63)."""

from __future__ import annotations

import io
import json
import os
import sys
import threading
from pathlib import Path

import pytest

from goldset_tui.cli import main

QRELS = "q1 0 a 1\nq2 0 b 1\nq2 0 a 0\n"


def _run(tag: str) -> str:
    return "".join(f"{q} Q0 a 1 2.0 {tag}\n{q} Q0 b 2 1.0 {tag}\n" for q in ("q1", "q2"))


def _report(tmp_path: Path, capsys, *runs: str) -> dict:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "strata.csv").write_text("query_id,stratum\nq1,a\nq2,a\n")
    argv = ["report", "--qrels", str(tmp_path / "qrels.txt"), "--strata"]
    argv += [str(tmp_path / "strata.csv"), "--measure", "RR", "--format", "json"]
    for run in runs:
        argv += ["--run", run]
    code = main(argv)
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def test_plain_file_name_and_standard_input_are_named_by_their_tag(tmp_path, capsys, monkeypatch):
    (tmp_path / "input.bm25").write_text(_run("bm25"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(_run("dense").encode())))
    doc = _report(tmp_path, capsys, str(tmp_path / "input.bm25"), "-")
    assert set(doc["overall"]) - {"rrf"} == {"bm25", "dense"}  # rrf: their fusion
    # RR by hand: q1 finds its relevant `a` at rank 1, q2 its relevant `b` at rank 2.
    assert doc["overall"]["bm25"]["mean"] == pytest.approx((1 + 1 / 2) / 2)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_run_is_read_and_named_by_its_tag(tmp_path, capsys):
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w") as fh:
            fh.write(_run("piped"))

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    doc = _report(tmp_path, capsys, str(fifo), "named=" + str(_file(tmp_path)))
    writer.join(5)
    assert set(doc["overall"]) - {"rrf"} == {"piped", "named"}


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "other.run"
    path.write_text(_run("other"))
    return path
