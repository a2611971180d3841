"""After `goldset pool --extend ... --store S`, the command it prints runs as printed, and serves
exactly the pairs the extension added (--only-new); judging without it serves every unjudged
pair, old and new, with the new ones marked +new on the screen."""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path

import polars as pl
import pytest

import goldset_tui.ui.app as app_module
from goldset_tui.cli import main
from goldset_tui.io.pools import load_pool
from goldset_tui.io.trec import read_qrels
from goldset_tui.store import Project, sha256_file
from goldset_tui.ui.app import GoldsetApp

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"
POOL = SAMPLE / "pool.jsonl"
NEW_RUN = SAMPLE / "releases" / "2026.3" / "dense-v2.run"


def partly_judged_store(tmp_path: Path, judged: int = 600) -> Path:
    store = tmp_path / "S"
    Project.create(store, pool_path=POOL, pool_sha256=sha256_file(POOL))
    qrels = read_qrels(SAMPLE / "judgments" / "alice.qrels").head(judged)
    grades = qrels.with_columns(pl.lit(None, pl.String).alias("time"), pl.lit(None).alias("note"))
    Project.open(store).add_grades("ana", grades.with_columns(pl.col("note").cast(pl.String)))
    return store


def extend(store: Path, out: Path) -> None:
    argv = ["pool", "--extend", str(POOL), "--run", f"dense-v2={NEW_RUN}", "--depth", "10"]
    assert (
        main(
            [*argv, "--corpus", str(SAMPLE / "corpus.jsonl"), "-o", str(out)]
            + ["--store", str(store)]
        )
        == 0
    )


@pytest.fixture
def screens(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """Stands in for run_app: the real app headless; records what the session serves and what
    the first candidate's line says."""
    seen: list[dict] = []

    def drive(make_screen) -> int:
        async def go() -> None:
            app = GoldsetApp(make_screen)
            async with app.run_test(size=(120, 40)) as pilot:
                await app.workers.wait_for_complete()
                await pilot.wait_for_scheduled_animations()
                judge = next(s for s in app.screen_stack if hasattr(s, "session"))
                session = judge.session
                line = str(judge.query_one("#candidate").render())
                seen.append(
                    {
                        "progress": session.overall_progress(),
                        "marks": judge.marks.new_pairs,
                        "first": (session.query_id, session.current.doc_id),
                        "line": line,
                    }
                )

        asyncio.run(go())
        return 0

    monkeypatch.setattr(app_module, "run_app", drive)
    return seen


def test_the_printed_command_runs_and_serves_only_the_new_pairs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], screens: list[dict]
) -> None:
    store, out = partly_judged_store(tmp_path), tmp_path / "pool2.jsonl"
    extend(store, out)
    err = capsys.readouterr().err
    (printed,) = [
        line.strip() for line in err.splitlines() if line.strip().startswith("goldset judge")
    ]
    words = shlex.split(printed)
    assert words[:2] == ["goldset", "judge"] and "--labeller" in words
    assert main(words[1:]) == 0  # as printed
    new = load_pool(out).frame.join(load_pool(POOL).frame, on=["query_id", "doc_id"], how="anti")
    unjudged_new = new.join(
        Project.open(store).judgments("ana"), on=["query_id", "doc_id"], how="anti"
    )
    assert unjudged_new.height == new.height > 0  # ana judged none of the new ones
    (shown,) = screens
    assert shown["progress"] == (0, new.height)  # only the new pairs, none judged yet
    assert shown["marks"] == frozenset(new.select("query_id", "doc_id").iter_rows())
    assert shown["first"] in shown["marks"] and "+new" in shown["line"]
    assert f"only the {new.height:,} new pairs" in err


def test_without_only_new_old_and_new_are_served_and_the_new_marked(
    tmp_path: Path, screens: list[dict]
) -> None:
    store, out = partly_judged_store(tmp_path), tmp_path / "pool2.jsonl"
    extend(store, out)
    assert main(["judge", str(out), "--store", str(store), "--labeller", "ana"]) == 0
    (shown,) = screens
    pool = load_pool(out).frame
    new = pool.join(load_pool(POOL).frame, on=["query_id", "doc_id"], how="anti")
    assert shown["progress"] == (600, pool.height)
    assert shown["marks"] == frozenset(new.select("query_id", "doc_id").iter_rows())
    assert ("+new" in shown["line"]) == (shown["first"] in shown["marks"])


def test_only_new_on_a_store_never_extended_is_one_line(tmp_path: Path, capsys) -> None:
    store = partly_judged_store(tmp_path)
    argv = ["judge", str(POOL), "--store", str(store), "--labeller", "ana", "--only-new"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--only-new" in err


def test_only_new_on_a_pool_without_provenance_compares_with_the_old_pool(
    tmp_path: Path, screens: list[dict]
) -> None:
    # A pool file without systems: an old pair the new run also returns gets the new run alone
    # as its provenance, like a new pair; the old pool file tells them apart.
    pool = tmp_path / "pool.csv"
    pool.write_text("query_id,query,doc_id,text\nq1,one,d1,t1\nq1,one,d2,t2\nq2,two,d3,t3\n")
    run = tmp_path / "new.run"
    run.write_text("q1 Q0 d2 1 2.0 new\nq1 Q0 d9 2 1.0 new\nq2 Q0 d3 1 1.0 new\n")
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"_id": "d9", "text": "t9"}\n')
    store, out = tmp_path / "S", tmp_path / "pool2.csv"
    assert main(["judge", str(pool), "--labeller", "ana", "--store", str(store)]) == 0
    argv = ["pool", "--extend", str(pool), "--run", f"new={run}", "--depth", "5"]
    assert main([*argv, "--corpus", str(corpus), "-o", str(out), "--store", str(store)]) == 0
    argv = ["judge", str(out), "--labeller", "ana", "--store", str(store), "--only-new"]
    assert main(argv) == 0
    _, shown = screens
    assert shown["marks"] == {("q1", "d9")} and shown["progress"] == (0, 1)
