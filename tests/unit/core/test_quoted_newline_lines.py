"""Readers outside io/ point at the line a text editor shows, even when an earlier quoted field
holds a newline (they used to count data rows, so every line after such a field was off)."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui.errors import InputError
from goldset_tui.io.strata_and_traffic import read_strata, read_traffic
from goldset_tui.sampling.labels import read_labels
from goldset_tui.sampling.normalise import read_log


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# Each file: a header on line 1, a row whose quoted field spans lines 2-3, then the bad row on
# line 4 (it would be "line 3" if rows were counted instead of lines).
CASES = {
    "strata inclusion probability": (
        read_strata,
        'query_id,stratum,inclusion_probability\nq1,"two\nlines",0.5\nq2,short,7\n',
    ),
    "traffic share": (read_traffic, 'stratum,share\n"two\nlines",0.5\nshort,lots\n'),
    "traffic repeated stratum": (
        read_traffic,
        'stratum,share\n"two\nlines",0.5\n"two\nlines",0.5\n',
    ),
    "log count": (read_log, 'query,count\n"two\nlines",3\nshort,zero\n'),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_error_names_the_editors_line(tmp_path: Path, case: str) -> None:
    reader, text = CASES[case]
    path = _write(tmp_path / "in.csv", text)
    with pytest.raises(InputError) as caught:
        reader(path)
    assert caught.value.line == 4, str(caught.value)


def test_a_repeated_label_names_the_editors_line(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "labels.csv",
        'query,count,stratum\n"two\nlines",3,a\nshort,1,b\nshort,1,b\n',
    )
    with pytest.raises(InputError) as caught:
        read_labels(path)
    assert caught.value.line == 5, str(caught.value)
    assert "line 4" in str(caught.value)
