"""An error about a notebook's frame shows the frame's column names literally. Before, a header
holding an escape (a CSV from elsewhere, read with pandas or Polars) went raw into the
ValueError, and the terminal printing the traceback obeyed it (cleared the screen, set a title)."""

from __future__ import annotations

import polars as pl
import pytest

from goldset_tui.errors import InputError
from goldset_tui.eval import mean_scores

HOSTILE = "grade\x1b[2J\u202e"


def test_a_frame_without_a_grade_column_names_its_columns_literally():
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], HOSTILE: [1]})
    with pytest.raises(ValueError, match="no column for grade") as caught:
        mean_scores(qrels, {"q": {"a": 1.0}}, "AP")
    message = str(caught.value)
    assert not any(c in message for c in "\x1b\u202e")
    assert "grade␛[2J<U+202E>" in message


def test_a_table_file_without_a_grade_column_names_its_columns_literally(tmp_path):
    path = tmp_path / "qrels.csv"
    path.write_text(f"query_id,doc_id,{HOSTILE}\nq,a,1\n")
    with pytest.raises(InputError) as caught:
        mean_scores(path, {"q": {"a": 1.0}}, "AP")
    assert "\x1b" not in str(caught.value) and "grade␛[2J<U+202E>" in str(caught.value)


@pytest.mark.parametrize("call", ["mean_scores", "evaluate", "evaluate_wide"])
def test_an_empty_list_of_measures_is_refused(call):
    # Before: {} from mean_scores, an empty frame from evaluate, a query_id column alone from
    # evaluate_wide: nothing measured, and nothing said.
    import goldset_tui.eval as api

    with pytest.raises(ValueError, match="no measure given"):
        getattr(api, call)({"q": {"a": 1}}, {"q": {"a": 1.0}}, [])
