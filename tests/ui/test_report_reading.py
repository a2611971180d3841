"""The top k view is a reading screen (planted data: tests/unit/report/planted.py): the
highlighted document's title and text with the query's terms marked, page by page; each grade
with whose it is and a mark where labellers disagree; ranks decided by a tied score flagged; the
relevant documents outside every top k with every system's rank or "not retrieved". And a
review walked with the keyboard: report, failing list, top k with text, next failure, judge a
hole, back."""

from __future__ import annotations

import asyncio

import polars as pl
from review_support import (
    TO_ALL_LEX,
    file_context,
    open_failing_list,
    planted,
    screen_lines,
    text_of,
)
from rich.text import Text
from textual.screen import Screen
from textual.widgets import DataTable, Static

from goldset_tui.commands.review import review_screen_for_store
from goldset_tui.store.project import Project
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.report import ReportScreen
from goldset_tui.ui.widgets.report_drill import FailuresScreen, TopKScreen


def test_the_text_is_shown_with_the_query_terms_marked_one_page_at_a_time(tmp_path) -> None:
    long = "The question of g1 starts here. " + " ".join(f"word{i}" for i in range(3000))
    context = file_context(tmp_path, corpus={"d04": long})

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press(*TO_ALL_LEX, "enter")  # g1's top 3; lex's rank 1 is d04
            await pilot.pause()
            assert isinstance(app.screen, TopKScreen) and app.screen.query_id == "g1"
            pane = app.screen.query_one("#reading-text", Static)
            shown = pane.render()
            body = str(shown)
            assert body.startswith("T d04\nThe question of g1 starts here.")
            assert "page 1 of" in body and "word2999" not in body
            # The query "question g1": both terms marked where they stand in the text.
            content = pane.content
            assert isinstance(content, Text)
            marked = {
                content.plain[s.start : s.end] for s in content.spans if "reverse" in str(s.style)
            }
            assert {"question", "g1"} <= marked
            await pilot.press("right_square_bracket")
            await pilot.pause()
            body = str(app.screen.query_one("#reading-text", Static).render())
            assert "page 2 of" in body and "The question of g1" not in body
            # The text is on the terminal, under the ranks (80 columns), not only in a widget.
            assert any("T d04" in line for line in screen_lines(app))

    asyncio.run(drive())


def test_at_200_columns_the_text_stands_beside_the_ranks(tmp_path) -> None:
    context = file_context(tmp_path)

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(200, 50)) as pilot:
            await pilot.pause()
            await pilot.press(*TO_ALL_LEX, "enter")
            await pilot.pause()
            table = app.screen.query_one(DataTable).region
            pane = app.screen.query_one("#reading").region
            assert pane.x >= table.right - 1 and pane.y == table.y  # beside, not under
            line = next(x for x in screen_lines(app) if "[?] d04" in x)
            assert "text of d04" in line  # the title on the line above, the text on this one

    asyncio.run(drive())


def test_relevant_documents_outside_every_top_k_with_each_systems_rank(tmp_path) -> None:
    # g4's relevant d20: lex retrieved it at rank 4 (outside its top 3), vec never did; the fused
    # run takes each run's top 3 only, so it never sees d20.
    context = file_context(tmp_path, extra_lex=["g4 Q0 d20 4 6.0 lex\n"])

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await pilot.press(*TO_ALL_LEX, "end", "enter")  # g4, the list's last
            await pilot.pause()
            assert app.screen.query_id == "g4"
            notes = text_of(app, "#drill-notes")
            assert "relevant, outside every top 3:" in notes
            assert "d20 [1] lex #4 · vec not retrieved · rrf not retrieved" in notes

    asyncio.run(drive())


def test_ties_that_decide_an_order_are_flagged_and_slash_finds_a_query(tmp_path) -> None:
    # lex scores g2's d02 and d01 alike: trec_eval orders them by id (d02 first).
    context = file_context(tmp_path)

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("slash", "g", "2", "enter")
            await pilot.pause()
            assert isinstance(app.screen, TopKScreen) and app.screen.query_id == "g2"
            grid = app.screen.query_one(DataTable)
            column = [str(grid.get_cell_at((r, 1))) for r in range(3)]
            assert column == ["[1] d02 =", "[2] d01 =", "[0] d03"]
            assert not any("=" in str(grid.get_cell_at((r, 2))) for r in range(3))  # vec
            assert "tied score" in text_of(app, "#drill-notes")

    asyncio.run(drive())


