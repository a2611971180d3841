"""What a user sees after `goldset judge --machine` is SIGKILLed mid-run: its answers are durable
in the answer log, but its labels are stored only when a run ends, so `goldset qrels` right after
the kill used to show none of them (or an earlier run's labels only) without a word: "no labeller
'llm' in this store", as if the answers were lost. Now every reader of the store says how many
answers are not stored yet and the command that stores them; running that command stores them
without asking again, and the notice goes."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from fake_provider import FakeProvider
from judge_support import child_env, judge_command, pairs_of, small_pool

from goldset_tui.store.answers import read_answers


def _qrels(store: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "goldset_tui", "qrels", "--store", str(store)]
    return subprocess.run(
        [*command, "--labeller", "llm"], env=child_env(), capture_output=True, text=True
    )


def _killed_after(fake: FakeProvider, command: list[str], store: Path, answers: int) -> None:
    """Run ``command`` and SIGKILL it once it has ``answers`` answers in the log (one request at a
    time: the next one is held until the kill)."""
    fake.held.clear()
    fake.release.clear()
    fake.hold_after = len(fake.requests) + answers
    child = subprocess.Popen(
        command, env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        assert fake.held.wait(timeout=120), child.stderr
        (log,) = (store / "llm" / "cache").glob("*.jsonl")
        assert len(read_answers(log)[0]) >= answers  # the held request came after them
        child.kill()
        assert child.wait(timeout=60) == -9
    finally:
        if child.poll() is None:
            child.kill()
        child.stderr.close()  # type: ignore[union-attr]
    fake.hold_after = None
    fake.release.set()


@pytest.mark.parametrize("earlier", [0, 2], ids=["first run", "after an earlier run"])
def test_qrels_after_a_killed_machine_run_says_what_is_not_stored(
    tmp_path: Path, fake_provider: FakeProvider, earlier: int
) -> None:
    pool = small_pool(tmp_path)  # 12 pairs
    store = tmp_path / "store"
    command = judge_command(fake_provider, pool, store, "--concurrency", "1")
    if earlier:  # a run stopped by its budget stores its labels: the store knows 'llm'
        first = subprocess.run(
            [*command, "--max-pairs", str(earlier)], env=child_env(), capture_output=True
        )
        assert first.returncode == 0, first.stderr
    _killed_after(fake_provider, command, store, 3)

    after_kill = _qrels(store)
    said = re.search(
        r"(\d+) answers of an interrupted `goldset judge --machine` run are not in 'llm''s "
        r"labels yet \(kept in .*\); run the same command again to store them, nothing is asked "
        r"twice: (goldset judge .*)$",
        after_kill.stderr,
        re.M,
    )
    assert said, after_kill.stderr
    assert int(said[1]) == 3  # the answers the kill kept beyond the labels stored
    if earlier:
        assert after_kill.returncode == 0  # the earlier labels, and the notice beside them
        assert len(after_kill.stdout.splitlines()) == earlier
    else:
        assert after_kill.returncode == 2  # no such labeller yet: the same notice in the error
        assert after_kill.stderr.count("goldset: error:") == 1

    # The command it names stores them, asking only for the pairs never answered.
    words = shlex.split(said[2])
    assert words[:3] == ["goldset", "judge", "--machine"]
    asked = len(fake_provider.requests)
    again = subprocess.run(
        [sys.executable, "-m", "goldset_tui", *words[1:]],
        env=child_env(),
        capture_output=True,
        text=True,
    )
    assert again.returncode == 0, again.stderr
    assert len(fake_provider.requests) - asked == len(pairs_of(pool)) - earlier - 3
    done = _qrels(store)
    assert done.returncode == 0 and "interrupted" not in done.stderr, done.stderr
    assert len(done.stdout.splitlines()) == len(pairs_of(pool))


def test_a_disk_error_part_way_says_the_answers_are_kept_and_how_to_go_on(
    tmp_path: Path, fake_provider: FakeProvider, monkeypatch, capsys
) -> None:
    # It used to say only "goldset: error: STORE/llm/cache/....jsonl: No space left on device".
    import errno

    from judge_support import judge

    from goldset_tui.store.answers import AnswerLog

    pool = small_pool(tmp_path)
    store = tmp_path / "store"
    real_add, calls = AnswerLog.add, []

    def full_at_the_third(self, record) -> None:
        calls.append(record)
        if len(calls) == 3:
            raise OSError(errno.ENOSPC, "No space left on device", str(self.path))
        real_add(self, record)

    monkeypatch.setattr(AnswerLog, "add", full_at_the_third)
    status, _, err = judge(monkeypatch, capsys, fake_provider, pool, store, "--concurrency", "1")
    assert status == 2
    errors = [line for line in err.splitlines() if line.startswith("goldset: error:")]
    assert len(errors) == 1 and errors == err.splitlines()[-1:], err
    assert errors[0].endswith(
        "No space left on device; every answer made durable so far is kept: run the same "
        "command again to go on"
    )
    monkeypatch.setattr(AnswerLog, "add", real_add)
    asked = len(fake_provider.requests)
    status, _, err = judge(monkeypatch, capsys, fake_provider, pool, store, "--concurrency", "1")
    assert status == 0, err
    assert len(fake_provider.requests) - asked == len(pairs_of(pool)) - 2
