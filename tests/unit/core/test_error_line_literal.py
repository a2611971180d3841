"""The one-line error on bad input names the file; a file's name is data and is shown literally.

A pool or run whose name holds a terminal escape (copied from a shared folder, made by a script)
must not retitle, clear or recolour the terminal when goldset names it in its error line."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui.cli import main

TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J"


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("goldset: error: ") and err.count("\n") == 1, err
    return err


def test_bad_pool_named_with_an_escape_is_named_literally(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pool = tmp_path / f"p{TITLE}.jsonl"
    pool.write_text('{"query_id": 1,\n')
    err = _refused(capsys, ["check", str(pool)])
    assert "\x1b" not in err and "\x07" not in err, repr(err)
    assert "p\u241b]0;pwned\u2407.jsonl:1:" in err, err


def test_missing_run_named_with_an_escape_is_named_literally(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 d1 1\n")
    err = _refused(capsys, ["eval", str(qrels), str(tmp_path / f"r{CLEAR}.run")])
    assert "\x1b" not in err, repr(err)
    assert "r\u241b[2J.run" in err, err


def test_two_runs_named_alike_are_told_to_take_names_of_their_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `a=x.run a=y.run`: the user did write NAME=PATH; "name them with NAME=PATH" read as if not.
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 d1 1\n")
    runs = [tmp_path / "x.run", tmp_path / "y.run"]
    for run in runs:
        run.write_text("q1 Q0 d1 1 1 t\n")
    err = _refused(capsys, ["eval", str(qrels), f"a={runs[0]}", f"a={runs[1]}"])
    assert err.endswith("the name 'a' is given twice; give each its own name with NAME=PATH\n"), err
