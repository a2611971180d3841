"""Scripted workloads for the fault injector, one per way goldset writes: the store API (judging
sessions with groups, undo and compaction) and each writing command (`import` of a pool, of a
person's qrels and of a machine's labels, `merge`, `pool --extend`, `report --store --release`).

A workload has ``setup(root)`` (run once, without faults, into a template copied for every
point), ``run(root, ledger)`` (the part whose calls are counted and faulted; it tells the ledger
what the user was told), and ``effect(root)``: what the workload changes, read back with goldset's
own readers, path-free so that runs compare. The store API's check is finer: the grades in force
must be exactly those of the acknowledged operations (sweep.py holds the checks).
"""

from __future__ import annotations

import io
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import polars as pl

from faults.ledger import Ledger, Op
from goldset_tui.store.files import TMP_PREFIX

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_data"
RELEASE = SAMPLE / "releases" / "2026.1"
NEW_RUN = SAMPLE / "releases" / "2026.3" / "dense-v2.run"


def _store_from(root: Path, labeller: str | None = "alice", *more: str) -> Path:
    """A store made from the sample pool, with the sample's alice (or ``labeller``, and each of
    ``more``) imported (no faults here)."""
    from goldset_tui.io.trec import read_qrels
    from goldset_tui.store import Project, sha256_file

    pool = SAMPLE / "pool.jsonl"
    project = Project.create(root / "store", pool_path=pool, pool_sha256=sha256_file(pool))
    for name in (labeller, *more) if labeller is not None else ():
        qrels = read_qrels(SAMPLE / "judgments" / f"{name}.qrels")
        project.add_grades(
            name,
            qrels.with_columns(
                pl.lit(None, pl.String).alias("time"), pl.lit(None, pl.String).alias("note")
            ),
        )
    return project.path


def _grades(store: Path, labeller: str) -> tuple[tuple[str, str, int], ...] | None:
    from goldset_tui.store import Project

    project = Project.open(store)
    if labeller not in project.labellers():
        return None
    return tuple(sorted(project.qrels(labeller).iter_rows()))


def _is_store(path: Path) -> bool:
    return (path / "manifest.toml").is_file()


class Workload:
    name = ""
    command = False  # a command line (exit status and stderr), not API calls

    def setup(self, root: Path) -> None:
        """Build the inputs the workload starts from (not counted, no faults)."""

    def run(self, root: Path, ledger: Ledger) -> None:
        raise NotImplementedError

    def effect(self, root: Path) -> Any:
        raise NotImplementedError

    def each_whole(self, found: Any, before: Any, after: Any) -> bool:
        """Whether a state between ``before`` and ``after`` is allowed after a kill (or an error
        saying some files ARE the new ones): no, for a change goldset makes all or nothing."""
        return False

    def resumable(self, found: Any, before: Any, after: Any) -> bool:
        """Whether a state between ``before`` and ``after`` is allowed after any failure or kill:
        no, except for a command documented to keep what it finished (a model's answers, stored
        whatever stops the run) and to finish the rest when run again."""
        return False

    def promises(self, root: Path, ledger: Ledger, killed: bool) -> list[str]:
        """A command's own promises, checked after the fault, before it runs again (what it told
        its user on the way: ``ledger.notes``). The broken ones, in words."""
        return []

    def rerun_promises(self, ledger: Ledger, again: Ledger) -> list[str]:
        """A command's own promises about the run after the fault (asking nothing twice...)."""
        return []

    # An API workload (``command`` False): what the acknowledged operations leave in force, and
    # the next session, which must open and save after any fault.
    def model(self, ops: list[Op]) -> Any:
        return in_force(ops)

    def next_session(self, root: Path) -> tuple[Any, Any]:
        """Open the next session, save one record; its key and value in ``effect``."""
        raise NotImplementedError

    def without_next(self, found: Any, key: Any, value: Any) -> Any:
        """``found`` without the next session's record, or None when that record is missing."""
        if not isinstance(found, dict) or found.get(key) != value:
            return None
        return {k: v for k, v in found.items() if k != key}


