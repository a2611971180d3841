"""Helpers for the judging tests (no tests here): a small pool and a writer that remembers.

The writer stands in for ``Project.writer`` where a test is about the screen, not the store; the
tests that are about durability use the real store.
"""

from __future__ import annotations

import polars as pl

from goldset_tui.model import Judgment

QUERIES = {
    "q1": "how do i rotate an api key",
    "q2": "sqlite3 OperationalError database is locked",
    "q3": "json dumps without ascii escaping",
}


def tiny_pool(per_query: int = 4, *, systems: bool = False) -> pl.DataFrame:
    rows = []
    for q, text in QUERIES.items():
        for d in range(per_query):
            rows.append(
                {
                    "query_id": q,
                    "query": text,
                    "doc_id": f"{q}-d{d}",
                    "title": f"Title {q} {d}",
                    "text": f"Document {d} for {q}: the api key is rotated by calling rotate() {d * 'x'}",
                    "stratum": "howto",
                    **(
                        {"systems": ["bm25", "dense"], "ranks": [d + 1, per_query - d]}
                        if systems
                        else {}
                    ),
                }
            )
    return pl.DataFrame(rows)


class MemoryWriter:
    def __init__(self, fail: bool = False) -> None:
        self.records: list[Judgment] = []
        self.undos: list[tuple[str, str]] = []
        self.notes: list[tuple[str, str, str]] = []
        self.closed = 0
        self.fail = fail

    def record(self, judgment: Judgment) -> None:
        if self.fail:
            raise OSError(28, "No space left on device")
        self.records.append(judgment)

    def undo(self, query_id: str, doc_id: str) -> None:
        self.undos.append((query_id, doc_id))

    def note(self, query_id: str, doc_id: str, text: str) -> None:
        self.notes.append((query_id, doc_id, text))

    def close(self) -> None:
        self.closed += 1


class FakeClock:
    def __init__(self, start: float = 1000.0, step: float = 30.0) -> None:
        self.t = start
        self.step = step

    def __call__(self) -> float:
        self.t += self.step
        return self.t


def run_async_tests(namespace: dict) -> None:
    """No async pytest plugin is installed: wrap every ``async def test_*`` in ``asyncio.run``.

    ``functools.wraps`` keeps the signature (fixtures, parametrize) and the marks.
    """
    import asyncio
    import functools
    import inspect

    for name, fn in list(namespace.items()):
        if name.startswith("test_") and inspect.iscoroutinefunction(fn):

            def make(coro_fn):
                @functools.wraps(coro_fn)
                def wrapper(*args, **kwargs):
                    return asyncio.run(coro_fn(*args, **kwargs))

                return wrapper

            namespace[name] = make(fn)
