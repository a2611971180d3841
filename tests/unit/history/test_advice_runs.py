"""Every `goldset pool --extend` command `eval` and `report` print runs as printed. The one
placeholder allowed is CORPUS, where goldset cannot know the corpus file (a store that records
none): the line says so, and the command with a corpus put in its place runs. Before, the advice
for such a store left --corpus out, and the command exited 2 ("156 new candidates have no text yet
... give --corpus FILE")."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from goldset_tui.cli import main
from goldset_tui.history.advice import CORPUS
from goldset_tui.io.trec import read_qrels
from goldset_tui.store import Project, sha256_file

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"
NEW = SAMPLE / "releases" / "2026.3" / "dense-v2.run"


def _store(tmp_path: Path) -> Path:
    store, pool = tmp_path / "store", tmp_path / "pool.jsonl"  # the new pool is written beside it
    pool.write_bytes((SAMPLE / "pool.jsonl").read_bytes())
    project = Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    project.add_grades(
        "alice", read_qrels(SAMPLE / "judgments" / "alice.qrels").with_columns(time=None, note=None)
    )
    return store


def _advice(err: str) -> list[str]:
    return [line for line in err.splitlines() if "goldset pool --extend" in line]


@pytest.mark.parametrize("command", ["eval", "report"])
def test_the_advice_for_a_store_without_a_corpus_names_it_and_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    store = _store(tmp_path)
    runs = [f"dense-v2={NEW}"]
    if command == "eval":
        args = ["eval", str(store), *runs, "-m", "P@10"]
    else:
        args = ["report", "--qrels", str(store), "--run", runs[0]]
        args += ["--strata", str(SAMPLE / "strata.csv"), "-m", "P@10", "--samples", "200"]
    assert main(args) == 0
    (line,) = _advice(capsys.readouterr().err)
    printed = shlex.split(line[line.index("goldset pool") :])
    assert printed[printed.index("--corpus") + 1] == CORPUS
    assert "CORPUS: the corpus file holding the new documents" in line  # the placeholder explained
    without = [a for a in printed[1:] if a != CORPUS and a != "--corpus"]
    assert main(without) == 2  # what the advice printed before: refused, no texts
    assert "give --corpus FILE" in capsys.readouterr().err
    filled = [str(SAMPLE / "corpus.jsonl") if a == CORPUS else a for a in printed[1:]]
    assert main(filled) == 0
    assert (tmp_path / "pool+dense-v2.jsonl").is_file()


def test_the_advice_for_a_store_with_a_corpus_runs_verbatim(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = _store(tmp_path)
    corpus = SAMPLE / "corpus.jsonl"
    bm25 = SAMPLE / "runs" / "bm25.run"
    first = ["pool", "--extend", str(tmp_path / "pool.jsonl"), "--run", f"bm25-deep={bm25}"]
    first += ["--depth", "25", "-o", str(tmp_path / "deep.jsonl"), "--store", str(store)]
    assert main([*first, "--corpus", str(corpus)]) == 0
    capsys.readouterr()
    assert main(["eval", str(store), f"dense-v2={NEW}", "-m", "P@10"]) == 0
    (line,) = _advice(capsys.readouterr().err)
    assert CORPUS not in shlex.split(line[line.index("goldset pool") :])
    assert "CORPUS:" not in line
    assert main(shlex.split(line[line.index("goldset pool") :])[1:]) == 0
