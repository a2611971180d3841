"""The fault sweep's fast part, in the suite: the store API workload (two judging sessions: saves,
a group, undos, compactions) with every call that changes the disk failing in turn (EIO; EIO
that persists to the end of the operation, under which a failed write's clean-up fails too;
ENOSPC at the calls where it differs from EIO: a write leaves half its bytes, a Polars writer a
partial file), a sample of SIGKILLs, and one telling point of each writing command; every call of
the adjudicator's and the spot-checker's journals failing (EIO, EIO*); a machine judge killed
after two answers and one whose disk fails for good. bench/fault_sweep.py runs every workload and
every kill
(docs/store.md, "The fault sweep")."""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

import pytest

import goldset_tui.store.journal as journal_module
from faults.injector import POLARS_WRITERS, Injector
from faults.ledger import Ledger
from faults.registry import WORKLOADS
from faults.sweep import Point, Prepared, fault_point, kill_point, prepare
from goldset_tui.model import Judgment
from goldset_tui.store import Project, sha256_file

# ENOSPC differs from EIO only where the call can have done part of its work first.
PARTIAL = {"write", *(name for _, name in POLARS_WRITERS)}
KILLS = 8  # kill points in the suite, spread over the workload (the bench kills at every one)


def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder on tmpfs when there is one: hundreds of runs, each with real fsyncs."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        import tempfile

        return Path(tempfile.mkdtemp(prefix="goldset-faults-", dir=shm))
    return tmp_path_factory.mktemp("faults")


@pytest.fixture(scope="module")
def store_api(tmp_path_factory: pytest.TempPathFactory):
    base = scratch(tmp_path_factory)
    yield prepare(WORKLOADS["store API"], base / "w")
    import shutil

    shutil.rmtree(base, ignore_errors=True)


def summary(points: list[Point]) -> str:
    bad = [p for p in points if p.violations]
    lines = [f"{p.fault} at call {p.at} ({p.call}): {v}" for p in bad for v in p.violations]
    return "\n".join(lines[:20])


def test_the_injector_sees_every_kind_of_write_the_store_makes(store_api: Prepared) -> None:
    # A count this size with each kind present: a wrapper that stopped seeing its calls (a call
    # bound at import time, a renamed Polars writer) shows up here first.
    assert store_api.calls >= 80
    kinds = set(store_api.names)
    assert {"write", "fdatasync", "fsync", "ftruncate", "replace", "open", "mkdir"} <= kinds
    assert "write_parquet" in kinds
    assert store_api.after == {
        ("q1", "d1"): 1, ("q1", "d2"): 3, ("q1", "d3"): 3, ("q1", "d4"): 0,
        ("q2", "g3"): 1, ("q1", "d5"): 1,
    }  # fmt: skip


@pytest.mark.parametrize("fault", ["EIO", "EIO*", "ENOSPC"])
def test_every_call_of_the_store_api_failing_breaks_no_promise(store_api: Prepared, fault) -> None:
    at = [n for n, name in enumerate(store_api.names) if fault != "ENOSPC" or name in PARTIAL]
    points = [fault_point(store_api, fault, n) for n in at]
    assert [p.at for p in points if p.call is None] == []  # every fault reached its call
    violating = sum(bool(p.violations) for p in points)
    print(f"\nstore API, {fault}: {len(points)} points, {violating} violations")
    assert summary(points) == ""


