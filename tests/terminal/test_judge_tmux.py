"""The real `goldset judge` in tmux: judge with keys, SIGKILL it, check that every judgment the
screen called saved is in `goldset qrels`, reopen and resume at the same candidate; SIGHUP and
SIGTERM flush and exit; hostile text reaches the terminal only as placeholders."""

from __future__ import annotations

import json
import os
import pty
import re
import signal
import subprocess
from pathlib import Path

import pytest
from tmuxutil import goldset_command

pytestmark = pytest.mark.terminal

DOC = re.compile(r"\b(d\d-\d\d)\b")
SAVED = re.compile(r"saved #(\d+)=(\d)")


def write_pool(path: Path) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for q in range(2):
            for d in range(8):
                text = (
                    f"Candidate {q}-{d}: rotating keys, paragraph {d * 7919 % 101} of the manual."
                )
                if (q, d) == (0, 3):
                    text = "[@click=app.quit]click[/] \x1b[2J\x1b[31mred \u202eevil \u4e2d\u6587"
                fh.write(
                    json.dumps(
                        {
                            "query_id": f"q{q}",
                            "query": f"rotate key {q}",
                            "doc_id": f"d{q}-{d:02d}",
                            "title": f"Doc {q}.{d}",
                            "text": text,
                        }
                    )
                    + "\n"
                )
    return path


def env() -> dict[str, str]:
    return {k: os.environ[k] for k in ("GOLDSET_DATA_DIR", "GOLDSET_CONFIG_DIR")}


