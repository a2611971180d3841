"""A second `goldset judge --labeller ana` while ana's session is still open in another process (a
dropped connection): the process is named, and ended on request (SIGHUP: it saves and closes)
instead of the labeller being told to find and kill it. The other session is a real child
process holding the journal's lock (store_child.py ``hold-session``); nothing here sleeps: the
child says when it holds the lock, and the take-over returns once the lock is free."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from test_store_merge import HERE, env

import goldset_tui.app.terminal as terminal
from goldset_tui.app.take_over import take_over_if_held
from goldset_tui.cli import main
from goldset_tui.errors import StoreLockedError
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.journal import is_locked


def new_store(tmp_path: Path) -> tuple[Path, Path]:
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1", "query": "rotate", "doc_id": "d1", "text": "x"}\n')
    store = Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool)).path
    return pool, store


@contextmanager
def open_session(store: Path, labeller: str = "ana") -> Iterator[subprocess.Popen]:
    child = subprocess.Popen(
        [sys.executable, str(HERE / "store_child.py"), str(store), labeller, "hold-session"],
        stdout=subprocess.PIPE,
        text=True,
        env=env(),
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "locked\n"
        yield child
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()


def journal_of(store: Path, labeller: str = "ana") -> Path:
    return Project.open(store).labeller_paths(labeller)[0]


def test_without_a_yes_the_refusal_names_the_process_and_the_flag(tmp_path: Path) -> None:
    _pool, store = new_store(tmp_path)
    with open_session(store) as child:
        journal = journal_of(store)
        for ask in (None, lambda _question: "n", lambda _question: ""):
            with pytest.raises(StoreLockedError) as refused:
                take_over_if_held(
                    journal, "ana", "goldset judge P --labeller ana", take_over=False, ask=ask
                )
            message = str(refused.value)
            assert f"process {child.pid}" in message
            assert message.endswith("goldset judge P --labeller ana --take-over")
            assert child.poll() is None and is_locked(journal)  # left running


def test_yes_ends_the_other_session_after_its_flush_and_frees_the_journal(tmp_path: Path) -> None:
    _pool, store = new_store(tmp_path)
    with open_session(store) as child:
        journal = journal_of(store)
        asked: list[str] = []

        def yes(question: str) -> str:
            asked.append(question)
            return "y"

        assert (
            take_over_if_held(journal, "ana", "goldset judge", take_over=False, ask=yes)
            == child.pid
        )
        assert f"process {child.pid}" in asked[0] and "[y/N]" in asked[0]
        assert not is_locked(journal)
        assert child.wait() == 0  # it left on its own, after saving
    # What the old session saved on its way out is in the store: the wait was for its flush.
    graded = Project.open(store).judgments("ana")
    assert graded["doc_id"].to_list() == ["saved-on-hangup"]
    # Nothing holds the journal: opening it now works, and nothing is ended.
    assert take_over_if_held(journal, "ana", "goldset judge", take_over=False, ask=None) is None


def test_judge_refuses_on_one_line_naming_the_pid_and_take_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before, the line said "close that session first": the labeller had to find and kill it.
    pool, store = new_store(tmp_path)
    monkeypatch.setattr(terminal, "has_terminal", lambda: True)  # stdin is no terminal: no y/N
    with open_session(store) as child:
        code = main(["judge", str(pool), "--labeller", "ana", "--store", str(store)])
        err = capsys.readouterr().err
        assert code == 2
        assert f"process {child.pid}" in err and "--take-over" in err, err
        assert len(err.strip().splitlines()) == 1
        assert child.poll() is None