def test_a_sample_of_kills_in_the_store_api_breaks_no_promise(store_api: Prepared) -> None:
    step = max(1, store_api.calls // KILLS)
    points = [kill_point(store_api, n) for n in range(step // 2, store_api.calls, step)]
    assert [p.at for p in points if p.call is None] == []  # every kill landed
    assert summary(points) == ""


# --- one telling point of each command (bench/fault_sweep.py runs them all) --------------------
def _record_fsync(names: list[str]) -> int:
    """An import's record: the folder fsync after the manifest's rename, the last rename before
    the grades' part (the last Parquet write). Under a persistent fault it cannot be taken back."""
    last_part = max(n for n, name in enumerate(names) if name == "write_parquet")
    renamed = max(n for n in range(last_part) if names[n] == "replace")
    assert names[renamed + 1] == "fsync"
    return renamed + 1


COMMAND_POINTS = {  # workload: (fault, which call)
    "import --pool": ("EIO*", _record_fsync),
    "import --human": ("EIO*", _record_fsync),
    "import --machine": ("EIO*", _record_fsync),
    "merge --into": ("EIO", lambda names: len(names) - 1),  # the new store's folder fsync
    "pool --extend": ("EIO*", lambda names: len(names) - 1),  # after the manifest's rename
    "report --release": ("EIO", lambda names: len(names) - 1),  # after the commit point
}


@pytest.mark.parametrize("name", list(COMMAND_POINTS))
def test_one_point_of_each_command_breaks_no_promise(tmp_path_factory, name: str) -> None:
    base = scratch(tmp_path_factory)
    try:
        prepared = prepare(WORKLOADS[name], base / "w")
        fault, which = COMMAND_POINTS[name]
        point = fault_point(prepared, fault, which(prepared.names))
        assert point.call == "fsync"
        assert point.violations == []
    finally:
        import shutil

        shutil.rmtree(base, ignore_errors=True)


# A set of files (labels and manifest; a sample, its companions and manifest; consensus qrels and
# their provenance) failing at its last file's rename: the earlier set must be whole again, not
# new files beside it.
FILE_SETS = ("classify -o", "sample draw -o", "synth -o", "qrels --consensus")


@pytest.mark.parametrize("name", FILE_SETS)
def test_a_set_of_files_failing_at_its_manifest_leaves_the_earlier_set(
    tmp_path_factory, name: str
) -> None:
    base = scratch(tmp_path_factory)
    try:
        prepared = prepare(WORKLOADS[name], base / "w")
        last_rename = max(n for n, call in enumerate(prepared.names) if call == "replace")
        point = fault_point(prepared, "EIO", last_rename)
        assert point.call == "replace"
        assert point.violations == []
        assert prepared.before != prepared.after  # the run replaces every file of the set
    finally:
        import shutil

        shutil.rmtree(base, ignore_errors=True)


def test_adjudicate_whose_journal_cannot_open_leaves_the_rule_as_it_was(tmp_path_factory) -> None:
    # `adjudicate --rule` with the adjudicator's journal folder failing (the mkdir before the
    # lock's open and cut): the command fails and the store keeps its rule (it used to be
    # recorded first, and stayed after the error).
    base = scratch(tmp_path_factory)
    try:
        prepared = prepare(WORKLOADS["adjudicate --rule"], base / "w")
        names = prepared.names
        at = next(
            n for n in range(len(names)) if names[n : n + 3] == ["mkdir", "open", "ftruncate"]
        )
        point = fault_point(prepared, "EIO", at)
        assert point.call == "mkdir"
        assert point.violations == []
        assert prepared.before != prepared.after  # the run records the new rule
    finally:
        import shutil

        shutil.rmtree(base, ignore_errors=True)


# --- the screens' own journals, and the commands that ask a model ---------------------------------
@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory):
    folder = scratch(tmp_path_factory)
    yield folder
    import shutil

    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("name", ["adjudicate", "spotcheck"])
def test_every_call_of_an_adjudicator_or_a_spot_checker_failing_breaks_no_promise(
    base: Path, name: str
) -> None:
    # The screens' writers: what a reader finds is exactly what the acknowledged decisions or
    # answers made, right after a failure (but a persistent one) and after the next save.
    prepared = prepare(WORKLOADS[name], base / name)
    points = [fault_point(prepared, f, n) for f in ("EIO", "EIO*") for n in range(prepared.calls)]
    assert [p.at for p in points if p.call is None] == []
    assert summary(points) == ""


@pytest.fixture(scope="module")
def judge_machine(base: Path) -> Prepared:
    return prepare(WORKLOADS["judge --machine"], base / "judge")


def _answers(prepared: Prepared) -> list[int]:
    """The answer log's fdatasyncs, one an answer (the only fdatasyncs of the run)."""
    syncs = [n for n, name in enumerate(prepared.names) if name == "fdatasync"]
    assert len(syncs) == 5 and all(prepared.names[n - 1] == "write" for n in syncs)
    return syncs


def test_a_machine_judge_killed_after_two_answers_keeps_them_and_qrels_says_so(
    judge_machine: Prepared,
) -> None:
    # Killed just before the third answer's write: two answers counted, no label stored yet.
    # `goldset qrels` must say that they wait (it used to say "no labeller 'llm'"), and the run
    # after the kill ask for the other three only.
    point = kill_point(judge_machine, _answers(judge_machine)[2] - 1)
    assert point.call == "write"
    assert point.violations == []
    assert len(judge_machine.workload.kept_before_rerun) == 2  # type: ignore[attr-defined]


def test_a_machine_judge_whose_disk_fails_for_good_keeps_its_answers_said(
    judge_machine: Prepared,
) -> None:
    # The second answer's fdatasync fails and the disk refuses every write after it: the run
    # fails in one line, cannot store its labels either, and the answer kept is said to wait.
    point = fault_point(judge_machine, "EIO*", _answers(judge_machine)[1])
    assert point.call == "fdatasync"
    assert point.violations == []


# --- the checks can fail: a store that breaks a promise is caught ------------------------------
def test_the_sweep_catches_a_grade_reported_not_saved_that_is_counted(
    store_api: Prepared, monkeypatch
) -> None:
    # The journal as it was before failed appends were voided: the clean-up cut is tried once,
    # its failure ignored, never made durable.
    def old_failed(self, size, records) -> None:
        with contextlib.suppress(OSError):
            os.ftruncate(self._descriptor(), size)

    monkeypatch.setattr(journal_module.Journal, "_failed", old_failed)
    first_save = store_api.names.index("write") + 1  # the first save's fdatasync
    point = fault_point(store_api, "EIO*", first_save)
    assert point.call == "fdatasync"
    assert any(
        v.startswith("after the next save, a reader sees {('q1', 'd1'): 1,")
        for v in point.violations
    ), point.violations


def test_the_sweep_catches_a_lost_acknowledged_grade_and_a_leftover(
    store_api: Prepared, monkeypatch
) -> None:
    import goldset_tui.store.writer as writer_module

    real_append = writer_module.JudgmentWriter._append

    def forgetful(self, record):  # acknowledges the 3rd save without writing it
        if record.get("doc_id") == "d3":
            seq = record["seq"] = self._next_seq
            self._next_seq += 1
            return seq
        return real_append(self, record)

    monkeypatch.setattr(writer_module.JudgmentWriter, "_append", forgetful)
    lost = fault_point(store_api, "EIO", store_api.calls - 1)
    assert any("('q1', 'd3')" in v for v in lost.violations), lost.violations
    monkeypatch.undo()
    (store_api.root / "store" / ".tmp-left").write_text("x")  # what a careless writer leaves
    ledger = Ledger()
    from faults.sweep import check

    assert check(store_api, ledger, False)[-1] == "left behind: store/.tmp-left"


def test_the_sweep_catches_a_decision_reported_not_saved_that_is_counted(
    base: Path, monkeypatch
) -> None:
    # An adjudicator's journal that ignores a failed cut-off (never tried again): the decision
    # the screen called "not saved" stays in the file and a reader counts it.
    def old_failed(self, size, records) -> None:
        with contextlib.suppress(OSError):
            os.ftruncate(self._descriptor(), size)

    prepared = prepare(WORKLOADS["adjudicate"], base / "caught")
    monkeypatch.setattr(journal_module.Journal, "_failed", old_failed)
    first_decision = prepared.names.index("fdatasync")
    point = fault_point(prepared, "EIO*", first_decision)
    assert point.call == "fdatasync"
    assert any(
        v.startswith("after the next save, a reader sees {('q01', 'json#JSONDecoder.__init__'): 1")
        for v in point.violations
    ), point.violations


def test_an_eio_from_the_injector_looks_like_the_real_one(tmp_path) -> None:
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1"}\n')
    project = Project.create(tmp_path / "s", pool_path=pool, pool_sha256=sha256_file(pool))
    writer = project.writer("alice")
    fdatasyncs = Injector()
    with fdatasyncs.installed():
        writer.record(Judgment("alice", "q1", "d1", 1, "2026-01-01T00:00:00Z"))
    at = fdatasyncs.names.index("fdatasync")
    with Injector("EIO", at).installed(), pytest.raises(OSError) as info:
        writer.record(Judgment("alice", "q1", "d2", 1, "2026-01-01T00:00:00Z"))
    assert info.value.errno == errno.EIO and info.value.filename == str(writer.journal_path)
    writer.close()


def test_an_error_saying_the_change_is_made_is_held_to_it(tmp_path) -> None:
    # After its commit point a command may fail and say so ("release ... IS recorded whole",
    # "NEWDIR IS made"): then the change must be all there; a plain error must leave nothing.
    from faults.sweep import check
    from faults.workloads import Command

    class Fake(Command):
        name = "fake"
        state = "before"

        def run(self, root, ledger):  # the rerun after a failure
            reruns.append(self.state)
            ledger.start(("cli", "fake"))
            ledger.ack()

        def effect(self, root):
            return self.state

    reruns: list[str] = []
    fake = Fake()
    prepared = Prepared(fake, tmp_path, before="before", after="after")
    prepared.root.mkdir()

    def violations(state: str, message: str) -> list[str]:
        fake.state = state
        ledger = Ledger()
        ledger.start(("cli", "fake"))
        ledger.fail(f"goldset: error: {message}\n")
        return check(prepared, ledger, False)

    assert violations("after", "x: Input/output error: /new IS made, with everything merged") == []
    assert reruns == []  # done, as it said: nothing to run again
    assert violations("before", "x: Input/output error: /new IS made")[0].startswith(
        "said it is done"
    )
    assert violations("after", "x: Input/output error")[0].endswith("but all of it done")
