"""Every path a user gives is read literally, and a run can come from a stream: standard input as
``-``, a FIFO, a gzipped stream.

Each reader gets a folder holding ``sys1.X``, ``sys[1].X`` and ``s*.X`` with different contents:
read as a glob, ``sys[1].X`` would match ``sys1.X`` and ``s*.X`` all three. The contents say which
file was read.
"""

from __future__ import annotations

import gzip
import io
import os
import select
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.cli import main
from goldset_tui.errors import InputError
from goldset_tui.io.corpus import read_corpus
from goldset_tui.io.pools import load_pool, read_topics
from goldset_tui.io.strata_and_traffic import read_strata, read_traffic
from goldset_tui.io.trec import read_qrels, read_run
from goldset_tui.sampling.labels import read_labels
from goldset_tui.sampling.normalise import read_log

# reader, extension, file text with {} for the marker, how to get the marker back
READERS: dict[str, tuple[Callable[[Path], pl.DataFrame], str, str, Callable[[pl.DataFrame], str]]]
READERS = {
    "run": (read_run, "run", "q1 Q0 d{} 1 1.0 t\n", lambda f: f["doc_id"][0]),
    "qrels": (read_qrels, "qrels", "q1 0 d{} 1\n", lambda f: f["doc_id"][0]),
    "topics_tsv": (read_topics, "tsv", "q{}\thello\n", lambda f: f["query_id"][0]),
    "topics_jsonl": (
        read_topics,
        "jsonl",
        '{{"_id": "q{}", "text": "x"}}\n',
        lambda f: f["query_id"][0],
    ),
    "corpus_jsonl": (
        read_corpus,
        "jsonl",
        '{{"_id": "d{}", "title": "", "text": "x"}}\n',
        lambda f: f["doc_id"][0],
    ),
    "corpus_jsonl_ids": (
        lambda p: read_corpus(p, ids=pl.Series(["d1", "dBR", "dSTAR"])),
        "jsonl",
        '{{"_id": "d{}", "title": "", "text": "x"}}\n',
        lambda f: f["doc_id"][0],
    ),
    "corpus_tsv": (read_corpus, "tsv", "doc_id\ttext\nd{}\tx\n", lambda f: f["doc_id"][0]),
    "strata": (read_strata, "csv", "query_id,stratum\nq{},a\n", lambda f: f["query_id"][0]),
    "traffic": (read_traffic, "csv", "stratum,share\ns{},1\n", lambda f: f["stratum"][0]),
    "log_text": (read_log, "txt", "hello{}\n", lambda f: f["raw"][0]),
    "log_csv": (read_log, "csv", "query\nhello{}\n", lambda f: f["raw"][0]),
    "labels": (read_labels, "csv", "query,count,stratum\nq{},1,a\n", lambda f: f["query"][0]),
    "pool": (
        lambda p: load_pool(p).frame,
        "tsv",
        "query_id\tquery\tdoc_id\ttext\nq{}\tx\td1\ty\n",
        lambda f: f["query_id"][0],
    ),
}


@pytest.fixture(params=sorted(READERS))
def reader(request, tmp_path):
    read, ext, text, marker = READERS[request.param]
    (tmp_path / f"sys1.{ext}").write_text(text.format("1"))
    (tmp_path / f"sys[1].{ext}").write_text(text.format("BR"))
    (tmp_path / f"s*.{ext}").write_text(text.format("STAR"))
    return read, ext, marker, tmp_path


def test_brackets_name_that_file(reader):
    read, ext, marker, folder = reader
    frame = read(folder / f"sys[1].{ext}")
    assert marker(frame).endswith("BR") and frame.height == 1


def test_star_names_that_file(reader):
    read, ext, marker, folder = reader
    frame = read(folder / f"s*.{ext}")  # as a glob: all three files, concatenated
    assert marker(frame).endswith("STAR") and frame.height == 1


def test_brackets_alone(reader, tmp_path):
    # `only[2]` as a glob matches `only2`, which does not exist: nothing at all would be read.
    read, ext, marker, folder = reader
    alone = folder / "alone"
    alone.mkdir()
    (alone / f"only[2].{ext}").write_bytes((folder / f"sys[1].{ext}").read_bytes())
    assert marker(read(alone / f"only[2].{ext}")).endswith("BR")


def test_question_mark_matches_nothing(reader):
    read, ext, _, folder = reader
    with pytest.raises(InputError) as err:
        read(folder / f"sys?.{ext}")
    assert "no such file" in err.value.message


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_eval_reads_the_bracketed_run_not_its_glob_match(tmp_path, capsys):
    # The example: `sys[1].run` has the relevant document first (RR 1), `sys1.run` second.
    (tmp_path / "qrels.txt").write_text("q1 0 good 1\n")
    (tmp_path / "sys1.run").write_text("q1 Q0 bad 1 2 a\nq1 Q0 good 2 1 a\n")
    (tmp_path / "sys[1].run").write_text("q1 Q0 good 1 2 b\nq1 Q0 bad 2 1 b\n")
    code, out, _ = run_cli(
        capsys, "eval", tmp_path / "qrels.txt", tmp_path / "sys[1].run", "-m", "RR"
    )
    assert code == 0
    assert out.splitlines()[-1].split("\t")[-1] == "1.0000"


