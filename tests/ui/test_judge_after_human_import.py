"""A labeller whose earlier qrels were imported (`goldset import --human`) continues on the judging
screen: every imported pair counts as judged, the screen opens on a pair the file did not grade,
and a grade given there is a screen judgment, not an imported one."""

from __future__ import annotations

from pathlib import Path

from test_judge_support import run_async_tests

from goldset_tui.cli import main
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.human import imported_judgments
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.help import HelpScreen
from goldset_tui.ui.screens.judge import JudgeScreen

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
BOB = SAMPLE / "judgments" / "bob.qrels"


async def test_judging_resumes_after_the_imported_pairs(tmp_path: Path) -> None:
    from goldset_tui.commands.judge import make_screen, prepare

    pool, store = SAMPLE / "pool.jsonl", tmp_path / "store"
    Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    argv = ["import", "--store", str(store), "--labeller", "bob", "--human", str(BOB)]
    assert main(argv) == 0
    graded = {
        (q, d) for q, _, d, _ in (line.split() for line in BOB.read_text().splitlines() if line)
    }
    total = sum(1 for line in pool.read_text().splitlines() if line.strip())
    assert 0 < len(graded) < total  # bob's file leaves some of the pool to judge

    screen = make_screen(prepare(pool, "bob", store=store))
    async with GoldsetApp(lambda: screen).run_test() as pilot:
        await pilot.pause()
        await pilot.pause()
        # bob's first sitting at the screen: the guidelines open, though his file graded pairs.
        assert isinstance(pilot.app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(pilot.app.screen, JudgeScreen)
        session = screen.session
        assert session.overall_progress() == (len(graded), total)
        first = (session.query_id, session.current.doc_id)
        assert first not in graded
        await pilot.press("2")
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    after = Project.open(store)
    assert after.qrels("bob").height == len(graded) + 1
    assert (*first, 2) in after.qrels("bob").rows()
    imported = imported_judgments(after, "bob")
    assert imported.height == len(graded) and first not in set(
        imported.select("query_id", "doc_id").rows()
    )


run_async_tests(globals())
