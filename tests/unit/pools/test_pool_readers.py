"""Flat pools in every format: what is read, and every bad input (one line: file, line/row, column)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.errors import InputError
from goldset_tui.io.pools import FRAME_SCHEMA, load_pool, write_pool

FORMATS = ["csv", "tsv", "jsonl", "parquet"]

GOOD = [
    {
        "query_id": "007",
        "query": "rotate api key",
        "doc_id": "d1",
        "text": "Rotate keys here.",
        "systems": ["bm25", "dense"],
        "ranks": [1, 4],
    },
    {
        "query_id": "007",
        "query": "rotate api key",
        "doc_id": "d2",
        "text": "Policy.",
        "systems": ["dense"],
        "ranks": [2],
    },
    {
        "query_id": "q2",
        "query": "error E1234",
        "doc_id": "d1",
        "text": "Rotate keys here.",
        "systems": ["bm25"],
        "ranks": [3],
    },
]


def location_of(fmt: str, data_row: int) -> dict:
    """Where the 0-based data row ``data_row`` is, as the error should name it."""
    if fmt in ("csv", "tsv"):
        return {"line": data_row + 2}
    if fmt == "jsonl":
        return {"line": data_row + 1}
    return {"row": data_row + 1}


def assert_at(e: InputError, fmt: str, data_row: int) -> None:
    loc = location_of(fmt, data_row)
    assert (e.line, e.row) == (loc.get("line"), loc.get("row"))


def bad(path: Path, **kw) -> InputError:
    with pytest.raises(InputError) as info:
        load_pool(path, **kw)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    return info.value


def with_change(index: int, **change) -> list[dict]:
    rows = [dict(r) for r in GOOD]
    rows[index].update(change)
    return rows


@pytest.mark.parametrize("fmt", FORMATS)
def test_reads_every_format_to_the_same_frame(write_rows, fmt: str) -> None:
    pool = load_pool(write_rows(f"p.{fmt}", GOOD))
    assert dict(pool.frame.schema) == FRAME_SCHEMA
    assert pool.frame.get_column("query_id").to_list() == ["007", "007", "q2"]  # leading zeros kept
    assert pool.frame.get_column("systems").to_list() == [["bm25", "dense"], ["dense"], ["bm25"]]
    assert pool.frame.get_column("ranks").to_list() == [[1, 4], [2], [3]]
    assert pool.frame.get_column("title").null_count() == 3
    assert pool.queries().to_dicts() == [
        {"query_id": "007", "query": "rotate api key", "stratum": None, "candidates": 2},
        {"query_id": "q2", "query": "error E1234", "stratum": None, "candidates": 1},
    ]
    assert pool.systems() == ["bm25", "dense"]
    assert pool.prior is None
    import hashlib

    assert pool.sha256 == hashlib.sha256(pool.path.read_bytes()).hexdigest()


def test_csv_list_columns_accept_json_lists_and_empty_cells(tmp_path: Path) -> None:
    p = tmp_path / "p.csv"
    p.write_text(
        "query_id,query,doc_id,text,systems,ranks\n"
        'q,x,d1,t,"[""bm25"", ""dense""]","[1, 4]"\n'
        "q,x,d2,t,,\n"
        "q,x,d3,t, bm25 ; dense , 2;3\n",
        encoding="utf-8",
    )
    frame = load_pool(p).frame
    assert frame.get_column("systems").to_list() == [["bm25", "dense"], None, ["bm25", "dense"]]
    assert frame.get_column("ranks").to_list() == [[1, 4], None, [2, 3]]


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_through_writer(tmp_path: Path, write_rows, fmt: str) -> None:
    original = load_pool(write_rows("orig.jsonl", GOOD)).frame
    out = tmp_path / f"again.{fmt}"
    write_pool(original, out)
    again = load_pool(out).frame
    # CSV/TSV cannot tell an empty title from a missing one; everything else survives exactly.
    assert again.equals(original)


def test_tsv_writer_refuses_text_with_newline(tmp_path: Path, write_rows) -> None:
    frame = load_pool(write_rows("orig.jsonl", with_change(1, text="two\nlines"))).frame
    with pytest.raises(InputError) as info:
        write_pool(frame, tmp_path / "out.tsv")
    assert info.value.line == 3
    assert not (tmp_path / "out.tsv").exists()


# --- bad input, every format -------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("column", ["query_id", "doc_id", "text", "query"])
@pytest.mark.parametrize("value", ["", "   ", None])
def test_empty_or_null_required_value(write_rows, fmt: str, column: str, value) -> None:
    e = bad(write_rows(f"p.{fmt}", with_change(2, **{column: value})))
    assert e.column == column
    assert_at(e, fmt, 2)


@pytest.mark.parametrize("fmt", FORMATS)
def test_duplicate_pairs_say_how_many_and_show_the_first(write_rows, fmt: str) -> None:
    rows = [dict(r) for r in GOOD] + [dict(GOOD[1]), dict(GOOD[2]), dict(GOOD[1])]
    e = bad(write_rows(f"p.{fmt}", rows))
    assert "3 duplicate (query_id, doc_id) rows" in e.message
    assert "'007'" in e.message and "'d2'" in e.message  # the first repeat, rows[3]
    assert_at(e, fmt, 3)
    first = location_of(fmt, 1)
    assert f"already on {next(iter(first))} {next(iter(first.values()))}" in e.message


@pytest.mark.parametrize("fmt", FORMATS)
def test_missing_text_column_suggests_corpus(write_rows, fmt: str) -> None:
    rows = [{k: v for k, v in r.items() if k != "text"} for r in GOOD]
    e = bad(write_rows(f"p.{fmt}", rows))
    assert e.column == "text" and "--corpus" in e.message


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("column", ["query_id", "query", "doc_id"])
def test_missing_required_column(write_rows, fmt: str, column: str) -> None:
    rows = [{k: v for k, v in r.items() if k != column} for r in GOOD]
    assert bad(write_rows(f"p.{fmt}", rows)).column == column


@pytest.mark.parametrize("fmt", FORMATS)
def test_one_query_id_with_two_query_texts(write_rows, fmt: str) -> None:
    e = bad(write_rows(f"p.{fmt}", with_change(1, query="something else")))
    assert e.column == "query" and "'007'" in e.message
    assert_at(e, fmt, 1)


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_unreadable_rank_names_line(write_rows, fmt: str) -> None:
    e = bad(write_rows(f"p.{fmt}", with_change(1, ranks=["two"])))
    assert (e.column, e.line) == ("ranks", 3)


@pytest.mark.parametrize("fmt", FORMATS)
def test_systems_and_ranks_must_pair_up(write_rows, fmt: str) -> None:
    e = bad(write_rows(f"p.{fmt}", with_change(2, ranks=[1, 2])))
    assert e.column == "ranks" and "lengths" in e.message
    assert_at(e, fmt, 2)
    e = bad(write_rows(f"p.{fmt}", with_change(0, ranks=[0, 1])))
    assert e.column == "ranks"
    e = bad(write_rows(f"p.{fmt}", with_change(0, systems=["bm25", "bm25"])))
    assert e.column == "systems"


@pytest.mark.parametrize("fmt", FORMATS)
def test_missing_file_directory_and_empty(tmp_path: Path, fmt: str) -> None:
    assert "no such file" in bad(tmp_path / f"nope.{fmt}").message
    d = tmp_path / f"d.{fmt}"
    d.mkdir()
    assert "directory" in bad(d).message
    e = tmp_path / f"e.{fmt}"
    e.write_bytes(b"")
    assert "empty" in bad(e).message


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet"])
def test_header_with_no_rows(tmp_path: Path, fmt: str) -> None:
    p = tmp_path / f"h.{fmt}"
    if fmt == "parquet":
        pl.DataFrame(
            schema={c: pl.Utf8 for c in ("query_id", "query", "doc_id", "text")}
        ).write_parquet(p)
    else:
        p.write_text(
            ("\t" if fmt == "tsv" else ",").join(("query_id", "query", "doc_id", "text")) + "\n"
        )
    assert "no rows" in bad(p).message


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
def test_not_utf8(tmp_path: Path, write_rows, fmt: str) -> None:
    p = write_rows(f"p.{fmt}", GOOD)
    p.write_bytes(p.read_bytes().replace(b"Policy.", b"Pol\xff\xfecy."))
    e = bad(p)
    assert "UTF-8" in e.message and e.line == location_of(fmt, 1)["line"]


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_ragged_row(tmp_path: Path, fmt: str) -> None:
    sep = "\t" if fmt == "tsv" else ","
    p = tmp_path / f"r.{fmt}"
    p.write_text(
        sep.join(("query_id", "query", "doc_id", "text"))
        + "\n"
        + sep.join("qxdt")
        + "\n"
        + sep.join("qxd")
        + "\n"
    )
    e = bad(p)
    assert "ragged" in e.message and e.line == 3


def test_json_that_does_not_parse_names_line(tmp_path: Path) -> None:
    p = tmp_path / "p.jsonl"
    p.write_text(
        json.dumps(GOOD[0]) + "\n" + '{"query_id": "q", "doc_id": \n' + json.dumps(GOOD[2]) + "\n"
    )
    e = bad(p)
    assert "JSON" in e.message and e.line == 2


def test_not_parquet(tmp_path: Path) -> None:
    p = tmp_path / "p.parquet"
    p.write_text("query_id,query,doc_id,text\nq,x,d,t\n")
    assert "Parquet" in bad(p).message


def test_unknown_extension(tmp_path: Path) -> None:
    p = tmp_path / "pool.xlsx"
    p.write_text("x")
    assert "unknown file type" in bad(p).message


def test_ids_that_are_numbers_in_parquet_become_text(tmp_path: Path) -> None:
    p = tmp_path / "n.parquet"
    pl.DataFrame(
        {"query_id": [1, 1], "query": ["a", "a"], "doc_id": [10, 11], "text": ["x", "y"]}
    ).write_parquet(p)
    frame = load_pool(p).frame
    assert frame.get_column("doc_id").to_list() == ["10", "11"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_of_awkward_text(tmp_path: Path, fmt: str) -> None:
    texts = ['say "hi", then leave', "a;b;c", "[not, a list]", "ünïcödé ✓", "  leading spaces"]
    if fmt != "tsv":
        texts.append("two\nlines,\tand a tab")
    frame = pl.DataFrame(
        {
            "query_id": ["q"] * len(texts),
            "query": ["x"] * len(texts),
            "doc_id": [f"d{i}" for i in range(len(texts))],
            "text": texts,
            "title": [None] * len(texts),
            "stratum": ["s"] * len(texts),
            "systems": [["bm25", "dense"]] * len(texts),
            "ranks": [[1, 2]] * len(texts),
        },
        schema=FRAME_SCHEMA,
    )
    out = tmp_path / f"p.{fmt}"
    write_pool(frame, out)
    assert load_pool(out).frame.equals(frame)
