"""Data a command prints (qrels, a report's CSV, drift's JSON) goes to a pipe or a file byte for
byte, but to a terminal with its control characters shown, never obeyed: an id holding
ESC ] 0 ; ... BEL retitled the terminal, ESC [ 2 J cleared it."""

from __future__ import annotations

import io

import polars as pl
import pytest

from goldset_tui.cli import main
from goldset_tui.store import Project, sha256_file
from goldset_tui.text import for_terminal

HOSTILE = "q1\x1b]0;pwned\x07\x1b[2J"


class Terminal(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.buffer = io.BytesIO()  # what a binary write would have sent, unshown

    def isatty(self) -> bool:
        return True


def test_for_terminal_shows_controls_only_on_a_terminal() -> None:
    assert "\x1b" not in for_terminal(HOSTILE, Terminal())
    assert for_terminal(HOSTILE, io.StringIO()) == HOSTILE  # a pipe gets the data as it is


@pytest.fixture
def store(tmp_path):
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1"}\n')
    project = Project.create(tmp_path / "s", pool_path=pool, pool_sha256=sha256_file(pool))
    grades = pl.DataFrame(
        {"query_id": [HOSTILE], "doc_id": ["d\x1b[31m1"], "grade": [2]},
        schema={"query_id": pl.String, "doc_id": pl.String, "grade": pl.Int64},
    ).with_columns(pl.lit(None, pl.String).alias("time"), pl.lit(None, pl.String).alias("note"))
    project.add_grades("alice", grades)
    return project.path


@pytest.mark.parametrize("fmt", ["trec", "csv"])
def test_qrels_to_a_terminal_shows_the_escapes(store, monkeypatch, fmt) -> None:
    screen = Terminal()
    monkeypatch.setattr("sys.stdout", screen)
    assert main(["qrels", "--store", str(store), "--labeller", "alice", "--format", fmt]) == 0
    shown = screen.getvalue()
    assert "\x1b" not in shown and "\x07" not in shown
    assert "q1" in shown and screen.buffer.getvalue() == b""


def test_qrels_to_a_pipe_keeps_the_bytes(store, monkeypatch) -> None:
    pipe = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    monkeypatch.setattr("sys.stdout", pipe)
    assert main(["qrels", "--store", str(store), "--labeller", "alice"]) == 0
    pipe.flush()
    assert HOSTILE.encode() in pipe.buffer.getvalue()
