"""Many prompts, at most K at a time, their answers handed back on the caller's thread.

:func:`run_limited` submits ``work(item)`` for the items in order to a pool of ``concurrency``
threads, never more in flight than that, asking ``may_start(started, in_flight)`` before each
(the budget), and yields ``(item, result)`` or ``(item, exception)`` as each finishes. The caller
does the writing as results come back, on its own thread, so a store's durable writes stay in one
thread and in the order acknowledged. Stopping early (the budget, ``stop``, an exception in the
caller, Ctrl-C) starts nothing more; requests in flight are left to finish or be dropped with the
threads (their answers were never acknowledged, so nothing is lost but their cost).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def run_limited(
    items: Iterable[T],
    work: Callable[[T], R],
    *,
    concurrency: int,
    may_start: Callable[[int, int], bool] = lambda started, in_flight: True,
) -> Iterator[tuple[T, R | Exception]]:
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    pending = iter(items)
    running: dict[Future[R], T] = {}
    started = 0
    exhausted = False
    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="goldset-llm")
    try:
        while True:
            while not exhausted and len(running) < concurrency and may_start(started, len(running)):
                try:
                    item = next(pending)
                except StopIteration:
                    exhausted = True
                    break
                running[pool.submit(work, item)] = item
                started += 1
            if not running:
                return
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                item = running.pop(future)
                error = future.exception()
                if error is not None and not isinstance(error, Exception):
                    raise error  # KeyboardInterrupt, SystemExit: not a result
                yield item, (error if error is not None else future.result())
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
