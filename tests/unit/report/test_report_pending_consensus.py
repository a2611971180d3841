"""`goldset report --qrels STORE` on a store whose consensus still has pairs pending
adjudication: those pairs count as not relevant, and the report's own files now say so.

Before, the line about the pending pairs went to stderr only: report.md and the review screen's
warnings read as if the consensus were complete, so a report passed on (or
read the next day) hid that some of its "misses" were undecided pairs."""

from __future__ import annotations

import csv

from goldset_tui.adjudication.consensus import open_pairs
from goldset_tui.adjudication.decisions import AdjudicationWriter
from goldset_tui.agreement.example import build_example_store
from goldset_tui.agreement.sources import from_store
from goldset_tui.cli import main


def _inputs(tmp_path):
    store = build_example_store(tmp_path / "demo")
    # One decision: the store's consensus is then the report's qrels, the other pairs pending.
    first = open_pairs(from_store(store).ratings).row(0, named=True)
    with AdjudicationWriter(store, "dee", "unanimous-majority-adjudicator") as writer:
        writer.decide(first["query_id"], first["doc_id"], 1)
    with open(tmp_path / "demo" / "pool.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    run = tmp_path / "sys.run"
    run.write_text(
        "".join(f"{r['query_id']} Q0 {r['doc_id']} 1 {10 - i} sys\n" for i, r in enumerate(rows))
    )
    strata = tmp_path / "strata.csv"
    queries = dict.fromkeys((r["query_id"], r["stratum"]) for r in rows)
    strata.write_text("query_id,stratum\n" + "".join(f"{q},{s}\n" for q, s in queries))
    return store, run, strata


def test_the_report_files_say_how_many_pairs_are_pending(tmp_path, capsys):
    store, run, strata = _inputs(tmp_path)
    assert main(["qrels", "--store", str(store), "--consensus", "-o", str(tmp_path / "c")]) == 0
    (said,) = [x for x in capsys.readouterr().err.splitlines() if "pending adjudication" in x]
    said = said.removeprefix("goldset: warning: ")
    out = tmp_path / "out"
    argv = ["report", "--qrels", str(store), "--run", f"sys={run}", "--strata", str(strata)]
    assert main([*argv, "-m", "P@3", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.count("pending adjudication") == 1 and f"goldset: warning: {said}" in err
    # Markdown escapes the backticks of the command the line names; its first clause is plain.
    assert said.split(";")[0] in (out / "report.md").read_text()


def test_the_json_lists_the_same_warnings_as_stderr(tmp_path, capsys):
    """JSON readers get the report's warnings too, exact text, in stderr's order: before, the
    document had no `warnings` key, so a script reading it never learned of the pending pairs."""
    import json

    store, run, strata = _inputs(tmp_path)
    argv = ["report", "--qrels", str(store), "--run", f"sys={run}", "--strata", str(strata)]
    assert main([*argv, "-m", "P@3", "--format", "json", "-o", str(tmp_path / "out")]) == 0
    out, err = capsys.readouterr()
    prefix = "goldset: warning: "
    stderr = [x.removeprefix(prefix) for x in err.splitlines() if x.startswith(prefix)]
    printed = json.loads(out)
    assert printed["warnings"] == stderr
    assert [w for w in printed["warnings"] if "pending adjudication" in w]
    written = json.loads((tmp_path / "out" / "report.json").read_text())
    assert written["warnings"] == printed["warnings"]
    # Added last: every key the document had keeps its place.
    assert list(printed)[-1] == "warnings"
