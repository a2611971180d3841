"""`goldset check` says when ids begin or end with whitespace: " q1" and "q1" were accepted as
two queries without a word, and only `goldset qrels`, after the judging, refused them."""

from __future__ import annotations

from goldset_tui.cli import main

ROWS = (
    '{"query_id": " q1", "query": "a", "doc_id": "d1", "text": "x"}\n'
    '{"query_id": "q1", "query": "a", "doc_id": "d2 ", "text": "y"}\n'
    '{"query_id": "q2", "query": "b", "doc_id": "d3", "text": "z"}\n'
)


def test_check_warns_of_ids_with_whitespace_at_an_end(tmp_path, capsys) -> None:
    pool = tmp_path / "pool.jsonl"
    pool.write_text(ROWS)
    assert main(["check", str(pool)]) == 0
    out = capsys.readouterr().out
    assert "warning: 1 query id begins or ends with whitespace (first: ' q1')" in out
    assert "warning: 1 document id begins or ends with whitespace (first: 'd2 ')" in out
    assert out.rstrip().endswith("ok: the pool is valid")


def test_check_says_nothing_of_clean_ids(tmp_path, capsys) -> None:
    pool = tmp_path / "pool.jsonl"
    pool.write_text(ROWS.replace('" q1"', '"q3"').replace('"d2 "', '"d2"'))
    assert main(["check", str(pool)]) == 0
    assert "whitespace" not in capsys.readouterr().out
