"""TREC run and qrels readers: formats trec_eval accepts, its ordering, and one-line errors."""

from __future__ import annotations

import gzip
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.errors import InputError
from goldset_tui.io.trec import read_qrels, read_run, write_qrels, write_run


def write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    p = tmp_path / name
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return p


def error(reader, path: Path) -> InputError:
    with pytest.raises(InputError) as info:
        reader(path)
    text = str(info.value)
    assert "\n" not in text and str(path) in text
    return info.value


def test_run_is_ranked_as_trec_eval_ranks_it(tmp_path):
    # The file's rank column is ignored; ties on score go to the larger document id first.
    p = write(
        tmp_path, "r.txt", "q1 Q0 a 1 1.0 t\nq1 Q0 c 2 1.0 t\nq1 Q0 b 3 2.0 t\nq0 Q0 z 9 0.1 t\n"
    )
    run = read_run(p)
    assert run.schema == pl.Schema(
        {
            "query_id": pl.String,
            "doc_id": pl.String,
            "score": pl.Float64,
            "rank": pl.Int64,
            "tag": pl.String,
        }
    )
    assert run.select("query_id", "doc_id", "rank").rows() == [
        ("q0", "z", 1),
        ("q1", "b", 1),
        ("q1", "c", 2),
        ("q1", "a", 3),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "q1\tQ0\td1\t1\t2.5\ttag\n",  # tabs
        "  q1   Q0  d1 1    2.5 tag  \n",  # padded, several spaces
        "q1 Q0\td1 1\t 2.5 tag\r\n",  # mixed, CRLF
        "# a comment\n\nq1 Q0 d1 1 2.5 tag\n\n",  # comment and blank lines
        "q1 Q0 d1 1 2.5e0 tag",  # no final newline, exponent
    ],
)
def test_run_whitespace_layouts(tmp_path, text):
    run = read_run(write(tmp_path, "r.txt", text))
    assert run.select("query_id", "doc_id", "score", "rank", "tag").rows() == [
        ("q1", "d1", 2.5, 1, "tag")
    ]


def test_gzipped_files_read_as_they_are(tmp_path):
    run = write(tmp_path, "run.anything", gzip.compress(b"q Q0 d 1 1 t\nq Q0 e 2 3 t\n"))
    qrels = write(tmp_path, "qrels.gz", gzip.compress(b"q 0 d 1\nq 0 e -1\n"))
    assert read_run(run).get_column("doc_id").to_list() == ["e", "d"]
    assert read_qrels(qrels).rows() == [("q", "d", 1), ("q", "e", -1)]


def test_very_long_ids_survive(tmp_path):
    doc = "d" * 5000 + "#é"
    run = read_run(write(tmp_path, "r.txt", f"q Q0 {doc} 1 1 t\n"))
    assert run.get_column("doc_id").item() == doc


def test_qrels_repeated_identical_judgment_is_kept_once(tmp_path):
    q = read_qrels(write(tmp_path, "q.txt", "q 0 d 1\nq 0 d 1\nq 0 e 0\n"))
    assert q.rows() == [("q", "d", 1), ("q", "e", 0)]


@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        ("q Q0 d 1 1.0 t\nq Q0 e 2 1.0\n", 2, None, "expected 6"),
        ("q Q0 d 1 1.0 t\nq Q0 e 2 1.0 t extra\n", 2, None, "found 7"),
        ("q Q0 d 1 1.0 t\nq Q0 e 2 high t\n", 2, "score", "'high' is not a number"),
        # nan and inf parse as floats but give no order: refused, line named
        (
            "q Q0 d 1 1.0 t\nq Q0 e 2 0.5 t\nq Q0 f 3 nan t\n",
            3,
            "score",
            "'nan' is not a finite number",
        ),
        ("q Q0 d 1 -inf t\nq Q0 e 2 0.5 t\n", 1, "score", "'-inf' is not a finite number"),
        ("q Q0 d 1 1.0 t\n\nq Q0 e 2 0.5 t\nq Q0 d 3 0.1 t\n", 4, "doc_id", "appears twice"),
        ("q\tQ0 d 1 1.0 t\nq Q0 e 2 1.0 t\nq Q0 d 3 0.1 t\n", 3, "doc_id", "first on line 1"),
    ],
)
def test_bad_run_lines(tmp_path, text, line, column, words):
    e = error(read_run, write(tmp_path, "run.txt", text))
    assert (e.line, e.column) == (line, column)
    assert words in e.message


@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        ("q 0 d 1\nq 0 e\n", 2, None, "expected 4"),
        ("q 0 d 1\nq 0 e high\n", 2, "grade", "'high' is not an integer"),
        ("q 0 d 1\nq 0 e 1.5\n", 2, "grade", "not an integer"),
        ("q 0 d 1\nq 0 d 1\nq 0 e 0\nq 0 e 2\n", 4, "doc_id", "two different grades"),
    ],
)
def test_bad_qrels_lines(tmp_path, text, line, column, words):
    e = error(read_qrels, write(tmp_path, "qrels.txt", text))
    assert (e.line, e.column) == (line, column)
    assert words in e.message


