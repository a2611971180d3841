"""`goldset import --human`: a person's existing judgments as a named human labeller: every check
before anything is written, conflicts with grades given on the screen, idempotence, the writer
lock, names that are machines, and provenance that tells imported judgments from screen ones."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import polars as pl
import pytest
from import_support import POOL, pool_store, snapshot

from goldset_tui.cli import main
from goldset_tui.errors import InputError, StoreLockedError
from goldset_tui.model import Judgment
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.human import import_human, imported_judgments


def run_import(project: Project, path: Path, *extra: str, labeller: str = "alice") -> int:
    argv = ["import", "--store", str(project.path), "--labeller", labeller, "--human", str(path)]
    return main([*argv, *extra])


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def screen_grade(project: Project, q: str, d: str, grade: int, who: str = "alice") -> None:
    with project.writer(who) as w:
        w.record(Judgment(who, q, d, grade, "2026-01-02T00:00:00.000Z", seconds=4.0, position=1))


def test_trec_qrels_become_a_human_labeller_with_provenance(tmp_path: Path, capsys) -> None:
    project = pool_store(tmp_path)
    qrels = write(tmp_path / "alice.qrels", "q1 0 d1 3\nq1 0 d2 0\n\nq2 0 d3 2\n")
    assert run_import(project, qrels) == 0
    assert "imported 3 judgments of 3 for alice" in capsys.readouterr().err
    project = Project.open(project.path)
    entry = project.manifest["labellers"]["alice"]
    assert "machine" not in entry
    (record,) = entry["imports"]
    assert record["sha256"] == hashlib.sha256(qrels.read_bytes()).hexdigest()
    assert record["file"] == str(qrels.resolve())
    assert (record["labels"], record["written"]) == (3, 3)
    assert project.qrels("alice").rows() == [("q1", "d1", 3), ("q1", "d2", 0), ("q2", "d3", 2)]
    events = project.judgments("alice", history=True)
    assert events["time"].unique().to_list() == [record["time"]]
    assert events["seconds"].null_count() == 3 and events["position"].null_count() == 3


@pytest.mark.parametrize("suffix", ["csv", "tsv", "jsonl", "parquet"])
def test_tables_with_an_optional_note(tmp_path: Path, suffix: str) -> None:
    project = pool_store(tmp_path)
    frame = pl.DataFrame(
        {
            "query_id": ["q1", "q2"],
            "doc_id": ["d2", "d1"],
            "grade": [1, 3],
            "note": ["near miss", None],
        }
    )
    path = tmp_path / f"bob.{suffix}"
    if suffix == "csv":
        frame.write_csv(path)
    elif suffix == "tsv":
        frame.write_csv(path, separator="\t")
    elif suffix == "jsonl":
        frame.write_ndjson(path)
    else:
        frame.write_parquet(path)
    result = import_human(project, "bob", path, pool_pairs=POOL)
    assert (result.written, result.labels, result.already) == (2, 2, False)
    got = Project.open(project.path).judgments("bob").sort("query_id")
    assert got.select("query_id", "doc_id", "grade", "note").rows() == [
        ("q1", "d2", 1, "near miss"),
        ("q2", "d1", 3, None),
    ]


@pytest.mark.parametrize(
    ("name", "content", "where", "column", "words"),
    [
        ("a.qrels", "q1 0 d1 2\nq1 0 d2 4\n", {"line": 2}, "grade", "outside the store's scale"),
        ("a.qrels", "q1 0 d1 2\nq1 0 d2 -1\n", {"line": 2}, "grade", "outside"),
        ("a.qrels", "q1 0 d1 2\nq2 0 d3 1\nq1 0 d1 1\n", {"line": 3}, "grade", "earlier line"),
        ("a.qrels", "q1 0 d1 2\nq9 0 d1 1\n", {"line": 2}, None, "not in the store's pool"),
        ("a.qrels", "q1 0 d1\n", {"line": 1}, None, "expected 4 fields"),
        ("a.csv", "query_id,doc_id,grade\nq1,d1,1\nq1,d2,x\n", {"line": 3}, "grade", "whole"),
        (
            "a.jsonl",
            '{"query_id":"q1","doc_id":"d1","grade":1}\n{"query_id":"q1","doc_id":"d1","grade":2}\n',
            {"line": 2},
            "grade",
            "earlier line",
        ),
    ],
)
def test_bad_files_refused_on_one_line_and_nothing_written(
    tmp_path: Path, name: str, content: str, where: dict, column: str | None, words: str, capsys
) -> None:
    project = pool_store(tmp_path)
    path = write(tmp_path / name, content)
    before = snapshot(project.path)
    with pytest.raises(InputError) as info:
        import_human(project, "alice", path, pool_pairs=POOL)
    assert info.value.path == path
    assert {k: getattr(info.value, k) for k in where} == where
    assert info.value.column == column and words in info.value.message
    assert run_import(project, path) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and str(path) in err and "Traceback" not in err
    assert snapshot(project.path) == before
    assert "alice" not in Project.open(project.path).manifest["labellers"]  # not even registered


def test_parquet_errors_name_the_row(tmp_path: Path) -> None:
    project = pool_store(tmp_path)
    path = tmp_path / "a.parquet"
    pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["d1", "d9"], "grade": [1, 1]}).write_parquet(
        path
    )
    with pytest.raises(InputError) as info:
        import_human(project, "alice", path, pool_pairs=POOL)
    assert info.value.row == 2 and "not in the store's pool" in info.value.message


def test_an_identical_repeated_line_counts_once(tmp_path: Path) -> None:
    # Concatenated qrels files repeat lines verbatim; the same grade twice is one judgment.
    project = pool_store(tmp_path)
    path = write(tmp_path / "a.qrels", "q1 0 d1 2\nq1 0 d1 2\nq2 0 d1 0\n")
    result = import_human(project, "alice", path, pool_pairs=POOL)
    assert (result.labels, result.written) == (2, 2)
    assert Project.open(project.path).judgments("alice", history=True).height == 2


def test_the_same_file_again_writes_nothing(tmp_path: Path, capsys) -> None:
    project = pool_store(tmp_path)
    path = write(tmp_path / "a.qrels", "q1 0 d1 2\nq2 0 d1 0\n")
    assert run_import(project, path) == 0
    before = snapshot(project.path)
    assert run_import(project, path) == 0
    assert "already imported for alice: nothing written" in capsys.readouterr().err
    assert snapshot(project.path) == before


def test_screen_regrades_survive_importing_the_same_file_again(tmp_path: Path) -> None:
    project = pool_store(tmp_path)
    path = write(tmp_path / "a.qrels", "q1 0 d1 2\n")
    import_human(project, "alice", path, pool_pairs=POOL)
    screen_grade(Project.open(project.path), "q1", "d1", 0)
    assert import_human(Project.open(project.path), "alice", path, pool_pairs=POOL).already
    assert Project.open(project.path).qrels("alice").rows() == [("q1", "d1", 0)]


def test_a_pair_graded_differently_on_screen_is_refused_naming_it(tmp_path: Path, capsys) -> None:
    project = pool_store(tmp_path)
    screen_grade(project, "q1", "d2", 3)
    path = write(tmp_path / "a.qrels", "q1 0 d1 2\nq1 0 d2 1\nq2 0 d1 0\n")
    before = snapshot(project.path)
    with pytest.raises(InputError) as info:
        import_human(Project.open(project.path), "alice", path, pool_pairs=POOL)
    assert (info.value.path, info.value.line, info.value.column) == (path, 2, "grade")
    assert "(q1, d2) is graded 1 here, but alice already graded it 3" in info.value.message
    assert run_import(project, path) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert snapshot(project.path) == before


def test_keep_imports_only_the_pairs_not_yet_graded(tmp_path: Path) -> None:
    project = pool_store(tmp_path)
    screen_grade(project, "q1", "d2", 3)
    screen_grade(project, "q2", "d1", 0)
    path = write(tmp_path / "a.qrels", "q1 0 d1 2\nq1 0 d2 1\nq2 0 d1 0\n")
    with pytest.raises(InputError):  # the default: refused
        import_human(Project.open(project.path), "alice", path, pool_pairs=POOL)
    result = import_human(
        Project.open(project.path), "alice", path, pool_pairs=POOL, on_conflict="keep"
    )
    assert (result.written, result.unchanged, result.kept, result.replaced) == (1, 1, 1, 0)
    after = Project.open(project.path)
    assert after.qrels("alice").rows() == [("q1", "d1", 2), ("q1", "d2", 3), ("q2", "d1", 0)]
    assert imported_judgments(after, "alice").select("query_id", "doc_id").rows() == [("q1", "d1")]


def test_replace_lets_the_file_stand_and_keeps_the_old_grade_in_history(tmp_path: Path) -> None:
    project = pool_store(tmp_path)
    screen_grade(project, "q1", "d2", 3)
    path = write(tmp_path / "a.qrels", "q1 0 d1 2\nq1 0 d2 1\n")
    assert run_import(project, path, "--on-conflict", "replace") == 0
    after = Project.open(project.path)
    assert after.qrels("alice").rows() == [("q1", "d1", 2), ("q1", "d2", 1)]
    history = after.judgments("alice", history=True).filter(pl.col("doc_id") == "d2")
    assert history["grade"].to_list() == [3, 1]


def test_imported_judgments_are_told_from_screen_ones(tmp_path: Path) -> None:
    project = pool_store(tmp_path)
    path = write(tmp_path / "a.qrels", "q1 0 d1 2\nq2 0 d3 1\n")
    import_human(project, "alice", path, pool_pairs=POOL)
    screen_grade(Project.open(project.path), "q2", "d1", 1)
    screen_grade(Project.open(project.path), "q1", "d1", 0, who="bob")
    got = imported_judgments(Project.open(project.path))
    assert got.select("labeller", "query_id", "doc_id", "grade").rows() == [
        ("alice", "q1", "d1", 2),
        ("alice", "q2", "d3", 1),
    ]
    assert set(got["file"]) == {str(path.resolve())}
    assert set(got["sha256"]) == {sha256_file(path)}
    assert imported_judgments(Project.open(project.path), "bob").height == 0


def test_refused_while_the_labeller_is_judging(tmp_path: Path, capsys) -> None:
    project = pool_store(tmp_path)
    path = write(tmp_path / "a.qrels", "q1 0 d1 2\n")
    with Project.open(project.path).writer("alice"):  # a live judging session of alice
        before = snapshot(project.path)
        with pytest.raises(StoreLockedError):
            import_human(Project.open(project.path), "alice", path, pool_pairs=POOL)
        assert run_import(project, path) == 2
        err = capsys.readouterr().err
        assert "'alice' is being judged or imported" in err and f"pid={os.getpid()}" not in err
        assert len(err.strip().splitlines()) == 1
        assert snapshot(project.path) == before
    assert run_import(project, path) == 0  # once the session is closed


def test_machine_and_human_names_do_not_cross(tmp_path: Path, capsys) -> None:
    from goldset_tui.commands.judge import prepare

    project = pool_store(tmp_path)
    path = write(tmp_path / "a.qrels", "q1 0 d1 2\n")
    assert (
        main(["import", "--store", str(project.path), "--labeller", "llm", "--machine", str(path)])
        == 0
    )
    assert run_import(project, path, labeller="llm") == 2
    assert "'llm' is a machine labeller" in capsys.readouterr().err
    assert run_import(project, path, labeller="alice") == 0
    assert (
        main(
            ["import", "--store", str(project.path), "--labeller", "alice", "--machine", str(path)]
        )
        == 2
    )
    assert "'alice' is a human labeller" in capsys.readouterr().err
    assert run_import(project, path, labeller="consensus") == 2
    prepared = prepare(project.pool_path, "alice", store=project.path)  # a person may judge on
    assert prepared.labeller == "alice"


def test_options_of_the_other_kind_are_refused(tmp_path: Path, capsys) -> None:
    project = pool_store(tmp_path)
    path = write(tmp_path / "a.qrels", "q1 0 d1 2\n")
    assert run_import(project, path, "--model", "gpt-x") == 2
    assert "--model" in capsys.readouterr().err
    machine = ["import", "--store", str(project.path), "--labeller", "llm", "--machine", str(path)]
    assert main([*machine, "--on-conflict", "keep"]) == 2
    with pytest.raises(SystemExit) as info:  # argparse: one of the two, never both
        main([*machine, "--human", str(path)])
    assert info.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_merging_stores_keeps_every_import_linked_to_its_file(tmp_path: Path) -> None:
    # alice imported one file on her laptop and another into the team's store.
    team, laptop = pool_store(tmp_path / "team"), pool_store(tmp_path / "laptop")
    first = write(tmp_path / "first.qrels", "q1 0 d1 2\nq1 0 d2 0\n")
    second = write(tmp_path / "second.qrels", "q2 0 d1 1\nq2 0 d3 3\n")
    import_human(team, "alice", first, pool_pairs=POOL)
    import_human(laptop, "alice", second, pool_pairs=POOL)
    assert main(["merge", "--into", str(team.path), str(laptop.path)]) == 0
    merged = Project.open(team.path)
    got = imported_judgments(merged, "alice").sort("query_id", "doc_id")
    assert got.select("query_id", "doc_id", "file").rows() == [
        ("q1", "d1", str(first.resolve())),
        ("q1", "d2", str(first.resolve())),
        ("q2", "d1", str(second.resolve())),
        ("q2", "d3", str(second.resolve())),
    ]
    assert import_human(merged, "alice", second, pool_pairs=POOL).already  # nothing twice


def test_pool_makes_the_store_judge_then_uses(tmp_path: Path, capsys) -> None:
    # A team with a pool and last year's qrels, and no store yet: the import makes the pool's
    # default store, the one `goldset judge POOL` opens, only once every check has passed.
    from goldset_tui.commands.judge import prepare
    from goldset_tui.store import default_store_for

    pool = pool_store(tmp_path).pool_path
    bad = write(tmp_path / "bad.qrels", "q1 0 d1 2\nq7 0 d1 1\n")
    argv = ["import", "--pool", str(pool), "--labeller", "alice", "--human"]
    assert main([*argv, str(bad)]) == 2
    assert "bad.qrels:2" in capsys.readouterr().err
    assert not default_store_for(pool).exists()  # refused: no store made
    good = write(tmp_path / "good.qrels", "q1 0 d1 2\nq2 0 d3 1\n")
    assert main([*argv, str(good)]) == 0
    assert f"made the store {default_store_for(pool)}" in capsys.readouterr().err
    prepared = prepare(pool, "alice")
    assert prepared.project.path == default_store_for(pool)
    assert prepared.project.qrels("alice").rows() == [("q1", "d1", 2), ("q2", "d3", 1)]
    assert main([*argv, str(good)]) == 0  # the store exists now: opened, not made again
    assert "already imported" in capsys.readouterr().err
    fresh = tmp_path / "machine-store"  # --machine makes its store the same way
    machine = ["import", "--pool", str(pool), "--store", str(fresh), "--labeller", "llm"]
    assert main([*machine, "--machine", str(bad)]) == 2 and not fresh.exists()
    assert main([*machine, "--machine", str(good)]) == 0
    assert Project.open(fresh).manifest["labellers"]["llm"]["machine"] is True


def test_pool_of_an_existing_store_must_be_its_own(tmp_path: Path, capsys) -> None:
    project = pool_store(tmp_path)
    other = write(tmp_path / "other.jsonl", project.pool_path.read_text() + "\n")
    path = write(tmp_path / "a.qrels", "q1 0 d1 2\n")
    before = snapshot(project.path)
    assert run_import(project, path, "--pool", str(other)) == 2
    assert "is not the pool the store" in capsys.readouterr().err
    assert snapshot(project.path) == before
    assert run_import(project, path, "--pool", str(project.pool_path)) == 0


def test_a_pool_of_ids_only_takes_its_texts_from_the_corpus(tmp_path: Path, capsys) -> None:
    sample = Path(__file__).resolve().parents[3] / "sample_data"
    corpus = sample / "corpus.jsonl"
    pool = write(
        tmp_path / "ids.tsv", "query_id\tquery\tdoc_id\nq01\tjson error\tjson#JSONDecodeError\n"
    )
    qrels = write(tmp_path / "a.qrels", "q01 0 json#JSONDecodeError 3\n")
    store = tmp_path / "store"
    argv = ["import", "--store", str(store), "--labeller", "alice", "--human", str(qrels)]
    assert main([*argv, "--pool", str(pool)]) == 2  # the texts are missing: no store made
    assert "needs --corpus" in capsys.readouterr().err and not store.exists()
    assert main([*argv, "--pool", str(pool), "--corpus", str(corpus)]) == 0
    bob = ["import", "--store", str(store), "--labeller", "bob", "--human", str(qrels)]
    # The store made with --corpus records it, as `goldset pool --extend --corpus` does: the
    # next import finds the texts without --corpus (it was refused before the corpus was kept).
    recorded = {"path": str(corpus.resolve()), "sha256": sha256_file(corpus)}
    assert Project.open(store).manifest["corpus"] == recorded
    assert main(bob) == 0
    assert Project.open(store).qrels("bob").rows() == [("q01", "json#JSONDecodeError", 3)]


def test_a_file_changed_while_being_read_is_refused(tmp_path: Path, monkeypatch) -> None:
    # The sha256 in the manifest must be that of the grades imported, not of a later version.
    import goldset_tui.store.human as human

    project = pool_store(tmp_path)
    path = write(tmp_path / "a.qrels", "q1 0 d1 2\n")
    real = human.read_human_labels

    def read_then_edit(*args, **kwargs):
        labels = real(*args, **kwargs)
        path.write_text("q1 0 d1 3\n")  # someone saves the spreadsheet again meanwhile
        return labels

    monkeypatch.setattr(human, "read_human_labels", read_then_edit)
    before = snapshot(project.path)
    with pytest.raises(InputError) as info:
        import_human(project, "alice", path, pool_pairs=POOL)
    assert info.value.path == path and "changed while it was being read" in info.value.message
    assert snapshot(project.path) == before


def test_a_name_with_braces_is_named_literally_in_a_refusal(tmp_path: Path, capsys) -> None:
    # The refusal's text is a template filled with the pair's fields: a name holding { } once
    # raised KeyError (a traceback) instead of the one-line refusal.
    project = pool_store(tmp_path)
    first = write(tmp_path / "a.qrels", "q1 0 d1 1\n")
    second = write(tmp_path / "b.qrels", "q1 0 d1 2\n")
    assert run_import(project, first, labeller="a{b}") == 0
    assert run_import(project, second, labeller="a{b}") == 2
    err = capsys.readouterr().err
    assert "but a{b} already graded it 1" in err and "Traceback" not in err


@pytest.mark.parametrize("kind", ["--human", "--machine"])
def test_a_file_name_that_is_not_utf8_is_recorded_escaped(tmp_path: Path, kind: str) -> None:
    # Such a name once reached TOML as lone surrogates: a UnicodeEncodeError traceback (and, for
    # --machine, grades left in the store without their import record).
    project = pool_store(tmp_path)
    raw = os.fsencode(tmp_path) + b"/odd\xffname.qrels"
    with open(raw, "wb") as handle:
        handle.write(b"q1 0 d1 2\n")
    name = os.fsdecode(raw)
    assert main(["import", "--store", str(project.path), "--labeller", "x", kind, name]) == 0
    (record,) = Project.open(project.path).manifest["labellers"]["x"]["imports"]
    assert record["file"] == str(tmp_path.resolve()) + "/odd\\xffname.qrels"
    assert record["sha256"] == hashlib.sha256(b"q1 0 d1 2\n").hexdigest()