# --- the store API ----------------------------------------------------------------------------
SESSIONS: tuple[tuple[Op, ...], ...] = (
    (
        ("judge", "q1", "d1", 1),
        ("judge", "q1", "d2", 2),
        ("judge", "q1", "d3", 3),
        ("judge", "q1", "d4", 0),  # the 4th save compacts (COMPACT_EVERY is 4 here)
        ("group", (("q2", "g1", 2), ("q2", "g2", 2), ("q2", "g3", 1))),
        ("undo", "q1", "d2"),
        ("judge", "q1", "d2", 3),
        ("undo_many", (("q2", "g1"), ("q2", "g2"))),
    ),
    (
        ("judge", "q1", "d5", 1),
        ("judge", "q1", "d1", 2),
        ("undo", "q1", "d1"),
    ),
)


def apply(stacks: dict[tuple[str, str], list[int]], op: Op) -> None:
    """What an acknowledged operation does to the grades in force (the model the store must match)."""
    kind = op[0]
    if kind == "judge":
        stacks.setdefault((op[1], op[2]), []).append(op[3])
    elif kind == "group":
        for q, d, g in op[1]:
            stacks.setdefault((q, d), []).append(g)
    elif kind == "undo":
        stack = stacks.get((op[1], op[2]))
        if stack:
            stack.pop()
    elif kind == "undo_many":
        for q, d in op[1]:
            stack = stacks.get((q, d))
            if stack:
                stack.pop()


def in_force(ops: list[Op]) -> dict[tuple[str, str], int]:
    stacks: dict[tuple[str, str], list[int]] = {}
    for op in ops:
        apply(stacks, op)
    return {pair: stack[-1] for pair, stack in stacks.items() if stack}


class ApiWorkload(Workload):
    """A workload of API calls, a screen's (``command`` False), whose reader is looked at right
    after each failure and after the next acknowledged operation."""

    def _look(self, root: Path, ledger: Ledger, failures: int, acked: int) -> None:
        """A reader (`goldset qrels`, a report) right after a failure, and again after the next
        operation acknowledged: it must not count what the screen called NOT SAVED, nor miss a
        grade (sweep.py holds the first look to that only when the fault was not persistent: a
        disk that refuses every write cannot take the failed line back until it works again)."""
        if len(ledger.failed) > failures:
            ledger.seen.append(("now", len(ledger.acked), self._reading(root)))
            self._after_failure = True
        elif len(ledger.acked) > acked and getattr(self, "_after_failure", False):
            ledger.seen.append(("next", len(ledger.acked), self._reading(root)))
            self._after_failure = False

    def _reading(self, root: Path) -> Any:
        from goldset_tui.errors import InputError

        try:
            return self.effect(root)
        except (OSError, InputError) as exc:
            return f"refused: {exc}"


