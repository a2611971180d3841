"""The decision block in every format of `goldset report`: the Markdown's "Decisions" section
carries the JSON's rows and numbers, and the report's own --route/--precision options give the
block `goldset route` prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goldset_tui.cli import main

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "sample_data"
INPUTS = [
    "--qrels",
    str(DATA / "judgments" / "alice.qrels"),
    "--run",
    f"bm25={DATA / 'runs' / 'bm25.run'}",
    "--run",
    f"minilm={DATA / 'runs' / 'minilm.run'}",
    "--strata",
    str(DATA / "strata.csv"),
    "--samples",
    "50",
]
TRAFFIC = ["--traffic", str(DATA / "traffic.csv")]


def section(markdown: str, title: str) -> list[str]:
    lines = markdown.splitlines()
    start = lines.index(title)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start + 1 : end]


def table_rows(lines: list[str], first_cell: str) -> list[list[str]]:
    """Every table row whose first cell is ``first_cell``, split into cells."""
    out = []
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first_cell:
            out.append(cells)
    return out


def test_the_markdown_decisions_section_has_the_jsons_rows(capsys, tmp_path: Path) -> None:
    argv = ["report", *INPUTS, *TRAFFIC, "-m", "nDCG@10", "-o", str(tmp_path)]
    assert main(argv) == 0
    capsys.readouterr()
    block = json.loads((tmp_path / "report.json").read_text())["decisions"]
    report = json.loads((tmp_path / "report.json").read_text())
    part = section((tmp_path / "report.md").read_text(), "## Decisions")
    names = [o["name"] for o in block["options"]]
    assert names == ["bm25", "minilm", "rrf", "routed", "routed_with_errors", "oracle"]
    strata = [r["stratum"] for r in block["options"][0]["strata"]]
    for o in block["options"]:
        (row,) = [r for r in table_rows(part, o["name"]) if len(r) == len(strata) + 7]
        means = [float(c) for c in row[2 : 2 + len(strata)]]
        assert means == pytest.approx([r["mean"] for r in o["strata"]], abs=5e-4)
        assert float(row[2 + len(strata)]) == pytest.approx(o["overall"]["weighted_mean"], abs=5e-4)
        vs = o["vs_baseline"]
        if vs is None:
            assert o["name"] == block["baseline"] and row[4 + len(strata)] == "baseline"
            continue
        gained, lost, net = (float(x) for x in row[-1].split(" / "))
        assert (gained, lost, net) == pytest.approx(
            (vs["gained_per_n"], vs["lost_per_n"], vs["net_per_n"]), abs=0.05
        )
        # The queries table: golden-set queries and searches per N, per stratum.
        (qrow,) = [r for r in table_rows(part, o["name"]) if len(r) == len(strata) + 1]
        for cell, r in zip(qrow[1:], vs["strata"], strict=True):
            queries, rest = cell.split(" of ")
            assert float(queries) == pytest.approx(r["set_queries"], abs=0.05)
            assert float(rest.split("(")[1].rstrip(")")) == pytest.approx(r["per_n"], abs=0.05)
    # Independently of the block: a single run's row is the report's table and headline.
    minilm = next(r for r in table_rows(part, "minilm") if len(r) == len(strata) + 7)
    table = {s["stratum"]: s["systems"]["minilm"]["mean"] for s in report["strata"]}
    assert [float(c) for c in minilm[2 : 2 + len(strata)]] == pytest.approx(
        [table[s] for s in strata], abs=5e-4
    )
    assert float(minilm[2 + len(strata)]) == pytest.approx(
        report["overall"]["minilm"]["weighted_mean"], abs=5e-4
    )


def test_no_decisions_section_without_traffic(capsys) -> None:
    assert main(["report", *INPUTS]) == 0
    assert "## Decisions" not in capsys.readouterr().out


def test_the_strata_change_note_is_in_the_json_and_the_markdown(capsys, tmp_path: Path) -> None:
    import polars as pl

    from goldset_tui.store import Project, sha256_file

    store = tmp_path / "S"
    pool = DATA / "pool.jsonl"
    Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    strata = DATA / "strata.csv"
    first = ["report", *INPUTS, "--store", str(store), "--release", "r1", "--format", "json"]
    assert main(first) == 0
    assert "strata_changed" not in json.loads(capsys.readouterr().out)  # nothing changed yet
    moved = tmp_path / "moved.csv"
    frame = pl.read_csv(strata)
    frame.with_columns(
        pl.when(pl.col("query_id") == frame["query_id"][0])
        .then(pl.lit("brand_new"))
        .otherwise(pl.col("stratum"))
        .alias("stratum")
    ).write_csv(moved)
    argv = [a if a != str(strata) else str(moved) for a in INPUTS]
    out_dir = tmp_path / "out"
    second = ["report", *argv, "--store", str(store), "--release", "r2", "-o", str(out_dir)]
    assert main([*second, "--format", "json"]) == 0
    out = capsys.readouterr()
    changed = json.loads(out.out)["strata_changed"]
    assert changed["release"] == "r1"
    assert "strata added: brand_new" in changed["changes"]
    assert changed["note"].startswith("the strata changed after release 'r1' was recorded")
    assert changed["note"] in out.err  # and still on stderr, once
    assert out.err.count("strata changed") == 1
    assert json.loads((out_dir / "report.json").read_text())["strata_changed"] == changed
    header = (out_dir / "report.md").read_text().split("## By stratum")[0]
    assert "**Strata changed:** the strata changed after release 'r1' was recorded" in header


def _json(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_the_reports_decision_options_give_routes_block(capsys, tmp_path: Path) -> None:
    now = tmp_path / "now.csv"
    now.write_text(
        "stratum,share\nparaphrase,45%\nexact_identifier,5%\nmisspelled,10%\n"
        "negation,10%\nshort_keyword,20%\nmulti_entity,10%\n"
    )
    asked = [
        "--route", "exact_identifier=bm25", "--default", "minilm",
        "--precision", "exact_identifier=0.97", "--precision", "paraphrase=90%",
        "--traffic-now", str(now), "--baseline", "minilm", "--per", "100",
    ]  # fmt: skip
    common = [*INPUTS, *TRAFFIC, *asked, "--format", "json"]
    routed = _json(capsys, ["route", *common])
    report = _json(capsys, ["report", *common])
    assert report["decisions"] == routed
    # Not the default block: the precisions, routes, baseline and other log are all in it.
    assert [p["precision"] for p in routed["precision"] if p["source"] == "--precision"] == [
        0.97,
        0.9,
    ]
    assert routed["routing"]["routes"]["paraphrase"] == "minilm"
    assert routed["baseline"] == "minilm" and routed["per"] == 100
    assert routed["traffic_now"] is not None
    default = _json(capsys, ["report", *INPUTS, *TRAFFIC, "--format", "json"])["decisions"]
    assert default != routed and default["traffic_now"] is None
    # --precision alone: every stratum to its best run, as route's --best-per-stratum.
    alone = ["--precision", "exact_identifier=0.97"]
    best = _json(
        capsys, ["route", *INPUTS, *TRAFFIC, *alone, "--best-per-stratum", "--format", "json"]
    )
    assert (
        _json(capsys, ["report", *INPUTS, *TRAFFIC, *alone, "--format", "json"])["decisions"]
        == best
    )
    # The Markdown's section is that block: its routed-with-errors overall is route's.
    assert main(["report", *INPUTS, *TRAFFIC, *asked]) == 0
    part = section(capsys.readouterr().out, "## Decisions")
    (row,) = [r for r in table_rows(part, "routed_with_errors") if len(r) > 7]
    overall = routed["options"][4]["overall"]["weighted_mean"]
    assert float(row[-5]) == pytest.approx(overall, abs=5e-4)
    assert (
        "- router precision for exact_identifier: 0.970 (from --precision; the intervals take it as known)"
        in part
    )


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--precision", "exact_identifier=0.97"], "need --traffic"),
        ([*TRAFFIC, "--precision", "exact_identifier=1.5"], "a precision lies in (0, 1]"),
        ([*TRAFFIC, "--route", "nowhere=bm25"], "nowhere"),
    ],
)
def test_the_reports_decision_options_refuse_bad_input(capsys, extra, said) -> None:
    assert main(["report", *INPUTS, *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("routes", "said"),
    [
        ([], "each stratum is routed to the system that scored best on it"),
        (
            ["--route", "exact_identifier=bm25", "--route", "paraphrase=minilm"],
            "the strata no --route names (misspelled, negation, short_keyword, multi_entity) "
            "are each routed to the system that scored best on it",
        ),
        (["--route", "exact_identifier=bm25", "--default", "minilm"], None),
    ],
)
def test_the_best_run_note_names_only_the_strata_that_fell_back_to_it(
    capsys, tmp_path: Path, routes: list[str], said: str | None
) -> None:
    """--route without --default sends only the strata it does not name to their best run: the
    note says which, not that every stratum was chosen by the table."""
    argv = ["report", *INPUTS, *TRAFFIC, "-m", "nDCG@10", *routes, "-o", str(tmp_path)]
    assert main(argv) == 0
    capsys.readouterr()
    block = json.loads((tmp_path / "report.json").read_text())["decisions"]
    notes = [n for n in block["notes"] if "scored best on it" in n]
    if said is None:
        assert notes == []
    else:
        (note,) = notes
        assert note.startswith(said), note
