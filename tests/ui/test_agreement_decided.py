"""The agreement screen shows each adjudicated decision beside the disagreement it settles, and
counts them in the list's title; a pending pair's cell stays empty."""

from __future__ import annotations

from pathlib import Path

from test_judge_support import run_async_tests
from textual.widgets import DataTable, Static

from goldset_tui.adjudication.consensus import UMA
from goldset_tui.adjudication.decisions import AdjudicationWriter
from goldset_tui.agreement.example import build_example_store
from goldset_tui.agreement.report import disagreements
from goldset_tui.agreement.sources import from_store, strata_of
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.agreement import AgreementScreen


async def test_decisions_beside_the_disagreements(tmp_path: Path) -> None:
    store = build_example_store(tmp_path / "demo")
    ranked = disagreements(from_store(store).ratings)
    assert ranked.height >= 2
    (q0, d0), (q1, d1) = ranked.select("query_id", "doc_id").rows()[:2]
    with AdjudicationWriter(store, "dee", UMA) as writer:
        writer.decide(q0, d0, 2)
        writer.decide(q1, d1, 1)
        writer.decide(q1, d1, None)  # withdrawn: pending again
    data = from_store(store)
    app = GoldsetApp(lambda: AgreementScreen(data, strata=strata_of(data, None), replicates=50))
    async with app.run_test(size=(120, 40)):
        await app.workers.wait_for_complete()
        listing = app.screen.query_one("#agreement-disagreements", DataTable)
        labels = [str(c.label) for c in listing.columns.values()]
        assert labels == ["spread", "query", "grades", "decided", "document"]
        cells = {
            (str(listing.get_cell_at((i, 1))), str(listing.get_cell_at((i, 4)))): str(
                listing.get_cell_at((i, 3))
            )
            for i in range(listing.row_count)
        }
        assert cells[(q0, d0)] == "2" and cells[(q1, d1)] == ""
        assert sum(1 for v in cells.values() if v) == 1
        title = app.screen.query_one("#agreement-list-title", Static).render()
        assert f"({ranked.height}; 1 adjudicated)" in str(title)


run_async_tests(globals())
