"""Ids differing only by a character that shows as nothing (a Hangul filler, the combining
grapheme joiner, a variation selector) look different on the judging screen: the labeller must
be able to tell which candidate and which query a grade goes to."""

from __future__ import annotations

import polars as pl
import regex
from test_judge_support import MemoryWriter, run_async_tests

from goldset_tui.judging import JudgingSession
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen

FILLER = "\u3164"  # HANGUL FILLER: blank in every font, category Lo (not a format character)


def pool() -> pl.DataFrame:
    rows = []
    for qid in ("q1", f"q1{FILLER}"):
        for did in ("d7", f"d{FILLER}7", "d7\u034f", "d7\ufe0f"):
            rows.append(
                {
                    "query_id": qid,
                    "query": "rotate keys",
                    "doc_id": did,
                    "text": f"text {len(rows)}",
                }
            )
    return pl.DataFrame(rows)


def shown(app: GoldsetApp, widget: str) -> str:
    """What a person sees in a widget: its text less the characters that show as nothing."""
    text = str(app.screen.query_one(f"#{widget}").render())
    text = regex.sub(r"#?\d+/\d+ ", "", text)  # the position ("#2/4", "Query 1/2"): not the id
    return regex.sub(r"\p{Default_Ignorable_Code_Point}", "", text)


async def test_ids_differing_only_by_an_invisible_character_look_different() -> None:
    session = JudgingSession(pool(), "alice", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(session, show_guidelines=False))
    async with app.run_test(size=(100, 30)) as pilot:
        candidates: dict[str, str] = {}
        queries: dict[str, str] = {}
        for _ in range(2):
            for _ in range(4):
                await pilot.pause()
                candidates.setdefault(session.current.doc_id, shown(app, "candidate"))
                queries.setdefault(session.query_id, shown(app, "query"))
                await pilot.press("j")
            await pilot.press("n")
        # Four candidates, four different lines; two queries, two different headings.
        assert len(candidates) == 4 and len(set(candidates.values())) == 4
        assert len(queries) == 2 and len(set(queries.values())) == 2
        assert "d<U+3164>7" in candidates[f"d{FILLER}7"]
        assert "d7<U+034F>" in candidates["d7\u034f"]
        assert "d7<U+FE0F>" in candidates["d7\ufe0f"]
        assert "q1<U+3164>" in queries[f"q1{FILLER}"]


run_async_tests(globals())
