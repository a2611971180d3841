"""From the report's drill-down into judging the missing pairs, into a real store, and back to a
recomputed report. Skipped until the judging screen is part of the build."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import polars as pl
import pytest
from save_gates import HeldFsync, until

pytest.importorskip("goldset_tui.ui.screens.judge")
pytest.importorskip("goldset_tui.judging")

from goldset_tui.store.project import Project
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.report import ReportScreen, ReviewContext
from goldset_tui.ui.widgets.report_drill import TopKScreen
from goldset_tui.ui.widgets.report_judge import judge_hook

_spec = importlib.util.spec_from_file_location(
    "report_ui_data", Path(__file__).parents[1] / "unit" / "report" / "ui_data.py"
)
ui_data = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ui_data)


def _corpus() -> pl.DataFrame:
    top = ui_data.make_report().topk
    docs = top.get_column("doc_id").unique().sort()
    return pl.DataFrame({"doc_id": docs, "text": [f"text of {d}" for d in docs], "title": docs})


def _judging_context(tmp_path: Path, **hooks: object) -> ReviewContext:
    """The sample report, its missing pairs judged as ana into a new store at ``tmp_path/store``
    (a one-line pool), with ``hooks`` (``on_judged``) passed on."""
    pool = tmp_path / "pool.csv"
    pool.write_text("query_id,query,doc_id,text\nq01,x,a,b\n")
    project = Project.create(tmp_path / "store", pool_path=pool, pool_sha256="0" * 64)
    return ReviewContext(
        ui_data.make_report(),
        topics=ui_data.make_topics(),
        judge=judge_hook(project, "ana", ui_data.make_topics(), _corpus(), tmp_path / "pairs.csv"),
        **hooks,
    )


def test_judging_the_missing_pairs_lands_in_the_store(tmp_path) -> None:
    recomputed: list[int] = []

    def on_judged():
        recomputed.append(len(Project.open(tmp_path / "store").judgments("ana")))

    context = _judging_context(tmp_path, on_judged=on_judged)

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press(
                "right", "right", "down", "down", "enter", "enter"
            )  # bm25 negation, q11
            await pilot.pause()
            assert isinstance(app.screen, TopKScreen)
            await pilot.press("J")
            await pilot.pause(0.3)
            judge = app.screen
            assert type(judge).__name__ == "ReviewJudgeScreen"
            await pilot.press("2")  # grade the first missing document and move on
            await pilot.pause(0.3)
            await pilot.press("escape")
            await pilot.pause(0.3)
            await app.workers.wait_for_complete()
            assert isinstance(app.screen, TopKScreen)

    asyncio.run(drive())
    judged = Project.open(tmp_path / "store").judgments("ana")
    assert judged.height == 1
    assert judged.row(0, named=True)["query_id"] == "q11"
    assert judged.row(0, named=True)["doc_id"] in {"bq11-3", "dq11-3", "rq11-3"}
    assert judged.row(0, named=True)["grade"] == 2
    assert recomputed == [1]


def test_without_texts_the_pairs_are_written_to_a_file(tmp_path) -> None:
    out = tmp_path / "pairs.csv"
    context = ReviewContext(ui_data.make_report(), judge=judge_hook(None, None, None, None, out))

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("right", "right", "down", "down", "enter", "enter", "J")
            await pilot.pause()
            assert isinstance(app.screen, TopKScreen)
            assert any(str(out) in str(n.message) for n in app._notifications)

    asyncio.run(drive())
    assert pl.read_csv(out).rows() == [("q11", "bq11-3"), ("q11", "dq11-3"), ("q11", "rq11-3")]


def test_escape_in_judging_from_the_report_goes_back_and_q_quits(tmp_path) -> None:
    """The rule of every screen: Escape back one screen, q home, or out when there is no home
    (`goldset review` opened the report directly). Both save first."""
    context = _judging_context(tmp_path)
    seen: list[str] = []

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("right", "right", "down", "down", "enter", "enter", "J")
            await pilot.pause(0.3)
            seen.append(type(app.screen).__name__)
            await pilot.press("1", "escape")
            await pilot.pause(0.3)
            seen.append(type(app.screen).__name__)
            seen.append("running" if app.is_running else "quit")
            await pilot.press("J")
            await pilot.pause(0.3)
            await pilot.press("q")
            await pilot.pause(0.3)
            seen.append("running" if app.is_running else "quit")

    asyncio.run(drive())
    assert seen == ["ReviewJudgeScreen", "TopKScreen", "running", "quit"]
    assert (
        Project.open(tmp_path / "store").judgments("ana").height == 1
    )  # the grade was saved on the way out


def test_judging_from_the_report_saves_off_the_key_and_says_saved_only_after_the_fsync(
    tmp_path, monkeypatch
) -> None:
    """Review's judging screen saves as `goldset judge` does: the next candidate at once, the
    grade's fsync on the ordered background writer, "saving…" until it returned. The fsync is
    held on an event the test releases (no sleeps)."""
    from goldset_tui.store.ordered import OrderedWriter

    context = _judging_context(tmp_path)

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("right", "right", "down", "down", "enter", "enter", "J")
            await app.workers.wait_for_complete()
            await pilot.pause()
            judge = app.screen
            assert type(judge).__name__ == "ReviewJudgeScreen"
            assert isinstance(judge.session.writer, OrderedWriter)  # the judge command's writer
            fsync = HeldFsync(monkeypatch)  # held from here on, not while the screen opened
            first = judge.session.current.doc_id
            await pilot.press("2")
            await pilot.pause()
            # On to the next candidate while the disk has not answered: "saving…", not saved.
            assert judge.session.current.doc_id != first and not fsync.returned.is_set()
            assert str(judge.status_bar.saved).startswith("saving\u2026")
            fsync.open()
            await until(pilot, lambda: "\u2713 saved" in str(judge.status_bar.saved))
            assert fsync.returned.is_set() and str(judge.status_bar.saved).startswith(
                "\u2713 saved #"
            )
            await pilot.press("escape")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert isinstance(app.screen, TopKScreen)

    asyncio.run(drive())
    assert Project.open(tmp_path / "store").judgments("ana")["grade"].to_list() == [2]


def test_pairs_file_is_named_by_its_full_path(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    context = ReviewContext(
        ui_data.make_report(), judge=judge_hook(None, None, None, None, Path("missing_pairs.csv"))
    )
    messages: list[str] = []

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("right", "right", "down", "down", "enter", "enter", "J")
            await pilot.pause()
            messages.extend(str(n.message) for n in app._notifications)

    asyncio.run(drive())
    full = str(tmp_path.resolve() / "missing_pairs.csv")
    assert any(f"written to {full} " in m for m in messages), messages
    assert pl.read_csv(full).height == 3


def test_judging_from_the_report_refuses_a_machine_labellers_name(tmp_path) -> None:
    """The report's J opens judging through the same door as `goldset judge`: a machine judge's
    name (imported with `goldset import --machine`) is not a person's to judge under, so the
    screen says why and nothing is written in that name."""
    from goldset_tui.store.machine import import_machine

    pool = tmp_path / "pool.csv"
    pool.write_text("query_id,query,doc_id,text\nq01,x,a,b\n")
    project = Project.create(tmp_path / "store", pool_path=pool, pool_sha256="0" * 64)
    labels = tmp_path / "gpt.qrels"
    labels.write_text("q01 0 a 1\n")
    import_machine(project, "gpt", labels, pool_pairs=None)
    hook = judge_hook(project, "gpt", ui_data.make_topics(), _corpus(), tmp_path / "pairs.csv")
    result = hook(pl.DataFrame({"query_id": ["q11"], "doc_id": ["bq11-3"]}))
    assert isinstance(result, str) and "machine labeller" in result
    assert Project.open(tmp_path / "store").judgments("gpt").height == 1  # the import's only