class StoreApi(ApiWorkload):
    """Two judging sessions of one labeller through ``JudgmentWriter``: saves, a group saved in
    one write, undo of one and of several, a compaction every 4 saves and on close."""

    name = "store API"

    def setup(self, root: Path) -> None:
        from goldset_tui.store import Project, sha256_file

        pool = root / "pool.jsonl"
        pool.write_text('{"query_id": "q1"}\n{"query_id": "q2"}\n')
        Project.create(root / "store", pool_path=pool, pool_sha256=sha256_file(pool))

    def run(self, root: Path, ledger: Ledger) -> None:
        import goldset_tui.store.writer as writer_module
        from goldset_tui.model import Judgment
        from goldset_tui.store import Project

        def judgment(q: str, d: str, g: int) -> Judgment:
            return Judgment("alice", q, d, g, "2026-01-01T00:00:00Z", seconds=1.0)

        saved, writer_module.COMPACT_EVERY = writer_module.COMPACT_EVERY, 4
        self._after_failure = False
        try:
            for session in SESSIONS:
                writer = None
                for _attempt in range(2):  # the user tries again once after a failed open
                    with ledger.op("open"):
                        writer = Project.open(root / "store").writer("alice")
                    if writer is not None:
                        break
                if writer is None:
                    continue
                for op in session:
                    failures, acked = len(ledger.failed), len(ledger.acked)
                    with ledger.op(*op):
                        if op[0] == "judge":
                            writer.record(judgment(*op[1:]))
                        elif op[0] == "group":
                            writer.record_many([judgment(*j) for j in op[1]])
                        elif op[0] == "undo":
                            writer.undo(op[1], op[2])
                        else:
                            writer.undo_many(list(op[1]))
                    if ledger.out is None:
                        self._look(root, ledger, failures, acked)
                with ledger.op("close"):
                    writer.close()
        finally:
            writer_module.COMPACT_EVERY = saved

    def next_session(self, root: Path) -> tuple[Any, Any]:
        from goldset_tui.model import Judgment
        from goldset_tui.store import Project

        with Project.open(root / "store").writer("alice") as writer:
            writer.record(Judgment("alice", "q9", "next", 1, "2026-01-02T00:00:00Z"))
        return ("q9", "next"), 1

    def effect(self, root: Path) -> Any:
        from goldset_tui.store import Project

        project = Project.open(root / "store")
        if "alice" not in project.labellers():
            return {}
        return {(q, d): g for q, d, g in project.qrels("alice").iter_rows()}


# --- the commands -----------------------------------------------------------------------------
class Command(Workload):
    command = True

    def argv(self, root: Path) -> list[str]:
        raise NotImplementedError

    def run(self, root: Path, ledger: Ledger) -> None:
        from goldset_tui.cli import main

        argv = self.argv(root)
        ledger.start(("cli", self.name))
        out, err = io.StringIO(), io.StringIO()
        try:
            with redirect_stdout(out), redirect_stderr(err):
                status = main(argv)
        except Exception as exc:
            ledger.escape(f"{type(exc).__name__}: {exc}")
            return
        if status == 0:
            ledger.ack()
        elif status == 2:
            ledger.fail(err.getvalue())
        else:
            ledger.escape(f"exit status {status}: {err.getvalue()}")


class ImportPool(Command):
    """`import --pool`: a new store made from the pool, a person's qrels in it."""

    name = "import --pool"

    def argv(self, root: Path) -> list[str]:
        return [
            "import", "--pool", str(SAMPLE / "pool.jsonl"), "--store", str(root / "store"),
            "--labeller", "alice", "--human", str(SAMPLE / "judgments" / "alice.qrels"),
        ]  # fmt: skip

    def effect(self, root: Path) -> Any:
        store = root / "store"
        return _grades(store, "alice") if _is_store(store) else None


class ImportHuman(Command):
    """`import --human` of a new person into a store that holds another's grades."""

    name = "import --human"

    def setup(self, root: Path) -> None:
        _store_from(root)

    def argv(self, root: Path) -> list[str]:
        return [
            "import", "--store", str(root / "store"), "--labeller", "bob",
            "--human", str(SAMPLE / "judgments" / "bob.qrels"),
        ]  # fmt: skip

    def effect(self, root: Path) -> Any:
        from goldset_tui.store import Project

        store = root / "store"
        return (
            tuple(Project.open(store).labellers()),
            _grades(store, "bob"),
            _grades(store, "alice"),
        )


class ImportMachine(Command):
    """`import --machine`: a machine's labels, their confidence and rationale beside."""

    name = "import --machine"

    def setup(self, root: Path) -> None:
        _store_from(root)

    def argv(self, root: Path) -> list[str]:
        return [
            "import", "--store", str(root / "store"), "--labeller", "llm",
            "--machine", str(SAMPLE / "judgments" / "llm.jsonl"), "--model", "m",
        ]  # fmt: skip

    def effect(self, root: Path) -> Any:
        from goldset_tui.store import Project

        store = root / "store"
        project = Project.open(store)  # goldset's reading first: opening takes back a half import
        machine = store / "machine"
        files = (
            sorted(str(p.relative_to(store)) for p in machine.rglob("*"))
            if machine.exists()
            else []
        )
        return tuple(project.labellers()), _grades(store, "llm"), tuple(files)


