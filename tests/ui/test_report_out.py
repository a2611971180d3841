"""What a review finds leaves the screen, and every review screen answers the same keys: y/Y copy
through OSC 52, e/E write the table as Markdown/CSV (never over a file), ? lists the keys, End
reaches the last row; failure overlap drills down to its queries; at 80x24 long run names are
cut in the middle and the stratum column stays."""

from __future__ import annotations

import asyncio
import csv

import polars as pl
from review_support import (
    TO_ALL_LEX,
    file_context,
    open_failing_list,
    planted,
    screen_lines,
    table_rows,
)
from textual.widgets import DataTable, Static

from goldset_tui.commands.review import review_screen_for_store
from goldset_tui.eval.overlap import pair_overlap
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.closure import ClosureScreen
from goldset_tui.ui.screens.help import HelpScreen
from goldset_tui.ui.screens.report import ReportScreen
from goldset_tui.ui.screens.report_summary import ReportSummaryScreen
from goldset_tui.ui.widgets.report_drill import FailuresScreen, TopKScreen
from goldset_tui.ui.widgets.report_overlap import OverlapPairScreen, OverlapScreen


def test_the_failing_list_is_exported_as_markdown_and_csv_and_copied(tmp_path) -> None:
    context = file_context(tmp_path)
    out = tmp_path / "out"

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await open_failing_list(pilot)
            await pilot.press("e")
            await pilot.pause()
            md = out / "failing-lex-all.md"
            said = " ".join(str(n.message) for n in app._notifications)
            assert str(md.resolve()) in said  # the screen says where
            assert "goldset report -o DIR writes report.md" in said  # and what report -o writes
            first = md.read_text()
            await pilot.press("e")  # again: a second file, the first untouched
            await pilot.pause()
            assert (out / "failing-lex-all-2.md").read_text() == first
            assert md.read_text() == first
            await pilot.press("E")
            await pilot.pause()
            await pilot.press("y")
            await pilot.pause()
            assert app.clipboard == "g1"
            await pilot.press("Y")
            await pilot.pause()
            assert app.clipboard == "g1\ng3\ng4"

    asyncio.run(drive())
    lines = (out / "failing-lex-all.md").read_text().splitlines()
    assert lines[0] == "| query | holes | text | lex | vec | rrf |"
    assert lines[2] == "| g1 | unjudged | question g1 | - | - | - |"
    assert lines[4] == "| g4 |  | question g4 | 0.00 | 0.00 | 0.00 |"  # figures as they are

    with (out / "failing-lex-all.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    # The list's queries are the report's failing frame for lex, in its order.
    expected = context.report.failing.filter(pl.col("system") == "lex")
    assert [r["query"] for r in rows] == expected.get_column("query_id").to_list()
    assert [r["holes"] for r in rows] == ["unjudged", "unjudged", ""]


def test_the_report_table_exports_its_figures(tmp_path) -> None:
    context = file_context(tmp_path)

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("E")
            await pilot.pause()

    asyncio.run(drive())
    table = pl.read_csv(tmp_path / "out" / "report-Success_3.csv")
    assert table.columns == ["stratum", "n", "lex", "vec", "rrf"]
    # The Markdown report's cells, as `goldset report` writes them: 2/3 on para for lex.
    assert table.row(1, named=True)["lex"].startswith("2/3 · 0.667 [")


def test_question_mark_lists_the_keys_on_every_review_screen(tmp_path) -> None:
    context = file_context(tmp_path)
    seen: list[str] = []

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            walk = [
                ([], ReportScreen),
                (["s"], ReportSummaryScreen),
                (["escape", "c"], ClosureScreen),
                (["escape", "o"], OverlapScreen),
                (["enter"], OverlapPairScreen),
                (["escape", "escape", *TO_ALL_LEX], FailuresScreen),
                (["enter"], TopKScreen),
            ]
            for keys, kind in walk:
                if keys:
                    await pilot.press(*keys)
                    await pilot.pause()
                assert isinstance(app.screen, kind), (keys, app.screen)
                await pilot.press("question_mark")
                await pilot.pause()
                assert isinstance(app.screen, HelpScreen), kind
                seen.append(kind.__name__)
                await pilot.press("escape")
                await pilot.pause()

    asyncio.run(drive())
    assert len(seen) == 7


def test_end_reaches_the_last_closure_row(tmp_path) -> None:
    context = file_context(tmp_path)

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("c")
            await pilot.pause()
            table = app.screen.query_one(DataTable)
            assert table.row_count > 2
            await pilot.press("end")
            await pilot.pause()
            assert table.cursor_row == table.row_count - 1
            await pilot.press("home")
            await pilot.pause()
            assert table.cursor_row == 0

    asyncio.run(drive())


def test_enter_on_an_overlap_pair_lists_its_queries_with_what_fusion_rescues(tmp_path) -> None:
    # alice's full grades: lex finds g1's d04 and vec misses it; both miss g4 (d20 unretrieved).
    store = planted.make_store(tmp_path, with_bob=False)
    screen = review_screen_for_store(store, "alice", metric=planted.METRIC)

    async def drive() -> None:
        app = GoldsetApp(lambda: screen)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("o", "enter")  # lex vs vec
            await pilot.pause()
            pair = app.screen
            assert isinstance(pair, OverlapPairScreen) and (pair.a, pair.b) == ("lex", "vec")
            rows = table_rows(pair.query_one(DataTable))
            assert rows == [
                ["g4", "both miss", "0.00", "0.00", "0.00 missed"],
                ["g1", "only vec misses", "1.00", "0.00", "1.00 rescued"],
            ]
            # The counts are the report's own (pair_overlap), query by query.
            scores = screen.context.report.scores
            counts = pair_overlap(scores, "lex", "vec")
            assert counts["both_miss"] == 1 and counts["miss_b"] - counts["both_miss"] == 1
            title = str(pair.query_one("#drill-title", Static).render())
            assert "rrf rescues 0 of the 1 both miss" in title
            await pilot.press("down", "enter")
            await pilot.pause()
            assert isinstance(app.screen, TopKScreen) and app.screen.query_id == "g1"

    asyncio.run(drive())


def test_long_run_names_keep_every_column_on_an_80_column_screen(tmp_path) -> None:
    """Three runs named like real ones: the report's columns, headed by names cut in the middle
    (kept distinct), all fit 80 columns with the stratum column frozen; the top k view shows
    the fused run's ids whole (it showed `[0] d1` for two documents)."""
    paths = planted.write_files(tmp_path)
    names = ["lexical-bm25-tuned-v2", "lexical-bm25-tuned-v3", "dense-e5-large-v2"]
    import argparse

    from goldset_tui.commands.review import add_arguments, build_context

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    argv = ["--qrels", str(paths["qrels"]), "--strata", str(paths["strata"])]
    for name, run in zip(names, ["lex", "lex", "vec"], strict=True):
        argv += ["--run", f"{name}={paths[run]}"]
    context = build_context(parser.parse_args([*argv, "--measure", planted.METRIC]))

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            table = app.screen.query_one(DataTable)
            assert table.fixed_columns == 1
            headers = [str(c.label) for c in table.columns.values()]
            assert len(set(headers)) == len(headers) and "rrf" in headers
            width = sum(c.get_render_width(table) for c in table.columns.values())
            assert width <= 80, headers
            await pilot.press("slash", "g", "3", "enter")
            await pilot.pause()
            assert isinstance(app.screen, TopKScreen)
            lines = screen_lines(app)
            top = context.report.topk.filter(
                (pl.col("system") == "rrf") & (pl.col("query_id") == "g3")
            ).sort("rank")
            for doc, grade in top.select("doc_id", "grade").iter_rows():
                cell = f"[{'?' if grade is None else grade}] {doc}"
                assert any(line.rstrip().endswith(cell) for line in lines), cell

    asyncio.run(drive())


def test_an_exported_markdown_table_renders_data_as_written() -> None:
    from goldset_tui.ui.widgets.review_keys import markdown_table

    rows = [["[x](http://evil.example)", "<b>bold</b>", "0.25", "-", "a|b"]]
    table = markdown_table(["query", "text", "lex", "vec", "note"], rows).splitlines()
    assert table[2] == ("| \\[x\\](http://evil.example) | \\<b\\>bold\\</b\\> | 0.25 | - | a\\|b |")
