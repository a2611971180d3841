"""When the golden set is too small for the plan's floor, drift says so in its own words.

On the sample data (42 queries; five strata without --vocab; a floor of 15) the note read "--total 42 is too
small ...; lower --min-per-stratum or raise --total", but drift has no --total: the size is the
golden set's."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui.cli import main

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"


def test_the_no_plan_note_names_the_golden_set_not_an_option_drift_lacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "labels.csv"
    assert main(["classify", str(SAMPLE / "query_log.csv"), "-o", str(labels)]) == 0
    argv = ["drift", "--labels", str(labels), "--labels", str(labels)]
    argv += ["--qrels", str(SAMPLE / "judgments/alice.qrels")]
    argv += ["--run", f"bm25={SAMPLE / 'runs/bm25.run'}", "--strata", str(SAMPLE / "strata.csv")]
    capsys.readouterr()
    assert main(argv) == 0
    said = capsys.readouterr()
    text = said.out + said.err
    assert "--total" not in text, text
    assert (
        "no plan: the golden set's 42 queries are too few to give 5 strata at least 15 each "
        "(needs 75); lower --min-per-stratum or add queries to the golden set"
    ) in text, text