class Merge(Command):
    """`merge --into NEWDIR A B`: two people's stores into a new one."""

    name = "merge --into"

    def setup(self, root: Path) -> None:
        (root / "a").mkdir()
        (root / "b").mkdir()
        _store_from(root / "a", "alice")
        _store_from(root / "b", "bob")

    def argv(self, root: Path) -> list[str]:
        return [
            "merge",
            "--into",
            str(root / "new"),
            str(root / "a" / "store"),
            str(root / "b" / "store"),
        ]

    def effect(self, root: Path) -> Any:
        new = root / "new"
        if not _is_store(new):
            return None
        return _grades(new, "alice"), _grades(new, "bob")


class PoolExtend(Command):
    """`pool --extend`: a new system's candidates added; the store switches to the new pool."""

    name = "pool --extend"

    def setup(self, root: Path) -> None:
        _store_from(root)

    def argv(self, root: Path) -> list[str]:
        return [
            "pool", "--extend", str(SAMPLE / "pool.jsonl"), "--run", f"dense-v2={NEW_RUN}",
            "--depth", "10", "--corpus", str(SAMPLE / "corpus.jsonl"),
            "-o", str(root / "pool2.jsonl"), "--store", str(root / "store"),
        ]  # fmt: skip

    def effect(self, root: Path) -> Any:
        from goldset_tui.store.manifest import read_manifest

        manifest = read_manifest(root / "store")
        extensions = tuple(e["run"] for e in manifest.get("pool_extensions", []))
        return manifest["pool"]["sha256"], extensions, _grades(root / "store", "alice")


class ReportRelease(Command):
    """`report --store --release`: two systems' scores recorded in the store's history."""

    name = "report --release"

    def setup(self, root: Path) -> None:
        _store_from(root)

    def argv(self, root: Path) -> list[str]:
        store = str(root / "store")
        return [
            "report", "--qrels", store, "--strata", str(SAMPLE / "strata.csv"),
            "--run", f"bm25={RELEASE / 'bm25.run'}", "--run", f"minilm={RELEASE / 'minilm.run'}",
            "--samples", "20", "--store", store, "--release", "2026.1",
        ]  # fmt: skip

    def effect(self, root: Path) -> Any:
        from goldset_tui.history.records import load_records

        return tuple(sorted((r.system, r.release) for r in load_records(root / "store")))


# --- the commands that write files beside the store ----------------------------------------------
class FileOutput(Command):
    """A command whose output is files (``-o``, a manifest beside): the old outputs of an earlier
    run are there first, so a failure must leave every one of them as it was (never a new labels
    file beside the old manifest, nor half a file), and a success must replace them all."""

    outputs: tuple[str, ...] = ()

    def setup(self, root: Path) -> None:
        from goldset_tui.cli import main

        (root / "out").mkdir()
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            assert main(self.earlier(root)) == 0, self.earlier(root)

    def earlier(self, root: Path) -> list[str]:
        """The earlier run whose outputs the faulted run replaces (run once, without faults)."""
        raise NotImplementedError

    def effect(self, root: Path) -> Any:
        import hashlib

        out = root / "out"
        return tuple(
            (p.name, hashlib.sha256(p.read_bytes()).hexdigest()[:16])
            for p in sorted(out.iterdir())
            if p.is_file() and not p.name.startswith(TMP_PREFIX)  # what a killed writer leaves
        )

    def each_whole(self, found: Any, before: Any, after: Any) -> bool:
        """Files outside a store cannot change together at a kill (nor when a persistent fault
        stops them going back): each must be its old or its new version, never half of one, and
        the manifest, written last, then names a sha256 the file beside it does not have."""
        return all(item in before or item in after for item in found) and {
            name for name, _ in found
        } >= {name for name, _ in before}


def copy_tree(source: Path, target: Path) -> None:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, symlinks=True)
