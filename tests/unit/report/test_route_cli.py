"""`goldset route` end to end on the sample data: JSON and text on stdout, the decision block's
figures equal to the report's where they are the same number, and bad input on one line with
exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goldset_tui.cli import main

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "sample_data"
BASE = [
    "route",
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


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main([*BASE, *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_route_prints_the_block_as_json_and_as_text(capsys, tmp_path: Path) -> None:
    now = tmp_path / "now.csv"
    now.write_text(
        "stratum,share\nparaphrase,45%\nexact_identifier,5%\nmisspelled,10%\n"
        "negation,10%\nshort_keyword,20%\nmulti_entity,10%\n"
    )
    code, out, _ = run(
        capsys,
        *TRAFFIC,
        "--route",
        "exact_identifier=bm25",
        "--default",
        "minilm",
        "--precision",
        "exact_identifier=0.97",
        "--traffic-now",
        str(now),
        "--format",
        "json",
    )
    assert code == 0
    block = json.loads(out)
    assert block["routing"]["routes"]["exact_identifier"] == "bm25"
    assert block["routing"]["routes"]["paraphrase"] == "minilm"
    names = [o["name"] for o in block["options"]]
    assert names == ["bm25", "minilm", "rrf", "routed", "routed_with_errors", "oracle"]
    pair = block["traffic_now"]["pairs"][0]
    # minilm loses 3 of 7 paraphrase queries and ties elsewhere: the gap is 3/7 x the share.
    assert pair["gap"] == pytest.approx(3 / 7 * 0.16)
    assert pair["gap_now"] == pytest.approx(3 / 7 * 0.45)
    code, text, _ = run(capsys, *TRAFFIC, "--best-per-stratum")
    assert code == 0 and text.startswith("Decisions · Success@10")
    assert "routed_with_errors" in text and "Traffic that moves" in text


def test_the_reports_json_carries_the_same_default_block(capsys) -> None:
    code, out, _ = run(capsys, *TRAFFIC, "--best-per-stratum", "--format", "json")
    assert code == 0
    routed = json.loads(out)
    argv = ["report", *BASE[1:], *TRAFFIC, "--format", "json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["decisions"] == routed
    assert report["decisions"]["options"][0]["overall"]["weighted_mean"] == pytest.approx(
        report["overall"]["bm25"]["weighted_mean"]
    )


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--best-per-stratum"], "needs --traffic"),
        ([*TRAFFIC], "say how to route"),
        ([*TRAFFIC, "--route", "nope=bm25", "--default", "minilm"], "no stratum 'nope'"),
        ([*TRAFFIC, "--route", "paraphrase=bm9", "--default", "minilm"], "no run named 'bm9'"),
        ([*TRAFFIC, "--best-per-stratum", "--precision", "paraphrase=1.5"], "lies in (0, 1]"),
        ([*TRAFFIC, "--best-per-stratum", "--spotcheck", "/nonexistent.json"], "nonexistent"),
        ([*TRAFFIC, "--best-per-stratum", "--baseline", "bm9"], "--baseline bm9"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, argv: list[str], said: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and said in err, err
