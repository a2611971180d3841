"""What the consensus commands write, when a write fails: `adjudicate --rule` changes the store's
rule only if it then opens (a failure to open the adjudicator's journal used to leave the new
rule recorded by a command that said it failed)."""

from __future__ import annotations

import errno
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.adjudication.consensus import UMA, store_rule
from goldset_tui.cli import main
from goldset_tui.io.trec import read_qrels
from goldset_tui.store import Project, sha256_file

SAMPLE = Path(__file__).parents[3] / "sample_data"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    pool = SAMPLE / "pool.jsonl"
    project = Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))
    for name in ("alice", "bob"):
        qrels = read_qrels(SAMPLE / "judgments" / f"{name}.qrels")
        project.add_grades(
            name,
            qrels.with_columns(
                pl.lit(None, pl.String).alias("time"), pl.lit(None, pl.String).alias("note")
            ),
        )
    return project.path


@pytest.fixture
def at_a_terminal(monkeypatch) -> None:
    import goldset_tui.app.terminal as terminal
    import goldset_tui.ui.app as app

    monkeypatch.setattr(terminal, "require_terminal", lambda command="": None)
    monkeypatch.setattr(app, "run_app", lambda make: 0)  # the adjudicator quits at once


def test_adjudicate_whose_journal_cannot_open_leaves_the_rule_as_it_was(
    store: Path, at_a_terminal, monkeypatch, capsys
) -> None:
    import goldset_tui.store.journal as journal

    def refused(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(store / "adjudication"))

    monkeypatch.setattr(journal.Journal, "__init__", refused)
    argv = ["adjudicate", "--store", str(store), "--labeller", "dana", "--rule", "median"]
    assert main(argv) == 2
    assert capsys.readouterr().err.count("goldset: error:") == 1
    assert store_rule(Project.open(store)) == UMA
    monkeypatch.undo()  # the disk has room again: the same command records the rule
    import goldset_tui.app.terminal as terminal
    import goldset_tui.ui.app as app

    monkeypatch.setattr(terminal, "require_terminal", lambda command="": None)
    monkeypatch.setattr(app, "run_app", lambda make: 0)
    assert main(argv) == 0
    assert store_rule(Project.open(store)) == "median"


def test_qrels_consensus_whose_qrels_file_fails_leaves_the_earlier_provenance(
    store: Path, tmp_path: Path, monkeypatch, capsys
) -> None:
    # `qrels --consensus -o` writes two files: the qrels and the provenance of every pair. An
    # export before the adjudicator decided, then one after it whose qrels file cannot be
    # written: the provenance must still be the earlier export's (it was the new one, beside
    # the old qrels, describing pairs and grades that file does not hold).
    from goldset_tui.adjudication.decisions import AdjudicationWriter
    from goldset_tui.store import files

    out = tmp_path / "consensus.qrels"
    argv = ["qrels", "--store", str(store), "--consensus", "-o", str(out)]
    assert main(argv) == 0
    provenance = store / "adjudication" / f"provenance-{UMA}.tsv"
    earlier = provenance.read_bytes(), out.read_bytes()
    pending = next(row for row in provenance.read_text().splitlines() if "\tpending\t" in row)
    query, doc = pending.split("\t")[:2]
    with AdjudicationWriter(store, "dana", UMA) as writer:
        writer.decide(query, doc, 2)
    capsys.readouterr()
    real = files.atomic_write_bytes

    def full(path, data, *args, **kwargs):
        if Path(path) == out:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(path, data, *args, **kwargs)

    monkeypatch.setattr(files, "atomic_write_bytes", full)
    assert main(argv) == 2
    assert capsys.readouterr().err.count("goldset: error:") == 1
    assert (provenance.read_bytes(), out.read_bytes()) == earlier
    monkeypatch.undo()  # room again: both files are the new export's
    assert main(argv) == 0
    assert provenance.read_bytes() != earlier[0] and out.read_bytes() != earlier[1]
    assert f"{query}\t{doc}\t2\tadjudicator\tdana" in provenance.read_text()
