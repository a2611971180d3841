"""The lean reading of a run for evaluation (io/run_lean.py: judged rows ranked in the whole run,
documents retrieved per query) against the whole run read by read_run: the same rows, ranks and
counts, and every measure the same under trec_eval's -M and -J, on every peer pair of qrels and
run and on generated runs full of score ties."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_small_path import CUTS, MEASURES_, PAIRS

from goldset_tui.cli import main
from goldset_tui.eval import small
from goldset_tui.eval.metrics import evaluate
from goldset_tui.eval.querysets import cut_lean, cut_run
from goldset_tui.io.run_lean import Doubt, read_run_lean
from goldset_tui.io.sources import Source, open_source
from goldset_tui.io.trec import read_qrels, read_run

# Runs whose layout only read_run's careful path reads (padded or mixed whitespace): the lean
# reader, which uses its single-separator parser, leaves them to it.
LEFT_TO_READ_RUN = {"ir_measures/compat.run", "ir_measures/cwl.run"}


def _same_reading(qrels: pl.DataFrame, src: Source) -> None:
    full = read_run(src, tag=False)
    lean = read_run_lean(src, qrels)
    pairs = qrels.select("query_id", "doc_id").unique()
    expected = full.join(pairs, on=["query_id", "doc_id"], how="semi")
    columns = ["query_id", "doc_id", "score", "rank"]
    assert (
        lean.judged.select(columns)
        .sort("query_id", "doc_id")
        .equals(expected.select(columns).sort("query_id", "doc_id"))
    )
    counts = full.group_by("query_id").agg(pl.len().cast(pl.Int64).alias("num_ret"))
    assert lean.num_ret.sort("query_id").equals(counts.sort("query_id"))


def _values(frame: pl.DataFrame) -> dict:
    return {(q, m): v for q, m, v in frame.iter_rows()}


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}+{p[1]}".replace("/", "-"))
def test_lean_run_scores_as_the_whole_run_on_peer_data(peers, pair):
    qrels, src = read_qrels(peers / pair[0]), open_source(peers / pair[1])
    if pair[1] in LEFT_TO_READ_RUN:
        with pytest.raises(Doubt):
            read_run_lean(src, qrels)
        return
    _same_reading(qrels, src)
    full, lean = read_run(src, tag=False, order=False), read_run_lean(src, qrels)
    for max_docs, judged_only in CUTS:
        cut = cut_run(full, qrels, max_docs=max_docs, judged_only=judged_only)
        expected = _values(evaluate(qrels, cut, MEASURES_))
        rows, num_ret = cut_lean(
            lean.judged, lean.num_ret, qrels, max_docs=max_docs, judged_only=judged_only
        )
        got = _values(evaluate(qrels, rows, MEASURES_, num_ret=num_ret))
        assert got.keys() == expected.keys()
        wrong = {k: (expected[k], got[k]) for k in expected if abs(expected[k] - got[k]) > 1e-12}
        assert not wrong, list(wrong.items())[:5]


@st.composite
def tied_runs(draw):
    """Runs whose scores tie a lot (a handful of values), lines in any order, and qrels judging
    some of the documents (a negative grade too), some queries in one and not the other."""
    lines, qrels = [], []
    # Six queries: more than the lean reader's batches of queries (io/run_lean.py, _BATCHES), so
    # every batch has some; -0 and 0 are one score to trec_eval.
    for q in ["q1", "q2", "q3", "q4", "q5", "q6"]:
        docs = draw(st.lists(st.sampled_from([f"d{i}" for i in range(15)]), unique=True))
        scores = st.sampled_from(["1", "0.5", "2", "-1", "0", "-0", "0.0"])
        lines += [f"{q} Q0 {d} 0 {draw(scores)} t" for d in docs]
        judged = draw(st.lists(st.sampled_from([f"d{i}" for i in range(15)]), unique=True))
        qrels += [f"{q} 0 {d} {draw(st.integers(-1, 2))}" for d in judged]
    order = draw(st.permutations(range(len(lines))))
    return "\n".join(lines[i] for i in order) + "\n", "\n".join(qrels) + "\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_runs())
def test_lean_ranks_break_ties_as_read_run(data):
    run_text, qrels_text = data
    if not run_text.strip() or not qrels_text.strip():
        return
    _same_reading(read_qrels(Source("q", qrels_text.encode())), Source("r", run_text.encode()))


def test_a_bad_run_is_left_to_read_run(tmp_path):
    qrels = read_qrels(Source("q", b"q1 0 d1 1\n"))
    with pytest.raises(Doubt):
        read_run_lean(Source("r", b"q1 Q0 d1 1 0.5 t\nq1 Q0 d1 2 0.4 t\n"), qrels)


def test_large_path_evaluation_names_a_bad_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(small, "SMALL_INPUT_BYTES", 0)  # as if large: Polars, lean
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "bad.run").write_text("q1 Q0 d1 1 0.5 t\nq1 Q0 d1 2 0.4 t\n")
    code = main(["eval", str(tmp_path / "qrels.txt"), str(tmp_path / "bad.run")])
    err = capsys.readouterr().err
    assert code == 2 and f"{tmp_path / 'bad.run'}:2" in err and "appears twice" in err


@pytest.mark.parametrize("seed", range(3))
def test_shuffled_runs_in_many_slices(seed, monkeypatch):
    # Forty queries (every batch of queries has several), lines shuffled, two-decimal scores
    # (ties everywhere), a third of the queries not judged, read in slices of 2 kB.
    import random

    from goldset_tui.io import run_scan

    monkeypatch.setattr(run_scan, "SLICE_BYTES", 2048)
    rng = random.Random(seed)
    lines, qrels = [], []
    for q in range(40):
        for d in rng.sample(range(300), rng.randint(1, 80)):
            lines.append(f"q{q} Q0 d{d} 0 {round(rng.uniform(0, 1), 2)} t")
            if q % 3 and rng.random() < 0.3:
                qrels.append(f"q{q} 0 d{d} {rng.randint(-1, 3)}")
        if q % 3:
            qrels.append(f"q{q} 0 unretrieved{q} 1")
    rng.shuffle(lines)
    run = Source("r", ("\n".join(lines) + "\n").encode())
    _same_reading(read_qrels(Source("q", ("\n".join(qrels) + "\n").encode())), run)


# Scores that a truncated key cannot tell apart (one ulp apart, or a range so wide that the
# scale is lost), equal ones written differently, and both signs.
_HARD_SCORES = [
    "1",
    "1.0000000000000002",
    "0.9999999999999999",
    "1e300",
    "-1e300",
    "1.7e308",
    "-1.7e308",
    "5e-324",
    "-5e-324",
    "0",
    "-0",
    "0.0",
    "2.5",
    "2.50",
    "-3",
    "1e-300",
]


@st.composite
def hard_runs(draw):
    """Runs whose scores crowd one bucket of the lean reader's sort key, or span every double,
    the same document ids in several queries, and qrels judging some of them."""
    pool = draw(st.lists(st.sampled_from(_HARD_SCORES), min_size=1, max_size=6, unique=True))
    lines, qrels = [], []
    for q in ["q1", "q2", "q3"]:
        docs = draw(st.lists(st.sampled_from([f"d{i}" for i in range(12)]), unique=True))
        lines += [f"{q} Q0 {d} 0 {draw(st.sampled_from(pool))} t" for d in docs]
        judged = draw(st.lists(st.sampled_from([f"d{i}" for i in range(12)]), unique=True))
        qrels += [f"{q} 0 {d} {draw(st.integers(0, 2))}" for d in judged]
    order = draw(st.permutations(range(len(lines))))
    return "\n".join(lines[i] for i in order) + "\n", "\n".join(qrels) + "\n"


@pytest.mark.parametrize("buckets", [2**31, 4, 1])
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=hard_runs())
def test_lean_ranks_with_crowded_keys_as_read_run(buckets, data):
    # The judged rows' ranks come from one sort of a truncated key per row (query code, score
    # bucket); rows sharing a bucket are compared by score. With 4 buckets or 1, most rows share
    # one, so the exact comparison decides nearly every rank.
    from goldset_tui.io import run_lean

    run_text, qrels_text = data
    if not run_text.strip() or not qrels_text.strip():
        return
    old = run_lean._BUCKETS
    run_lean._BUCKETS = buckets
    try:
        _same_reading(read_qrels(Source("q", qrels_text.encode())), Source("r", run_text.encode()))
    finally:
        run_lean._BUCKETS = old


@pytest.mark.parametrize("seed", range(2))
def test_every_row_a_judged_candidate_reads_the_same(seed, monkeypatch):
    # The bitmap of the qrels' pair hashes lets through some rows that are not judged; the exact
    # check at the end must drop them. Here it lets every row through.
    import random

    from goldset_tui.io import run_lean

    monkeypatch.setattr(run_lean._JudgedHashes, "__call__", lambda self, pair: pair == pair)
    rng = random.Random(seed)
    lines, grades = [], {}
    for q in range(8):
        for d in rng.sample(range(50), rng.randint(1, 30)):
            lines.append(f"q{q} Q0 d{d} 0 {round(rng.uniform(0, 1), 1)} t")
            if q % 4 and rng.random() < 0.3:
                grades[f"q{q}", f"d{d}"] = rng.randint(0, 2)
        grades.setdefault((f"q{q + 1}", f"d{q}"), 1)  # a document id judged for another query
    qrels = [f"{q} 0 {d} {g}" for (q, d), g in grades.items()]
    rng.shuffle(lines)
    run = Source("r", ("\n".join(lines) + "\n").encode())
    _same_reading(read_qrels(Source("q", ("\n".join(qrels) + "\n").encode())), run)


def test_lean_grades_are_used_only_with_the_qrels_read_with():
    # The lean rows carry their grade in the qrels they were read against, so the measures need
    # not join the qrels again; scored with other qrels (other grades), they must join those.
    run = Source("r", b"q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 c 3 1 t\nq2 Q0 a 1 1 t\n")
    first = read_qrels(Source("q", b"q1 0 a 0\nq1 0 b 1\nq1 0 c 2\nq2 0 a 1\n"))
    other = read_qrels(Source("q", b"q1 0 a 2\nq1 0 b 0\nq1 0 c 0\nq2 0 a 0\n"))
    lean = read_run_lean(run, first)
    assert "_grade" in lean.judged_for(first).columns
    assert "_grade" not in lean.judged_for(other).columns
    full = read_run(run, tag=False, order=False)
    for qrels in (first, other):
        expected = _values(evaluate(qrels, full, MEASURES_))
        got = _values(evaluate(qrels, lean.judged_for(qrels), MEASURES_, num_ret=lean.num_ret))
        assert got == expected
    stale = _values(evaluate(other, lean.judged, MEASURES_, num_ret=lean.num_ret))
    assert stale != _values(evaluate(other, full, MEASURES_))  # why judged_for exists
