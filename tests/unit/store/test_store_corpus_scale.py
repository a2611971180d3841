"""What a store is made with is kept in it: the corpus of an ids-only pool (``[corpus]`` path and
sha256, the table `goldset pool --extend --corpus` writes and the version reads) and the grade
scale (``--scale LO-HI``). Before, `goldset judge --corpus` and `import --pool --corpus` recorded
no corpus (import and agreement read a ``[pool] corpus`` key nothing wrote), so every later command
on the store needed --corpus again; and every store was made 0-3."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui.agreement.sources import store_pool
from goldset_tui.cli import main
from goldset_tui.commands.judge import prepare
from goldset_tui.errors import InputError
from goldset_tui.store import Project, sha256_file

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"
CORPUS = SAMPLE / "corpus.jsonl"
PAIRS = [("q01", "json#JSONDecodeError"), ("q01", "json#JSONEncoder.__init__/2")]


def ids_pool(tmp_path: Path) -> Path:
    """A pool that lists document ids only: its texts are in the sample corpus."""
    path = tmp_path / "ids.tsv"
    path.write_text(
        "query_id\tquery\tdoc_id\n" + "".join(f"{q}\tjson error\t{d}\n" for q, d in PAIRS)
    )
    return path


def snapshot(store: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(store)): p.read_bytes() for p in sorted(store.rglob("*")) if p.is_file()
    }


def test_judge_records_the_corpus_and_the_next_command_finds_the_texts(tmp_path: Path) -> None:
    pool, store = ids_pool(tmp_path), tmp_path / "store"
    with pytest.raises(InputError, match="needs --corpus"):
        prepare(pool, "alice", store=store)  # nothing recorded yet, nothing made
    assert not store.exists()
    first = prepare(pool, "alice", store=store, corpus=CORPUS)
    recorded = {"path": str(CORPUS.resolve()), "sha256": sha256_file(CORPUS)}
    assert Project.open(store).manifest["corpus"] == recorded
    # A second sitting (and the home screen, which opens a store by pool and store only).
    again = prepare(pool, "bob", store=store)
    texts = again.pool.frame.get_column("text").to_list()
    assert texts == first.pool.frame.get_column("text").to_list()
    assert texts[0].startswith("class JSONDecodeError(msg, doc, pos)")  # the corpus's text
    # Agreement's pool (strata, the texts of a disputed pair) is found the same way.
    frame = store_pool(Project.open(store))
    assert frame is not None and frame.get_column("text").to_list() == texts


def test_import_records_the_corpus_of_a_store_it_makes_or_was_given(tmp_path: Path) -> None:
    pool, store = ids_pool(tmp_path), tmp_path / "store"
    qrels = tmp_path / "a.qrels"
    qrels.write_text(f"{PAIRS[0][0]} 0 {PAIRS[0][1]} 2\n")
    argv = ["import", "--store", str(store), "--human", str(qrels)]
    made = [*argv, "--labeller", "alice", "--pool", str(pool), "--corpus", str(CORPUS)]
    assert main(made) == 0
    assert Project.open(store).manifest["corpus"]["sha256"] == sha256_file(CORPUS)
    assert main([*argv, "--labeller", "bob"]) == 0  # no --corpus: the recorded one
    # A store made before the corpus was kept learns it from the first command given it.
    old = tmp_path / "old"
    Project.create(old, pool_path=pool, pool_sha256=sha256_file(pool))
    argv = ["import", "--store", str(old), "--human", str(qrels)]
    assert main([*argv, "--labeller", "alice"]) == 2  # the texts are nowhere
    assert main([*argv, "--labeller", "alice", "--corpus", str(CORPUS)]) == 0
    assert main([*argv, "--labeller", "bob"]) == 0
    assert Project.open(old).manifest["corpus"]["path"] == str(CORPUS.resolve())


def test_a_store_merged_into_a_new_one_keeps_the_corpus_and_the_scale(tmp_path: Path) -> None:
    from goldset_tui.store.merge import merge_stores

    pool = ids_pool(tmp_path)
    prepare(pool, "alice", store=tmp_path / "a", corpus=CORPUS, scale="1-5")
    merge_stores(tmp_path / "new", [tmp_path / "a"])
    merged = Project.open(tmp_path / "new")
    assert merged.manifest["corpus"] == Project.open(tmp_path / "a").manifest["corpus"]
    assert merged.scale.grades == [1, 2, 3, 4, 5]
    assert prepare(pool, "bob", store=tmp_path / "new").pool.frame.height == len(PAIRS)


def test_a_recorded_corpus_gone_does_not_stop_a_pool_with_texts(tmp_path: Path) -> None:
    pool, store = SAMPLE / "pool.jsonl", tmp_path / "store"
    copy = tmp_path / "corpus.jsonl"
    copy.write_bytes(CORPUS.read_bytes())
    prepare(pool, "alice", store=store, corpus=copy)
    copy.unlink()
    assert prepare(pool, "alice", store=store).pool.frame.height > 0


def test_judge_makes_a_store_on_the_scale_asked_and_keeps_it(tmp_path: Path, capsys) -> None:
    pool, store = SAMPLE / "pool.jsonl", tmp_path / "store"
    prepared = prepare(pool, "alice", store=store, scale="0-4")
    project = Project.open(store)
    assert project.scale.grades == [0, 1, 2, 3, 4] and prepared.project.scale == project.scale
    assert project.manifest["scale"]["4"] == "perfectly relevant"
    # The guidelines name the store's grades, not the 0-3 ones.
    assert "Grades 0-4:" in project.guidelines and "\n4 perfectly relevant." in project.guidelines
    assert prepare(pool, "alice", store=store, scale="0-4").project.scale == project.scale
    assert prepare(pool, "alice", store=store).project.scale == project.scale  # kept
    before = snapshot(store)
    with pytest.raises(InputError, match="the store's grade scale is 0-4, not 1-5"):
        prepare(pool, "alice", store=store, scale="1-5")
    assert snapshot(store) == before
    # On the command line the refusal is one line, exit 2 (import here: judge needs a tty).
    qrels = tmp_path / "a.qrels"
    qrels.write_text("q01 0 json#JSONDecodeError 4\n")
    argv = ["import", "--store", str(store), "--labeller", "bob", "--human", str(qrels)]
    assert main([*argv, "--scale", "0-3"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "grade scale is 0-4, not 0-3" in err
    assert snapshot(store) == before
    assert main(argv) == 0  # a 4 fits this store
    assert Project.open(store).qrels("bob").rows() == [("q01", "json#JSONDecodeError", 4)]


def test_import_pool_makes_a_one_to_five_store_for_one_to_five_qrels(tmp_path: Path) -> None:
    pool, store = SAMPLE / "pool.jsonl", tmp_path / "store"
    qrels = tmp_path / "team.qrels"
    qrels.write_text("q01 0 json#JSONDecodeError 5\nq01 0 json#JSONEncoder.__init__/2 1\n")
    argv = ["import", "--pool", str(pool), "--store", str(store), "--labeller", "t"]
    assert main([*argv, "--human", str(qrels)]) == 2  # a 0-3 store has no 5
    assert not store.exists()
    assert main([*argv, "--human", str(qrels), "--scale", "1-5"]) == 0
    project = Project.open(store)
    assert project.scale.grades == [1, 2, 3, 4, 5]
    assert sorted(project.qrels("t").get_column("grade").to_list()) == [1, 5]


@pytest.mark.parametrize("bad", ["0-0", "3-1", "0-10", "-1-3", "0..4", "a-b", ""])
def test_a_bad_scale_is_one_line_and_makes_nothing(tmp_path: Path, capsys, bad: str) -> None:
    store, qrels = tmp_path / "store", tmp_path / "a.qrels"
    qrels.write_text("q01 0 json#JSONDecodeError 1\n")
    argv = ["import", "--pool", str(SAMPLE / "pool.jsonl"), "--store", str(store)]
    assert main([*argv, "--labeller", "t", "--human", str(qrels), f"--scale={bad}"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "expected LO-HI" in err and not store.exists()
