"""The background writer's thread outlives a failing ``on_settled`` callback (the judging screen
posts a message from it; once the app has closed that post can raise): every grade queued after
is still saved, and ``drain`` returns instead of waiting for a thread that died."""

from __future__ import annotations

import threading

from goldset_tui.model import Judgment
from goldset_tui.store.ordered import OrderedWriter


class _Recorder:
    def __init__(self) -> None:
        self.recorded: list[int] = []
        self.closed = False

    def record(self, judgment: Judgment) -> int:
        self.recorded.append(judgment.grade or 0)
        return len(self.recorded)

    def close(self) -> None:
        self.closed = True


def _judgment(grade: int) -> Judgment:
    return Judgment(
        labeller="alice",
        query_id="q1",
        doc_id=f"d{grade}",
        grade=grade,
        time="2026-01-01T00:00:00",
        seconds=1.0,
        position=grade,
    )


def test_a_callback_that_raises_stops_no_save() -> None:
    calls: list[int] = []

    def gone() -> None:
        calls.append(1)
        raise RuntimeError("the app is closed")  # what a post to a closed screen can do

    inner = _Recorder()
    writer = OrderedWriter(inner, on_settled=gone)
    for grade in (1, 2, 3):
        writer.submit(_judgment(grade))
    # drain in a thread with a bound: on the old code it waits forever for a dead thread.
    drained = threading.Thread(target=writer.drain, daemon=True)
    drained.start()
    drained.join(10)
    assert not drained.is_alive(), "drain never returned: the save thread died"
    assert inner.recorded == [1, 2, 3]
    assert [error for _, _, error in writer.settled()] == [None, None, None]
    assert len(calls) == 3  # told every time, failing every time
    writer.close()
    assert inner.closed
