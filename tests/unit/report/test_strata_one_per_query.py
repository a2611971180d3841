"""A strata file giving one query two strata is refused on one line naming both lines, by every
reader of such a file (the report's and review's ``read_strata``, agreement's and validate's
``strata_of``): before, ``goldset report`` counted the query in both strata (n=1 in each) and
only a generic closure warning hinted at it."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from goldset_tui.agreement.sources import AgreementData, strata_of
from goldset_tui.cli import main
from goldset_tui.errors import InputError
from goldset_tui.io.strata_and_traffic import read_strata
from goldset_tui.model import GradeScale

EMPTY = AgreementData(ratings=None, scale=GradeScale())  # type: ignore[arg-type]  # a file needs no data


def _two_strata(path: Path) -> Path:
    if path.suffix == ".parquet":
        pl.DataFrame({"query_id": ["q01", "q02", "q01"], "stratum": ["a", "a", "b"]}).write_parquet(
            path
        )
    else:
        sep = "\t" if path.suffix == ".tsv" else ","
        path.write_text(f"query_id{sep}stratum\nq01{sep}a\nq02{sep}a\nq01{sep}b\n")
    return path


def test_report_refuses_a_query_in_two_strata(tmp_path: Path, capsys) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q01 0 d1 1\nq02 0 d2 0\n")
    run = tmp_path / "bm25.run"
    run.write_text("q01 Q0 d1 1 2.0 bm25\nq02 Q0 d2 1 1.0 bm25\n")
    strata = _two_strata(tmp_path / "strata.csv")
    argv = ["report", "--qrels", str(qrels), "--run", f"bm25={run}", "--strata", str(strata)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    assert str(strata) in err and ":4" in err and "line 2" in err, err
    assert "'a'" in err and "'b'" in err, err


@pytest.mark.parametrize(
    ("suffix", "second", "first"),
    [
        (".csv", {"line": 4}, "line 2"),
        (".tsv", {"line": 4}, "line 2"),
        (".parquet", {"row": 3}, "row 1"),
    ],
)
def test_read_strata_names_both_lines(tmp_path: Path, suffix: str, second, first: str) -> None:
    path = _two_strata(tmp_path / f"strata{suffix}")
    with pytest.raises(InputError) as e:
        read_strata(path)
    assert {k: getattr(e.value, k) for k in second} == second
    assert e.value.column == "stratum" and first in str(e.value), str(e.value)


def test_the_same_stratum_twice_is_no_contradiction(tmp_path: Path) -> None:
    path = tmp_path / "strata.csv"
    path.write_text("query_id,stratum\nq01,a\nq01,a\nq02,b\n")
    assert read_strata(path).rows() == [("q01", "a"), ("q02", "b")]


def test_agreement_strata_name_both_lines(tmp_path: Path) -> None:
    path = _two_strata(tmp_path / "strata.csv")
    with pytest.raises(InputError) as e:
        strata_of(EMPTY, str(path))
    assert e.value.line == 4 and "line 2" in str(e.value), str(e.value)
    # With doc_id, a query may sit in two strata through two of its documents; a pair may not.
    path.write_text("query_id,doc_id,stratum\nq01,d1,a\nq01,d2,b\nq01,d1,b\n")
    with pytest.raises(InputError) as e:
        strata_of(EMPTY, str(path))
    assert e.value.line == 4 and "line 2" in str(e.value), str(e.value)
    path.write_text("query_id,doc_id,stratum\nq01,d1,a\nq01,d2,b\n")
    assert strata_of(EMPTY, str(path)) is not None
