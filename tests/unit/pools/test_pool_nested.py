"""The nested JSONL shape (docs/pools.md): one object per query, prior judgments, texts from a
corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goldset_tui.errors import InputError
from goldset_tui.io.pools import load_pool
from goldset_tui.model import GradeScale

# A published worked example of a pooled query, verbatim (pretty-printed). It has no candidates
# list: the judged documents are the candidates.
WORKED_EXAMPLE_POOL = """{
  "query_id": "q_0147",
  "query": "how do i rotate an api key",
  "stratum": "howto",
  "pool_depth": 20,
  "pooled_from": ["bm25", "bm25_synonyms", "dense_e5", "hybrid_rrf"],
  "judgments": {
    "api-keys/rotation": 3,
    "security/credential-rotation-policy": 2,
    "sdk/auth#refreshing-keys": 2,
    "api-keys/overview": 1,
    "changelog/2024-03": 0
  }
}
"""
WORKED_EXAMPLE_DOCS = [
    "api-keys/rotation",
    "security/credential-rotation-policy",
    "sdk/auth#refreshing-keys",
    "api-keys/overview",
    "changelog/2024-03",
]


@pytest.fixture
def beir_corpus(tmp_path: Path) -> Path:
    p = tmp_path / "corpus.jsonl"
    lines = [
        {"_id": d, "title": d.split("/")[0], "text": f"text of {d}", "metadata": {"source": "docs"}}
        for d in WORKED_EXAMPLE_DOCS + ["unrelated/doc"]
    ]
    p.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return p


def bad(path: Path, **kw) -> InputError:
    with pytest.raises(InputError) as info:
        load_pool(path, **kw)
    assert "\n" not in str(info.value) and str(path) in str(info.value)
    return info.value


@pytest.mark.parametrize("name", ["pooled.json", "pooled.jsonl"])
def test_worked_example_pool_with_corpus(tmp_path: Path, beir_corpus: Path, name: str) -> None:
    p = tmp_path / name
    p.write_text(
        WORKED_EXAMPLE_POOL
        if name.endswith(".json")
        else json.dumps(json.loads(WORKED_EXAMPLE_POOL)) + "\n"
    )
    pool = load_pool(p, corpus=beir_corpus)
    assert pool.shape == "nested"
    assert pool.frame.get_column("doc_id").to_list() == WORKED_EXAMPLE_DOCS
    assert pool.frame.get_column("text").to_list() == [f"text of {d}" for d in WORKED_EXAMPLE_DOCS]
    assert pool.frame.get_column("title").to_list() == [
        d.split("/")[0] for d in WORKED_EXAMPLE_DOCS
    ]
    assert set(pool.frame.get_column("stratum")) == {"howto"}
    assert pool.prior.to_dicts() == [
        {"query_id": "q_0147", "doc_id": d, "grade": g}
        for d, g in zip(WORKED_EXAMPLE_DOCS, [3, 2, 2, 1, 0], strict=True)
    ]
    assert pool.prior_labeller == "prior"
    assert pool.meta == {
        "q_0147": {
            "pool_depth": 20,
            "pooled_from": ["bm25", "bm25_synonyms", "dense_e5", "hybrid_rrf"],
        }
    }
    assert pool.systems() == ["bm25", "bm25_synonyms", "dense_e5", "hybrid_rrf"]


def test_worked_example_pool_without_corpus_names_the_missing_ids(tmp_path: Path) -> None:
    p = tmp_path / "pooled.json"
    p.write_text(WORKED_EXAMPLE_POOL)
    e = bad(p)
    assert e.column == "text" and "no text for 5 documents" in e.message
    # the first few ids, then how many more
    assert "'api-keys/rotation'" in e.message and "'changelog/2024-03'" in e.message


def test_candidates_mixed_strings_and_objects(tmp_path: Path, beir_corpus: Path) -> None:
    p = tmp_path / "n.jsonl"
    objs = [
        {
            "query_id": "q1",
            "query": "rotate key",
            "candidates": [
                "api-keys/rotation",
                {
                    "doc_id": "own",
                    "text": "its own text",
                    "title": "T",
                    "systems": ["bm25", "dense"],
                    "ranks": [2, 1],
                },
            ],
            "judgments": {"api-keys/rotation": 2},
        },
        {"query_id": 7, "query": "numeric id", "candidates": ["api-keys/overview"]},
    ]
    p.write_text("\n".join(json.dumps(o) for o in objs) + "\n")
    pool = load_pool(p, corpus=beir_corpus)
    f = pool.frame
    assert f.get_column("query_id").to_list() == ["q1", "q1", "7"]
    assert f.get_column("text").to_list() == [
        "text of api-keys/rotation",
        "its own text",
        "text of api-keys/overview",
    ]
    assert f.get_column("systems").to_list() == [None, ["bm25", "dense"], None]
    assert f.get_column("ranks").to_list() == [None, [2, 1], None]
    assert pool.prior.height == 1


def test_corpus_does_not_override_the_pools_own_text(tmp_path: Path, beir_corpus: Path) -> None:
    p = tmp_path / "n.jsonl"
    p.write_text(
        json.dumps(
            {
                "query_id": "q",
                "query": "x",
                "candidates": [{"doc_id": "api-keys/rotation", "text": "mine"}],
            }
        )
        + "\n"
    )
    assert load_pool(p, corpus=beir_corpus).frame.get_column("text").to_list() == ["mine"]


@pytest.mark.parametrize("grade", [4, -1, 2.5, "2", True])
def test_prior_grade_outside_scale(tmp_path: Path, grade) -> None:
    p = tmp_path / "n.jsonl"
    good = {"query_id": "a", "query": "x", "candidates": [{"doc_id": "d", "text": "t"}]}
    badq = {
        "query_id": "b",
        "query": "y",
        "candidates": [{"doc_id": "d", "text": "t"}],
        "judgments": {"d": grade},
    }
    p.write_text(json.dumps(good) + "\n" + json.dumps(badq) + "\n")
    e = bad(p)
    assert (e.line, e.column) == (2, "judgments") and "outside the scale 0-3" in e.message


def test_scale_is_respected(tmp_path: Path) -> None:
    p = tmp_path / "n.jsonl"
    p.write_text(
        json.dumps(
            {
                "query_id": "a",
                "query": "x",
                "candidates": [{"doc_id": "d", "text": "t"}],
                "judgments": {"d": 4},
            }
        )
        + "\n"
    )
    assert load_pool(p, scale=GradeScale.from_range(0, 4)).prior.get_column("grade").to_list() == [
        4
    ]
    assert "0-1" in bad(p, scale=GradeScale.from_range(0, 1)).message


@pytest.mark.parametrize(
    ("obj", "column", "words"),
    [
        ({"query": "x", "candidates": ["d"]}, "query_id", "query_id"),
        ({"query_id": "", "query": "x", "candidates": ["d"]}, "query_id", "query_id"),
        ({"query_id": "q", "query": "  ", "candidates": ["d"]}, "query", "non-empty"),
        ({"query_id": "q", "query": "x"}, "candidates", "neither"),
        ({"query_id": "q", "query": "x", "candidates": []}, "candidates", "no candidates"),
        ({"query_id": "q", "query": "x", "candidates": "d1"}, "candidates", "list"),
        ({"query_id": "q", "query": "x", "candidates": [{"text": "t"}]}, "doc_id", "candidate 1"),
        ({"query_id": "q", "query": "x", "candidates": ["d", ""]}, "doc_id", "candidate 2"),
        (
            {"query_id": "q", "query": "x", "candidates": [{"doc_id": "d", "text": 5}]},
            "text",
            "text",
        ),
        (
            {"query_id": "q", "query": "x", "candidates": [{"doc_id": "d", "ranks": ["1"]}]},
            "ranks",
            "whole numbers",
        ),
        (
            {"query_id": "q", "query": "x", "pool_depth": 0, "candidates": ["d"]},
            "pool_depth",
            "positive",
        ),
        (
            {"query_id": "q", "query": "x", "pooled_from": "bm25", "candidates": ["d"]},
            "pooled_from",
            "list",
        ),
        ({"query_id": "q", "query": "x", "judgments": ["d"]}, "judgments", "map"),
    ],
)
def test_bad_query_objects(tmp_path: Path, obj: dict, column: str, words: str) -> None:
    p = tmp_path / "n.jsonl"
    first = {"query_id": "ok", "query": "fine", "candidates": [{"doc_id": "d", "text": "t"}]}
    p.write_text(json.dumps(first) + "\n\n" + json.dumps(obj) + "\n")
    e = bad(p)
    assert (e.line, e.column) == (3, column)
    assert words in e.message


def test_query_given_twice(tmp_path: Path) -> None:
    p = tmp_path / "n.jsonl"
    obj = {"query_id": "q", "query": "x", "candidates": [{"doc_id": "d", "text": "t"}]}
    p.write_text(json.dumps(obj) + "\n" + json.dumps(obj) + "\n")
    e = bad(p)
    assert (e.line, e.column) == (2, "query_id") and "line 1" in e.message


def test_document_twice_in_one_query(tmp_path: Path) -> None:
    p = tmp_path / "n.jsonl"
    obj = {
        "query_id": "q",
        "query": "x",
        "candidates": [{"doc_id": "d", "text": "t"}, {"doc_id": "d", "text": "u"}],
    }
    p.write_text(json.dumps(obj) + "\n")
    e = bad(p)
    assert "1 duplicate (query_id, doc_id) row" in e.message and e.line == 1


def test_json_that_does_not_parse_names_line(tmp_path: Path) -> None:
    p = tmp_path / "n.jsonl"
    good = json.dumps({"query_id": "q", "query": "x", "candidates": [{"doc_id": "d", "text": "t"}]})
    p.write_text(good + "\n" + good.replace('"q"', '"r"') + "\n" + '{"query_id": "z", "query": \n')
    e = bad(p)
    assert "JSON does not parse" in e.message and e.line == 3


def test_pretty_printed_objects_one_after_another_keep_their_lines(tmp_path: Path) -> None:
    p = tmp_path / "n.json"
    one = json.dumps(
        {"query_id": "a", "query": "x", "candidates": [{"doc_id": "d", "text": "t"}]}, indent=2
    )
    two = json.dumps(
        {"query_id": "b", "query": "y", "candidates": [{"doc_id": "d", "text": " "}]}, indent=2
    )
    p.write_text(one + "\n" + two + "\n")
    e = bad(p)
    assert (
        e.column == "text" and e.line == one.count("\n") + 2
    )  # the line the second object starts on


def test_not_utf8(tmp_path: Path) -> None:
    p = tmp_path / "n.json"
    p.write_bytes(b'{"query_id": "q",\n "query": "\xff", "candidates": ["d"]}\n')
    e = bad(p)
    assert "UTF-8" in e.message and e.line == 2


def test_array_or_scalar_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "n.json"
    p.write_text('[{"query_id": "q", "query": "x", "candidates": ["d"]}]\n')
    assert "expected a JSON object per query" in bad(p).message
