"""Logs of any size: the streaming count gives what the careful reader gives, takes the careful
reader's path (and its one-line errors) for anything wrong, and is the path normally taken."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldset_tui.errors import InputError
from goldset_tui.sampling import stream
from goldset_tui.sampling.normalise import read_log


def careful(path: Path) -> dict[str, int]:
    log = read_log(path)
    grouped = log.group_by("raw").agg(pl.col("count").sum())
    return dict(grouped.iter_rows())


def streamed(path: Path) -> dict[str, int]:
    return dict(stream.count_raw(path).iter_rows())


@pytest.fixture
def no_careful_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(path: object) -> None:
        raise AssertionError("the careful reader was used on a good log")

    monkeypatch.setattr(stream, "read_log", refuse)


LINE = st.text(
    st.characters(codec="utf-8", exclude_characters="\n", exclude_categories=("Cs",)), max_size=12
)


@settings(max_examples=40, deadline=None)
@given(st.lists(LINE, min_size=1, max_size=30), st.booleans(), st.booleans(), st.booleans())
def test_text_logs_count_as_the_careful_reader_counts(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str], bom: bool, crlf: bool, end: bool
) -> None:
    path = tmp_path_factory.mktemp("log") / "log.txt"
    text = ("\r\n" if crlf else "\n").join(lines) + ("\n" if end else "")
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    try:
        want = careful(path)
    except InputError:
        return  # an empty file, or \r line ends alone: the careful reader's refusal, tested below
    assert streamed(path) == want


def test_tables_stream_with_their_counts(tmp_path: Path, no_careful_reader: None) -> None:
    csv = tmp_path / "log.csv"
    csv.write_text('query,count\nhello,2\n"a, b",3\nhello, 4 \n', encoding="utf-8")
    assert streamed(csv) == {"hello": 6, "a, b": 3}
    tsv = tmp_path / "log.tsv"
    tsv.write_text("count\tquery\n1\tx\n2\tx\n", encoding="utf-8")
    assert streamed(tsv) == {"x": 3}
    parquet = tmp_path / "log.parquet"
    pl.DataFrame({"query": ["a", "b", "a"], "count": [1.0, 5.0, 2.0]}).write_parquet(parquet)
    assert streamed(parquet) == {"a": 3, "b": 5}
    text = tmp_path / "log.txt"
    text.write_bytes("\ufeffa\r\n\nb\u2028c\na\n".encode())
    assert streamed(text) == {"a": 2, "": 1, "b\u2028c": 1}


@pytest.mark.parametrize(
    ("name", "data", "line", "words"),
    [
        ("bad.txt", b"ok\nfine\nbad\xff here\n", 3, "not UTF-8"),
        ("mac.txt", b"one\rtwo\r", 1, "\\r alone"),
        ("count.csv", b"query,count\na,1\nb,2.5\n", 3, "whole number"),
        ("zero.csv", b"query,count\na,1\nb,0\n", 3, "whole number"),
        ("short.csv", b"query,count,x\na,1,y\nb,2\n", 3, "ragged"),
        ("header.csv", b"query,count\n", None, "no rows"),
        ("nocol.csv", b"q,count\na,1\n", None, "missing required column 'query'"),
    ],
)
def test_bad_logs_get_the_careful_readers_one_line_error(
    tmp_path: Path, name: str, data: bytes, line: int | None, words: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(InputError) as info:
        stream.count_raw(path)
    assert words in str(info.value)
    if line is not None:
        assert info.value.line == line


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 64])
def test_a_bad_byte_is_found_across_chunk_boundaries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    monkeypatch.setattr(stream, "CHUNK", chunk)
    path = tmp_path / "log.txt"
    path.write_bytes("é1\nü2\n€3\n".encode() + b"x\xe2\x82\n")  # a cut euro sign on line 4
    with pytest.raises(InputError) as info:
        stream.count_raw(path)
    assert info.value.line == 4 and "byte 14" in str(info.value)  # é and ü take 2 bytes, € 3


def test_a_character_cut_by_the_end_of_the_file_is_found(tmp_path: Path) -> None:
    path = tmp_path / "log.txt"
    path.write_bytes(b"a\nb\n\xe2\x82")
    with pytest.raises(InputError) as info:
        stream.count_raw(path)
    assert info.value.line == 3 and "byte 4" in str(info.value)


CELL = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)
COUNT = st.one_of(st.integers(-2, 40).map(str), st.sampled_from(["", " 3 ", "2.0", "1e3", "x"]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(CELL, COUNT), min_size=0, max_size=12), st.booleans())
def test_csv_and_parquet_logs_stream_as_the_careful_reader_reads_them(
    tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[str, str]], parquet: bool
) -> None:
    folder = tmp_path_factory.mktemp("log")
    frame = pl.DataFrame(rows, schema={"query": pl.String, "count": pl.String}, orient="row")
    path = folder / ("log.parquet" if parquet else "log.csv")
    if parquet:
        frame.write_parquet(path)
    else:
        frame.write_csv(path)
    try:
        want: dict[str, int] | str = careful(path)
    except InputError as exc:
        want = str(exc)
    try:
        got: dict[str, int] | str = streamed(path)
    except InputError as exc:
        got = str(exc)
    assert got == want


def test_a_log_that_is_a_bom_alone_counts_no_query(tmp_path: Path) -> None:
    # Found by the property above: the streamed count read the BOM's line as one empty query.
    path = tmp_path / "log.txt"
    path.write_bytes(b"\xef\xbb\xbf")
    assert streamed(path) == careful(path) == {}
