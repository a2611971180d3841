"""Snapshots of the spot-check screen at 80x24 and 120x40: fresh, and after a few answers."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from goldset_tui.sampling.spotcheck import SpotCheckSession, journal_path
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.spotcheck import SpotCheckScreen

ITEMS = pl.DataFrame(
    {
        "query": [
            "err_4021 on webhook delivery",
            "paginaton parameters",
            "which regions are not covered",
            "api key",
            "how do i stop the sync from running twice",
            "sync stripe and salesforce accounts",
        ],
        "stratum": [
            "exact_identifier",
            "short_keyword",
            "negation",
            "short_keyword",
            "paraphrase",
            "multi_entity",
        ],
        "spelling": [
            "ERR_4021 on webhook delivery",
            "paginaton parameters",
            "which regions are not covered",
            "API key",
            "how do I stop the sync from running twice",
            "Sync Stripe and Salesforce accounts",
        ],
    }
)
STRATA = [
    "exact_identifier",
    "negation",
    "misspelled",
    "short_keyword",
    "multi_entity",
    "paraphrase",
]
SIZES = {
    "exact_identifier": 54,
    "negation": 18,
    "misspelled": 22,
    "short_keyword": 61,
    "multi_entity": 49,
    "paraphrase": 96,
}


def make_app(tmp_path: Path) -> GoldsetApp:
    session = SpotCheckSession.open(ITEMS, STRATA, journal_path(tmp_path, "ana"), "ana")
    return GoldsetApp(lambda: SpotCheckScreen(session, sizes=SIZES))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_fresh_screen(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(tmp_path), terminal_size=size)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_after_agreeing_correcting_and_skipping(
    snap_compare, tmp_path: Path, size: tuple[int, int]
) -> None:
    # y agrees on the identifier; 3 corrects "paginaton parameters" to misspelled; s skips.
    assert snap_compare(make_app(tmp_path), press=["y", "3", "y", "s"], terminal_size=size)
