"""`goldset import --human` killed with SIGKILL between its two durable steps (the manifest record,
then one Parquet part): the store stays readable, holds either none or all of the file's
judgments, never an imported judgment without its file, and importing the file again completes it
(or, when it had completed, writes nothing)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from goldset_tui.cli import main
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.human import imported_judgments

HERE = Path(__file__).parent
ROOT = HERE.parents[2]
SAMPLE = ROOT / "sample_data"
QRELS = SAMPLE / "judgments" / "alice.qrels"


def child_env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def killed(child: str, *args: object) -> None:
    """The script ``child`` of this folder run with ``args``: it must die by SIGKILL."""
    proc = subprocess.run(
        [sys.executable, str(HERE / child), *map(str, args)],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=120,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stdout + proc.stderr


def labels_of(path: Path) -> set[tuple[str, str, int]]:
    """The (query, document, grade) of a qrels file."""
    rows = (line.split() for line in path.read_text().splitlines() if line.strip())
    return {(q, d, int(g)) for q, _, d, g in rows}


def sample_store(tmp_path: Path) -> Path:
    """A new store at ``tmp_path/store`` over the sample pool, nobody's grades."""
    pool = SAMPLE / "pool.jsonl"
    store = tmp_path / "store"
    Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    return store


@pytest.mark.parametrize(
    ("mode", "landed"), [("before-part", False), ("in-rename", False), ("after-part", True)]
)
def test_a_kill_leaves_none_or_all_and_a_rerun_completes(
    tmp_path: Path, mode: str, landed: bool, capsys
) -> None:
    store = sample_store(tmp_path)
    killed("human_import_child.py", store, "alice", QRELS, mode)
    torn = list((store / "judgments" / "alice").glob(".tmp-*"))
    assert bool(torn) == (mode == "in-rename")  # killed inside the part's rename, not before

    project = Project.open(store)
    # All or nothing: opening takes back an import killed before its grades landed (the name it
    # entered, with the record, is out again: it used to be listed with no grades).
    assert ("alice" in project.labellers()) == landed
    record = project.manifest["labellers"]["alice"]["imports"][0] if landed else None
    have = set(project.qrels("alice").rows()) if landed else set()
    assert have == (labels_of(QRELS) if landed else set())
    linked = imported_judgments(project, "alice")
    assert linked.height == len(have)  # every imported judgment linked to its file, no other

    assert (
        main(["import", "--store", str(store), "--labeller", "alice", "--human", str(QRELS)]) == 0
    )
    err = capsys.readouterr().err
    assert ("already imported" in err) == landed
    project = Project.open(store)
    assert set(project.qrels("alice").rows()) == labels_of(QRELS)
    records = project.manifest["labellers"]["alice"]["imports"]
    assert len(records) == 1  # a record whose judgments never landed is dropped, not kept
    assert (records[0] == record) == landed
    assert imported_judgments(project, "alice").height == len(labels_of(QRELS))
    assert not list((store / "judgments" / "alice").glob(".tmp-*"))  # a torn part is cleared


def test_refused_while_another_process_judges_the_labeller(tmp_path: Path, capsys) -> None:
    store = sample_store(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, str(HERE / "store_child.py"), str(store), "alice", "hold"],
        stdout=subprocess.PIPE,
        text=True,
        env=child_env(),
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        argv = ["import", "--store", str(store), "--labeller", "alice", "--human", str(QRELS)]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"process {holder.pid}" in err and len(err.strip().splitlines()) == 1
        assert Project.open(store).judgments("alice").height == 0
    finally:
        holder.kill()
        holder.wait()
    assert main(argv) == 0  # the session ended (even killed): the lock is free
    assert set(Project.open(store).qrels("alice").rows()) == labels_of(QRELS)
