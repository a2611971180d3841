"""Whose grades, which measure: the review's header names the qrels in force (a labeller, the
consensus or a file) and the metric, and both switch on the screen (`l`, `m`). Planted data:
tests/unit/report/planted.py (alice judged six queries, bob five, and they disagree on g6)."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import pytest
import pytrec_eval
from textual.widgets import Static

from goldset_tui.commands.review import review_screen_for_store
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.report import ReportScreen

_spec = importlib.util.spec_from_file_location(
    "planted", Path(__file__).parents[1] / "unit" / "report" / "planted.py"
)
planted = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(planted)


def _title(app: GoldsetApp) -> str:
    return str(app.screen.query_one("#report-title", Static).render())


async def _press(app: GoldsetApp, pilot, key: str) -> None:
    await pilot.press(key)
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


def _scored(grades: dict[tuple[str, str], int]) -> set[str]:
    return {q for (q, _), g in grades.items() if g >= 1}


def _ndcg3(grades: dict[tuple[str, str], int], name: str) -> float:
    """trec_eval's ndcg_cut_3 through pytrec_eval, averaged over the queries with a relevant
    document (those goldset averages)."""
    qrels: dict[str, dict[str, int]] = {}
    for (q, d), g in grades.items():
        qrels.setdefault(q, {})[d] = g
    run = {
        q: {d: float(10 - r) for r, d in enumerate(docs, start=1)}
        for q, docs in planted.RUNS[name].items()
    }
    run["g2"] = {
        d: 10.0 if d in ("d01", "d02") else 7.0 for d in run["g2"]
    }  # lex's tie, as written
    per = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_3"}).evaluate(run)
    scored = _scored(grades)
    return sum(per[q]["ndcg_cut_3"] for q in scored) / len(scored)


def test_header_names_the_labeller_and_switches_labeller_consensus_and_metric(tmp_path) -> None:
    store = planted.make_store(tmp_path)
    screen = review_screen_for_store(store, "bob", metric=planted.METRIC)
    context = screen.context

    async def drive() -> None:
        app = GoldsetApp(lambda: screen)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            title = _title(app)
            assert "Success@3" in title and "bob's grades" in title
            assert f"{len(_scored(planted.BOB))} queries" in title
            # The store's labellers in order (alice, bob), then their consensus, round again.
            await _press(app, pilot, "l")
            assert "consensus" in _title(app) and context.source_key == "consensus"
            await _press(app, pilot, "l")  # alice: six queries with a relevant grade
            title = _title(app)
            assert "alice's grades" in title and "J judges as bob" in title
            assert context.report.n == len(_scored(planted.ALICE)) == 6
            await _press(app, pilot, "l")
            assert "bob's grades" in _title(app) and context.report.n == 4
            await _press(app, pilot, "m")
            title = _title(app)
            assert "nDCG@3" in title and "bob's grades" in title
            overall = dict(context.report.overall.select("system", "mean").iter_rows())
            for name in planted.RUNS:
                assert overall[name] == pytest.approx(_ndcg3(planted.BOB, name))
            # Two quick presses step twice (bob -> consensus -> alice), the measure kept.
            await pilot.press("l", "l")
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert context.source_key == "alice" and context.report.metric == "nDCG@3"
            assert "nDCG@3 · alice's grades" in _title(app)
            await _press(app, pilot, "s")
            assert "alice's grades" in str(app.screen.query_one("#summary-title", Static).render())

    asyncio.run(drive())


def test_a_qrels_file_is_named_and_the_metric_still_switches(tmp_path) -> None:
    paths = planted.write_files(tmp_path)
    strata = ("--strata", str(paths["strata"]))
    context = planted.review_context(paths["qrels"], *strata, runs=planted.both_runs(paths))

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert "qrels holes.qrels" in _title(app)
            await _press(app, pilot, "l")  # one source only: said, nothing recomputed
            assert "qrels holes.qrels" in _title(app) and context.report.metric == "Success@3"
            await _press(app, pilot, "m")
            assert context.report.metric == "nDCG@3" and "nDCG@3" in _title(app)
            grades = {p: g for p, g in planted.ALICE.items() if p not in planted.HOLES}
            overall = dict(context.report.overall.select("system", "mean").iter_rows())
            assert overall["lex"] == pytest.approx(_ndcg3(grades, "lex"))

    asyncio.run(drive())


def test_a_store_given_as_qrels_is_named_by_its_labeller(tmp_path) -> None:
    paths = planted.write_files(tmp_path / "files")
    store = planted.make_store(tmp_path / "s")
    options = ("--labeller", "bob", "--strata", str(paths["strata"]))
    context = planted.review_context(store, *options, runs={"lex": paths["lex"]})
    assert context.source == "bob's grades (store store)"
    assert context.report.n == len(_scored(planted.BOB))