def test_grades_name_their_labellers_and_a_disagreement_is_marked(tmp_path) -> None:
    store = planted.make_store(tmp_path)  # alice grades g6/d40 relevant, bob not
    screen = review_screen_for_store(store, "alice", metric=planted.METRIC)

    async def drive() -> None:
        app = GoldsetApp(lambda: screen)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("g", "6", "enter")
            await pilot.pause()
            top = app.screen
            assert isinstance(top, TopKScreen) and top.query_id == "g6"
            assert str(top.query_one(DataTable).get_cell_at((0, 1))) == "[1] d40 ≠"
            notes = text_of(app, "#drill-notes")
            assert "alice 1 · bob 0 ≠ labellers disagree" in notes
            await pilot.press("down")  # lex's d41: both say 0
            await pilot.pause()
            notes = text_of(app, "#drill-notes")
            assert "alice 0 · bob 0" in notes and "labellers disagree" not in notes

    asyncio.run(drive())


def test_in_the_consensus_view_J_on_an_undecided_disagreement_says_to_adjudicate(
    tmp_path,
) -> None:
    store = planted.make_store(tmp_path)
    screen = review_screen_for_store(store, "alice", metric=planted.METRIC)
    opened: list[pl.DataFrame] = []

    def judge(pairs: pl.DataFrame) -> Screen:
        opened.append(pairs)
        return Screen()

    screen.context.judge = judge

    async def drive() -> None:
        app = GoldsetApp(lambda: screen)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            for _ in range(2):  # alice's grades, bob's, then the consensus
                await pilot.press("l")
                await pilot.pause()
                await app.workers.wait_for_complete()
                await pilot.pause()
            title = text_of(app, "#report-title")
            assert "consensus (majority)" in title
            assert "unanimous-majority-adjudicator" not in title
            await pilot.press("g", "6", "enter")
            await pilot.pause()
            assert str(app.screen.query_one(DataTable).get_cell_at((0, 1))) == "[?] d40 ≠"
            await pilot.press("J")
            await pilot.pause()
            said = " ".join(str(n.message) for n in app._notifications)
            assert f"goldset adjudicate --store {store} --labeller alice" in said
            assert opened == []  # not opened as one labeller's grade

    asyncio.run(drive())


def test_report_failing_list_top_k_next_judge_a_hole_and_back(tmp_path) -> None:
    """The walk of the done-when: the report, lex's failing list, g1's top k with its text, n
    to g3, J judges g3's hole into the store (d06 relevant), back: g3 is rescued."""
    store = planted.make_store(tmp_path, with_bob=False, alice_holes=True)
    screen = review_screen_for_store(store, "alice", metric=planted.METRIC)

    async def drive() -> None:
        app = GoldsetApp(lambda: screen)
        async with app.run_test(size=(80, 24)) as pilot:
            failures = await open_failing_list(pilot)
            assert failures.failing_ids() == ["g1", "g3", "g4"]
            await pilot.press("enter")
            await pilot.pause()
            top = app.screen
            assert isinstance(top, TopKScreen) and top.query_id == "g1"
            assert "text of d04" in text_of(app, "#reading-text")
            await pilot.press("n")
            await pilot.pause()
            assert top.query_id == "g3"
            assert "text of d11" in text_of(app, "#reading-text")  # lex's rank 1
            await pilot.press("J")
            await pilot.pause(0.3)
            assert type(app.screen).__name__ == "ReviewJudgeScreen"
            await pilot.press("1")  # d06, the only hole of g3: relevant
            await pilot.pause(0.3)
            await pilot.press("escape")
            await pilot.pause(0.3)
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert app.screen is top
            assert "lex 1.00" in text_of(app, "#drill-title")  # d06 is lex's rank 3
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, FailuresScreen)
            assert app.screen.failing_ids() == ["g1", "g4"]
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, ReportScreen)

    asyncio.run(drive())
    grades = Project.open(store).qrels("alice")
    assert grades.filter((pl.col("query_id") == "g3") & (pl.col("doc_id") == "d06")).rows() == [
        ("g3", "d06", 1)
    ]
