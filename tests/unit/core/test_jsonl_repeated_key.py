"""A JSON-lines object naming a key twice (`{"grade": 2, "grade": 0}`, from a hand edit or a
tool appending a corrected field): Polars kept the first value and Python's json module keeps
the last, so the file meant one grade to goldset and another to a notebook. `goldset import`
imported grade 2 without a word. Refused now on its line, naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui.errors import InputError
from goldset_tui.io.machine import read_human_labels
from goldset_tui.io.pools import load_pool
from goldset_tui.model import GradeScale


def test_a_repeated_grade_key_is_refused_on_its_line(tmp_path: Path) -> None:
    path = tmp_path / "grades.jsonl"
    path.write_text(
        '{"query_id": "q1", "doc_id": "d1", "grade": 1}\n'
        '{"query_id": "q1", "doc_id": "d2"}\n'  # a row without the key hides no repeat
        '{"query_id": "q1", "doc_id": "d3", "grade": 2, "grade": 0}\n'
    )
    with pytest.raises(InputError) as caught:
        read_human_labels(path, GradeScale(), None)
    assert (caught.value.line, caught.value.column) == (3, "grade"), str(caught.value)
    assert "twice" in caught.value.message


def test_a_key_name_inside_a_value_is_no_repeat(tmp_path: Path) -> None:
    path = tmp_path / "grades.jsonl"
    path.write_text(
        '{"query_id": "q1", "doc_id": "d1", "grade": 1, "note": "grade"}\n'
        '{"query_id": "q1", "doc_id": "d2", "grade": 0, "note": "\\"grade\\": 3"}\n'
    )
    got = read_human_labels(path, GradeScale(), None).frame
    assert got.get_column("grade").to_list() == [1, 0]


def test_a_pool_with_a_repeated_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "pool.jsonl"
    path.write_text(
        '{"query_id": "q1", "query": "a", "doc_id": "d1", "text": "x", "doc_id": "d9"}\n'
    )
    with pytest.raises(InputError) as caught:
        load_pool(path)
    assert (caught.value.line, caught.value.column) == (1, "doc_id"), str(caught.value)
