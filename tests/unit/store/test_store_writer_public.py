"""What importers need from a store goes through Project's public methods: ``goldset import
--machine`` opened the labeller's journal through the private ``_open_writer`` (to keep the name
out of the manifest until its machine mark is written); ``Project.writer(..., register=False)``
is that, with the store's own errors (a merge holding the journal named, a read-only store said
in one line)."""

from __future__ import annotations

import ast
from pathlib import Path

import goldset_tui
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.journal import is_locked
from goldset_tui.store.project import Project as ProjectClass


def _project(tmp_path: Path) -> Project:
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1"}\n')
    return Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))


def test_a_writer_opened_without_registering_leaves_the_manifest_alone(tmp_path: Path) -> None:
    project = _project(tmp_path)
    writer = project.writer("judge-model", register=False)
    journal, _ = project.labeller_paths("judge-model")
    assert is_locked(journal)  # the labeller's lock is taken all the same
    project.reload()
    assert "judge-model" not in project.labellers()  # no entry until the caller writes one
    writer.close()
    assert not is_locked(journal)
    assert "judge-model" not in Project.open(project.path).labellers()


def test_registering_stays_the_default(tmp_path: Path) -> None:
    project = _project(tmp_path)
    with project.writer("ana"):
        assert "ana" in Project.open(project.path).labellers()


def test_no_module_reaches_into_a_projects_private_members() -> None:
    # Names private to Project (its own, not Python's): used only inside store/project.py.
    private = {
        name for name in vars(ProjectClass) if name.startswith("_") and not name.startswith("__")
    } | {"_writers"}
    package = Path(goldset_tui.__file__).parent
    offenders = []
    for path in sorted(package.rglob("*.py")):
        if path == package / "store" / "project.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in private:
                offenders.append(f"{path.relative_to(package)}:{node.lineno} .{node.attr}")
    assert "_open_writer" in private and "_register" in private  # the check sees them
    assert offenders == []
