"""`goldset judge --order adaptive`: the next candidate picked by the MaxMean bandit, traced by hand.

One query, two systems (the bandit breaks ties by sorted system name, so `a-weak` is tried first):

    a-weak: w1 w2 w3    b-good: g1 g2 g3     relevant (grade >= 1): g1 g3

  1. weak 1/2, good 1/2, tie -> weak's w1, graded 0; weak 1/3
  2. good 1/2 > 1/3 -> g1, graded 2; good 2/3
  3. good -> g2, graded 0; good 2/4
  4. good 1/2 > weak 1/3 -> g3, graded 1 (related: relevant at trec_eval's -l 1); good exhausted
  5. weak -> w2; 6. weak -> w3; then the next query
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from goldset_tui.app.judging import refuse_order
from goldset_tui.errors import InputError
from goldset_tui.judging import JudgingSession
from goldset_tui.judging.adaptive import ORDERS, adaptive_next, has_systems, ranked_lists

TRUTH = {"w1": 0, "w2": 0, "w3": 0, "g1": 2, "g2": 0, "g3": 1, "o1": 0}
EXPECTED = ["w1", "g1", "g2", "g3", "w2", "w3"]


def pool(*, systems: bool = True) -> pl.DataFrame:
    rows = []
    for i in (1, 2, 3):
        for name, prefix in (("a-weak", "w"), ("b-good", "g")):
            rows.append(
                {
                    "query_id": "q1",
                    "query": "rotate an api key",
                    "doc_id": f"{prefix}{i}",
                    "text": f"text {prefix}{i}",
                    "systems": [name] if systems else None,
                    "ranks": [i] if systems else None,
                }
            )
    rows.append(
        {
            "query_id": "q2",
            "query": "other",
            "doc_id": "o1",
            "text": "t",
            "systems": ["a-weak"] if systems else None,
            "ranks": [1] if systems else None,
        }
    )
    return pl.DataFrame(
        rows,
        schema={
            "query_id": pl.Utf8,
            "query": pl.Utf8,
            "doc_id": pl.Utf8,
            "text": pl.Utf8,
            "systems": pl.List(pl.Utf8),
            "ranks": pl.List(pl.Int64),
        },
    )


class Writer:
    def record(self, judgment: object) -> None: ...
    def undo(self, query_id: str, doc_id: str) -> None: ...
    def note(self, query_id: str, doc_id: str, text: str) -> None: ...
    def close(self) -> None: ...


def test_session_follows_the_hand_trace() -> None:
    s = JudgingSession(pool(), "alice", writer=Writer(), order="adaptive")
    seen = []
    while s.query_id == "q1" and len(seen) < 10:
        doc = s.current.doc_id
        seen.append(doc)
        s.grade(TRUTH[doc])
    assert seen == EXPECTED
    assert s.current.doc_id == "o1"  # q1 done: on to the next query


def test_blind_order_is_the_default_and_differs() -> None:
    s = JudgingSession(pool(), "alice", writer=Writer())
    seen = []
    while s.query_id == "q1" and len(seen) < 10:
        seen.append(s.current.doc_id)
        s.grade(TRUTH[s.current.doc_id])
    assert sorted(seen) == sorted(EXPECTED) and seen != EXPECTED


def test_positions_stay_blind_and_resume_picks_again() -> None:
    # grades already given (a resumed session): the bandit continues from them
    judged = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["w1", "g1"], "grade": [0, 2]})
    s = JudgingSession(pool(), "alice", writer=Writer(), judged=judged, order="adaptive")
    assert s.current.doc_id == "g2"
    blind = JudgingSession(pool(), "alice", writer=Writer())
    # the position recorded is the blind one, the same as in the default order
    blind_positions = {}
    for pos in range(blind.size):
        blind.pos = pos
        blind_positions[blind.current.doc_id] = pos
    assert s.current.position == blind_positions["g2"]


def test_adaptive_next_on_rows() -> None:
    rows = pool().filter(pl.col("query_id") == "q1").to_dicts()
    assert ranked_lists(rows) == {"a-weak": ["w1", "w2", "w3"], "b-good": ["g1", "g2", "g3"]}
    assert rows[adaptive_next(rows, {}) or 0]["doc_id"] == "w1"
    assert adaptive_next(rows, dict.fromkeys(TRUTH, 0)) is None
    # a candidate no system returned comes after the bandit has nothing left
    extra = [*rows, {"doc_id": "hand", "systems": None, "ranks": None}]
    done = {r["doc_id"]: 0 for r in rows}
    assert adaptive_next(extra, done) == len(rows)


def test_a_pool_without_systems_is_refused(tmp_path: Path) -> None:
    assert has_systems(pool()) and not has_systems(pool(systems=False))
    assert ORDERS == ("blind", "adaptive")
    fake = type("P", (), {"frame": pool(systems=False), "path": tmp_path / "pool.jsonl"})()
    with pytest.raises(InputError, match="systems and ranks"):
        refuse_order(fake, "adaptive")
    refuse_order(fake, "blind")  # the default needs nothing


def test_on_a_one_to_four_scale_the_lowest_grade_is_not_relevant() -> None:
    # The same trace on a 1-4 scale, every grade shifted up by one: 1 is the lowest grade
    # ("not relevant"), so the bandit must read it as a failure exactly as 0 on 0-3. Counting
    # grade >= 1 as relevant made every graded document a success: after w1 (graded 1) the
    # weak system stayed in front (2/3 against 1/2) and the order became w1 w2 w3 g1 g2 g3.
    from goldset_tui.model import GradeScale

    s = JudgingSession(
        pool(), "alice", writer=Writer(), order="adaptive", scale=GradeScale.from_range(1, 4)
    )
    seen = []
    while s.query_id == "q1" and len(seen) < 10:
        doc = s.current.doc_id
        seen.append(doc)
        s.grade(TRUTH[doc] + 1)
    assert seen == EXPECTED


def test_a_refused_adaptive_order_leaves_no_store_behind(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    # "Everything is checked before any screen opens ... nothing is written to the store": the
    # order was checked after the store (manifest, lock file) had been created, so the refused
    # pool showed up on the home screen as a project with nothing judged.
    import goldset_tui.app.terminal as terminal
    from goldset_tui.cli import main

    monkeypatch.setattr(terminal, "require_terminal", lambda command="": None)
    path = tmp_path / "pool.jsonl"
    pool(systems=False).drop("systems", "ranks").write_ndjson(path)
    store = tmp_path / "store"
    code = main(
        ["judge", str(path), "--labeller", "zz", "--store", str(store), "--order", "adaptive"]
    )
    assert code == 2
    assert "systems and ranks" in capsys.readouterr().err
    assert not store.exists()
