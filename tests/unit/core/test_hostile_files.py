"""Hostile files: each is refused in one line naming the file and where in
it, exit 2, no traceback and no silent change of a value."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.cli import main
from goldset_tui.errors import InputError
from goldset_tui.io.pools import load_pool, read_topics
from goldset_tui.io.tables import read_table
from goldset_tui.markdown_text import md_literal

BASE = {"query_id": "q1", "query": "x", "doc_id": "d1", "text": "t"}


def jsonl(path: Path, *rows: dict[str, object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def parquet(path: Path, **columns: list[object]) -> Path:
    pl.DataFrame(columns).write_parquet(path)
    return path


def refused(capsys: pytest.CaptureFixture[str], argv: list[str], where: str) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"goldset: error: {where}"), err
    return err


# --- 7 and 8: types checked, not coerced ----------------------------------------------------------
POOLS: dict[str, Callable[[Path], tuple[Path, str]]] = {
    "systems nested": lambda d: (
        jsonl(d / "p.jsonl", BASE | {"systems": [["a"]], "ranks": [1]}),
        ":1: column 'systems'",
    ),
    "ranks nested": lambda d: (
        jsonl(d / "p.jsonl", BASE | {"systems": ["a"], "ranks": [[1]]}),
        ":1: column 'ranks'",
    ),
    "ranks 1.7 jsonl": lambda d: (
        jsonl(d / "p.jsonl", BASE | {"systems": ["a"], "ranks": [1.7]}),
        ":1: column 'ranks'",
    ),
    "ranks 1.7 parquet": lambda d: (
        parquet(
            d / "p.parquet", **{k: [v] for k, v in BASE.items()}, systems=[["a"]], ranks=[[1.7]]
        ),
        ": row 1: column 'ranks'",
    ),
    "systems binary": lambda d: (
        parquet(
            d / "p.parquet", **{k: [v] for k, v in BASE.items()}, systems=[[b"a"]], ranks=[[1]]
        ),
        ": row 1: column 'systems'",
    ),
    "query_id struct": lambda d: (
        jsonl(d / "p.jsonl", BASE | {"query_id": {"x": 1}}),
        ":1: column 'query_id'",
    ),
    "query_id float among ids": lambda d: (
        jsonl(
            d / "p.jsonl",
            BASE | {"query_id": 1},
            BASE | {"query_id": "q2", "doc_id": "d2"},
            BASE | {"query_id": 1.5, "doc_id": "d3"},
        ),
        ":3: column 'query_id'",
    ),
    "lone surrogate": lambda d: (
        _raw(d / "p.jsonl", '{"query_id":"\\ud800","query":"x","doc_id":"d1","text":"t"}\n'),
        ":1: ",
    ),
    "NaN": lambda d: (_raw(d / "p.jsonl", json.dumps(BASE)[:-1] + ', "score": NaN}\n'), ":1: "),
    "huge integer": lambda d: (
        _raw(d / "p.jsonl", json.dumps(BASE)[:-1] + ', "n": 99999999999999999999999}\n'),
        ":1: ",
    ),
    "csv quoted newlines": lambda d: (
        _raw(d / "p.csv", 'query_id,query,doc_id,text\nq1,x,d1,"a\nb"\nq2,y,d2,"c\nd"\nq3,z,d3,\n'),
        ":6: column 'text'",
    ),
    "csv unterminated quote": lambda d: (
        _raw(d / "p.csv", 'query_id,query,doc_id,text\nq1,x,d1,t\nq2,y,d2,"abc\nq3,z,d3,t\n'),
        ":3: ",
    ),
}


def _raw(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize("case", sorted(POOLS))
def test_a_hostile_pool_is_refused_naming_file_and_place(tmp_path, capsys, case: str) -> None:
    path, where = POOLS[case](tmp_path)
    refused(capsys, ["check", str(path)], f"{path}{where}")


def test_an_integer_id_is_read_as_its_digits(tmp_path) -> None:
    pool = load_pool(jsonl(tmp_path / "p.jsonl", BASE | {"query_id": 7}, BASE | {"query_id": "q2"}))
    assert pool.frame["query_id"].to_list() == ["7", "q2"]


@pytest.mark.parametrize(
    ("command", "column"),
    [
        (["classify", "{f}", "-o", "{o}"], "count"),
        (["sample", "draw", "{f}", "-o", "{o}", "--seed", "1", "--total", "1"], "count"),
    ],
)
def test_a_list_count_is_refused(tmp_path, capsys, command: list[str], column: str) -> None:
    f = parquet(tmp_path / "log.parquet", query=["a"], count=[[1]], stratum=["s"])
    argv = [a.format(f=f, o=tmp_path / "out.csv") for a in command]
    refused(capsys, argv, f"{f}: row 1: column '{column}'")
    assert not (tmp_path / "out.csv").exists()


def test_a_list_share_is_refused(tmp_path) -> None:
    from goldset_tui.eval.strata import read_traffic

    f = parquet(tmp_path / "traffic.parquet", stratum=["a"], share=[[0.5]])
    with pytest.raises(InputError) as caught:
        read_traffic(f)
    assert (caught.value.row, caught.value.column) == (1, "share")


# --- 10: a BOM does not hide the first topic ------------------------------------------------------
def test_a_bom_in_a_topics_tsv_keeps_the_first_query(tmp_path) -> None:
    path = tmp_path / "topics.tsv"
    path.write_bytes("\ufeffq01\tfirst\nq02\tsecond\n".encode())
    assert read_topics(path)["query_id"].to_list() == ["q01", "q02"]


# --- 11: agreement Markdown shows control characters as placeholders ------------------------------
def test_markdown_cells_show_escapes_as_placeholders() -> None:
    shown = md_literal("al\x1b[31mice|x\nz")
    assert "\x1b" not in shown and "\u241b" in shown and "\\|" in shown and "\n" not in shown


# --- 12: the message is true for links and pipes --------------------------------------------------
def test_a_symlink_loop_and_a_fifo_are_named_for_what_they_are(tmp_path) -> None:
    os.symlink(tmp_path / "b.csv", tmp_path / "a.csv")
    os.symlink(tmp_path / "a.csv", tmp_path / "b.csv")
    with pytest.raises(InputError, match="loop of symbolic links"):
        read_table(tmp_path / "a.csv")
    os.symlink(tmp_path / "gone.csv", tmp_path / "dangling.csv")
    with pytest.raises(InputError, match="symbolic link to a file that does not exist"):
        read_table(tmp_path / "dangling.csv")
    os.mkfifo(tmp_path / "pipe.csv")
    with pytest.raises(InputError, match="named pipe"):
        read_table(tmp_path / "pipe.csv")