def test_not_utf8_names_the_line(tmp_path):
    e = error(read_run, write(tmp_path, "r.txt", b"q Q0 d 1 1 t\nq Q0 \xff\xfe 2 1 t\n"))
    assert e.line == 2 and "UTF-8" in e.message


@pytest.mark.parametrize("data", [b"", b"\n\n# only a comment\n"])
def test_empty_files(tmp_path, data):
    e = error(read_qrels, write(tmp_path, "q.txt", data))
    assert "empty" in e.message or "no records" in e.message


def test_missing_file_and_directory(tmp_path):
    assert "no such file" in error(read_run, tmp_path / "nope.txt").message
    assert "directory" in error(read_run, tmp_path).message


def test_corrupt_gzip(tmp_path):
    e = error(read_run, write(tmp_path, "r.gz", b"\x1f\x8b\x08garbage"))
    assert "gzip" in e.message


def test_write_read_round_trip(tmp_path):
    run = pl.DataFrame(
        {"query_id": ["2", "1", "1"], "doc_id": ["x", "a", "b"], "score": [0.1, 1 / 3, 1 / 3]}
    )
    write_run(run, tmp_path / "r.txt", tag="mine")
    lines = (tmp_path / "r.txt").read_text().splitlines()
    assert lines[0].split() == ["1", "Q0", "b", "1", str(1 / 3), "mine"]
    back = read_run(tmp_path / "r.txt")
    assert back.select("query_id", "doc_id", "rank").rows() == [
        ("1", "b", 1),
        ("1", "a", 2),
        ("2", "x", 1),
    ]
    assert back.get_column("score").to_list() == [1 / 3, 1 / 3, 0.1]  # full precision kept

    qrels = pl.DataFrame({"query_id": ["b", "a"], "doc_id": ["d", "e"], "grade": [2, -1]})
    write_qrels(qrels, tmp_path / "q.txt")
    assert (tmp_path / "q.txt").read_text() == "a 0 e -1\nb 0 d 2\n"
    assert read_qrels(tmp_path / "q.txt").rows() == [("a", "e", -1), ("b", "d", 2)]


def test_peer_files_read(peers):
    te = peers / "trec_eval"
    # Comment lines are skipped; a '#' inside a document id is part of the id.
    commented = read_qrels(te / "qrels.test.with-comments")
    plain = read_qrels(te / "qrels.test")
    assert commented.height == plain.height
    assert commented.filter(pl.col("doc_id") == "CR#93E-1860").height == 1
    run = read_run(te / "results.test")  # tab and space padded
    assert run.height == 1500 and run.get_column("query_id").unique().sort().to_list() == [
        "301",
        "302",
        "303",
    ]
    robust = read_run(peers / "trectools" / "input.uic0301.gz")
    assert robust.height == 99_969  # `zcat | wc -l`: a few topics have fewer than 1,000 lines


def test_ranks_equal_a_plain_python_sort_in_trec_eval_order():
    import random

    rnd = random.Random(4)
    rows = [
        (
            f"q{rnd.randint(1, 5)}",
            f"d{i:03d}{rnd.choice('abc')}",
            rnd.choice([0.5, 1.0, 1.0, 2.0, -3.0]),
        )
        for i in range(400)
    ]
    run = pl.DataFrame(
        rows, schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}, orient="row"
    )
    expected = {}
    for q in {r[0] for r in rows}:
        # strcmp order on ASCII ids: score descending, then document id descending.
        ordered = sorted((r for r in rows if r[0] == q), key=lambda r: (r[2], r[1]), reverse=True)
        expected |= {(q, d): rank for rank, (_, d, _) in enumerate(ordered, 1)}
    from goldset_tui.io.trec import rank_run

    unordered = rank_run(run, order=False)
    assert {(q, d): r for q, d, _, r in unordered.rows()} == expected
    ordered = rank_run(run)
    assert ordered.select("query_id", "rank").rows() == sorted(
        ordered.select("query_id", "rank").rows()
    )


@pytest.mark.parametrize("tag", [True, False], ids=["with_tag", "tag_not_kept"])
@pytest.mark.parametrize(
    "text",
    [
        "q Q0 d 1 1.0 t\nq Q0 e 2 0.5\n",  # no tag: the field not kept is still required
        "q Q0 d 1 1.0 t\nq  e 2 0.5 t\n",  # no Q0 (two spaces: an empty field, not a field)
        "q Q0 d 1 1.0 t\nq Q0 e  0.5 t\n",  # no rank
    ],
    ids=["no_tag", "no_q0", "no_rank"],
)
def test_five_field_run_line_is_an_error_whatever_is_kept(tmp_path, text, tag):
    # read_run(tag=False) once accepted a line without its sixth field: the fast path only
    # checked the columns it kept.
    e = error(lambda p: read_run(p, tag=tag, order=False), write(tmp_path, "run.txt", text))
    assert e.line == 2
    assert "expected 6" in e.message and "found 5" in e.message
    assert e.path == tmp_path / "run.txt"
