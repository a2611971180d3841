"""`goldset pool` and `goldset check` run in-process: output files, printed numbers, bad input."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.io.pools import load_pool

# The hand-checked example of test_pooling_trec_order, as TREC run files. The rank column is
# deliberately wrong (it says d5 is first): trec_eval ignores it and so must we.
BM25_RUN = """\
q1 Q0 d5 1 1.0 bm25
q1 Q0 d1 2 2.0 bm25
q1 Q0 d3 3 1.5 bm25
q1 Q0 d2 4 2 bm25
q1 Q0 d4 5 1.5 bm25
q2 Q0 10 1 1.0 bm25
q2 Q0 9 2 1.0 bm25
q2 Q0 100 3 1.0 bm25
q3 Q0 d1 1 1.0 bm25
"""
DENSE_RUN = """\
q1\tQ0\td1\t1\t0.8\tdense
q1\tQ0\td2\t2\t0.1\tdense
q1\tQ0\td4\t3\t0.9\tdense
q1\tQ0\td6\t4\t0.9\tdense
"""
# Topics list q2 first: the pool follows the topics' order. q9 has no run results; q3 is in a
# run but not a topic.
TOPICS = "q2\tsecond query\tshort\nq1\tfirst query\thowto\nq9\tnobody ran me\thowto\n"
DOCS = ["d1", "d2", "d3", "d4", "d5", "d6", "9", "10", "100"]
# Expected pool, worked out by hand (see test_pooling_trec_order for the reasoning).
EXPECTED = [
    ["q2", "9", "bm25", "1"],
    ["q2", "100", "bm25", "2"],
    ["q2", "10", "bm25", "3"],
    ["q1", "d2", "bm25", "1"],
    ["q1", "d6", "dense", "1"],
    ["q1", "d1", "bm25;dense", "2;3"],
    ["q1", "d4", "bm25;dense", "3;2"],
]


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, Path]:
    files = {
        "bm25": (tmp_path / "bm25.run", BM25_RUN),
        "dense": (tmp_path / "dense.run", DENSE_RUN),
        "topics": (tmp_path / "topics.tsv", TOPICS),
        "corpus": (
            tmp_path / "corpus.jsonl",
            "".join(json.dumps({"_id": d, "title": "", "text": f"text {d}"}) + "\n" for d in DOCS),
        ),
    }
    for path, text in files.values():
        path.write_text(text, encoding="utf-8")
    return {k: v[0] for k, v in files.items()}


def pool_args(inputs: dict[str, Path], out: Path, *extra: str) -> list[str]:
    return [
        "pool",
        "--run",
        f"bm25={inputs['bm25']}",
        "--run",
        f"dense={inputs['dense']}",
        "--depth",
        "3",
        "--topics",
        str(inputs["topics"]),
        "--corpus",
        str(inputs["corpus"]),
        "-o",
        str(out),
        *extra,
    ]


def one_line_error(status: int, out: str, err: str) -> str:
    assert status == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("goldset: error: ") and "Traceback" not in err
    return lines[0]


def test_pool_hand_checked_csv(tmp_path: Path, inputs, cli) -> None:
    out = tmp_path / "pool.csv"
    status, stdout, stderr = cli(*pool_args(inputs, out))
    assert status == 0
    with out.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [[r["query_id"], r["doc_id"], r["systems"], r["ranks"]] for r in rows] == EXPECTED
    assert {r["query"] for r in rows if r["query_id"] == "q1"} == {"first query"}
    assert [r["stratum"] for r in rows] == ["short"] * 3 + ["howto"] * 4
    assert all(r["text"] == f"text {r['doc_id']}" for r in rows)
    # Per query: pool size, what the runs put forward, depth x systems (3 x 2), the share saved.
    lines = stdout.splitlines()
    assert lines[1].split() == ["q2", "3", "3", "6", "0%"]
    assert lines[2].split() == ["q1", "4", "6", "6", "33%"]
    # Overall: 7 candidates from 9 put forward (3 + 6); 1 - 7/9 = 22% saved; 2 queries x 6 = 12 at most.
    assert "2 queries, 7 candidates, from 2 systems (bm25, dense) at depth 3" in stdout
    assert "min 3, median 3.5, max 4" in stdout
    assert (
        "overall: 7 candidates where the runs put forward 9 (12 at most); overlap saves 22%"
        in stdout
    )
    assert "'q3'" in stderr and "'q9'" in stderr  # left out / empty, said on stderr
    assert "\r" not in stderr  # no progress line when stderr is not a terminal


@pytest.mark.parametrize("fmt", ["parquet", "jsonl", "tsv"])
def test_pool_every_output_format_loads_back(tmp_path: Path, inputs, cli, fmt: str) -> None:
    out = tmp_path / f"pool.{fmt}"
    assert cli(*pool_args(inputs, out))[0] == 0
    frame = load_pool(out).frame
    got = [
        [q, d, ";".join(s), ";".join(map(str, r))]
        for q, d, s, r in frame.select("query_id", "doc_id", "systems", "ranks").rows()
    ]
    assert got == EXPECTED
    assert (
        frame.get_column("title").null_count() == frame.height
    )  # blank corpus titles are no title


def test_pool_without_corpus_lists_ids_and_check_needs_corpus(tmp_path: Path, inputs, cli) -> None:
    out = tmp_path / "ids.parquet"
    args = pool_args(inputs, out)
    i = args.index("--corpus")
    del args[i : i + 2]
    status, _, stderr = cli(*args)
    assert status == 0 and "--corpus" in stderr
    assert "text" not in pl.read_parquet(out).columns
    line = one_line_error(*cli("check", out))
    assert "column 'text'" in line and "--corpus" in line
    status, stdout, _ = cli("check", out, "--corpus", inputs["corpus"])
    assert status == 0 and "candidates:  7" in stdout


def test_pool_with_beir_topics(tmp_path: Path, inputs, cli) -> None:
    topics = tmp_path / "queries.jsonl"
    topics.write_text(
        '{"_id": "q1", "text": "first query", "metadata": {}}\n{"_id": "q2", "text": "second query"}\n'
    )
    inputs["topics"] = topics
    out = tmp_path / "pool.jsonl"
    assert cli(*pool_args(inputs, out))[0] == 0
    assert load_pool(out).queries().get_column("query_id").to_list() == ["q1", "q2"]


def test_topics_tsv_header_is_skipped(tmp_path: Path, inputs, cli) -> None:
    inputs["topics"].write_text("qid\ttext\nq1\tfirst query\n")
    out = tmp_path / "pool.csv"
    assert cli(*pool_args(inputs, out))[0] == 0
    assert load_pool(out).queries().get_column("query_id").to_list() == ["q1"]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"run": "bm25"}, "NAME=PATH"),
        ({"run": "bm 25=x.run"}, "system name"),
        ({"depth": "0"}, "--depth"),
        ({"out": "pool.xlsx"}, "unknown file type"),
        ({"out": "missing-dir/pool.csv"}, "folder"),
    ],
)
def test_pool_bad_arguments(tmp_path: Path, inputs, cli, change: dict, words: str) -> None:
    args = pool_args(inputs, tmp_path / change.get("out", "pool.csv"))
    if "run" in change:
        args[args.index("--run") + 1] = change["run"]
    if "depth" in change:
        args[args.index("--depth") + 1] = change["depth"]
    assert words in one_line_error(*cli(*args))


def test_pool_same_name_twice(tmp_path: Path, inputs, cli) -> None:
    args = pool_args(inputs, tmp_path / "p.csv")
    args[args.index("--run", 2) + 1] = f"bm25={inputs['dense']}"
    assert "given twice" in one_line_error(*cli(*args))


@pytest.mark.parametrize(
    ("run_text", "line"),
    [
        ("q1 Q0 d1 1 1.0 bm25\nq1 Q0 d2 2 bm25\n", 2),  # a field missing
        ("q1 Q0 d1 1 1.0 bm25\nq1 Q0 d2 2 high bm25\n", 2),  # score not a number
        ("q1 Q0 d1 1 1.0 bm25\nq1 Q0 d2 2 0.5 bm25\nq1 Q0 d1 3 0.2 bm25\n", 3),  # document twice
    ],
)
def test_pool_malformed_run_names_file_and_line(
    tmp_path: Path, inputs, cli, run_text: str, line: int
) -> None:
    inputs["dense"].write_text(run_text)
    out = tmp_path / "p.csv"
    message = one_line_error(*cli(*pool_args(inputs, out)))
    assert f"{inputs['dense']}:{line}" in message
    assert not out.exists()


def test_pool_missing_corpus_text_names_ids(tmp_path: Path, inputs, cli) -> None:
    inputs["corpus"].write_text(json.dumps({"_id": "d1", "text": "one"}) + "\n")
    out = tmp_path / "p.csv"
    message = one_line_error(*cli(*pool_args(inputs, out)))
    assert str(inputs["corpus"]) in message and "no text for 6 pooled documents" in message
    assert not out.exists()


def test_pool_topics_that_match_no_run(tmp_path: Path, inputs, cli) -> None:
    inputs["topics"].write_text("x1\tnothing\n")
    assert "no query of the runs is in the topics file" in one_line_error(
        *cli(*pool_args(inputs, tmp_path / "p.csv"))
    )


@pytest.mark.parametrize(
    ("topics", "words", "line"),
    [
        ("q1\tone\nq1\tagain\n", "listed twice", 2),
        ("q1\tone\nq2\n", "qid<TAB>text", 2),
        ("q1\tone\nq2\t \n", "query", 2),
    ],
)
def test_pool_bad_topics(tmp_path: Path, inputs, cli, topics: str, words: str, line: int) -> None:
    inputs["topics"].write_text(topics)
    message = one_line_error(*cli(*pool_args(inputs, tmp_path / "p.csv")))
    assert words in message and f"{inputs['topics']}:{line}" in message


# --- goldset check -----------------------------------------------------------------------------


def test_check_summarises_the_pool(tmp_path: Path, inputs, cli) -> None:
    out = tmp_path / "pool.parquet"
    cli(*pool_args(inputs, out))
    status, stdout, stderr = cli("check", out)
    assert status == 0 and stderr == ""
    lines = stdout.splitlines()
    assert "queries:     2" in lines and "candidates:  7" in lines
    assert "per query:   min 3, median 3.5, max 4" in lines
    # strata: howto 1 query with 4 candidates, short 1 query with 3
    assert any(line.split() == ["howto", "1", "4"] for line in lines)
    assert any(line.split() == ["short", "1", "3"] for line in lines)
    # systems: bm25 put 6 in the pool (4 alone: d2, 9, 100, 10), dense 3 (1 alone: d6)
    assert any(line.split() == ["bm25", "6", "4"] for line in lines)
    assert any(line.split() == ["dense", "3", "1"] for line in lines)
    assert any(
        "depth 3 x 2 systems = 6 a query at most, 12 in all; the pool has 7 of 9" in line
        and "saves 22%" in line
        for line in lines
    )
    assert lines[-1] == "ok: the pool is valid"


def test_check_nested_with_prior(tmp_path: Path, inputs, cli) -> None:
    p = tmp_path / "n.jsonl"
    p.write_text(
        json.dumps(
            {
                "query_id": "q1",
                "query": "x",
                "pool_depth": 20,
                "pooled_from": ["a", "b", "c", "d"],
                "judgments": {"d1": 3, "d2": 0, "d4": 3},
            }
        )
        + "\n"
    )
    status, stdout, _ = cli("check", p, "--corpus", inputs["corpus"])
    assert status == 0
    assert "prior:       3 grades on 1 queries, imported as labeller 'prior' (0: 1, 3: 2)" in stdout
    assert "depth 20 x 4 systems = 80 a query at most" in stdout


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("query_id,query,doc_id,text\nq,x,d,t\nq,x,d,u\n", "1 duplicate"),
        ("query_id,query,doc_id,text\nq,x,,t\n", "doc_id"),
        ("query_id,query,doc_id,text\nq,x,d,t,extra\n", "ragged"),
    ],
)
def test_check_bad_pool_is_one_line(tmp_path: Path, cli, content: str, words: str) -> None:
    p = tmp_path / "p.csv"
    p.write_text(content)
    assert words in one_line_error(*cli("check", p))


def test_check_prior_grade_outside_given_scale(tmp_path: Path, inputs, cli) -> None:
    p = tmp_path / "n.jsonl"
    p.write_text(json.dumps({"query_id": "q1", "query": "x", "judgments": {"d1": 3}}) + "\n")
    assert "outside the scale 0-2" in one_line_error(
        *cli("check", p, "--corpus", inputs["corpus"], "--scale", "0-2")
    )
    assert "--scale" in one_line_error(*cli("check", p, "--scale", "three"))


def test_check_shows_ids_with_control_characters_safely(tmp_path: Path, cli) -> None:
    p = tmp_path / "p.jsonl"
    p.write_text(
        json.dumps(
            {
                "query_id": "q",
                "query": "x",
                "doc_id": "d",
                "text": "t",
                "stratum": "evil\u001b[31m",
                "systems": ["s"],
                "ranks": [1],
            }
        )
        + "\n"
    )
    status, stdout, _ = cli("check", p)
    assert status == 0 and "\x1b" not in stdout and "\u241b" in stdout


def test_many_queries_print_a_summary_unless_per_query(tmp_path: Path, inputs, cli) -> None:
    many = "".join(f"m{i}\tquery {i}\n" for i in range(45))
    inputs["topics"].write_text(many)
    inputs["bm25"].write_text("".join(f"m{i} Q0 d1 1 1.0 bm25\n" for i in range(45)))
    out = tmp_path / "p.csv"
    status, stdout, _ = cli(*pool_args(inputs, out))
    assert status == 0 and "add --per-query" in stdout and "m44" not in stdout
    status, stdout, _ = cli(*pool_args(inputs, out, "--per-query"))
    assert status == 0 and sum(line.startswith("m") for line in stdout.splitlines()) == 45


def test_pool_names_the_first_bad_run_in_command_order(tmp_path: Path, inputs, cli) -> None:
    # Runs are read two at a time; the error is still the first run's, as if read in turn,
    # even when the second run is small and fails first.
    inputs["bm25"].write_text(
        "".join(f"q1 Q0 d{i} {i} {i / 1000} bm25\n" for i in range(20_000)) + "q1 Q0 x 1 bm25\n"
    )
    inputs["dense"].write_text("q1 Q0 d1 1 high dense\n")
    message = one_line_error(*cli(*pool_args(inputs, tmp_path / "p.csv")))
    assert f"{inputs['bm25']}:20001" in message and str(inputs["dense"]) not in message
    inputs["bm25"].write_text(BM25_RUN)
    message = one_line_error(*cli(*pool_args(inputs, tmp_path / "p.csv")))
    assert f"{inputs['dense']}:1" in message
