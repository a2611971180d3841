"""The real `goldset review` in tmux on the sample data with holes in its qrels: the table, a
stratum's failing queries, a query's top k with [?] marks, judging two missing pairs into a store,
and back to a recomputed top k; `q` quits with status 0 and the grades are in the store."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from tmuxutil import goldset_command

from goldset_tui.store.files import sha256_file
from goldset_tui.store.project import Project

pytestmark = pytest.mark.terminal

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


def test_review_drills_down_and_judges_the_holes(tmux, tmp_path: Path) -> None:
    pool = SAMPLE / "pool.jsonl"
    if not pool.exists():
        pytest.skip("sample data not built")
    lines = (SAMPLE / "judgments" / "alice.qrels").read_text().splitlines()
    holes = tmp_path / "holes.qrels"
    holes.write_text("".join(line + "\n" for i, line in enumerate(lines, start=1) if i % 3))
    store = tmp_path / "store"
    Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    env = {k: os.environ[k] for k in ("GOLDSET_DATA_DIR", "GOLDSET_CONFIG_DIR")}
    argv = [
        goldset_command(),
        "review",
        "--qrels",
        str(holes),
        "--run",
        f"bm25={SAMPLE / 'runs' / 'bm25.run'}",
        "--run",
        f"minilm={SAMPLE / 'runs' / 'minilm.run'}",
        "--strata",
        str(SAMPLE / "strata.csv"),
        "--measure",
        "nDCG@10",
        "--topics",
        str(SAMPLE / "topics.tsv"),
        "--corpus",
        str(SAMPLE / "corpus.jsonl"),
        "--store",
        str(store),
        "--labeller",
        "me",
        "--samples",
        "200",
    ]
    t = tmux(100, 30)
    t.start(argv, env)
    # Every third judgment removed leaves 2 of the 42 golden-set queries without a relevant
    # document: the table is built on 40 and says it does not close.
    # The header names the grades in force, so at 100 columns it may wrap before "close".
    screen = t.wait_for(lambda s: "table DOES NOT" in s and "close ✗" in s, timeout=60)
    assert "40 queries" in screen
    assert "paraphrase †" in screen and "━" in screen and "●" in screen
    # minilm column, paraphrase row (sixth stratum), then its first failing query.
    t.send("Right", "Right", "Right", "Down", "Down", "Down", "Down", "Down", "Enter")
    screen = t.wait_for("minilm · paraphrase: ")
    assert "failing of" in screen
    t.send("Enter")
    screen = t.wait_for("unjudged document(s)")
    assert "[?]" in screen
    t.send("J")
    t.wait_for("Query 1/1")
    t.send("2")
    time.sleep(0.5)
    t.send("2")
    time.sleep(0.5)
    t.send("Escape")
    screen = t.wait_for(lambda s: "unjudged document(s)" in s and "[2]" in s, timeout=120)
    t.send("q")
    t.wait_dead()
    deadline = time.monotonic() + 10
    while t.exit_status() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert t.exit_status() == 0
    judged = Project.open(store).judgments("me")
    assert judged.height == 2 and set(judged.get_column("grade").to_list()) == {2}
