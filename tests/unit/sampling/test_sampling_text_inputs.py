"""Text inputs: a plain-text log is one query per ``\\n`` line, and a UTF-8 BOM at the start of any
text input (log, labels, vocabulary, manifest; CSV, TSV or JSON lines) is not part of the data.

The wrong answers they gave: ``str.splitlines`` broke a query at U+2028, U+0085, a form feed or
U+001C-U+001E; ``\\ufeffhello`` and ``hello`` were two queries; a JSON lines file with a BOM was
refused.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui.errors import InputError
from goldset_tui.io.tables import read_table
from goldset_tui.sampling.classify import classify_log, read_vocab
from goldset_tui.sampling.labels import read_labels
from goldset_tui.sampling.manifest import read_manifest
from goldset_tui.sampling.normalise import text_lines

BOM = "\ufeff"


def counts(path: Path) -> dict[str, int]:
    labels = classify_log(path).labels
    return dict(zip(labels["query"].to_list(), labels["count"].to_list(), strict=True))


def test_a_text_log_is_split_on_newlines_only(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    # Four lines. Inside them: a line separator, a form feed, a next-line control, a group
    # separator and a lone carriage return, all of which str.splitlines() breaks on.
    log.write_bytes("a\u2028b\nc\x0cd\r\ne\x85f\ng\x1dh\ri\n".encode())
    assert counts(log) == {"a b": 1, "c d": 1, "e f": 1, "g h i": 1}
    assert text_lines("x\r\ny\n\nz") == ["x", "y", "", "z"]
    assert text_lines("x\n") == ["x"] and text_lines("x\n\n") == ["x", ""]


def test_a_bom_is_not_part_of_the_first_query(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text(BOM + "hello\nhello\n", encoding="utf-8")
    assert counts(log) == {"hello": 2}


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("log.csv", "query,count\nhello,2\nHello,1\n"),
        ("log.tsv", "query\tcount\nhello\t2\nHello\t1\n"),
        ("log.jsonl", '{"query": "hello", "count": 2}\n{"query": "Hello", "count": 1}\n'),
    ],
)
def test_a_bom_before_a_table_header_or_first_record(tmp_path: Path, name: str, body: str) -> None:
    log = tmp_path / name
    log.write_text(BOM + body, encoding="utf-8")
    assert counts(log) == {"hello": 3}
    labels = tmp_path / f"labels{log.suffix}"
    if name.endswith(".jsonl"):
        text = '{"query": "a", "count": 1, "stratum": "s"}\n'
    else:
        sep = "," if name.endswith(".csv") else "\t"
        text = sep.join(["query", "count", "stratum"]) + "\n" + sep.join(["a", "1", "s"]) + "\n"
    labels.write_text(BOM + text, encoding="utf-8")
    assert read_labels(labels).columns == ["query", "count", "stratum"]
    assert read_labels(labels)["query"].to_list() == ["a"]


def test_a_bom_in_a_json_lines_file_still_names_the_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(BOM + '{"a": 1}\n{"a": \n', encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_table(path)
    assert info.value.line == 2
    path.write_text(BOM + '{"a": 1}\n{"a": 2}\n', encoding="utf-8")
    assert read_table(path)["a"].to_list() == [1, 2]


def test_a_bom_in_the_vocabulary_and_the_manifest(tmp_path: Path) -> None:
    vocab = tmp_path / "vocab.txt"
    vocab.write_text(BOM + "paginaton\nparameters\n", encoding="utf-8")
    assert read_vocab(vocab) == frozenset({"paginaton", "parameters"})
    manifest = tmp_path / "m.toml"
    manifest.write_text(BOM + 'kind = "sample"\nseed = 3\n', encoding="utf-8")
    assert read_manifest(manifest)["seed"] == 3


def test_a_log_with_carriage_returns_alone_is_refused(tmp_path: Path) -> None:
    # Split at \n only, a classic Mac file would be one query; say so instead.
    log = tmp_path / "log.txt"
    log.write_bytes(b"api key\rpaginaton parameters\r")
    with pytest.raises(InputError) as info:
        classify_log(log)
    assert info.value.line == 1 and "\\r" in str(info.value)
