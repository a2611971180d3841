"""The review screens show the whole report, and every figure on them is `goldset report --format
json`'s (before, the headline ended in an ellipsis and hid fusion with three runs; overlap, the
oracle and the paired tests were on no screen).

Three runs on the sample data (bm25, minilm and a CombSUM of the two as a third), with traffic
shares; the JSON comes from the real command, the screens from `goldset review`'s own context
built from the same arguments. Two checks: every figure the JSON has for the screens is on them,
in its line; and every number on the screens is one of the JSON's (at the screen's rounding) or a
difference of two of them, never something else.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Static

from goldset_tui.cli import main
from goldset_tui.commands import review
from goldset_tui.eval.strata import SMALL_STRATUM
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.report import ReportScreen
from goldset_tui.ui.screens.report_summary import ReportSummaryScreen

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
NUMBER = re.compile(r"(?<![\w.])[+-]?\d+(?:\.\d+)?%?(?![\w])")


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory) -> list[str]:
    tmp = tmp_path_factory.mktemp("three")
    combsum = tmp / "combsum.run"
    bm25, minilm = SAMPLE / "runs" / "bm25.run", SAMPLE / "runs" / "minilm.run"
    assert main(["fuse", str(bm25), str(minilm), "--method", "combsum", "-o", str(combsum)]) == 0
    return [
        "--qrels",
        str(SAMPLE / "judgments" / "alice.qrels"),
        "--run",
        f"bm25={bm25}",
        "--run",
        f"minilm={minilm}",
        "--run",
        f"combsum={combsum}",
        "--strata",
        str(SAMPLE / "strata.csv"),
        "--traffic",
        str(SAMPLE / "traffic.csv"),
        "--samples",
        "300",
    ]


def _json(args: list[str], capsys) -> dict:
    capsys.readouterr()
    assert main(["report", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def _numbers(x: object) -> list[float]:
    if isinstance(x, bool) or x is None or isinstance(x, str):
        return []
    if isinstance(x, (int, float)):
        return [float(x)]
    items = x.values() if isinstance(x, dict) else x
    return [v for item in items for v in _numbers(item)]  # type: ignore[union-attr]


def _forms(x: float) -> set[str]:
    out = {f"{x:.2f}", f"{x:.3f}", f"{x:.4f}", f"{x:+.3f}", f"{x:.0%}"}
    if float(x).is_integer():
        out.add(str(int(x)))
    return out


def _allowed(d: dict, extra: list[float]) -> set[str]:
    values = _numbers(d) + extra
    f = next(iter(d["fusion"].values()))
    values += [f["best_single_mean"] - f["mean"], f["oracle"] - f["best_single_mean"]]
    for b in d["unjudged_bounds"].values():
        values.append(b["unjudged_as_relevant"] - b["unjudged_as_nonrelevant"])
    allowed = {s for v in values for s in _forms(v)}
    # Constants the screens print that are no figure of the data: the 95% level, RRF's k = 60,
    # the small-stratum size, the 0.05 level, "above 1".
    return allowed | {"95%", "60", str(SMALL_STRATUM), "0.05", "1"}


def _screen_text(args: list[str], size: tuple[int, int]) -> tuple[str, str, bool, int]:
    parser = argparse.ArgumentParser()
    review.add_arguments(parser)
    context = review.build_context(parser.parse_args(args))
    out: dict[str, object] = {}

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            screen = app.screen
            table = screen.query_one(DataTable)
            cells = [
                str(table.get_cell_at((r, c)))
                for r in range(table.row_count)
                for c in range(len(table.columns))
            ]
            notes = screen.query_one("#report-notes", Static)
            out["report"] = (
                str(screen.query_one("#report-title", Static).render())
                + "\n"
                + "\n".join(cells)
                + "\n"
                + str(notes.render())
            )
            # Nothing hidden below the notes: the wrapped text is no taller than the room it has.
            region = notes.content_region
            needed = notes.get_content_height(screen.size, app.size, region.width)
            out["notes_whole"] = needed <= region.height and not notes.show_vertical_scrollbar
            await pilot.press("s")
            await pilot.pause()
            assert isinstance(app.screen, ReportSummaryScreen)
            assert app.screen.query_one("#summary-scroll", VerticalScroll).has_focus
            out["summary"] = str(app.screen.query_one("#summary-body", Static).render())

    asyncio.run(drive())
    warned = len(context.store_warnings) + len(context.report.warnings)
    return str(out["report"]), str(out["summary"]), bool(out["notes_whole"]), warned


@pytest.mark.parametrize(
    ("metric", "size"),
    [("Success@3", (80, 24)), ("nDCG@10", (80, 24)), ("Success@3", (120, 40))],
    ids=["Success@3-80x24", "nDCG@10-80x24", "Success@3-120x40"],
)
def test_every_figure_on_the_review_screens_is_the_json_s(three_runs, metric, size, capsys) -> None:
    args = [*three_runs, "--measure", metric]
    d = _json(args, capsys)
    report_text, summary, notes_whole, warned = _screen_text(args, size)
    assert notes_whole

    # 1. What the JSON has for the screens is on them, each figure in its own line.
    for s, o in d["overall"].items():
        head = f"{s}: {o['mean']:.3f} [{o['ci95'][0]:.3f}, {o['ci95'][1]:.3f}]"
        weighted = (
            f" · traffic-weighted {o['weighted_mean']:.3f} "
            f"[{o['weighted_ci95'][0]:.3f}, {o['weighted_ci95'][1]:.3f}]"
        )
        assert head + weighted in report_text and head + weighted in summary
    ((name, f),) = d["fusion"].items()
    brief = (
        f"fusion: {name} {f['mean']:.3f} · best single {f['best_single']} "
        f"{f['best_single_mean']:.3f} · oracle {f['oracle']:.3f}"
    )
    assert brief in report_text
    assert f"scores {f['mean']:.3f}" in summary and f"{f['oracle']:.3f}" in summary
    for o in d["overlap"]:
        assert (
            f"{o['a']} / {o['b']}: misses {o['miss_a']} / {o['miss_b']} · both miss "
            f"{o['both_miss']} · either misses {o['either_miss']} · oracle {o['oracle']:.3f}"
        ) in summary
    for p in d["paired"]:
        line = (
            f"{p['a']} - {p['b']}: {p['mean_diff']:+.3f} [{p['ci95'][0]:.3f}, {p['ci95'][1]:.3f}]"
        )
        assert line in summary
        assert f"p {p['p_value']:.4f} · p Holm {p['p_adjusted']:.4f}" in summary
        assert f"{p['wins']} wins, {p['losses']} losses, {p['ties']} ties" in summary
        assert f"traffic-weighted {p['weighted_mean_diff']:+.3f}" in summary
    for r in d["paired_by_stratum"]:
        assert (
            f"{r['stratum']} · {r['a']} - {r['b']}: {r['mean_diff']:+.3f}" in summary
            and f"p {r['p_value']:.4f} · p Holm {r['p_adjusted']:.4f}" in summary
        )
    for s, v in d["judged"].items():
        assert f"{s}: judged {v:.3f} of its top {d['k']}" in summary
    for st in d["strata"]:
        for s, cell in st["systems"].items():
            small = st["small"] and cell["hits"] is not None  # a count first, as in the Markdown
            shown = f"{cell['hits']}/{st['n']}" if small else f"{cell['mean']:.2f}"
            assert shown in report_text, (st["stratum"], s)

    # 2. Every number on the screens is one of the JSON's (or a difference of two).
    # Not figures of the data, but numbers the screens print: the cutoff, the query count, and how
    # many warnings the warning line counts.
    allowed = _allowed(d, [d["k"], d["n"], warned])
    shown = NUMBER.findall(report_text) + NUMBER.findall(summary)
    assert shown and not [x for x in shown if x not in allowed]
    assert "…" not in report_text and "…" not in summary
