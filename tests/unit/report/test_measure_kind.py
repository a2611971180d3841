"""Whether a measure is binary comes from its definition and the qrels, never from its values.

The old code called a measure binary when every per-query value happened to be 0 or 1: nDCG@10 at
1.0 on every query of a seven-query release was "7/7 hits" with a Wilson interval, and the same
system's releases switched interval method as their values moved. Each test here fails on it.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

from goldset_tui.eval.intervals import score_interval, wilson_cc
from goldset_tui.eval.measure_kind import binary_by_name, is_binary_measure, is_bounded_measure
from goldset_tui.history.records import make_record
from goldset_tui.history.timeline import build_history
from goldset_tui.report.compute import compute_report
from goldset_tui.report.pipeline import to_csv, to_dict, to_markdown

QUERIES = [f"q{i}" for i in range(7)]


def _qrels(extra: dict[str, str] | None = None) -> pl.DataFrame:
    """One relevant document per query (grade 2), one judged not relevant; ``extra`` adds a second
    relevant document (grade 1) to the queries named."""
    rows = [(q, f"{q}-rel", 2) for q in QUERIES] + [(q, f"{q}-non", 0) for q in QUERIES]
    rows += [(q, doc, 1) for q, doc in (extra or {}).items()]
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "grade"], orient="row")


def _run(docs: dict[str, list[str]]) -> pl.DataFrame:
    rows = [(q, d, float(10 - r), r) for q, ds in docs.items() for r, d in enumerate(ds, start=1)]
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "score", "rank"], orient="row")


PERFECT = {q: [f"{q}-rel", f"{q}-non"] for q in QUERIES}  # the relevant document first everywhere
STRATA = pl.DataFrame({"query_id": QUERIES, "stratum": ["a"] * 4 + ["b"] * 3})


def test_ndcg_at_one_everywhere_is_not_hits_and_gets_no_wilson_interval() -> None:
    report = compute_report(_qrels(), {"sys": _run(PERFECT)}, STRATA, metric="nDCG@10", fuse=False)
    assert report.scores.get_column("value").to_list() == [1.0] * 7  # all at 1, still graded
    assert report.binary is False and report.method == "score-t"
    d = to_dict(report)
    assert d["ci_method"] == "score-t"
    overall = d["overall"]["sys"]
    assert overall["hits"] is None  # not "7/7"
    lo, hi = overall["ci95"]
    assert (lo, hi) != pytest.approx(wilson_cc(7, 7))
    assert (lo, hi) == pytest.approx(score_interval([1.0] * 7))
    # Seven queries at 1.0 do not show the eighth will be: the interval keeps a width.
    assert hi == 1.0 and lo < 0.6
    assert all(s["systems"]["sys"]["hits"] is None for s in d["strata"])
    md = to_markdown(report)
    assert "7/7" not in md and "4/4" not in md and "Wilson score interval" not in md
    assert "wilson" not in to_csv(report)


def test_the_same_data_with_recall_and_one_relevant_document_is_binary() -> None:
    report = compute_report(_qrels(), {"sys": _run(PERFECT)}, STRATA, metric="R@10", fuse=False)
    assert report.binary is True and report.method == "wilson-cc"
    overall = to_dict(report)["overall"]["sys"]
    assert overall["hits"] == 7
    assert overall["ci95"] == pytest.approx(list(wilson_cc(7, 7)))


def test_recall_with_two_relevant_documents_on_one_query_is_graded_even_at_0_or_1() -> None:
    # q0 has a second relevant document, which the run also finds: every value is still 1.0,
    # but 0.5 was possible, so R@10 is not a hit count here.
    qrels = _qrels({"q0": "q0-also"})
    docs = dict(PERFECT, q0=["q0-rel", "q0-also"])
    report = compute_report(qrels, {"sys": _run(docs)}, STRATA, metric="R@10", fuse=False)
    assert report.scores.get_column("value").to_list() == [1.0] * 7
    assert report.binary is False and to_dict(report)["overall"]["sys"]["hits"] is None
    # At relevance level 2 the second document (grade 1) does not count: binary again.
    assert is_binary_measure("R(rel=2)@10", qrels) is True


def test_binary_by_definition() -> None:
    assert binary_by_name("Success@10") is True
    assert binary_by_name("P@1") is True and binary_by_name("RR@1") is True
    for graded in ("nDCG@10", "RR", "AP", "P@10", "P@5", "nDCG@1", "RR@10"):
        assert binary_by_name(graded) is False, graded
    for needs_qrels in ("R@10", "R@100", "SetR", "Rprec"):
        assert binary_by_name(needs_qrels) is None, needs_qrels
        with pytest.raises(ValueError, match="pass the qrels"):
            is_binary_measure(needs_qrels)
    # A repeated qrels line is one document, not two.
    repeated = pl.concat([_qrels(), _qrels()])
    assert is_binary_measure("R@10", repeated) is True
    assert is_bounded_measure("nDCG@10") and not is_bounded_measure("NumRelRet")


def _record(release: str, time: str, values: list[float], **kw: object):  # noqa: ANN202
    scores = pl.DataFrame({"query_id": QUERIES, "value": values})
    return make_record(
        release=release,
        system="sys",
        measure="nDCG@10",
        version={"id": "v1"},
        scores=scores,
        strata=STRATA,
        time=time,
        **kw,  # type: ignore[arg-type]
    )


def test_two_releases_of_one_system_keep_the_same_interval_method() -> None:
    first = _record("r1", "2026-01-01T00:00:00Z", [1.0] * 7)
    second = _record("r2", "2026-02-01T00:00:00Z", [1.0, 0.6, 1.0, 0.8, 1.0, 1.0, 0.5])
    assert first.binary is False  # the old code wrote True: every value was 0 or 1
    # A record written before the definition decided carries the old guess: ignored for nDCG.
    legacy = _record("r0", "2025-12-01T00:00:00Z", [1.0] * 7, binary=True)
    rows = {r["release"]: r for r in build_history([legacy, first, second]).releases}
    for name, values in (("r0", [1.0] * 7), ("r1", [1.0] * 7)):
        assert rows[name]["ci95"] == pytest.approx(list(score_interval(values)))
        assert rows[name]["ci95"] != pytest.approx(list(wilson_cc(7, 7)))
    assert rows["r2"]["ci95"] == pytest.approx(
        list(score_interval([1.0, 0.6, 1.0, 0.8, 1.0, 1.0, 0.5]))
    )
    # Per stratum too: stratum b (three queries at 1.0) keeps a width.
    lo, hi = rows["r1"]["strata"]["b"]["ci95"]
    assert hi == 1.0 and lo < 0.5 and not math.isnan(lo)


def test_recall_record_needs_the_definition() -> None:
    scores = pl.DataFrame({"query_id": QUERIES, "value": [1.0] * 7})
    with pytest.raises(ValueError, match="one relevant document"):
        make_record(release="r", system="s", measure="R@10", version={"id": "v"}, scores=scores)


# --- the definition against the engine --------------------------------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from goldset_tui.eval.metrics import evaluate, relevant_queries  # noqa: E402

ALWAYS = ["Success@1", "Success@5", "P@1", "RR@1", "Judged@1", "P(rel=2)@1", "Success(rel=2)@3"]
WITH_ONE_RELEVANT = ["R@5", "R@1", "SetR", "Rprec", "R(rel=2)@5", "Rprec(rel=2)"]
DOCS = [f"d{i}" for i in range(6)]


@st.composite
def qrels_and_run(draw):  # noqa: ANN001, ANN201
    rows, ranked = [], []
    for q in ("q1", "q2", "q3"):
        grades = draw(st.lists(st.integers(-1, 3), min_size=6, max_size=6))
        rows += [(q, d, g) for d, g in zip(DOCS, grades, strict=True) if draw(st.booleans())]
        docs = draw(st.permutations(DOCS))[: draw(st.integers(0, 6))]
        ranked += [(q, d, float(10 - r), r) for r, d in enumerate(docs, start=1)]
    qrels = pl.DataFrame(
        rows, schema={"query_id": pl.Utf8, "doc_id": pl.Utf8, "grade": pl.Int64}, orient="row"
    )
    run = pl.DataFrame(
        ranked,
        schema={"query_id": pl.Utf8, "doc_id": pl.Utf8, "score": pl.Float64, "rank": pl.Int64},
        orient="row",
    )
    return qrels, run


@settings(max_examples=60, deadline=None)
@given(qrels_and_run())
def test_a_measure_called_binary_scores_only_0_or_1(data) -> None:  # noqa: ANN001
    # Whatever the engine computes for a measure the definition calls binary is 0 or 1 on every
    # evaluated query: the claim "binary" is never made for a measure that can score 0.5.
    qrels, run = data
    queries = relevant_queries(qrels)
    if queries.len() == 0 or run.height == 0:
        return
    names = ALWAYS + [m for m in WITH_ONE_RELEVANT if is_binary_measure(m, qrels, queries)]
    values = evaluate(qrels, run, names).filter(pl.col("query_id").is_in(queries.implode()))
    assert values.get_column("value").is_in([0.0, 1.0]).all(), values
