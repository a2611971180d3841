"""The shared table reader: every bad input gets one line naming file, line/row and column."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from goldset_tui.errors import InputError
from goldset_tui.io.tables import read_table
from goldset_tui.text import visible

REQ = ("query_id", "doc_id", "text")


def write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    p = tmp_path / name
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return p


def err(path: Path, **kw) -> InputError:
    with pytest.raises(InputError) as info:
        read_table(path, required=REQ, non_empty=REQ, **kw)
    assert "\n" not in str(info.value)
    assert str(path) in str(info.value)
    return info.value


def test_reads_csv_as_text_keeping_leading_zeros(tmp_path: Path) -> None:
    p = write(tmp_path, "p.csv", "query_id,doc_id,text\n007,d1,hello\n")
    df = read_table(p, required=REQ, non_empty=REQ)
    assert df.get_column("query_id").to_list() == ["007"]


def test_missing_file_and_directory(tmp_path: Path) -> None:
    assert "no such file" in str(err(tmp_path / "nope.csv"))
    d = tmp_path / "d.csv"
    d.mkdir()
    assert "directory" in str(err(d))


def test_empty_file_and_header_only(tmp_path: Path) -> None:
    assert "empty" in str(err(write(tmp_path, "e.csv", "")))
    assert "no rows" in str(err(write(tmp_path, "h.csv", "query_id,doc_id,text\n")))


def test_missing_column(tmp_path: Path) -> None:
    e = err(write(tmp_path, "m.csv", "query_id,doc_id\nq,d\n"))
    assert e.column == "text"


def test_empty_value_names_line_and_column(tmp_path: Path) -> None:
    e = err(write(tmp_path, "v.csv", "query_id,doc_id,text\nq1,d1,a\nq1,,b\n"))
    assert (e.line, e.column) == (3, "doc_id")


def test_not_utf8_names_line(tmp_path: Path) -> None:
    e = err(write(tmp_path, "u.csv", b"query_id,doc_id,text\nq1,d1,ok\nq1,d2,\xff\xfe\n"))
    assert e.line == 3 and "UTF-8" in str(e)


@pytest.mark.parametrize("row", ["q2,d2,b,extra", "q2,d2"])
def test_ragged_csv_names_line(tmp_path: Path, row: str) -> None:
    e = err(write(tmp_path, "r.csv", f"query_id,doc_id,text\nq1,d1,a\n{row}\nq3,d3,c\n"))
    assert e.line == 3 and "ragged" in str(e)


def test_bad_json_names_line(tmp_path: Path) -> None:
    e = err(write(tmp_path, "j.jsonl", '{"query_id":"q","doc_id":"d","text":"t"}\n{"query_id": \n'))
    assert e.line == 2 and "JSON" in str(e)


def test_not_parquet(tmp_path: Path) -> None:
    assert "Parquet" in str(err(write(tmp_path, "x.parquet", "not parquet at all")))


def test_parquet_null_names_row(tmp_path: Path) -> None:
    p = tmp_path / "p.parquet"
    pl.DataFrame({"query_id": ["q", None], "doc_id": ["a", "b"], "text": ["x", "y"]}).write_parquet(
        p
    )
    e = err(p)
    assert (e.row, e.column) == (2, "query_id")


def test_visible_replaces_controls_and_bidi() -> None:
    s = visible("a\x1b[31mred\x07\x9b\u202e\x7f")
    assert "\x1b" not in s and "\x07" not in s and "\x9b" not in s and "\u202e" not in s
    assert s.startswith("a\u241b[31mred\u2407")


@pytest.mark.parametrize("name", ["pool[2024].csv", "pool*.csv", "pool?.jsonl", "p[1].parquet"])
def test_paths_are_literal_never_globs(tmp_path: Path, name: str) -> None:
    # Polars treats [ ] * ? as a glob: a file named like this must still be read, and read alone.
    frame = pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "text": ["hello"]})
    target = tmp_path / name
    if name.endswith(".parquet"):
        frame.write_parquet(target)
    elif name.endswith(".jsonl"):
        frame.write_ndjson(target)
    else:
        frame.write_csv(target)
    # A sibling that a glob would also match, with a different row.
    (tmp_path / "poolX.csv").write_text("query_id,doc_id,text\nq9,d9,other\n")
    (tmp_path / "poolX.jsonl").write_text('{"query_id":"q9","doc_id":"d9","text":"other"}\n')
    df = read_table(target, required=REQ, non_empty=REQ)
    assert df.get_column("query_id").to_list() == ["q1"]


@pytest.mark.parametrize(
    ("second", "words"),
    [
        ('"grade": true', ("true/false here", "a number on line 1")),
        ('"grade": {"x": 1}', ("an object here", "a number on line 1")),
    ],
)
def test_jsonl_column_mixing_kinds_names_the_line(tmp_path: Path, second, words) -> None:
    head = '{"query_id": "q", "doc_id": "d", "text": "t", '
    rows = [head + '"grade": 1}'] * 3
    rows.insert(2, head + second + "}")
    e = err(write(tmp_path, "p.jsonl", "\n".join(rows) + "\n"))
    assert (e.line, e.column) == (3, "grade")
    assert all(w in str(e) for w in words)


def test_jsonl_text_beside_numbers_is_still_read_as_text(tmp_path: Path) -> None:
    # Polars reads a column holding text anywhere as text: no kind error for it.
    rows = ['{"query_id": "q", "doc_id": "d1", "text": "t", "n": 1}']
    rows += ['{"query_id": "q", "doc_id": "d2", "text": "t", "n": "two"}']
    df = read_table(write(tmp_path, "p.jsonl", "\n".join(rows) + "\n"), required=REQ)
    assert df.get_column("n").to_list() == ["1", "two"]
