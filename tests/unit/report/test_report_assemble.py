"""The assembled report and its three formats, on the 300-query worked example's synthetic data."""

from __future__ import annotations

import csv
import io
import json
import re

import polars as pl
import pytest

from goldset_tui.report.pipeline import (
    assemble_report,
    cutoff,
    judged_fraction,
    to_csv,
    to_dict,
    to_json,
    to_markdown,
)

from .worked_examples import two_retrievers_frames

PAIR_KEYS = {"a", "b", "mean_diff", "ci95", "ci_method", "p_value", "wins", "losses", "ties"}
PAIR_KEYS |= {"p_adjusted", "weighted_mean_diff", "weighted_ci95"}


def _with_fused() -> tuple[pl.DataFrame, pl.DataFrame]:
    """The 300 queries plus a fused system at 0.86 overall: 258 of 300, all inside the oracle."""
    scores, strata = two_retrievers_frames()
    wide = scores.pivot(on="system", index="query_id", values="value")
    # Fusion can only rescue queries one system found: hit the first 258 of the 269 the oracle has.
    oracle_hits = (
        wide.filter(pl.max_horizontal("bm25", "dense") == 1).get_column("query_id").to_list()
    )
    assert len(oracle_hits) == 269  # 300 - 31
    chosen = set(oracle_hits[:258])
    fused = pl.DataFrame(
        {
            "system": "rrf",
            "query_id": wide.get_column("query_id"),
            "value": [1.0 if q in chosen else 0.0 for q in wide.get_column("query_id")],
        }
    )
    return pl.concat([scores, fused]), strata


def test_report_reproduces_the_two_retrievers_example() -> None:
    scores, strata = _with_fused()
    paired = [
        {
            "a": "bm25",
            "b": "dense",
            "mean_diff": 0.0,
            "ci95": [-0.05, 0.05],
            "ci_method": "difference-score-t",
            "p_value": 1.0,
            "wins": 47,
            "losses": 47,
            "ties": 206,
        }
    ]
    report = assemble_report(
        scores,
        strata,
        metric="Success@10",
        fused="rrf",
        judged={"bm25": 0.9, "dense": 0.75, "rrf": 0.85},
        paired=paired,
        samples=50,
    )
    d = to_dict(report)
    assert set(d) == {
        "metric",
        "k",
        "n",
        "ci_method",
        "strata",
        "overall",
        "headlines",
        "closure",
        "overlap",
        "fusion",
        "judged",
        "paired",
        "paired_by_stratum",
        "paired_note",
        "unjudged_bounds",
        "missing_from_runs",
        "decisions",
        "warnings",
    }
    assert (d["metric"], d["k"], d["n"]) == ("Success@10", 10, 300)
    assert d["ci_method"] == "wilson-cc"
    assert [s["n"] for s in d["strata"]] == [54, 61, 22, 96, 49, 18]
    assert [s["small"] for s in d["strata"]] == [False, False, True, False, False, True]
    assert set(d["strata"][0]) == {"stratum", "n", "small", "systems"}
    assert set(d["strata"][0]["systems"]["bm25"]) == {"hits", "mean", "ci95"}
    assert [s["systems"]["bm25"]["hits"] for s in d["strata"]] == [51, 53, 9, 65, 36, 8]
    assert d["overall"]["bm25"]["hits"] == d["overall"]["dense"]["hits"] == 222
    assert d["overall"]["bm25"]["mean"] == pytest.approx(0.74)
    assert set(d["overall"]["bm25"]) == {
        "hits",
        "mean",
        "ci95",
        "weighted_mean",
        "weighted_ci95",
        "design_weighted_mean",
        "design_weighted_ci95",
        "design_weighted_se",
    }
    assert d["overall"]["bm25"]["weighted_ci95"] == [None, None]
    assert d["overall"]["bm25"]["weighted_mean"] is None
    assert d["closure"]["ok"] is True
    assert all(set(c) == {"name", "expected", "actual", "residual"} for c in d["closure"]["checks"])
    bd = next(o for o in d["overlap"] if (o["a"], o["b"]) == ("bm25", "dense"))
    assert (bd["miss_a"], bd["miss_b"], bd["both_miss"], bd["either_miss"]) == (78, 78, 31, 125)
    assert round(bd["oracle"], 3) == 0.897
    assert d["fusion"]["rrf"]["mean"] == pytest.approx(0.86)
    # (0.86 - 0.74) / (0.8967 - 0.74) with the exact oracle 269/300: 0.766, "about three quarters".
    assert d["fusion"]["rrf"]["headroom_collected"] == pytest.approx((258 - 222) / (269 - 222))
    assert round(d["fusion"]["rrf"]["headroom_collected"], 1) == 0.8
    assert d["judged"] == {"bm25": 0.9, "dense": 0.75, "rrf": 0.85}
    assert set(d["paired"][0]) == PAIR_KEYS
    json.loads(to_json(report))  # valid JSON, no NaN
    # dense's top 10 is 25% unjudged: warned; bm25's 10% is not.
    assert any(w.startswith("dense: 25%") for w in report.warnings)
    assert not any(w.startswith("bm25:") for w in report.warnings)


