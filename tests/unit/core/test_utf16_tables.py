"""Tables a CSV or TSV reader misread. One saved as UTF-16 (Excel's "Unicode text", some Windows
tools) was refused as "ragged row: 1 fields where the header has 3" on line 3, which sent the
user looking for a missing comma: it is refused as what it is, not UTF-8, at line 1, saying it is
UTF-16. A header naming a column twice is refused instead of reading the first one."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui.errors import InputError
from goldset_tui.io.machine import read_human_labels
from goldset_tui.io.pools import load_pool
from goldset_tui.model import GradeScale


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_utf16_labels_are_refused_as_not_utf8(tmp_path: Path, encoding: str, suffix: str) -> None:
    sep = "," if suffix == ".csv" else "\t"
    path = tmp_path / f"grades{suffix}"
    rows = [("query_id", "doc_id", "grade"), ("q1", "d1", "2"), ("q1", "d2", "0")]
    path.write_text("".join(sep.join(r) + "\n" for r in rows), encoding=encoding)
    with pytest.raises(InputError) as caught:
        read_human_labels(path, GradeScale(), None)
    assert caught.value.line == 1, str(caught.value)
    assert "not UTF-8" in str(caught.value) and "ragged" not in str(caught.value)


def test_a_utf16_pool_is_refused_as_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "pool.csv"
    path.write_text("query_id,query,doc_id,text\nq1,a query,d1,a text\n", encoding="utf-16")
    with pytest.raises(InputError) as caught:
        load_pool(path)
    assert caught.value.line == 1, str(caught.value)
    assert "UTF-16" in str(caught.value)


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_a_column_named_twice_is_refused(tmp_path: Path, suffix: str) -> None:
    # Two "grade" columns (two people's grades side by side, a copy-paste): the first was used
    # and the second silently dropped (Polars renames it grade_duplicated_0).
    sep = "," if suffix == ".csv" else "\t"
    path = tmp_path / f"grades{suffix}"
    rows = [("query_id", "doc_id", "grade", "grade"), ("q1", "d1", "2", "0")]
    path.write_text("".join(sep.join(r) + "\n" for r in rows))
    with pytest.raises(InputError) as caught:
        read_human_labels(path, GradeScale(), None)
    assert (caught.value.line, caught.value.column) == (1, "grade"), str(caught.value)
    assert "twice" in caught.value.message
