"""Corpus files supply texts to a pool that lists only ids."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.errors import InputError
from goldset_tui.io.corpus import read_corpus
from goldset_tui.io.pools import load_pool

IDS_ONLY = [{"query_id": "q", "query": "x", "doc_id": f"d{i}"} for i in range(1, 4)]


def corpus_file(tmp_path: Path, fmt: str, docs: dict[str, str]) -> Path:
    p = tmp_path / f"corpus.{fmt}"
    if fmt == "jsonl":  # BEIR
        p.write_text(
            "".join(
                json.dumps({"_id": d, "title": f"T{d}", "text": t}) + "\n" for d, t in docs.items()
            )
        )
    elif fmt == "parquet":
        pl.DataFrame({"doc_id": list(docs), "text": list(docs.values())}).write_parquet(p)
    else:
        p.write_text("doc_id\ttext\n" + "".join(f"{d}\t{t}\n" for d, t in docs.items()))
    return p


@pytest.mark.parametrize("fmt", ["jsonl", "tsv", "parquet"])
def test_ids_only_pool_takes_texts_from_corpus(tmp_path: Path, write_rows, fmt: str) -> None:
    corpus = corpus_file(
        tmp_path, fmt, {"d3": "three", "d1": "one", "d2": "two", "other": "never pooled"}
    )
    pool = load_pool(write_rows("p.csv", IDS_ONLY), corpus=corpus)
    assert pool.frame.get_column("text").to_list() == ["one", "two", "three"]  # pool order kept
    titles = pool.frame.get_column("title").to_list()
    assert titles == (["Td1", "Td2", "Td3"] if fmt == "jsonl" else [None, None, None])


def test_missing_texts_are_named_first_few_and_counted(tmp_path: Path, write_rows) -> None:
    rows = [{"query_id": "q", "query": "x", "doc_id": f"d{i}"} for i in range(1, 10)]
    corpus = corpus_file(tmp_path, "tsv", {"d1": "one", "d2": "two"})
    with pytest.raises(InputError) as info:
        load_pool(write_rows("p.csv", rows), corpus=corpus)
    e = info.value
    assert "no text for 7 documents" in e.message and str(corpus) in e.message
    assert "'d3', 'd4', 'd5', 'd6', 'd7' and 2 more" in e.message
    assert (e.line, e.column) == (4, "text")  # d3 is the third data row


def test_blank_pool_text_is_filled_but_blank_corpus_text_is_missing(
    tmp_path: Path, write_rows
) -> None:
    rows = [dict(r, text="") for r in IDS_ONLY]
    corpus = corpus_file(tmp_path, "jsonl", {"d1": "one", "d2": "two", "d3": "  "})
    with pytest.raises(InputError) as info:
        load_pool(write_rows("p.jsonl", rows), corpus=corpus)
    assert "no text for 1 document " in info.value.message and "'d3'" in info.value.message


def test_corpus_with_a_document_twice(tmp_path: Path) -> None:
    p = tmp_path / "c.tsv"
    p.write_text("doc_id\ttext\nd1\tone\nd2\ttwo\nd1\tagain\n")
    with pytest.raises(InputError) as info:
        read_corpus(p)
    assert (info.value.line, info.value.column) == (4, "doc_id") and "line 2" in info.value.message


def test_corpus_without_text_column(tmp_path: Path) -> None:
    p = tmp_path / "c.jsonl"
    p.write_text('{"_id": "d1", "body": "x"}\n')
    with pytest.raises(InputError) as info:
        read_corpus(p)
    assert info.value.column == "text"


def test_corpus_filter_keeps_only_asked_ids(tmp_path: Path) -> None:
    corpus = corpus_file(tmp_path, "jsonl", {"a": "1", "b": "2", "c": "3"})
    got = read_corpus(corpus, ids=pl.Series(["c", "a", "zz"]))
    assert sorted(got.get_column("doc_id").to_list()) == ["a", "c"]


@pytest.mark.parametrize("fmt", ["jsonl", "tsv", "parquet"])
def test_lazy_scan_and_whole_read_agree(tmp_path: Path, fmt: str) -> None:
    corpus = corpus_file(tmp_path, fmt, {f"d{i}": f"text {i}" for i in range(50)})
    ids = pl.Series(["d7", "d3", "missing", "d49"])
    lazy = read_corpus(corpus, ids=ids).sort("doc_id")
    whole = read_corpus(corpus).filter(pl.col("doc_id").is_in(ids.implode())).sort("doc_id")
    assert lazy.equals(whole) and lazy.get_column("doc_id").to_list() == ["d3", "d49", "d7"]


def test_duplicate_among_needed_documents_names_the_line(tmp_path: Path) -> None:
    p = tmp_path / "c.jsonl"
    p.write_text("".join(json.dumps({"_id": d, "text": d}) + "\n" for d in ["a", "b", "c", "b"]))
    with pytest.raises(InputError) as info:
        read_corpus(p, ids=pl.Series(["b"]))
    assert (info.value.line, info.value.column) == (4, "doc_id") and "line 2" in info.value.message


def test_broken_corpus_line_is_named_even_on_the_lazy_path(tmp_path: Path, write_rows) -> None:
    p = tmp_path / "c.jsonl"
    p.write_text(
        '{"_id": "d1", "text": "one"}\n{"_id": "d2", "text": \n{"_id": "d3", "text": "three"}\n'
    )
    with pytest.raises(InputError) as info:
        load_pool(write_rows("p.csv", IDS_ONLY), corpus=p)
    assert str(p) in str(info.value) and info.value.line == 2 and "JSON" in info.value.message


def test_corpus_jsonl_with_doc_id_key(tmp_path: Path, write_rows) -> None:
    p = tmp_path / "c.jsonl"
    p.write_text(
        "".join(json.dumps({"doc_id": f"d{i}", "text": f"t{i}"}) + "\n" for i in range(1, 4))
    )
    assert load_pool(write_rows("p.csv", IDS_ONLY), corpus=p).frame.get_column(
        "text"
    ).to_list() == ["t1", "t2", "t3"]
