"""A failed background save brings the labeller back to the candidate whose save failed, even
when the grades queued behind it (refused without being tried) are reported in a later batch:
the background writer tells the screen after each grade, so the failure and the grades after it
can reach ``settle`` one call apart. Landing on the last of them took the labeller away from the
failure (seen on a loaded machine)."""

from __future__ import annotations

import polars as pl

from goldset_tui.judging import JudgingSession
from goldset_tui.model import Judgment
from goldset_tui.store.ordered import EarlierSaveFailed


class _Queued:
    """A background writer whose settled batches the test hands out one at a time."""

    def __init__(self) -> None:
        self.submitted: list[Judgment] = []
        self.batches: list[list[tuple[int, Judgment, Exception | None]]] = []

    def submit(self, judgment: Judgment) -> int:
        self.submitted.append(judgment)
        return len(self.submitted)

    def settled(self) -> list[tuple[int, Judgment, Exception | None]]:
        return self.batches.pop(0) if self.batches else []


def _pool() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "query_id": ["q1"] * 4,
            "query": ["rotate a key"] * 4,
            "doc_id": [f"d{i}" for i in range(4)],
            "text": [f"doc {i}" for i in range(4)],
        }
    )


def test_the_cursor_stays_on_the_failure_when_later_grades_settle_apart() -> None:
    writer = _Queued()
    session = JudgingSession(_pool(), "alice", writer=writer)
    first = session.current.doc_id
    session.grade(3)
    second = session.current.doc_id
    session.grade(0)
    assert session.unsaved == 2
    failed, refused = writer.submitted
    writer.batches = [
        [(1, failed, OSError(5, "Input/output error"))],
        [(2, refused, EarlierSaveFailed("not saved: an earlier grade's save failed"))],
    ]
    session.settle()
    assert session.current.doc_id == first
    session.settle()  # the refused grade arrives on its own: taken back, the cursor stays
    assert session.current.doc_id == first
    assert session.unsaved == 0 and session.judged_count == 0
    assert second != first


def test_the_cursor_goes_to_the_failure_when_all_settle_together() -> None:
    writer = _Queued()
    session = JudgingSession(_pool(), "alice", writer=writer)
    first = session.current.doc_id
    session.grade(3)
    session.grade(0)
    failed, refused = writer.submitted
    writer.batches = [
        [
            (1, failed, OSError(5, "Input/output error")),
            (2, refused, EarlierSaveFailed("not saved: an earlier grade's save failed")),
        ]
    ]
    session.settle()
    assert session.current.doc_id == first and session.judged_count == 0