def qrels(store: Path) -> dict[str, int]:
    out = subprocess.run(
        [goldset_command(), "qrels", "--store", str(store), "--labeller", "alice"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    pairs = {}
    for line in out.stdout.splitlines():
        qid, _, doc, grade = line.split()
        pairs[doc] = int(grade)
    return pairs


def current_doc(screen: str) -> str:
    lines = [line for line in screen.splitlines() if line.strip().startswith("#")]
    assert lines, screen
    return DOC.search(lines[0]).group(1)


def test_sigkill_loses_nothing_shown_as_saved_and_resume(tmux, tmp_path: Path) -> None:
    pool = write_pool(tmp_path / "pool.jsonl")
    store = tmp_path / "store"
    argv = [goldset_command(), "judge", str(pool), "--labeller", "alice", "--store", str(store)]

    t = tmux(80, 24)
    t.start(argv, env=env())
    t.wait_for("Guidelines")
    t.send("Escape")
    screen = t.wait_for(lambda s: "Guidelines" not in s and "query 0/8" in s)
    shown_saved: dict[str, int] = {}
    grades = ["2", "0", "3", "1", "2", "0", "1", "3", "2", "1"]  # past the end of q0, into q1
    for i, key in enumerate(grades, start=1):
        doc = current_doc(screen)
        t.send(key)
        # Wait until the screen says this one is saved (and has moved on).
        screen = t.wait_for(lambda s, i=i: f"all {i}/16" in s and "saved #" in s)
        shown_saved[doc] = int(key)
    assert "Query 2/2" in screen  # finishing q0 went on into q1
    where = current_doc(screen)
    t.signal(signal.SIGKILL)
    t.wait_dead()
    assert t.exit_status() == -signal.SIGKILL

    on_disk = qrels(store)
    assert on_disk == shown_saved  # every judgment shown as saved, and nothing else

    t2 = tmux(80, 24)
    t2.start(argv, env=env())
    screen = t2.wait_for("all 10/16")
    assert "Guidelines" not in screen  # not a first open any more
    assert current_doc(screen) == where  # resumes where the labeller was
    assert "Query 2/2" in screen

    # SIGHUP (the SSH connection dropped): flushes, exits, and releases the lock.
    t2.send("0")
    t2.wait_for("all 11/16")
    t2.signal(signal.SIGHUP)
    t2.wait_dead()
    assert t2.exit_status() == 128 + signal.SIGHUP  # our handler exited (a kill would read -1)
    assert len(qrels(store)) == 11
    journal_parts = list((store / "judgments").rglob("*.parquet"))
    assert journal_parts, "close() compacts the journal into Parquet"


def test_sigterm_flushes_and_hostile_text_is_literal_in_the_terminal(tmux, tmp_path: Path) -> None:
    pool = write_pool(tmp_path / "pool.jsonl")
    store = tmp_path / "store"
    t = tmux(100, 30)
    t.start(
        [goldset_command(), "judge", str(pool), "--labeller", "alice", "--store", str(store)],
        env=env(),
    )
    t.wait_for("Guidelines")
    t.send("Escape")
    screen = t.wait_for(lambda s: "Guidelines" not in s and "query 0/8" in s)
    for _ in range(8):
        if "d0-03" in screen:
            break
        t.send("j")
        screen = t.wait_for(lambda s, before=screen: s != before)
    assert "d0-03" in screen
    assert "[@click=app.quit]click[/]" in screen
    assert "\u241b[2J\u241b[31mred" in screen and "<U+202E>evil" in screen
    t.send("3")
    t.wait_for("saved #")
    t.signal(signal.SIGTERM)
    t.wait_dead()
    assert t.exit_status() == 128 + signal.SIGTERM  # handled, flushed, exited (not -15)
    assert qrels(store) == {"d0-03": 3}
    assert list((store / "judgments").rglob("*.parquet"))


def test_bad_pool_is_one_line_and_exit_2_before_any_screen(tmp_path: Path) -> None:
    bad = tmp_path / "pool.jsonl"
    bad.write_text(
        '{"query_id": "q1", "query": "x", "doc_id": "d1", "text": "ok"}\n{not json\n',
        encoding="utf-8",
    )
    # A real terminal on stdin and stdout (a pseudo-terminal): without one, judge refuses before
    # reading the pool (tests/terminal/test_no_terminal.py), which is not this test's path.
    primary, secondary = pty.openpty()
    try:
        out = subprocess.run(
            [
                goldset_command(),
                "judge",
                str(bad),
                "--labeller",
                "alice",
                "--store",
                str(tmp_path / "s"),
            ],
            stdin=secondary,
            stdout=secondary,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            env={**os.environ},
        )
        os.set_blocking(primary, False)
        try:
            drawn = os.read(primary, 65536)
        except BlockingIOError:
            drawn = b""
    finally:
        os.close(primary)
        os.close(secondary)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "pool.jsonl:2" in out.stderr
    assert drawn == b""  # no screen was drawn
    assert not (tmp_path / "s").exists()  # and no store was made


SGR = re.compile(r"\x1b\[([0-9;]*)m")


def test_sixteen_colour_terminal_gets_only_sixteen_colours(tmux, tmp_path: Path) -> None:
    pool = write_pool(tmp_path / "pool.jsonl")
    t = tmux(80, 24)
    t.start(
        [
            goldset_command(),
            "judge",
            str(pool),
            "--labeller",
            "alice",
            "--store",
            str(tmp_path / "s"),
        ],
        env=env(),
        term="xterm",
    )
    t.wait_for("Guidelines")
    t.send("Escape")
    t.wait_for(lambda s: "Guidelines" not in s and "query 0/8" in s)
    t.send("2")
    t.wait_for("saved #1=2")
    screen = t.capture(escapes=True)
    codes = [c for seq in SGR.findall(screen) for c in seq.split(";") if c]
    assert codes, "expected some styling"
    # 38;5;N / 48;5;N (256 colours) and 38;2;R;G;B (true colour) must not appear.
    params = ";".join(SGR.findall(screen))
    assert "38;5;" not in params and "48;5;" not in params
    assert "38;2;" not in params and "48;2;" not in params
    assert "j/k move" in t.capture()  # the footer is there, readable
    t.send("q")
    t.wait_dead()
    assert t.exit_status() == 0
    assert list((tmp_path / "s" / "judgments").rglob("*.parquet"))  # a clean quit compacts
    assert list((tmp_path / "s" / "judgments").rglob("*.parquet"))
