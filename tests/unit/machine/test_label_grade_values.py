"""Grades an imported file may hold that are not grades: NaN, infinity, numbers beyond 64 bits,
digits with underscores. Each is refused on one line naming the file, its line and the grade
column (exit status 2, nothing written), for `goldset import --human` and `--machine` alike;
before this they were Polars tracebacks (exit 1) or, for `0_2`, read as grade 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui.errors import InputError
from goldset_tui.io.machine import read_human_labels, read_machine_labels
from goldset_tui.model import GradeScale

READERS = {"human": read_human_labels, "machine": read_machine_labels}

TABLE_GRADES = ["nan", "NaN", "inf", "-inf", "99999999999999999999999", "1e300"]


@pytest.mark.parametrize("who", sorted(READERS))
@pytest.mark.parametrize("grade", TABLE_GRADES)
@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_a_table_grade_that_is_no_grade_is_refused_on_its_line(
    tmp_path: Path, who: str, grade: str, suffix: str
) -> None:
    sep = "," if suffix == ".csv" else "\t"
    path = tmp_path / f"labels{suffix}"
    rows = [("query_id", "doc_id", "grade"), ("q1", "d1", "2"), ("q1", "d2", grade)]
    path.write_text("".join(sep.join(r) + "\n" for r in rows))
    with pytest.raises(InputError) as caught:
        READERS[who](path, GradeScale(), None)
    err = caught.value
    assert (err.path, err.line, err.column) == (path, 3, "grade"), str(err)
    assert "\n" not in str(err)


@pytest.mark.parametrize("who", sorted(READERS))
@pytest.mark.parametrize("grade", ["99999999999999999999999", "-9223372036854775809", "0_2", "1_0"])
def test_a_qrels_grade_that_is_no_grade_is_refused_on_its_line(
    tmp_path: Path, who: str, grade: str
) -> None:
    path = tmp_path / "labels.qrels"
    path.write_text(f"q1 0 d1 2\nq1 0 d2 {grade}\n")
    with pytest.raises(InputError) as caught:
        READERS[who](path, GradeScale(), None)
    err = caught.value
    assert (err.path, err.line, err.column) == (path, 2, "grade"), str(err)


def test_a_qrels_grade_with_a_sign_is_still_read(tmp_path: Path) -> None:
    # `goldset eval`'s qrels reader reads +2 and -0 as 2 and 0; so does the import.
    path = tmp_path / "labels.qrels"
    path.write_text("q1 0 d1 +2\nq1 0 d2 -0\n")
    got = read_human_labels(path, GradeScale(), None).frame
    assert got.get_column("grade").to_list() == [2, 0]


def test_the_command_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from goldset_tui.cli import main

    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1", "query": "q", "doc_id": "d1", "text": "t"}\n')
    labels = tmp_path / "old.csv"
    labels.write_text("query_id,doc_id,grade\nq1,d1,nan\n")
    store = tmp_path / "store"
    code = main(
        ["import", "--pool", str(pool), "--store", str(store)]
        + ["--labeller", "ana", "--human", str(labels)]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and f"{labels}:2" in err, err
    assert not store.exists()  # nothing made


@pytest.mark.parametrize("who", sorted(READERS))
def test_a_categorical_grade_column_is_read(tmp_path: Path, who: str) -> None:
    # Parquet from a dictionary-encoded (categorical) grade column: a Polars traceback before.
    import polars as pl

    path = tmp_path / "labels.parquet"
    pl.DataFrame(
        {
            "query_id": ["q1", "q1", "q2"],
            "doc_id": ["d1", "d2", "d1"],
            "grade": pl.Series(["2", "0", "3"], dtype=pl.Categorical),
        }
    ).write_parquet(path)
    got = READERS[who](path, GradeScale(), None)
    frame = got.frame if hasattr(got, "frame") else got
    assert frame.get_column("grade").to_list() == [2, 0, 3]


def test_a_categorical_grade_that_is_no_number_is_refused(tmp_path: Path) -> None:
    import polars as pl

    path = tmp_path / "labels.parquet"
    grades = pl.Series(["2", "high"], dtype=pl.Categorical)
    pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "grade": grades}).write_parquet(
        path
    )
    with pytest.raises(InputError) as caught:
        read_human_labels(path, GradeScale(), None)
    assert (caught.value.row, caught.value.column) == (2, "grade"), str(caught.value)


def test_a_qrels_line_with_an_id_holding_spaces_says_so(tmp_path: Path) -> None:
    # "expected 4 fields, found 5" alone sent a user with ids like "doc a" looking for a bug in
    # their export; the refusal now names the way such ids can come in.
    path = tmp_path / "labels.qrels"
    path.write_text("q1 0 d1 2\nq1 0 doc a 1\n")
    with pytest.raises(InputError) as caught:
        read_human_labels(path, GradeScale(), None)
    assert caught.value.line == 2
    assert "found 5" in caught.value.message and "CSV" in caught.value.message
