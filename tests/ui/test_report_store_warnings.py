"""`goldset review --store`: what the store says when it opens (a torn journal tail cut and kept)
is on the report screen, and the judging screen opened from it gets the store's warnings and the
writer (whose notices, such as a compaction that failed on a full disk, it shows on saving).
Before, the review's writer notices never reached a screen."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

import polars as pl
from textual.widgets import Static

from goldset_tui.commands import review
from goldset_tui.io.trec import read_qrels
from goldset_tui.model import Judgment
from goldset_tui.store import now_iso
from goldset_tui.store.files import sha256_file
from goldset_tui.store.project import Project
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.help import HelpScreen
from goldset_tui.ui.screens.judge import JudgeScreen
from goldset_tui.ui.screens.report import ReportScreen

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


def _torn_store(tmp_path: Path) -> Path:
    pool = SAMPLE / "pool.jsonl"
    store = tmp_path / "store"
    project = Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    project.import_prior(read_qrels(SAMPLE / "judgments" / "alice.qrels"))
    first = pl.read_ndjson(pool).row(0, named=True)
    with project.writer("ana") as writer:
        writer.record(Judgment("ana", first["query_id"], first["doc_id"], 2, now_iso()))
    (journal,) = (store / "journal").glob("ana*.jsonl")
    with journal.open("ab") as fh:
        fh.write(b'{"labeller": "ana", "query_id": "q01", "doc_id": "x", "gra')  # torn
    return store


def test_the_store_s_warnings_reach_the_review_and_its_judging(tmp_path: Path) -> None:
    store = _torn_store(tmp_path)
    parser = argparse.ArgumentParser()
    review.add_arguments(parser)
    args = parser.parse_args(["--store", str(store), "--labeller", "ana", "--samples", "50"])
    context = review.build_context(args)
    assert any("incomplete last line" in w for w in context.store_warnings)

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await pilot.pause()
            notes = str(app.screen.query_one("#report-notes", Static).render())
            count = len(context.store_warnings) + len(context.report.warnings)
            assert f"⚠ {count} warning(s)" in notes
            await pilot.press("w")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            shown = str(app.screen.query_one("#help-guidelines", Static).render())
            assert context.store_warnings[0][:40] in shown
            await pilot.press("escape")
            await pilot.pause()
            # Judging the holes: the screen gets the writer and the store's warnings.
            # (The sample pool is fully judged by the prior labeller: any two pairs ana has not
            # graded stand for the holes.)
            top = context.report.topk.select("query_id", "doc_id").unique(maintain_order=True)
            pairs = top.join(
                Project.open(store).judgments("ana").select("query_id", "doc_id"),
                on=["query_id", "doc_id"],
                how="anti",
            ).head(2)
            screen = context.judge(pairs)
            assert isinstance(screen, JudgeScreen)
            app.push_screen(screen)
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            said = [str(n.message) for n in app._notifications]
            assert any("incomplete last line" in m or ".torn" in m for m in said), said
            writer = screen.writer  # the writer the judging screen asks for notices on saving
            assert writer is not None and writer.labeller == "ana"
            screen.flush()

    asyncio.run(drive())
