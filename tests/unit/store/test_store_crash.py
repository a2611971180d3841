"""Crashes: a writer killed with SIGKILL loses nothing it acknowledged, and a kill at any step of
compaction leaves a readable store without duplicates."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from goldset_tui.errors import StoreLockedError
from goldset_tui.model import Judgment
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.parts import list_parts

CHILD = Path(__file__).with_name("store_child.py")
ROOT = Path(__file__).resolve().parents[3]


def child_env() -> dict[str, str]:
    # The child imports goldset_tui from this checkout even if it is not installed.
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def make(tmp_path: Path) -> Project:
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1"}\n')
    return Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))


def child(project: Project, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(CHILD), str(project.path), *args],
        stdout=subprocess.PIPE,
        text=True,
        env=child_env(),
    )


def expected(acks: list[str]) -> dict[tuple[str, str], int]:
    out = {}
    for line in acks:
        _, qid, did, grade = line.split()
        out[(qid, did)] = int(grade)
    return out


def kill_after(
    project: Project, mode: str, count: int
) -> tuple[dict[tuple[str, str], int], dict[tuple[str, str], int]]:
    """Run a writer child in ``mode``, SIGKILL it after ``count`` acknowledgements; return what
    the reopened store holds and what was acknowledged (query, doc) -> grade."""
    proc = child(project, "alice", mode)
    acks = []
    try:
        while len(acks) < count:
            line = proc.stdout.readline()
            assert line.startswith("ack "), line
            acks.append(line)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    # anything printed after our count but before the kill was acknowledged too
    acks += [line for line in proc.stdout.read().splitlines() if line.startswith("ack ")]
    reopened = Project.open(project.path)
    return {(r[0], r[1]): r[2] for r in reopened.qrels("alice").iter_rows()}, expected(acks)


def test_every_acknowledged_judgment_survives_sigkill(tmp_path: Path) -> None:
    project = make(tmp_path)
    # compaction runs every 37 saves in the child, so the kill lands after several of them
    stored, want = kill_after(project, "stream", 300)
    assert {pair: stored.get(pair) for pair in want} == want
    # At most the one save in flight at the kill is extra, never a corrupt one.
    assert len(stored) - len(want) in (0, 1)
    reopened = Project.open(project.path)
    # The crashed writer's lock is gone: a new session opens and continues the sequence.
    with reopened.writer("alice") as w:
        w.record(Judgment("alice", "q-new", "d-new", 1, "2026-01-01T00:00:00Z"))
    history = Project.open(project.path).judgments("alice", history=True)
    assert history["seq"].n_unique() == history.height and history["seq"].to_list() == sorted(
        history["seq"].to_list()
    )


def test_every_acknowledged_batch_survives_sigkill(tmp_path: Path) -> None:
    # Near-duplicate groups are saved 1,000 judgments to one fsync: a kill mid-batch must lose no
    # acknowledged batch, and may add at most the one batch in flight (never a corrupt line).
    project = make(tmp_path)
    stored, want = kill_after(project, "stream-batch", 1000)
    assert {pair: stored.get(pair) for pair in want} == want
    assert 0 <= len(stored) - len(want) <= 50


def test_second_process_for_the_same_labeller_is_refused(tmp_path: Path) -> None:
    project = make(tmp_path)
    holder = child(project, "alice", "hold")
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(StoreLockedError, match=f"process {holder.pid}"):
            project.writer("alice")
        with project.writer("bob") as w:  # other labellers are not blocked
            w.record(Judgment("bob", "q", "d", 1, "t"))
        project.compact()  # skips the locked labeller instead of failing
        with pytest.raises(StoreLockedError):
            project.compact("alice")
    finally:
        holder.kill()
        holder.wait()
    with project.writer("alice"):  # the killed holder's lock does not block
        pass


@pytest.mark.parametrize("mode", ["die-in-replace", "die-in-truncate", "die-in-merge"])
def test_kill_during_compaction_leaves_a_readable_store(tmp_path: Path, mode: str) -> None:
    project = make(tmp_path)
    proc = child(project, "alice", mode, "60")
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL, out
    acks = [line for line in out.splitlines() if line.startswith("ack ")]
    assert acks and "closed" not in out
    parts_dir = project.path / "judgments" / "alice"
    journal = project.path / "journal" / "alice.jsonl"
    # The kill landed where it was meant to:
    if mode == "die-in-replace":  # a part written to a temporary name, never renamed
        assert list(parts_dir.glob(".tmp-*")) and not list_parts(parts_dir)
    elif mode == "die-in-truncate":  # a durable part and a journal still holding its records
        assert list_parts(parts_dir) and journal.read_text().count("\n") == 5
    else:  # a merged part next to the parts it replaces
        ranges = [(a, b) for a, b, _ in list_parts(parts_dir)]
        assert any(
            a1 <= a2 and b2 <= b1 and (a1, b1) != (a2, b2) for a1, b1 in ranges for a2, b2 in ranges
        )
    reopened = Project.open(project.path)
    history = reopened.judgments("alice", history=True)
    assert (
        history["seq"].n_unique() == history.height
    )  # a record in both a part and the journal counts once
    stored = {(r[0], r[1]): r[2] for r in reopened.qrels("alice").iter_rows()}
    assert {pair: stored.get(pair) for pair in expected(acks)} == expected(acks)
    # The next session tidies up: stray temporary files go, the journal is folded in.
    with reopened.writer("alice"):
        pass
    assert not list(parts_dir.glob(".tmp-*"))
    assert journal.read_text() == ""
    assert len(list_parts(parts_dir)) >= 1
    assert Project.open(project.path).judgments("alice", history=True).equals(history)


def test_readers_see_every_acknowledged_judgment_while_the_writer_compacts(tmp_path: Path) -> None:
    project = make(tmp_path)
    proc = child(project, "alice", "stream")
    acks: list[str] = []
    try:
        acks.append(proc.stdout.readline())
        assert acks[0].startswith("ack ")  # registered and saving
        for _ in range(25):
            # everything acknowledged before the read starts must be in what the read returns
            for _ in range(15):
                acks.append(proc.stdout.readline())
            reader = Project.open(project.path)
            history = reader.judgments("alice", history=True)
            assert history["seq"].n_unique() == history.height
            stored = {(r[0], r[1]): r[2] for r in reader.qrels("alice").iter_rows()}
            want = expected(acks)
            assert {pair: stored.get(pair) for pair in want} == want
            assert reader.warnings == []  # a save in flight is not crash damage
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


def test_random_sigkills_including_inside_compaction_lose_no_acknowledged_judgment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A writer compacting every 5 saves is killed at a random moment, again and again
    on the same store; after each kill every acknowledged judgment is there with its grade, and
    the next session folds what the dead one left. The counts are printed."""
    import random
    import time

    rounds = int(os.environ.get("GOLDSET_CRASH_ROUNDS", "6"))
    rng = random.Random(13)
    project = make(tmp_path)
    parts_dir = project.path / "judgments" / "alice"
    journal = project.path / "journal" / "alice.jsonl"
    acked: dict[tuple[str, str], int] = {}
    mid_compaction = 0
    for round_ in range(rounds):
        proc = child(project, "alice", "stream-compact", str(round_ * 100_000))
        target = rng.randint(3, 120)
        got: list[str] = []
        try:
            while len(got) < target:
                line = proc.stdout.readline()
                assert line.startswith("ack "), line
                got.append(line)
            time.sleep(rng.random() * 0.02)  # land anywhere: an append, a part, a truncate
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        got += [line for line in proc.stdout.read().splitlines() if line.startswith("ack ")]
        acked.update(expected(got))
        # A kill inside compaction leaves a temporary part, or journal records already in a part.
        compacted = max((b for _, b, _ in list_parts(parts_dir)), default=0)
        in_journal = [json.loads(x)["seq"] for x in journal.read_text().splitlines() if x.strip()]
        if list(parts_dir.glob(".tmp-*")) or any(seq <= compacted for seq in in_journal):
            mid_compaction += 1
        reopened = Project.open(project.path)
        stored = {(q, d): g for q, d, g in reopened.qrels("alice").iter_rows()}
        assert {pair: stored.get(pair) for pair in acked} == acked
        history = reopened.judgments("alice", history=True)
        assert history["seq"].n_unique() == history.height
    with capsys.disabled():
        print(
            f"\ncrash-consistency: {rounds} SIGKILLs, {len(acked)} acknowledged judgments all "
            f"found with their grades; {mid_compaction} kills left a compaction half done"
        )
