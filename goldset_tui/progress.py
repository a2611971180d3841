"""Progress on stderr for the long commands, drawn by Rich (installed with Textual).

Two shapes, one look (the step or the task, a bar, the time so far):

- :class:`Steps` for a command made of known steps (``goldset pool``: topics, each run, pooling,
  the corpus, writing): ``progress = Steps(5)``, ``progress("reading run 1/3: bm25")`` before
  each step, ``progress.done()`` at the end (or ``with Steps(5) as progress:``). It rewrites
  its line at each step and runs nothing in between.
- :func:`working` around one long call whose length is unknown (``with working("reading the
  runs"): ...``); it shows only if the call is still running after ``delay`` seconds, so quick
  runs on small files print nothing.

Both are silent unless stderr is a terminal, so pipes, logs and tests see no escape codes, and
both erase themselves when done. Messages often hold paths and names from the user's files: they
are shown with control characters made visible and never parsed as markup. Neither redirects
stdout (a command's output must still go where the user sent it).
"""

from __future__ import annotations

import shutil
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO

from goldset_tui.text import visible

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID


def _progress(stream: TextIO, *, spinner: bool) -> Progress:
    # Imported here: the CLI's start-up does not pay for Rich unless a bar is drawn.
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.table import Column

    columns = [
        SpinnerColumn() if spinner else MofNCompleteColumn(),
        BarColumn(bar_width=20),
        # One line whatever the message: a long path is cut with an ellipsis, never wrapped.
        TextColumn(
            "{task.description}",
            markup=False,
            table_column=Column(no_wrap=True, overflow="ellipsis", ratio=1),
        ),
        TimeElapsedColumn(),
    ]
    width = max(20, shutil.get_terminal_size((80, 24)).columns - 1)
    return Progress(
        *columns,
        console=Console(file=stream, width=width),
        expand=True,
        transient=True,
        redirect_stdout=False,
        redirect_stderr=False,
    )


def _live(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream: no bar
        return False


class Steps:
    """A bar of ``total`` known steps; calling it starts the next step with that message.

    Each step rewrites one line in place (carriage return, erase line, the bar drawn by Rich), so
    nothing is left running between steps: no thread, no hidden cursor, and a command that fails
    half-way leaves the last step's line above its error, as a step bar always did."""

    def __init__(self, total: int, *, stream: TextIO | None = None) -> None:
        self.total = max(1, total)
        self.started = 0
        self._stream = stream or sys.stderr
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    def __call__(self, message: str) -> None:
        self.started = min(self.started + 1, self.total)
        if not _live(self._stream):
            return
        text = visible(message, keep_newlines=False) + "…"
        if self._bar is None:
            self._bar = _progress(self._stream, spinner=False)
            self._task = self._bar.add_task(text, total=self.total)
        assert self._task is not None
        # The bar counts the steps finished, not the one starting now.
        self._bar.update(self._task, completed=self.started - 1, description=text)
        console = self._bar.console
        with console.capture() as captured:
            console.print(self._bar.get_renderable())
        self._stream.write("\r\x1b[K" + captured.get().rstrip("\n"))
        self._stream.flush()

    def done(self) -> None:
        if self._bar is not None:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
            self._bar = None

    def __enter__(self) -> Steps:
        return self

    def __exit__(self, *exc: object) -> None:
        self.done()


@contextmanager
def working(message: str, *, stream: TextIO | None = None, delay: float = 0.5) -> Iterator[None]:
    """A spinner, the message and the time so far while the body runs, after ``delay`` seconds."""
    out = stream or sys.stderr
    if not _live(out):
        yield
        return
    bar = _progress(out, spinner=True)
    bar.add_task(visible(message, keep_newlines=False) + "…", total=None)
    lock = threading.Lock()
    state = {"shown": False, "over": False}

    def show() -> None:
        with lock:
            if not state["over"]:
                bar.start()
                state["shown"] = True

    timer = threading.Timer(delay, show)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            state["over"] = True
            if state["shown"]:
                bar.stop()
