"""`goldset judge --machine` killed with SIGKILL mid-run (a child process, the fake provider holding
a request in flight): every answer it had counted is kept, and the same command resumes, asking
only for the pairs not answered, then stores every label."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from fake_provider import FakeProvider
from judge_support import child_env, judge_command, pairs_of, small_pool

from goldset_tui.store import Project
from goldset_tui.store.answers import input_digest, read_answers
from goldset_tui.store.machine import machine_labels


@pytest.mark.parametrize("concurrency", [1, 3])
def test_sigkill_keeps_every_counted_answer_and_the_rerun_resumes(
    tmp_path: Path, fake_provider: FakeProvider, concurrency: int
) -> None:
    pool = small_pool(tmp_path)
    pairs = pairs_of(pool)
    store = tmp_path / "store"
    fake_provider.hold_after = 5  # the 6th request and later wait: the child is killed then
    command = judge_command(fake_provider, pool, store, "--concurrency", str(concurrency))
    child = subprocess.Popen(
        command, env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        assert fake_provider.held.wait(timeout=120), child.stderr
        if concurrency == 1:
            # One at a time: the 6th request starts only once the 5th answer is on disk.
            (log,) = (store / "llm" / "cache").glob("*.jsonl")
            assert len(read_answers(log)[0]) == 5
        child.kill()
        assert child.wait(timeout=60) == -9
    finally:
        if child.poll() is None:
            child.kill()
        child.stderr.close()  # type: ignore[union-attr]
    first = len(fake_provider.requests)
    (log,) = (store / "llm" / "cache").glob("*.jsonl")
    kept, _ = read_answers(log)
    counted = {(q, d) for q, d, _ in kept}
    assert len(counted) >= 5 - (concurrency - 1)  # at most the requests in flight were lost
    fake_provider.hold_after = None
    fake_provider.release.set()

    done = subprocess.run(command, env=child_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    asked_again = fake_provider.requests[first:]
    assert len(asked_again) == len(pairs) - len(counted)  # not one counted pair asked again
    sent_before = {sha for _, _, sha in kept}
    assert not [r for r in asked_again if input_digest("", r.prompt) in sent_before]
    labels = machine_labels(Project.open(store), "llm")
    assert sorted(zip(labels["query_id"], labels["doc_id"], strict=True)) == sorted(pairs)
    assert f"{len(counted)} from the cache" in done.stderr
