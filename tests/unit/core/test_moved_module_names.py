"""The report's modules moved from ``goldset_tui/eval/report_*.py`` to ``goldset_tui/report/``
(``report.model``, ``report.compute``...). docs/report.md's "From Python" still sent a notebook
user to ``report_model`` and ``report_compute``, and comments to ``eval.report_holes``: names a
newcomer cannot open. This fails on any such name that is not a module (a widget of the same
name under ``ui/widgets/`` is one, and is named with its ``.py``)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
OLD = re.compile(
    r"(?<![\w/])(?:eval\.)?report_(?:model|assemble|compute|format|markdown|holes|reading)\b(?!\.py)"
)


def test_no_reference_names_a_report_module_by_its_old_flat_name():
    files = [
        *(ROOT / "goldset_tui").rglob("*.py"),
        *(ROOT / "docs").glob("*.md"),
        ROOT / "README.md",
    ]
    found = [
        f"{path.relative_to(ROOT)}: {m.group()}"
        for path in files
        for m in OLD.finditer(path.read_text(encoding="utf-8"))
        if not (ROOT / "goldset_tui" / "ui" / "widgets" / f"{m.group()}.py").exists()
    ]
    assert found == []
