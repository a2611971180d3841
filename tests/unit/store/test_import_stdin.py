"""`goldset import --human -` (standard input, as `goldset eval` reads qrels) said "-: no such
file"; it now says why standard input is not read and what to do."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_consensus_name_judging import pool_file


@pytest.mark.parametrize("kind", ["--human", "--machine"])
def test_standard_input_is_refused_saying_why(tmp_path: Path, capsys, kind: str) -> None:
    # `--human -` (as `goldset eval` reads qrels from standard input) said "-: no such file".
    from goldset_tui.cli import main

    argv = ["import", "--pool", str(pool_file(tmp_path)), "--store", str(tmp_path / "s")]
    assert main([*argv, "--labeller", "ana", kind, "-"]) == 2
    err = capsys.readouterr().err
    assert "standard input" in err and "no such file" not in err, err
    assert not (tmp_path / "s").exists()
