"""A label whose ids differ from the pool's only in Unicode form (NFD "café" from a Mac export
against the pool's NFC "café") or in surrounding spaces ("q1 " from a spreadsheet) was refused as
"(q1, café) is not in the store's pool": the same text on the screen as the pool's, which reads
as a bug. The refusal now says why the ids differ; ids are still compared exactly."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.errors import InputError
from goldset_tui.io.machine import read_human_labels
from goldset_tui.model import GradeScale

NFC = unicodedata.normalize("NFC", "café")
NFD = unicodedata.normalize("NFD", "café")
POOL = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": [NFC, "plain"]})


def refusal(tmp_path: Path, query_id: str, doc_id: str) -> InputError:
    path = tmp_path / "grades.csv"
    path.write_text(f"query_id,doc_id,grade\nq1,plain,1\n{query_id},{doc_id},2\n")
    with pytest.raises(InputError) as caught:
        read_human_labels(path, GradeScale(), POOL)
    assert caught.value.line == 3
    return caught.value


def test_another_unicode_form_is_named(tmp_path: Path) -> None:
    assert NFD != NFC
    message = refusal(tmp_path, "q1", NFD).message
    assert "Unicode" in message and "not in the store's pool" in message, message


def test_surrounding_spaces_are_named(tmp_path: Path) -> None:
    message = refusal(tmp_path, "q1 ", "plain").message
    assert "spaces" in message and "not in the store's pool" in message, message


def test_an_id_the_pool_lacks_gets_no_hint(tmp_path: Path) -> None:
    message = refusal(tmp_path, "q2", "plain").message
    assert "Unicode" not in message and "spaces" not in message, message
