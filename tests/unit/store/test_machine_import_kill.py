"""`goldset import --machine` killed with SIGKILL at each of its durable steps (the provenance
file, the manifest's mark and record, the grades' Parquet part): the store stays readable, holds
none or all of the file's labels with their record (never grades without their provenance
record, which the old order, grades first, left behind), every reader ignores a record whose
grades never landed, and importing the file again completes it (or writes nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_human_import_kill import QRELS, killed, labels_of, sample_store

from goldset_tui.cli import main
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.machine import landed_imports, machine_labellers, machine_labels


def grades(store: Path) -> set[tuple[str, str, int]]:
    project = Project.open(store)
    if "llm" not in project.labellers():
        return set()
    return set(project.qrels("llm").rows())


MODES = [
    ("after-provenance", False),
    ("before-part", False),
    ("in-rename", False),
    ("after-part", True),
]


@pytest.mark.parametrize(("mode", "landed"), MODES)
def test_a_kill_leaves_none_or_all_with_their_record(
    tmp_path: Path, mode: str, landed: bool, capsys
) -> None:
    store = sample_store(tmp_path)
    killed("machine_import_child.py", store, "llm", QRELS, mode)
    assert bool(list((store / "judgments" / "llm").glob(".tmp-*"))) == (mode == "in-rename")

    project = Project.open(store)
    entry = project.manifest.get("labellers", {}).get("llm")
    records = (entry or {}).get("imports", [])
    assert grades(store) == (labels_of(QRELS) if landed else set())  # all or nothing
    if grades(store):  # grades never sit in the store without their provenance record
        assert [r["sha256"] for r in records] == [sha256_file(QRELS)]
        assert machine_labellers(project.manifest) == ["llm"]
    # A record whose grades never landed is ignored by every reader.
    assert len(landed_imports(project, "llm") if entry else []) == int(landed)
    if entry is not None:
        assert machine_labels(project, "llm").height == len(grades(store))

    argv = ["import", "--store", str(store), "--labeller", "llm", "--machine", str(QRELS)]
    assert main(argv) == 0
    assert ("already imported" in capsys.readouterr().err) == landed
    project = Project.open(store)
    assert grades(store) == labels_of(QRELS)
    (record,) = project.manifest["labellers"]["llm"]["imports"]  # an orphan record is dropped
    assert record["written"] == len(labels_of(QRELS))
    assert machine_labellers(project.manifest) == ["llm"]
    assert not list((store / "judgments" / "llm").glob(".tmp-*"))


def test_a_kill_in_a_second_import_keeps_the_first_whole(tmp_path: Path, capsys) -> None:
    """A second file killed before its grades land: the first import's grades and record stand,
    the orphan record gives no confidence to anything, and the rerun writes only the changes."""
    store = sample_store(tmp_path)
    first = labels_of(QRELS)
    argv = ["import", "--store", str(store), "--labeller", "llm", "--machine", str(QRELS)]
    assert main(argv) == 0
    changed = sorted(first)
    q, d, g = changed[0]
    second = tmp_path / "second.qrels"
    rows = [(q, d, 1 if g != 1 else 2), *changed[1:]]
    second.write_text("".join(f"{a} 0 {b} {c}\n" for a, b, c in rows))
    killed("machine_import_child.py", store, "llm", second, "before-part")

    project = Project.open(store)
    assert grades(store) == first
    assert len(project.manifest["labellers"]["llm"]["imports"]) == 2  # the orphan is on disk
    assert [r["sha256"] for r in landed_imports(project, "llm")] == [sha256_file(QRELS)]

    argv[-1] = str(second)
    assert main(argv) == 0
    assert "(1 new or changed grade)" in capsys.readouterr().err
    project = Project.open(store)
    assert grades(store) == set(rows)
    assert [r["sha256"] for r in project.manifest["labellers"]["llm"]["imports"]] == [
        sha256_file(QRELS),
        sha256_file(second),
    ]


def test_a_record_from_before_the_count_still_counts(tmp_path: Path, capsys) -> None:
    """Stores imported into before ``written`` was recorded wrote grades first, record last: such
    a record is whole, its confidences stand and its file is not imported twice."""
    from goldset_tui.store.manifest import update_manifest

    store = sample_store(tmp_path)
    labels = tmp_path / "llm.tsv"
    rows = sorted(labels_of(QRELS))[:3]
    labels.write_text(
        "query_id\tdoc_id\tgrade\tconfidence\n"
        + "".join(f"{q}\t{d}\t{g}\t0.{i + 5}\n" for i, (q, d, g) in enumerate(rows))
    )
    argv = ["import", "--store", str(store), "--labeller", "llm", "--machine", str(labels)]
    assert main(argv) == 0

    def legacy(data: dict) -> None:
        del data["labellers"]["llm"]["imports"][0]["written"]

    update_manifest(store, legacy)
    project = Project.open(store)
    assert sorted(machine_labels(project, "llm").get_column("confidence").to_list()) == [
        0.5,
        0.6,
        0.7,
    ]
    capsys.readouterr()
    assert main(argv) == 0
    assert "already imported" in capsys.readouterr().err
