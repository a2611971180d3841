"""`goldset qrels`: TREC/CSV/Parquet export, the several-labellers refusal, consensus wiring."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
import pytrec_eval

from goldset_tui.cli import main
from goldset_tui.model import Judgment
from goldset_tui.store import Project, sha256_file


def make(tmp_path: Path, judgments: dict[str, list[tuple[str, str, int]]]) -> Project:
    tmp_path.mkdir(parents=True, exist_ok=True)
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1"}\n')
    project = Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))
    for labeller, rows in judgments.items():
        with project.writer(labeller) as w:
            for q, d, g in rows:
                w.record(Judgment(labeller, q, d, g, "2026-01-01T00:00:00Z"))
    return project


ALICE = [
    ("2", "doc-b", 1),
    ("10", "doc-a", 3),
    ("2", "doc-a", 0),
    ("2", "doc-b", 2),
]  # doc-b re-judged


def test_trec_qrels_to_stdout_parse_with_pytrec_eval(tmp_path: Path, capsys) -> None:
    project = make(tmp_path, {"alice": ALICE})
    assert main(["qrels", "--store", str(project.path)]) == 0
    out = capsys.readouterr().out
    assert out == "2 0 doc-a 0\n2 0 doc-b 2\n10 0 doc-a 3\n"
    assert pytrec_eval.parse_qrel(out.splitlines()) == {
        "2": {"doc-a": 0, "doc-b": 2},
        "10": {"doc-a": 3},
    }


def test_trec_output_evaluates_in_pytrec_eval(tmp_path: Path) -> None:
    project = make(tmp_path, {"alice": ALICE})
    target = tmp_path / "out.qrels"
    assert main(["qrels", "--store", str(project.path), "-o", str(target)]) == 0
    qrels = pytrec_eval.parse_qrel(target.read_text().splitlines())
    run = {"2": {"doc-b": 2.0, "doc-a": 1.0}, "10": {"doc-a": 1.0}}
    scores = pytrec_eval.RelevanceEvaluator(qrels, {"P_1"}).evaluate(run)
    assert scores["2"]["P_1"] == 1.0 and scores["10"]["P_1"] == 1.0


@pytest.mark.parametrize(
    "how",
    [
        ["--format", "csv"],
        ["-o", "{dir}/q.csv"],
        ["--format", "parquet", "-o", "{dir}/q.bin"],
        ["-o", "{dir}/q.parquet"],
    ],
)
def test_csv_and_parquet(tmp_path: Path, capsys, how: list[str]) -> None:
    project = make(tmp_path, {"alice": ALICE})
    args = [a.format(dir=tmp_path) for a in how]
    assert main(["qrels", "--store", str(project.path), *args]) == 0
    if "-o" in args:
        target = Path(args[args.index("-o") + 1])
        frame = (
            pl.read_csv(target, schema_overrides={"query_id": pl.String})
            if target.suffix == ".csv"
            else pl.read_parquet(target)
        )
    else:
        import io

        frame = pl.read_csv(
            io.StringIO(capsys.readouterr().out), schema_overrides={"query_id": pl.String}
        )
    # The tables carry each pair's note and flag too (empty here); TREC stays four columns.
    assert frame.columns == ["query_id", "doc_id", "grade", "note", "flag"]
    assert frame.dtypes[:3] == [pl.String, pl.String, pl.Int64]
    assert frame.select("query_id", "doc_id", "grade").rows() == [
        ("2", "doc-a", 0),
        ("2", "doc-b", 2),
        ("10", "doc-a", 3),
    ]
    assert frame["note"].null_count() == frame["flag"].null_count() == 3


def test_several_labellers_are_refused_and_listed(tmp_path: Path, capsys) -> None:
    project = make(tmp_path, {"alice": ALICE, "bob": [("2", "doc-a", 1)]})
    assert main(["qrels", "--store", str(project.path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'alice'" in err and "'bob'" in err and "--labeller" in err
    assert main(["qrels", "--store", str(project.path), "--labeller", "bob"]) == 0
    assert capsys.readouterr().out == "2 0 doc-a 1\n"


def test_unknown_labeller_missing_store_empty_store(tmp_path: Path, capsys) -> None:
    project = make(tmp_path, {"alice": ALICE})
    assert main(["qrels", "--store", str(project.path), "--labeller", "carol"]) == 2
    assert "no labeller 'carol'" in capsys.readouterr().err
    assert main(["qrels", "--store", str(tmp_path / "nowhere")]) == 2
    assert "no such store folder" in capsys.readouterr().err
    empty = make(tmp_path / "e", {})
    assert main(["qrels", "--store", str(empty.path)]) == 2
    assert "no judgments" in capsys.readouterr().err


def test_parquet_to_stdout_and_whitespace_ids_are_refused(tmp_path: Path, capsys) -> None:
    project = make(tmp_path, {"alice": [("q 1", "d", 1)]})
    assert main(["qrels", "--store", str(project.path), "--format", "parquet"]) == 2
    assert "-o FILE" in capsys.readouterr().err
    target = tmp_path / "x.qrels"
    assert main(["qrels", "--store", str(project.path), "-o", str(target)]) == 2
    assert "whitespace" in capsys.readouterr().err and not target.exists()
    assert main(["qrels", "--store", str(project.path), "--format", "csv"]) == 0  # CSV can hold it


@pytest.fixture
def consensus_module(monkeypatch):
    """The real consensus module, with every command module imported first so patching it cannot
    break another command's import."""
    from goldset_tui.cli import command_modules

    command_modules()
    return pytest.importorskip("goldset_tui.adjudication.consensus")


def test_consensus_missing_gives_a_clean_error(
    tmp_path: Path, capsys, monkeypatch, consensus_module
) -> None:
    project = make(tmp_path, {"alice": ALICE})
    monkeypatch.delattr(consensus_module, "consensus_export")  # as if not written yet
    assert main(["qrels", "--store", str(project.path), "--consensus"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "consensus qrels are not available" in err


def test_consensus_is_delegated(tmp_path: Path, capsys, monkeypatch, consensus_module) -> None:
    project = make(tmp_path, {"alice": ALICE, "bob": ALICE})
    seen = []

    def consensus_export(p):
        seen.append(p.path)
        qrels = pl.DataFrame({"query_id": ["b", "a"], "doc_id": ["x", "y"], "grade": [1, 2]})
        return consensus_module.ConsensusExport(qrels, 3, tmp_path / "prov.tsv")

    monkeypatch.setattr(consensus_module, "consensus_export", consensus_export)
    assert main(["qrels", "--store", str(project.path), "--consensus"]) == 0
    out, err = capsys.readouterr()
    assert out == "a 0 y 2\nb 0 x 1\n" and seen == [project.path]
    # The pending pairs left out are named on stderr, with where their provenance is.
    assert "3 pairs pending adjudication were left out" in err and "prov.tsv" in err


def test_pool_option_finds_the_default_store(tmp_path: Path, capsys) -> None:
    from goldset_tui.store import default_store_for

    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1"}\n')
    assert main(["qrels", "--pool", str(pool)]) == 2
    assert "no judgments for this pool yet" in capsys.readouterr().err
    project = Project.create(default_store_for(pool), pool_path=pool, pool_sha256=sha256_file(pool))
    with project.writer("alice") as w:
        w.record(Judgment("alice", "q1", "d1", 2, "2026-01-01T00:00:00Z"))
    assert main(["qrels", "--pool", str(pool)]) == 0
    assert capsys.readouterr().out == "q1 0 d1 2\n"
