"""Closure counts against the golden set (issue 10): a query of the strata file that the qrels leave
out, with no judgments or with no relevant document, makes the table fail to close, named with
its stratum and the reason, in the JSON (`closure.dropped`), the Markdown and the warnings."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from goldset_tui.cli import main
from goldset_tui.report.pipeline import assemble_report, to_dict


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
            # b, at rank 2 of the run, was never judged: a hole the review must point at.
            "why": "no relevant document (1 judged, none graded >= 1); "
            "1 unjudged in the runs' top 10: judge them",
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


def _report(f: dict[str, Path], capsys, *runs: str) -> tuple[dict, list[str]]:
    argv = ["report", "--qrels", str(f["qrels"]), "--strata", str(f["strata"]), "--format", "json"]
    for r in runs:
        argv += ["--run", r]
    assert main(argv) == 0
    out = capsys.readouterr()
    return json.loads(out.out), out.err.splitlines()


def test_judged_queries_in_no_stratum_are_named_in_dropped(tmp_path, capsys) -> None:
    # q8 is judged relevant and q9 judged not relevant, but neither is in the strata file: both
    # are in no row of the table. Before, closure.dropped listed only the strata file's queries.
    f = _files(tmp_path)
    with f["qrels"].open("a") as fh:
        fh.write("q8 0 a 1\nq8 0 b 0\nq9 0 a 0\n")
    d, err = _report(f, capsys, f"a={f['run']}")
    loose = [r for r in d["closure"]["dropped"] if r["stratum"] is None]
    assert loose == [
        {
            "query_id": "q8",
            "stratum": None,
            "why": "no stratum: judged, but not in the strata file (2 judged)",
        },
        {
            "query_id": "q9",
            "stratum": None,
            "why": "no stratum: judged, but not in the strata file (1 judged, none graded >= 1)",
        },
    ]
    assert [r["query_id"] for r in d["closure"]["dropped"]][:3] == ["q5", "q6", "q7"]
    (line,) = [w for w in err if "in no stratum" in w]
    assert (
        line.startswith("goldset: warning: 2 judged queries in no stratum")
        and "q8 (no stratum" in line
    )


def test_a_run_without_golden_set_queries_is_warned_in_one_line(tmp_path, capsys) -> None:
    # Run b has no line for q2, q3, q4, q6 (of the 7 golden-set queries); run a lacks q6, q7.
    f = _files(tmp_path)
    b = tmp_path / "b.run"
    b.write_text("".join(f"{q} Q0 a 1 2.0 b\n" for q in ("q1", "q5", "q7")))
    d, err = _report(f, capsys, f"a={f['run']}", f"b={b}")
    assert d["missing_from_runs"] == {
        "a": {"missing": 2, "golden_set": 7, "query_ids": ["q6", "q7"]},
        "b": {"missing": 4, "golden_set": 7, "query_ids": ["q2", "q3", "q4", "q6"]},
    }
    lines = [w for w in err if "lacks" in w]
    assert lines == [
        "goldset: warning: runs without a line for some golden-set queries, each scored 0 for that "
        "run: a lacks 2 of 7 (q6, q7); b lacks 4 of 7 (q2, q3, q4, ...) (all in missing_from_runs "
        "in the JSON)"
    ]
    # A run with every golden-set query: no warning, an empty object.
    d, err = _report(f, capsys, f"a={f['run']}")
    assert "lacks" in " ".join(err)  # a still lacks q6, q7
    full = tmp_path / "full.run"
    full.write_text("".join(f"q{i} Q0 a 1 2.0 c\n" for i in range(1, 8)))
    d, err = _report(f, capsys, f"c={full}")
    assert d["missing_from_runs"] == {} and not [w for w in err if "lacks" in w]
