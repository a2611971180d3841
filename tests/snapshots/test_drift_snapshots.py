"""Snapshots of `goldset drift --screen` at 80x24 and 120x40, on docs/drift.md's worked example
(the identifier stratum from 18% to 45% of the searches flips the best system), and the screen
scrolled to its plan.

Regenerate with `pytest tests/snapshots/test_drift_snapshots.py --snapshot-update` and look at
the SVGs before committing them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "unit" / "drift"))

from test_drift_cli import NEW_COUNTS, _labels

from goldset_tui.app.drift import run_drift
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.drift import DriftScreen

SIZES = [(80, 24), (120, 40)]
IDS = [f"{w}x{h}" for w, h in SIZES]


def worked_example(folder: Path, monkeypatch):
    monkeypatch.chdir(folder)  # the screen names the files as given: relative, the same each run
    strata = ["exact_identifier"] * 3 + ["paraphrase"] * 3 + ["negation"] * 3
    Path("strata.csv").write_text(
        "query_id,stratum\n" + "".join(f"q{i},{s}\n" for i, s in enumerate(strata, 1))
    )
    Path("qrels.txt").write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(1, 10)))
    for name, hits in (("bm25", {1, 2, 3, 4, 5, 7}), ("dense", {1, 2, 4, 5, 6, 7})):
        Path(f"{name}.run").write_text(
            "".join(f"q{i} Q0 {f'd{i}' if i in hits else 'x'} 1 1.0 {name}\n" for i in range(1, 10))
        )
    _labels(folder / "old.csv")
    _labels(folder / "new.csv", NEW_COUNTS)
    return run_drift(
        ["old.csv", "new.csv"],
        qrels="qrels.txt",
        runs=["bm25=bm25.run", "dense=dense.run"],
        strata="strata.csv",
        metric="Success@10",
        min_per_stratum=1,
    )


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_drift_screen(snap_compare, size, tmp_path, monkeypatch):
    drift = worked_example(tmp_path, monkeypatch)
    assert snap_compare(GoldsetApp(lambda: DriftScreen(drift)), terminal_size=size)


def test_drift_screen_scrolled_to_the_plan(snap_compare, tmp_path, monkeypatch):
    drift = worked_example(tmp_path, monkeypatch)
    app = GoldsetApp(lambda: DriftScreen(drift))
    assert snap_compare(app, terminal_size=(80, 24), press=["end"])
