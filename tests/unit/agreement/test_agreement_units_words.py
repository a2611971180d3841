"""The agreement Markdown says what each count counts (it printed "1285 units" beside "1156 pairs"
with no word of why they differ). On the sample data: alice and bob judged 1285 query-document
pairs between them, 1156 of them both; counted here from the qrels files directly."""

from __future__ import annotations

from pathlib import Path

from goldset_tui.cli import main

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data" / "judgments"


def _pairs(path: Path) -> set[tuple[str, str]]:
    return {tuple(line.split()[0:3:2]) for line in path.read_text().splitlines() if line.strip()}


def test_units_and_units_both_judged_are_named_apart(capsys) -> None:
    alice, bob = _pairs(SAMPLE / "alice.qrels"), _pairs(SAMPLE / "bob.qrels")
    either, both = len(alice | bob), len(alice & bob)
    assert (either, both) == (1285, 1156)
    code = main(
        [
            "agreement",
            "--qrels",
            f"alice={SAMPLE / 'alice.qrels'}",
            "--qrels",
            f"bob={SAMPLE / 'bob.qrels'}",
            "--scale",
            "0-3",
            "--format",
            "md",
            "--samples",
            "50",
        ]
    )
    md = capsys.readouterr().out
    assert code == 0
    assert f"{either} units (query-document pairs judged by at least one of them;" in md
    assert "| a | b | units both judged |" in md
    assert f"| alice | bob | {both} |" in md
