"""Closure counts against the golden set (issue 10): a query of the strata file that the qrels leave
out, with no judgments or with no relevant document, makes the table fail to close, named with
its stratum and the reason, in the JSON (`closure.dropped`), the Markdown and the warnings."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from goldset_tui.cli import main
from goldset_tui.eval.report import assemble_report, to_dict


def _files(d: Path) -> dict[str, Path]:
    # Six golden-set queries in two strata. q1-q4 have a relevant document; q5 was judged but
    # nothing in it is relevant (one 0); q6 was never judged; q7 only carries a "pooled but
    # unjudged" -1, which is no judgment either.
    (d / "strata.csv").write_text(
        "query_id,stratum\nq1,howto\nq2,howto\nq3,howto\nq4,error\nq5,error\nq6,howto\nq7,error\n"
    )
    (d / "qrels.txt").write_text("q1 0 a 1\nq2 0 a 2\nq3 0 b 1\nq4 0 a 1\nq5 0 a 0\nq7 0 a -1\n")
    (d / "a.run").write_text(
        "".join(f"{q} Q0 a 1 2.0 a\n{q} Q0 b 2 1.0 a\n" for q in ("q1", "q2", "q3", "q4", "q5"))
    )
    return {
        k: d / n for k, n in (("strata", "strata.csv"), ("qrels", "qrels.txt"), ("run", "a.run"))
    }


def test_dropped_golden_set_queries_fail_closure(tmp_path, capsys) -> None:
    f = _files(tmp_path)
    code = main(
        [
            "report",
            "--qrels",
            str(f["qrels"]),
            "--run",
            f"a={f['run']}",
            "--strata",
            str(f["strata"]),
            "--format",
            "json",
        ]
    )
    out = capsys.readouterr()
    assert code == 0
    d = json.loads(out.out)
    # The table holds q1-q4: n = 4 against a golden set of 7 queries.
    assert d["n"] == 4
    assert sum(s["n"] for s in d["strata"]) == 4
    assert d["closure"]["ok"] is False
    golden = next(c for c in d["closure"]["checks"] if "golden set" in c["name"])
    assert (golden["expected"], golden["actual"], golden["residual"]) == (7, 4, -3)
    assert d["closure"]["dropped"] == [
        {
            "query_id": "q5",
            "stratum": "error",
            "why": "no relevant document (1 judged, none graded >= 1)",
        },
        {"query_id": "q6", "stratum": "howto", "why": "no judgments"},
        {"query_id": "q7", "stratum": "error", "why": "no judgments"},
    ]
    warning = next(w for w in out.err.splitlines() if "dropped" in w)
    assert "q5 (error: no relevant document" in warning and "q6 (howto: no judgments)" in warning


def test_markdown_names_the_dropped_queries(tmp_path, capsys) -> None:
    f = _files(tmp_path)
    code = main(
        [
            "report",
            "--qrels",
            str(f["qrels"]),
            "--run",
            f"a={f['run']}",
            "--strata",
            str(f["strata"]),
        ]
    )
    md = capsys.readouterr().out
    assert code == 0
    assert "DOES NOT close" in md
    assert "| q6 | howto | no judgments |" in md


def test_a_complete_golden_set_closes_and_drops_nothing() -> None:
    scores = pl.DataFrame({"system": "a", "query_id": ["q1", "q2", "q3"], "value": [1.0, 0.0, 1.0]})
    strata = pl.DataFrame({"query_id": ["q1", "q2", "q3"], "stratum": ["x", "x", "y"]})
    d = to_dict(assemble_report(scores, strata))
    assert d["closure"]["ok"] is True and d["closure"]["dropped"] == []
    # Without qrels the pure layer still counts a missing query, with a reason it can give.
    strata = pl.concat([strata, pl.DataFrame({"query_id": ["q4"], "stratum": ["y"]})])
    d = to_dict(assemble_report(scores, strata))
    assert d["closure"]["ok"] is False
    assert d["closure"]["dropped"] == [
        {"query_id": "q4", "stratum": "y", "why": "not evaluated (no per-query score)"}
    ]
