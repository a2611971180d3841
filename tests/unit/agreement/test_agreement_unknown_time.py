"""Imported grades have no time spent: the adjudication and agreement screens show "-" for them.

Before, the time of each pair was summed over its grading events with nulls taken as 0, so every
imported grade (TREC qrels, a spreadsheet) read "0s" beside the labeller's name, as if judged
without looking."""

from __future__ import annotations

from pathlib import Path

from goldset_tui.adjudication.details import pair_details, seconds_text
from goldset_tui.agreement.sources import from_store
from goldset_tui.cli import main

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"


def test_imported_grades_have_no_time(tmp_path, capsys):
    store = tmp_path / "store"
    for name in ("alice", "bob"):
        argv = ["import", "--pool", str(SAMPLE / "pool.jsonl"), "--store", str(store)]
        argv += ["--labeller", name, "--human", str(SAMPLE / "judgments" / f"{name}.qrels")]
        assert main(argv) == 0
    capsys.readouterr()
    ratings = from_store(store).ratings
    assert ratings.get_column("seconds").null_count() == ratings.height
    first = ratings.row(0, named=True)
    details = pair_details(ratings, None, first["query_id"], first["doc_id"])
    assert [seconds_text(g.seconds) for g in details.grades] == ["-"] * len(details.grades)
