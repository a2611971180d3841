"""Per-stratum differences carry their raw p, Holm over the pairs of their stratum and Holm over
every stratum and pair (the family six slices need) in every view: the JSON, the Markdown and the
review screen's lines; the adjusted values are statsmodels' Holm."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from statsmodels.stats.multitest import multipletests

from goldset_tui.cli import main
from goldset_tui.pvalue import p_value_text

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"


def _argv(form: str) -> list[str]:
    return [
        "report", "--qrels", str(SAMPLE / "judgments" / "alice.qrels"),
        "--strata", str(SAMPLE / "strata.csv"), "--run", f"bm25={SAMPLE / 'runs' / 'bm25.run'}",
        "--run", f"minilm={SAMPLE / 'runs' / 'minilm.run'}", "-m", "Success@10",
        "--samples", "20", "--format", form,
    ]  # fmt: skip


def test_every_view_keeps_raw_and_holm_p_values(capsys) -> None:
    from goldset_tui.app.report import build_report, load_report_inputs
    from goldset_tui.report.summary import by_stratum_lines

    assert main(_argv("json")) == 0
    rows = json.loads(capsys.readouterr().out)["paired_by_stratum"]
    assert len({r["stratum"] for r in rows}) > 1
    raw = [r["p_value"] for r in rows]
    assert [r["p_holm_strata"] for r in rows] == pytest.approx(
        list(multipletests(raw, method="holm")[1])
    )
    for stratum in {r["stratum"] for r in rows}:
        mine = [r for r in rows if r["stratum"] == stratum]
        held = multipletests([r["p_value"] for r in mine], method="holm")[1]
        assert [r["p_adjusted"] for r in mine] == pytest.approx(list(held))
    assert main(_argv("md")) == 0
    md = capsys.readouterr().out
    assert "| p | p Holm | all strata | reading |" in md
    inputs = load_report_inputs(
        str(SAMPLE / "judgments" / "alice.qrels"),
        [f"bm25={SAMPLE / 'runs' / 'bm25.run'}", f"minilm={SAMPLE / 'runs' / 'minilm.run'}"],
        str(SAMPLE / "strata.csv"),
        metric="Success@10",
        seed=0,
        samples=20,
    )
    screen = by_stratum_lines(build_report(inputs))
    fused = [r for r in rows]  # the report fuses the two runs: three pairs a stratum
    assert len(screen) == len(fused)
    for r, line in zip(rows, screen, strict=True):
        texts = [p_value_text(r[k]) for k in ("p_value", "p_adjusted", "p_holm_strata")]
        assert f"| {texts[0]} | {texts[1]} | {texts[2]} |" in md
        assert f"p {texts[0]} · p Holm {texts[1]} · all strata {texts[2]}" in line
