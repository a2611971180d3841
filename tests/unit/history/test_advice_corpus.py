"""The unjudged-fraction advice carries the store's recorded corpus: after `goldset pool --extend
... --corpus C`, the `goldset pool --extend` command that `eval`/`report` suggest says `--corpus C`
too, so running it verbatim works and keeps the versioned setup (without it the new candidates
have no text and the command is refused)."""

from __future__ import annotations

import shlex
from pathlib import Path

from goldset_tui.cli import main
from goldset_tui.io.trec import read_qrels
from goldset_tui.store import Project, sha256_file

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"
REL = SAMPLE / "releases"


def test_the_advised_command_carries_the_recorded_corpus_and_runs(tmp_path: Path, capsys) -> None:
    store, pool, corpus = tmp_path / "store", SAMPLE / "pool.jsonl", SAMPLE / "corpus.jsonl"
    project = Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    project.add_grades(
        "alice", read_qrels(SAMPLE / "judgments" / "alice.qrels").with_columns(time=None, note=None)
    )
    first = tmp_path / "pool+bm25-deep.jsonl"
    extend = ["pool", "--extend", str(pool), "--run", f"bm25-deep={REL / '2026.1' / 'bm25.run'}"]
    args = [*extend, "--depth", "25", "-o", str(first), "--store", str(store)]
    assert main([*args, "--corpus", str(corpus)]) == 0
    assert Project.open(store).manifest["corpus"]["path"] == str(corpus.resolve())
    capsys.readouterr()

    new = REL / "2026.3" / "dense-v2.run"
    assert main(["eval", str(store), f"dense-v2={new}", "-m", "P@10"]) == 0
    (line,) = [x for x in capsys.readouterr().err.splitlines() if "--extend" in x]
    command = shlex.split(line[line.index("goldset pool") :])
    assert command[command.index("--corpus") + 1] == str(corpus.resolve())
    assert command[command.index("--extend") + 1] == str(first)  # the store's pool now
    assert main(command[1:]) == 0  # verbatim
    assert "dense-v2" in {e["run"] for e in Project.open(store).manifest["pool_extensions"]}


def test_a_run_already_pooled_is_advised_under_a_new_name_and_the_command_runs(
    tmp_path: Path, capsys
) -> None:
    # bm25 made the sample pool at depth 20; R@100 reads its top 100, two thirds unjudged. The
    # advice named it 'bm25' again, and `pool --extend` refuses a system already in the pool
    # ("system 'bm25' is already in the pool", exit 2): the printed fix could only fail.
    store, pool = tmp_path / "store", tmp_path / "pool.jsonl"  # the new pool goes beside it
    pool.write_bytes((SAMPLE / "pool.jsonl").read_bytes())
    project = Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    project.add_grades(
        "alice", read_qrels(SAMPLE / "judgments" / "alice.qrels").with_columns(time=None, note=None)
    )
    bm25 = SAMPLE / "runs" / "bm25.run"
    assert main(["eval", str(store), f"bm25={bm25}", "-m", "R@100"]) == 0
    (line,) = [x for x in capsys.readouterr().err.splitlines() if "--extend" in x]
    command = shlex.split(line[line.index("goldset pool") :])
    assert command[command.index("--run") + 1] == f"bm25-top100={bm25}"
    corpus = ["--corpus", str(SAMPLE / "corpus.jsonl")]  # the store records none here
    assert main([*command[1:], *corpus]) == 0  # verbatim, plus the texts of the new candidates
    (extension,) = Project.open(store).manifest["pool_extensions"]
    assert extension["run"] == "bm25-top100"
    assert extension["depth"] == 100
    assert (tmp_path / "pool+bm25-top100.jsonl").is_file()