def test_eval_with_a_glob_matching_nothing_says_no_such_file(tmp_path, capsys):
    (tmp_path / "qrels.txt").write_text("q1 0 good 1\n")
    code, _, err = run_cli(capsys, "eval", tmp_path / "qrels.txt", tmp_path / "nothing*.run")
    assert code == 2
    assert "no such file" in err and "empty" not in err


# --- streams ---------------------------------------------------------------------------------

QRELS = "q1 0 good 1\nq2 0 other 1\n"
RUN = "q1 Q0 bad 1 2 mine\nq1 Q0 good 2 1 mine\nq2 Q0 other 1 5 mine\n"


def _stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_run_from_standard_input(tmp_path, capsys, monkeypatch, compress):
    (tmp_path / "qrels.txt").write_text(QRELS)
    data = RUN.encode()
    _stdin(monkeypatch, gzip.compress(data) if compress else data)
    code, out, err = run_cli(capsys, "eval", tmp_path / "qrels.txt", "-", "-m", "RR", "-q")
    assert code == 0, err
    assert [line.split("\t")[1:] for line in out.splitlines()] == [
        ["q1", "0.5000"],
        ["q2", "1.0000"],
        ["all", "0.7500"],
    ]


def test_empty_standard_input_is_one_line(tmp_path, capsys, monkeypatch):
    (tmp_path / "qrels.txt").write_text(QRELS)
    _stdin(monkeypatch, b"")
    code, _, err = run_cli(capsys, "eval", tmp_path / "qrels.txt", "-")
    assert code == 2
    assert err.count("\n") == 1 and "<stdin>" in err


def _feed_fifo(path: Path, data: bytes) -> threading.Thread:
    def write() -> None:
        with open(path, "wb") as fh:
            fh.write(data)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_run_and_qrels_from_fifos(tmp_path, compress):
    run_fifo, qrels_fifo = tmp_path / "run.fifo", tmp_path / "qrels.fifo"
    os.mkfifo(run_fifo)
    os.mkfifo(qrels_fifo)
    data = RUN.encode()
    writer = _feed_fifo(run_fifo, gzip.compress(data) if compress else data)
    run = read_run(run_fifo)
    writer.join(5)
    writer = _feed_fifo(qrels_fifo, QRELS.encode())
    qrels = read_qrels(qrels_fifo)
    writer.join(5)
    assert run.get_column("doc_id").to_list() == ["bad", "good", "other"]
    assert qrels.height == 2


@pytest.mark.skipif(sys.platform == "win32", reason="needs bash process substitution")
def test_process_substitution_of_a_gzipped_run(tmp_path):
    # `goldset eval qrels <(zcat run.gz)`: the run arrives as /dev/fd/N, a pipe with st_size 0.
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.gz").write_bytes(gzip.compress(RUN.encode()))
    script = (
        f"{sys.executable} -m goldset_tui eval {tmp_path / 'qrels.txt'} "
        f"<(gzip -dc {tmp_path / 'run.gz'}) -m RR"
    )
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].split("\t")[-1] == "0.7500"


def test_qrels_from_standard_input(tmp_path, capsys, monkeypatch):
    (tmp_path / "mine.run").write_text(RUN)
    _stdin(monkeypatch, QRELS.encode())
    code, out, err = run_cli(capsys, "eval", "-", tmp_path / "mine.run", "-m", "RR")
    assert code == 0, err
    assert out.splitlines()[-1].split("\t")[-1] == "0.7500"


def test_standard_input_only_once(tmp_path, capsys, monkeypatch):
    _stdin(monkeypatch, RUN.encode())
    code, _, err = run_cli(capsys, "eval", "-", "-", "-m", "RR")
    assert code == 2 and "only once" in err and err.count("\n") == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_without_writer_is_announced_on_stderr(tmp_path):
    # Opening a FIFO blocks until a writer comes; goldset must not hang in silence.
    (tmp_path / "qrels.txt").write_text(QRELS)
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    command = [sys.executable, "-m", "goldset_tui", "eval", str(tmp_path / "qrels.txt")]
    child = subprocess.Popen(
        [*command, str(fifo), "-m", "RR"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        # goldset says something within a minute (about a second, unless the machine is loaded)
        ready, _, _ = select.select([child.stderr], [], [], 60)
        waited = child.stderr.readline().decode() if ready else ""
        with open(fifo, "wb") as fh:  # then a writer comes, and the evaluation goes on
            fh.write(RUN.encode())
        out, err = child.communicate(timeout=120)
    finally:
        child.kill()
    assert "waiting for a writer" in waited and str(fifo) in waited
    assert child.returncode == 0, err
    assert out.decode().splitlines()[-1].split("\t")[-1] == "0.7500"
