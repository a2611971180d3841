"""`goldset import --machine`: validation before writing, provenance, idempotence, and the
machine kept out of the human consensus, the home rows and `goldset judge`."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.cli import main
from goldset_tui.errors import InputError
from goldset_tui.model import Judgment
from goldset_tui.store import Project
from goldset_tui.store.machine import import_machine, machine_labellers

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "store"))
from import_support import PAIRS, POOL, pool_store, snapshot


def make(tmp_path: Path) -> Project:
    """The shared four-pair store, with alice's and bob's grades."""
    project = pool_store(tmp_path)
    for name, grades in {"alice": [3, 0, 1, 2], "bob": [3, 1, 1, 0]}.items():
        with project.writer(name) as w:
            for (q, d), g in zip(PAIRS, grades, strict=True):
                w.record(Judgment(name, q, d, g, "2026-01-01T00:00:00Z"))
    return project


def run_import(project: Project, path: Path, *extra: str) -> int:
    return main(
        [
            "import",
            "--store",
            str(project.path),
            "--labeller",
            "llm",
            "--machine",
            str(path),
            *extra,
        ]
    )


def test_trec_import_marks_machine_and_keeps_provenance(tmp_path: Path, capsys) -> None:
    project = make(tmp_path)
    labels = tmp_path / "llm.qrels"
    labels.write_text("q1 0 d1 2\nq1 0 d2 0\n\nq2 0 d3 1\n")
    assert run_import(project, labels, "--model", "gpt-x") == 0
    project = Project.open(project.path)
    entry = project.manifest["labellers"]["llm"]
    assert entry["machine"] is True and entry["model"] == "gpt-x"
    (record,) = entry["imports"]
    assert record["sha256"] == hashlib.sha256(labels.read_bytes()).hexdigest()
    assert record["labels"] == 3 and record["model"] == "gpt-x"
    assert machine_labellers(project.manifest) == ["llm"]
    assert project.qrels("llm").rows() == [("q1", "d1", 2), ("q1", "d2", 0), ("q2", "d3", 1)]
    assert "imported 3 labels" in capsys.readouterr().err


def test_table_with_confidence_and_rationale(tmp_path: Path) -> None:
    project = make(tmp_path)
    labels = tmp_path / "llm.jsonl"
    rows = [
        {"query_id": "q1", "doc_id": "d1", "grade": 3, "confidence": 0.9, "rationale": "exact"},
        {"query_id": "q2", "doc_id": "d1", "grade": 0, "confidence": 0.2, "rationale": "off"},
    ]
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = import_machine(
        project,
        "llm",
        labels,
        pool_pairs=POOL,
    )
    assert result.written == 2 and not result.already and result.provenance is not None
    side = pl.read_parquet(result.provenance)
    assert side.select("query_id", "doc_id", "confidence", "rationale").rows() == [
        ("q1", "d1", 0.9, "exact"),
        ("q2", "d1", 0.2, "off"),
    ]
    notes = project.judgments("llm").sort("query_id")["note"].to_list()
    assert notes == ["exact", "off"]


def test_same_file_twice_writes_nothing(tmp_path: Path, capsys) -> None:
    project = make(tmp_path)
    labels = tmp_path / "llm.qrels"
    labels.write_text("q1 0 d1 2\n")
    assert run_import(project, labels) == 0
    before = snapshot(project.path)
    assert run_import(project, labels) == 0
    assert "already imported" in capsys.readouterr().err
    assert snapshot(project.path) == before


def test_new_file_writes_only_changed_grades(tmp_path: Path) -> None:
    project = make(tmp_path)
    first, second = tmp_path / "a.qrels", tmp_path / "b.qrels"
    first.write_text("q1 0 d1 2\nq1 0 d2 0\n")
    second.write_text("q1 0 d1 2\nq1 0 d2 3\n")
    assert run_import(project, first) == 0
    result = import_machine(Project.open(project.path), "llm", second, pool_pairs=None)
    assert result.written == 1
    assert Project.open(project.path).qrels("llm").rows() == [("q1", "d1", 2), ("q1", "d2", 3)]


@pytest.mark.parametrize(
    ("name", "content", "where", "column"),
    [
        ("bad.qrels", "q1 0 d1 2\nq1 0 d2 7\n", {"line": 2}, "grade"),
        ("bad.qrels", "q1 0 d1 2\n\nq1 0 d1 1\n", {"line": 3}, None),  # twice
        ("bad.qrels", "q1 0 d1 2\nq9 0 d1 1\n", {"line": 2}, None),  # not pooled
        ("bad.qrels", "q1 0 d1\n", {"line": 1}, None),
        ("bad.qrels", "q1 0 d1 x\n", {"line": 1}, "grade"),
        ("bad.csv", "query_id,doc_id,grade\nq1,d1,1\nq1,d2,1.5\n", {"line": 3}, "grade"),
        (
            "bad.csv",
            "query_id,doc_id,grade,confidence\nq1,d1,1,0.5\nq1,d2,1,1.2\n",
            {"line": 3},
            "confidence",
        ),
        (
            "bad.jsonl",
            '{"query_id":"q1","doc_id":"d1","grade":1}\n{"query_id":"q1","doc_id":"d1","grade":1}\n',
            {"line": 2},
            None,
        ),
        # JSON true/false is not a grade or a confidence (Polars casts true to 1.0: a `true`
        # grade was imported as grade 1)
        (
            "bad.jsonl",
            '{"query_id":"q1","doc_id":"d1","grade":false}\n{"query_id":"q1","doc_id":"d2","grade":true}\n',
            {"line": 1},
            "grade",
        ),
        (
            "bad.jsonl",
            '{"query_id":"q1","doc_id":"d1","grade":1,"confidence":true}\n'
            '{"query_id":"q1","doc_id":"d2","grade":1,"confidence":true}\n',
            {"line": 1},
            "confidence",
        ),
    ],
)
def test_bad_labels_refused_naming_the_line_and_nothing_written(
    tmp_path: Path, name: str, content: str, where: dict[str, int], column: str | None, capsys
) -> None:
    project = make(tmp_path)
    labels = tmp_path / name
    labels.write_text(content)
    before = snapshot(project.path)
    with pytest.raises(InputError) as info:
        import_machine(
            project,
            "llm",
            labels,
            pool_pairs=POOL,
        )
    assert info.value.path == labels
    assert {k: getattr(info.value, k) for k in where} == where
    assert info.value.column == column
    assert run_import(project, labels) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and str(labels) in err
    assert snapshot(project.path) == before


def test_parquet_error_names_the_row(tmp_path: Path) -> None:
    project = make(tmp_path)
    labels = tmp_path / "bad.parquet"
    pl.DataFrame(
        {"query_id": ["q1", "q2"], "doc_id": ["d1", "d1"], "grade": [1, -1]}
    ).write_parquet(labels)
    with pytest.raises(InputError) as info:
        import_machine(project, "llm", labels, pool_pairs=None)
    assert info.value.row == 2 and info.value.column == "grade"


def test_human_name_refused_for_a_machine_and_machine_name_for_judging(tmp_path: Path) -> None:
    from goldset_tui.commands.judge import prepare

    project = make(tmp_path)
    labels = tmp_path / "llm.qrels"
    labels.write_text("q1 0 d1 2\n")
    with pytest.raises(InputError, match="human labeller"):
        import_machine(project, "alice", labels, pool_pairs=None)
    import_machine(project, "llm", labels, pool_pairs=None)
    with pytest.raises(InputError, match="machine labeller") as info:
        prepare(project.pool_path, "llm", store=project.path)
    assert info.value.column == "labeller"


def test_consensus_excludes_machine_unless_asked(tmp_path: Path, capsys) -> None:
    project = make(tmp_path)
    labels = tmp_path / "llm.qrels"
    # alice and bob disagree on (q1,d2) 0/1 and (q2,d3) 2/0: pending without the machine.
    labels.write_text("q1 0 d1 0\nq1 0 d2 1\nq2 0 d1 1\nq2 0 d3 2\n")
    assert run_import(project, labels) == 0
    store = str(project.path)
    assert main(["qrels", "--store", store, "--consensus"]) == 0
    out = capsys.readouterr().out
    # Humans only: unanimous on (q1,d1)=3 and (q2,d1)=1; the two disagreements are pending.
    assert out == "q1 0 d1 3\nq2 0 d1 1\n"
    assert main(["qrels", "--store", store, "--consensus", "--include-machine"]) == 0
    out = capsys.readouterr().out
    # Three raters: majorities decide (q1,d1) 3,3,0 -> 3; (q1,d2) 0,1,1 -> 1; (q2,d3) 2,0,2 -> 2.
    assert out == "q1 0 d1 3\nq1 0 d2 1\nq2 0 d1 1\nq2 0 d3 2\n"
    assert main(["qrels", "--store", store, "--include-machine"]) == 2


def test_home_lists_no_judging_row_for_a_machine(tmp_path: Path) -> None:
    from goldset_tui.ui.screens.home import scan

    project = make(tmp_path / "root")
    labels = tmp_path / "llm.qrels"
    labels.write_text("q1 0 d1 2\n")
    import_machine(project, "llm", labels, pool_pairs=None)
    assert sorted(r.labeller or "" for r in scan(tmp_path / "root")) == ["alice", "bob"]


def test_agreement_from_store_reports_the_machine_apart(tmp_path: Path, capsys) -> None:
    project = make(tmp_path)
    labels = tmp_path / "llm.qrels"
    labels.write_text("q1 0 d1 3\nq1 0 d2 1\nq2 0 d1 2\nq2 0 d3 2\n")
    assert run_import(project, labels) == 0
    args = ["agreement", "--store", str(project.path), "--format", "json", "--samples", "0"]
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["labellers"] == ["alice", "bob"]
    (entry,) = report["machine"]
    rows = {r["b"]: r for r in entry["against"]}
    assert list(rows) == ["alice", "bob", "consensus"]
    # alice 3,0,1,2 vs llm 3,1,2,2: differences 0,1,1,0 -> +0.5
    assert rows["alice"]["leniency"]["mean_difference"] == 0.5
    # the human consensus has (q1,d1)=3 and (q2,d1)=1 (the rest pending): differences 0, +1
    assert rows["consensus"]["n"] == 2 and rows["consensus"]["leniency"]["mean_difference"] == 0.5
    assert main([*args, "--machine", "llm"]) == 2


def test_unknown_rule_with_a_machine_is_one_line(tmp_path: Path, capsys) -> None:
    project = make(tmp_path)
    labels = tmp_path / "llm.qrels"
    labels.write_text("q1 0 d1 3\n")
    assert run_import(project, labels) == 0
    args = ["agreement", "--store", str(project.path), "--samples", "0", "--rule", "coin"]
    assert main(args) == 2
    assert "unknown consensus rule" in capsys.readouterr().err


def test_a_byte_order_mark_is_not_part_of_the_first_query_id(tmp_path: Path, capsys) -> None:
    # Windows editors start a file with a BOM; `goldset eval` reads such qrels, but the machine
    # import kept it in the first query id and refused the pair as "(\ufeffq1, d1) is not in the
    # store's pool", which prints exactly like a pair that is.
    project = make(tmp_path)
    labels = tmp_path / "llm.qrels"
    labels.write_bytes(b"\xef\xbb\xbfq1 0 d1 2\r\nq1 0 d2 1\r\n")
    assert run_import(project, labels) == 0
    judged = Project.open(project.path).judgments("llm")
    assert sorted(judged.select("query_id", "doc_id", "grade").rows()) == [
        ("q1", "d1", 2),
        ("q1", "d2", 1),
    ]


def test_gzipped_trec_qrels_import_as_goldset_eval_reads_them(tmp_path: Path) -> None:
    # `goldset eval` reads qrels.gz; the import said "bytes that are not UTF-8 (byte 1)".
    import gzip

    project = make(tmp_path)
    labels = tmp_path / "llm.qrels.gz"
    labels.write_bytes(gzip.compress(b"q1 0 d1 2\nq2 0 d3 0\n"))
    assert run_import(project, labels) == 0
    judged = Project.open(project.path).judgments("llm")
    assert sorted(judged.select("query_id", "doc_id", "grade").rows()) == [
        ("q1", "d1", 2),
        ("q2", "d3", 0),
    ]
