"""`--strata FILE` for `goldset agreement` and `goldset validate`: a query (or pair) given two
different strata is refused on one line naming the second line; silently the first one won, so
the per-stratum figures and the validation budget followed whichever line came first."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui.agreement.sources import AgreementData, strata_of
from goldset_tui.cli import main
from goldset_tui.errors import InputError
from goldset_tui.model import GradeScale

EMPTY = AgreementData(ratings=None, scale=GradeScale())  # type: ignore[arg-type]


def test_a_query_in_two_strata_is_refused_naming_the_line(tmp_path: Path) -> None:
    strata = tmp_path / "s.csv"
    strata.write_text("query_id,stratum\nq1,a\nq2,a\nq1,b\n")
    with pytest.raises(InputError) as info:
        strata_of(EMPTY, str(strata))
    assert info.value.line == 4 and info.value.column == "stratum"
    assert "q1" in str(info.value) and "'a'" in str(info.value) and "'b'" in str(info.value)


def test_repeats_that_agree_and_pairs_in_different_strata_are_fine(tmp_path: Path) -> None:
    same = tmp_path / "same.csv"
    same.write_text("query_id,stratum\nq1,a\nq1,a\n")
    assert strata_of(EMPTY, str(same)).height == 2
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("query_id,doc_id,stratum\nq1,d1,a\nq1,d2,b\n")
    assert strata_of(EMPTY, str(pairs)).height == 2
    clash = tmp_path / "clash.csv"
    clash.write_text("query_id,doc_id,stratum\nq1,d1,a\nq1,d1,b\n")
    with pytest.raises(InputError) as info:
        strata_of(EMPTY, str(clash))
    assert info.value.line == 3


def test_agreement_refuses_it_in_one_line(tmp_path: Path, capsys) -> None:
    a = tmp_path / "a.qrels"
    a.write_text("q1 0 d1 1\nq2 0 d1 0\n")
    b = tmp_path / "b.qrels"
    b.write_text("q1 0 d1 1\nq2 0 d1 1\n")
    strata = tmp_path / "s.csv"
    strata.write_text("query_id,stratum\nq1,a\nq1,b\n")
    code = main(
        ["agreement", "--qrels", f"a={a}", "--qrels", f"b={b}", "--scale", "0-3"]
        + ["--strata", str(strata), "--samples", "0"]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{strata}:3" in err
