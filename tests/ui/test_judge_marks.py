"""On a planned overlap, the judging screen marks the queries everyone on the team judges (they
feed agreement), and only those."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from save_gates import until

import goldset_tui.ui.app as app_module
from goldset_tui.agreement.assignment import overlap_query_ids
from goldset_tui.cli import main
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.widgets.marks import SHARED_MARK

POOL = Path(__file__).resolve().parents[2] / "sample_data" / "pool.jsonl"


def test_shared_queries_are_marked_and_the_others_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines: dict[str, str] = {}

    def drive(make_screen) -> int:
        async def go() -> None:
            app = GoldsetApp(make_screen)
            async with app.run_test(size=(120, 40)) as pilot:
                await app.workers.wait_for_complete()
                judge = next(s for s in app.screen_stack if hasattr(s, "session"))
                # Its actions act once the first candidate is drawn (the type-ahead guard); on a
                # loaded machine that frame came after the loading worker had finished.
                await until(pilot, judge.keys_live)
                if app.screen is not judge:
                    await pilot.press("escape")  # the first sitting's guidelines
                for _ in judge.session.query_ids:
                    # The query line is drawn after the move: wait until it names this query.
                    query_id = judge.session.query_id

                    def drawn(query_id: str = query_id) -> bool:
                        return f" {query_id} " in str(judge.query_one("#query").render())

                    await until(pilot, drawn)
                    line = str(judge.query_one("#query").render()).splitlines()[0]
                    lines[query_id] = line
                    judge.action_next_query(1)

        asyncio.run(go())
        return 0

    monkeypatch.setattr(app_module, "run_app", drive)
    argv = ["judge", str(POOL), "--labeller", "ana", "--store", str(tmp_path / "S")]
    assert main([*argv, "--assign", "overlap=0.3", "--team", "ana,bob,cy"]) == 0
    ids = list(dict.fromkeys(json.loads(x)["query_id"] for x in POOL.open()))
    shared = overlap_query_ids(ids, 0.3, 0)  # the plan's seed: 0 unless --seed
    assert lines and shared <= set(lines)  # every shared query is in ana's share
    marked = {q for q, line in lines.items() if SHARED_MARK.strip() in line}
    assert marked == shared
    assert all("(3 judge it)" in lines[q] for q in shared)
