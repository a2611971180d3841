"""Pilot: the system-ranking screen, reached from the agreement screen with `r`.

The ranking is computed (not written out) from a tiny case: three systems, P@1, two queries.

    query  A   B   C      human relevant   llm relevant
    q1     d1  d2  d3     d1               d2
    q2     e1  e2  e3     e1 e2            e1 e3

    human: A 1, B 1/2, C 0      llm: A 1/2, B 1/2, C 1/2
    every pair is ordered differently: A-B (1/2 vs 0), A-C (1 vs 0), B-C (1/2 vs 0): 3 flips.
"""

from __future__ import annotations

import polars as pl
from test_judge_support import run_async_tests

from goldset_tui.agreement.example import build_example_store
from goldset_tui.agreement.sources import from_store
from goldset_tui.ranking.systems import system_ranking
from goldset_tui.ranking.view import side_by_side
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.agreement import AgreementScreen
from goldset_tui.ui.screens.system_ranking import MARK, SystemRankingScreen

HOSTILE = "[red]llm[/red]"


def qrels(relevant: dict[str, list[str]]) -> pl.DataFrame:
    rows = [(q, d, 1) for q, docs in relevant.items() for d in docs]
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "grade"], orient="row")


def ranking() -> dict:
    runs = {
        name: pl.DataFrame(
            {"query_id": ["q1", "q2"], "doc_id": [d1, d2], "score": [1.0, 1.0], "rank": [1, 1]}
        )
        for name, d1, d2 in (("A", "d1", "e1"), ("B", "d2", "e2"), ("C", "d3", "e3"))
    }
    sets = {
        "human": qrels({"q1": ["d1"], "q2": ["e1", "e2"]}),
        HOSTILE: qrels({"q1": ["d2"], "q2": ["e1", "e3"]}),
    }
    strata = pl.DataFrame({"query_id": ["q1", "q2"], "stratum": ["s1", "s2"]})
    return system_ranking(sets, runs, "P@1", [("human", HOSTILE)], strata=strata, samples=200)


def test_side_by_side_by_hand() -> None:
    pair = ranking()["pairs"][0]
    assert len(pair["flips"]) == 3
    rows = side_by_side(pair)
    assert [(r.system_a, r.mean_a) for r in rows] == [("A", 1.0), ("B", 0.5), ("C", 0.0)]
    assert [(r.system_b, r.mean_b) for r in rows] == [("A", 0.5), ("B", 0.5), ("C", 0.5)]
    assert all(r.flipped_a and r.flipped_b for r in rows)


def cells(app: GoldsetApp, table_id: str) -> list[list[str]]:
    table = app.screen.query_one(f"#{table_id}")
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_reached_from_the_agreement_screen(tmp_path) -> None:
    data = from_store(build_example_store(tmp_path / "demo"))
    app = GoldsetApp(lambda: AgreementScreen(data, replicates=50, ranking=ranking()))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(pilot.app.screen, SystemRankingScreen)
        left = cells(pilot.app, "ranking-a")
        assert [row[1] for row in left] == [f"A {MARK}", f"B {MARK}", f"C {MARK}"]
        title = str(pilot.app.screen.query_one("#ranking-title").render())
        assert HOSTILE in title  # literal, not parsed as markup
        flips = str(pilot.app.screen.query_one("#ranking-flips").render())
        assert "Flips (3)" in flips and "A > C under human (+1.000, " in flips
        await pilot.press("t")  # stratum s1: q1 alone
        await pilot.pause()
        assert "stratum s1" in str(pilot.app.screen.query_one("#ranking-title").render())
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(pilot.app.screen, AgreementScreen)


async def test_without_runs_it_says_what_to_give(tmp_path) -> None:
    data = from_store(build_example_store(tmp_path / "demo"))
    app = GoldsetApp(lambda: AgreementScreen(data, replicates=50))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(pilot.app.screen, AgreementScreen)


def footer_keys(app: GoldsetApp) -> dict[str, str]:
    from textual.widgets._footer import FooterKey

    shown = [k for k in app.screen.query(FooterKey) if k.region.width and k.region.right <= 80]
    return {k.key: k.description for k in shown}


async def test_the_ranking_key_is_in_the_footer_when_runs_were_given(tmp_path) -> None:
    # `r` was hidden from the footer and the agreement screen has no `?`: nobody found it.
    data = from_store(build_example_store(tmp_path / "demo"))
    app = GoldsetApp(lambda: AgreementScreen(data, replicates=50, ranking=ranking()))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        keys = footer_keys(pilot.app)
        assert keys.get("r") == "ranking", keys
        assert {"m", "i", "b", "q"} <= set(keys)  # and the rest still fit at 80 columns
    app = GoldsetApp(lambda: AgreementScreen(data, replicates=50))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "r" not in footer_keys(pilot.app)  # without --run there is nothing to open


run_async_tests(globals())