def test_json_and_markdown_with_traffic_and_a_broken_table() -> None:
    scores, strata = two_retrievers_frames()
    strata = strata.filter(pl.col("query_id") != "q001")  # an identifier query loses its stratum
    shares = [0.18, 0.2, 0.1, 0.3, 0.12, 0.1]
    traffic = pl.DataFrame(
        {
            "stratum": [
                "exact_identifier",
                "short_keyword",
                "misspelled",
                "paraphrase",
                "multi_entity",
                "negation",
            ],
            "share": shares,
        }
    )
    report = assemble_report(scores, strata, traffic=traffic, samples=50)
    d = to_dict(report)
    assert d["closure"]["ok"] is False
    checks = {c["name"]: c for c in d["closure"]["checks"]}
    assert checks["n column sums to the query count"]["residual"] == -1
    assert checks["queries without a stratum"]["actual"] == 1
    rates = {s["stratum"]: s["systems"]["bm25"]["mean"] for s in d["strata"]}
    assert d["overall"]["bm25"]["weighted_mean"] == pytest.approx(
        sum(sh * rates[s] for s, sh in zip(traffic["stratum"], shares, strict=True))
    )
    md = to_markdown(report)
    assert "DOES NOT close" in md and "Wilson" in md and "† | 18 |" in md
    assert "| bm25 | 0.740 |" in md  # unweighted headline beside the weighted one


def test_csv_is_the_table_alone() -> None:
    scores, strata = two_retrievers_frames()
    report = assemble_report(scores, strata, samples=50)
    rows = list(csv.DictReader(io.StringIO(to_csv(report))))
    assert list(rows[0]) == [
        "stratum",
        "system",
        "n",
        "hits",
        "mean",
        "ci_lo",
        "ci_hi",
        "method",
        "small",
    ]
    assert len(rows) == 6 * 2 + 2
    assert (
        rows[-1]["stratum"] == "ALL"
        and rows[-1]["hits"] == "222"
        and rows[-1]["method"] == "wilson-cc"
    )


def test_markdown_escapes_data() -> None:
    scores = pl.DataFrame({"system": ["a|b"] * 2, "query_id": ["q1", "q2"], "value": [1.0, 0.0]})
    strata = pl.DataFrame({"query_id": ["q1", "q2"], "stratum": ["x|y\nz", "x|y\nz"]})
    md = to_markdown(assemble_report(scores, strata, samples=20))
    # A newline is shown as ␤ (it would break the row), a pipe escaped.
    assert "x\\|y\u2424z" in md and "a\\|b" in md


def test_markdown_shows_terminal_escapes_visibly() -> None:
    # A stratum, system and query id with escape sequences: in Markdown (read in terminals) and in
    # the warnings, every control character becomes a visible placeholder; JSON keeps the data.
    red, title, clear = "\x1b[31mred", "sys\x1b]0;pwned\x07", "\x9b2J"
    scores = pl.DataFrame(
        {"system": [title] * 3, "query_id": ["q1", "q2", clear], "value": [1.0, 0.0, 1.0]}
    )
    strata = pl.DataFrame(
        {"query_id": ["q1", "q2", clear, "ghost"], "stratum": [red, red, red, "\x1b[2Jgone"]}
    )
    report = assemble_report(scores, strata, samples=20)
    assert any("\x1b" in w for w in report.warnings)  # the raw names reach the warning list ...
    md = to_markdown(report)
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", md)  # ... never the Markdown
    # Control characters shown as placeholders; "[" and "]" backslash-escaped (Markdown, not markup).
    assert "\u241b\\[31mred" in md and "sys\u241b\\]0;pwned\u2407" in md
    assert json.loads(to_json(report))["strata"][0]["stratum"] == red


def test_cutoff() -> None:
    assert cutoff("Success@10") == 10 and cutoff("P(rel=2)@5") == 5 and cutoff("AP") == 10


def test_judged_fraction_counts_top_k_slots() -> None:
    run = pl.DataFrame(
        {
            "query_id": ["q1"] * 4 + ["q2"] * 2,
            "doc_id": ["a", "b", "c", "d", "a", "x"],
            "score": [4.0, 3, 2, 1, 2, 1],
            "rank": [1, 2, 3, 4, 1, 2],
        }
    )
    qrels = pl.DataFrame(
        {
            "query_id": ["q1", "q1", "q1", "q2"],
            "doc_id": ["a", "b", "c", "a"],
            "grade": [1, 0, -1, 2],
        }
    )
    # top 3: q1 a(judged) b(judged) c(grade -1: pooled, unjudged); q2 a(judged) x(no) -> 3 of 5.
    assert judged_fraction(qrels, run, 3, pl.Series(["q1", "q2"])) == pytest.approx(3 / 5)
    assert judged_fraction(qrels, run, 3, pl.Series(["q2"])) == pytest.approx(1 / 2)
