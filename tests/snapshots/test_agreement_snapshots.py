"""Snapshots of the agreement screen, its pair detail, and the adjudication screen, at 80x24 and
120x40, on the example store (three labellers who disagree, with hostile text in the pool).

Regenerate with `pytest tests/snapshots/test_agreement_snapshots.py --snapshot-update` and look at
the SVGs before committing them.
"""

from __future__ import annotations

import pytest

from goldset_tui.adjudication.consensus import UMA
from goldset_tui.adjudication.decisions import AdjudicationWriter
from goldset_tui.agreement.example import build_example_store
from goldset_tui.agreement.sources import from_store, strata_of
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.adjudicate import AdjudicateScreen
from goldset_tui.ui.screens.agreement import AgreementScreen

SIZES = [(80, 24), (120, 40)]


@pytest.fixture
def data(tmp_path):
    return from_store(build_example_store(tmp_path / "demo"))


def agreement_app(data) -> GoldsetApp:
    return GoldsetApp(
        lambda: AgreementScreen(data, strata=strata_of(data, None), seed=0, replicates=200)
    )


async def computed(pilot) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_agreement_screen(snap_compare, data, size) -> None:
    assert snap_compare(agreement_app(data), terminal_size=size, run_before=computed)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_agreement_pair_detail(snap_compare, data, size) -> None:
    assert snap_compare(
        agreement_app(data), terminal_size=size, run_before=computed, press=["enter"]
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_adjudicate_screen(snap_compare, data, size) -> None:
    store = data.project.path
    with AdjudicationWriter(store, "dee", UMA) as writer:
        app = GoldsetApp(lambda: AdjudicateScreen(data, writer, store=store, rule=UMA))
        # One decision made: the second pair shows, with the "saved" confirmation of the first.
        assert snap_compare(app, terminal_size=size, press=["3"])


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_adjudicate_screen_with_runs(snap_compare, tmp_path, size) -> None:
    # The pool records two systems' ranks: under the decision keys, what deciding decides.
    store = build_example_store(tmp_path / "runs", runs=True)
    data = from_store(store)
    with AdjudicationWriter(store, "dee", UMA) as writer:
        app = GoldsetApp(lambda: AdjudicateScreen(data, writer, store=store, rule=UMA))
        assert snap_compare(app, terminal_size=size, run_before=computed)
