"""The progress helper: drawn on a terminal only, erased when done, one line per step."""

from __future__ import annotations

import io
import threading
import time

from goldset_tui.progress import Steps, working


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_steps_draw_on_a_terminal_only() -> None:
    tty, pipe = Terminal(), io.StringIO()
    for stream in (tty, pipe):
        with Steps(4, stream=stream) as bar:
            for step in ("reading topics", "reading run 1/2", "reading run 2/2", "writing"):
                bar(step)
    assert pipe.getvalue() == ""
    frames = tty.getvalue().split("\r\x1b[K")
    assert frames[0] == "" and frames[-1] == ""  # each step rewrites the line; done erases it
    steps = frames[1:-1]
    assert len(steps) == 4
    assert "0/4" in steps[0] and "reading topics…" in steps[0]
    assert "3/4" in steps[3] and "writing…" in steps[3]
    assert all("\n" not in s for s in steps)


def test_a_step_message_is_one_line_shown_literally() -> None:
    tty = Terminal()
    bar = Steps(1, stream=tty)
    bar("reading run 1/1: [bold]x[/bold]\x1b[31m (" + "very/long/" * 40 + ")\nnext")
    bar.done()
    drawn = tty.getvalue().split("\r\x1b[K")[1]
    assert "[bold]x[/bold]" in drawn  # not taken as markup
    assert "\x1b[31m (" not in drawn and "\n" not in drawn  # controls made visible, one line
    assert "…" in drawn  # the long message is cut, not wrapped


def test_working_shows_only_when_the_body_is_slow() -> None:
    quick, slow, pipe = Terminal(), Terminal(), io.StringIO()
    with working("quick", stream=quick, delay=0.5):
        pass
    with working("reading the runs", stream=slow, delay=0.0):
        time.sleep(0.3)
    with working("reading the runs", stream=pipe, delay=0.0):
        time.sleep(0.1)
    assert quick.getvalue() == "" and pipe.getvalue() == ""
    assert "reading the runs…" in slow.getvalue()
    assert not [t for t in threading.enumerate() if isinstance(t, threading.Timer) and t.is_alive()]


def test_working_stops_when_the_body_raises() -> None:
    tty = Terminal()
    try:
        with working("failing", stream=tty, delay=0.0):
            time.sleep(0.2)
            raise ValueError("bad input")
    except ValueError:
        pass
    drawn = tty.getvalue()
    assert "\x1b[?25h" in drawn  # the cursor is shown again
    assert drawn.endswith("\x1b[2K")  # and the bar erased
