"""A CSV/TSV whose header holds a byte that is not UTF-8 (a Latin-1 "é" in a column name, a
Windows-1252 export) is refused as not UTF-8 at line 1. It was refused as "missing required
column 'stratum' (found columns: query_id, str\ufffdatum)": a column that is there, named with a
replacement character, with no line and no word about the encoding."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui.cli import main
from goldset_tui.errors import InputError
from goldset_tui.io.tables import read_table


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_header_byte_not_utf8_is_refused_as_such(tmp_path: Path, suffix: str) -> None:
    sep = b"," if suffix == ".csv" else b"\t"
    path = tmp_path / f"strata{suffix}"
    path.write_bytes(b"query_id" + sep + b"str\xe9atum\nq1" + sep + b"a\n")
    with pytest.raises(InputError) as caught:
        read_table(path, required=["query_id", "stratum"])
    assert caught.value.line == 1, str(caught.value)
    assert "not UTF-8 (byte 12)" in str(caught.value), str(caught.value)
    assert "missing required column" not in str(caught.value)


def test_a_header_naming_the_replacement_character_itself_is_still_a_missing_column(
    tmp_path: Path,
) -> None:
    # U+FFFD written as UTF-8 is valid text: the column really is missing.
    path = tmp_path / "strata.csv"
    path.write_text("query_id,str\ufffdatum\nq1,a\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_table(path, required=["query_id", "stratum"])
    assert "missing required column 'stratum'" in str(caught.value)


def test_report_says_the_strata_file_is_not_utf8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = Path(__file__).resolve().parents[3] / "sample_data"
    strata = tmp_path / "strata.csv"
    strata.write_bytes(b"query_id,str\xe9atum\nq01,a\n")
    argv = ["report", "--qrels", str(sample / "judgments/alice.qrels")]
    argv += ["--run", f"bm25={sample / 'runs/bm25.run'}", "--strata", str(strata)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == f"goldset: error: {strata}:1: bytes that are not UTF-8 (byte 12)\n", err
