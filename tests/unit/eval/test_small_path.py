"""The plain-Python path of `goldset eval` (small inputs, no Polars) against the Polars path,
measure by measure: the guard that keeps eval/kernels.py and io/small_trec.py from drifting away
from eval/metrics.py and io/trec.py.

- Readers: on every peer file, the small reader accepts it and holds exactly what read_run /
  read_qrels hold; on generated text (layouts, odd numbers, duplicates, comments), whatever the
  small reader accepts, Polars accepts with the same content, and what Polars refuses the small
  reader never accepts.
- Measures: every measure with a kernel, on every peer pair of qrels and run and under
  trec_eval's -M and -J, and on generated rankings (ties, negative grades, missing queries),
  gives the Polars value to 1e-9.
- The command: a small evaluation does not import Polars, not even to print the unjudged
  advice, and prints what the Polars path prints (text and JSON, the advice on stderr) under
  goldset's, trec_eval's and -c averaging.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goldset_tui.cli import main
from goldset_tui.errors import InputError
from goldset_tui.eval import small
from goldset_tui.eval.kernels import KERNELS
from goldset_tui.eval.measures import MEASURES, parse_measures
from goldset_tui.eval.metrics import evaluate
from goldset_tui.eval.querysets import cut_run
from goldset_tui.io.small_trec import (
    Doubt,
    Qrels,
    Run,
    ranking,
    read_qrels_small,
    read_run_small,
)
from goldset_tui.io.sources import Source, open_source
from goldset_tui.io.trec import read_qrels, read_run

# Measures that need whole frames (and so send an evaluation to Polars).
NO_KERNEL = {"Compat", "alpha_nDCG"}
MEASURE_NAMES = [
    *["P@1", "P@5", "P@10", "P@1000", "P(rel=2)@10", "R@10", "R@100", "R(rel=2)@1000"],
    *["Success@1", "Success@10", "RR", "RR@10", "RR(rel=2)", "AP", "AP@100", "AP(rel=2)"],
    *["GMAP", "nDCG", "nDCG@3", "nDCG@10", "nDCG@1000", "nDCG(dcg='exp-log2')@10"],
    *["Rprec", "Rprec(rel=2)", "Bpref", "Bpref(rel=2)", "infAP", "infAP(rel=2)"],
    *["Judged@10", "Judged@100", "NumRet", "NumRel", "NumRel(rel=2)", "NumRelRet"],
    *["NumRelRet(rel=2)", "NumQ", "IPrec@0", "IPrec@0.1", "IPrec@0.5", "IPrec@1", "IPrecAvg"],
    *["SetP", "SetR", "SetF", "SetF(beta=0.5)", "SetP(rel=2)", "ERR@10", "ERR@20"],
    *["RBP", "RBP(p=0.5)", "RBP(rel=2)", "RBPResid", "RBPResid(p=0.9)"],
]
MEASURES_ = parse_measures(MEASURE_NAMES)
CUTS = [(None, False), (3, False), (None, True), (100, True)]  # trec_eval's -M N and -J

# (qrels, run) pairs from the reference tools' test folders (tests/data/peers).
PAIRS = [
    ("trec_eval/qrels.test", "trec_eval/results.test"),
    ("trec_eval/qrels.rel_level", "trec_eval/results.test"),
    ("trec_eval/qrels-302.test", "trec_eval/results-302.test"),
    ("trec_eval/qrels.comment.test", "trec_eval/results.comment.test"),
    ("trec_eval/generated/ties.qrels", "trec_eval/generated/ties.run"),
    ("trectools/qrel1.txt", "trectools/r1.run"),
    ("trectools/qrel1.txt", "trectools/r2.run"),
    ("trectools/qrel1.txt", "trectools/r3.run"),
    ("trectools/qrel1.txt", "trectools/r4.run"),
    ("trectools/robust03_cs_qrels.txt.gz", "trectools/input.uic0301.gz"),
    ("trectools/robust03_cs_qrels.txt.gz", "trectools/input.uic0301_top30"),
    ("ir_measures/compat.qrels", "ir_measures/compat.run"),
    ("ir_measures/cwl.qrels", "ir_measures/cwl.run"),
]


def test_every_measure_has_a_kernel_or_is_known_to_need_polars():
    assert set(MEASURES) == set(KERNELS) | NO_KERNEL
    assert not small.fits(1, parse_measures(["Compat"]))
    assert {m.name for m in MEASURES_} == set(KERNELS)  # the lists below cover every kernel


def _run_set(frame: pl.DataFrame) -> set[tuple[str, str, float]]:
    return set(frame.select("query_id", "doc_id", "score").iter_rows())


def _small_run_set(run: Run) -> set[tuple[str, str, float]]:
    return {(q, d, s) for q, ranking in run.items() for s, d in ranking}


def _small_qrels_set(qrels: Qrels) -> set[tuple[str, str, int]]:
    return {(q, d.decode(), g) for q, grades in qrels.items() for d, g in grades.items()}


@pytest.mark.parametrize(
    "name", sorted({p for pair in PAIRS for p in pair}), ids=lambda n: n.replace("/", "-")
)
def test_small_reader_reads_every_peer_file_as_polars_does(peers, name):
    src = open_source(peers / name)
    if "qrels" in name or name.endswith("qrel1.txt"):
        frame = read_qrels(src)
        assert _small_qrels_set(read_qrels_small(src)) == set(frame.iter_rows())
    else:
        assert _small_run_set(read_run_small(src)) == _run_set(read_run(src, tag=False))


def test_peer_files_the_small_reader_leaves_to_polars(peers):
    # qrels.123 grades some documents twice, differently (three assessors): an error to name.
    src = open_source(peers / "trec_eval/qrels.123")
    with pytest.raises(InputError):
        read_qrels(src)
    with pytest.raises(Doubt):
        read_qrels_small(src)
    # results.trunc has tab-separated lines whose tag holds spaces ("STANDARD more junk at"):
    # Polars reads the tab layout; split on any whitespace the line has too many fields.
    src = open_source(peers / "trec_eval/results.trunc")
    assert read_run(src, tag=False).height > 0
    with pytest.raises(Doubt):
        read_run_small(src)


def _polars_rows(qrels, run, measures, max_docs, judged_only):
    cut = cut_run(run, qrels, max_docs=max_docs, judged_only=judged_only)
    return {(q, m): v for q, m, v in evaluate(qrels, cut, measures).iter_rows()}


def _small_rows(qrels, run, measures, max_docs, judged_only):
    rows = small.evaluate_small(
        qrels, run, measures, set(qrels), max_docs=max_docs, judged_only=judged_only
    )
    return {(q, m): v for q, m, v in rows}


def _assert_same(expected: dict, got: dict) -> None:
    assert got.keys() == expected.keys()
    wrong = {k: (expected[k], got[k]) for k in expected if abs(expected[k] - got[k]) > 1e-9}
    assert not wrong, f"{len(wrong)} values differ, e.g. {list(wrong.items())[:5]}"


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}+{p[1]}".replace("/", "-"))
def test_every_kernel_equals_polars_on_peer_data(peers, pair):
    qrels_src, run_src = open_source(peers / pair[0]), open_source(peers / pair[1])
    qrels, run = read_qrels(qrels_src), read_run(run_src, tag=False, order=False)
    plain_qrels, plain_run = read_qrels_small(qrels_src), read_run_small(run_src)
    for max_docs, judged_only in CUTS:
        _assert_same(
            _polars_rows(qrels, run, MEASURES_, max_docs, judged_only),
            _small_rows(plain_qrels, plain_run, MEASURES_, max_docs, judged_only),
        )


# Generated text: fields, separators and numbers in the forms users write, good and bad.
IDS = st.sampled_from(["q1", "q2", "10", "d1", "d2", "D3", "x#y", "é", "a\u00a0b"])
SCORES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr),
    st.sampled_from(["1", "0", "-0", "+1", "1.", ".5", "1e2", "1E-2", "nan", "inf", "1_0"]),
    st.sampled_from(["0x1", "1e400", "--1", "1.2.3", "", "١"]),
)
GRADES = st.one_of(
    st.integers(-2, 4).map(str),
    st.sampled_from(["+1", "007", "-0", "1.0", "1_0", "9223372036854775808", "x", ""]),
)
SEPARATORS = st.sampled_from([" ", "\t", " ", "\t", "  ", " \t", "\u00a0", "\r"])


@st.composite
def trec_text(draw, fields: int) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["record"] * 8 + ["blank", "comment", "short", "long"]))
        if kind == "blank":
            lines.append(draw(st.sampled_from(["", " ", "\t"])))
            continue
        if kind == "comment":
            lines.append(draw(st.sampled_from(["# note", " # note", "#"])))
            continue
        count = fields + {"record": 0, "short": -1, "long": 1}[kind]
        values = [draw(IDS), "Q0" if fields == 6 else "0", draw(IDS)]
        values += [draw(st.integers(0, 5).map(str)), draw(SCORES), "tag"] if fields == 6 else []
        values += [draw(GRADES)] if fields == 4 else []
        values = (values + ["extra"] * 2)[:count]
        text = values[0]
        for value in values[1:]:
            text += draw(SEPARATORS) + value
        pad = draw(st.sampled_from(["", "", " ", "\t"]))
        lines.append(pad + text + draw(st.sampled_from(["", "", " "])))
    end = draw(st.sampled_from(["\n", "", "\r\n"]))
    return ("\n".join(lines) + end).encode()


def _read_both(reader, small_reader, data: bytes):
    src = Source("generated", data)
    try:
        expected = reader(src)
    except InputError:
        expected = None
    try:
        got = small_reader(src)
    except Doubt:
        got = None
    return expected, got


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trec_text(6))
def test_small_run_reader_accepts_only_what_polars_reads_alike(data):
    expected, got = _read_both(lambda s: read_run(s, tag=False), read_run_small, data)
    if got is not None:
        assert expected is not None, "the small reader accepted a run Polars refuses"
        assert _small_run_set(got) == _run_set(expected)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trec_text(4))
def test_small_qrels_reader_accepts_only_what_polars_reads_alike(data):
    expected, got = _read_both(read_qrels, read_qrels_small, data)
    if got is not None:
        assert expected is not None, "the small reader accepted qrels Polars refuses"
        assert _small_qrels_set(got) == set(expected.iter_rows())


@pytest.mark.parametrize(
    "text",
    [
        "q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.25 t\n",  # one space
        "q1\tQ0\td1\t1\t0.5\tt\nq1\tQ0\td2\t2\t0.25\tt",  # tabs, no final newline
        "  q1 Q0 d1 1 0.5 t \n\n# a comment\nq1  Q0 d2 2 0.25 t\n",  # padded, comment
        "q1 Q0 d1 1 0.5 t\nq2 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.25 t\n",  # a query in two places
    ],
)
def test_small_reader_takes_the_usual_layouts(text):
    # Not only "if it accepts, it agrees": these plain files are really read without Polars.
    src = Source("run", text.encode())
    assert _small_run_set(read_run_small(src)) == _run_set(read_run(src, tag=False))


@st.composite
def rankings(draw):
    """A run frame and qrels frame over a few queries: score ties, negative grades, queries
    missing from the run or only in it, documents unjudged."""
    docs = [f"d{i}" for i in range(12)]
    run_rows, qrels_rows = [], []
    for q in ["q1", "q2", "q3", "q4"]:
        if draw(st.booleans()):
            for d in draw(st.lists(st.sampled_from(docs), unique=True, max_size=12)):
                run_rows.append((q, d, float(draw(st.integers(-3, 3))) / 2))
        if draw(st.booleans()):
            for d in draw(st.lists(st.sampled_from(docs), unique=True, max_size=8)):
                qrels_rows.append((q, d, draw(st.integers(-1, 3))))
    return run_rows, qrels_rows


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rankings(), st.sampled_from(CUTS))
def test_every_kernel_equals_polars_on_generated_rankings(data, cut):
    run_rows, qrels_rows = data
    if not qrels_rows:
        return
    run = pl.DataFrame(
        run_rows,
        schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64},
        orient="row",
    )
    qrels = pl.DataFrame(
        qrels_rows,
        schema={"query_id": pl.String, "doc_id": pl.String, "grade": pl.Int64},
        orient="row",
    )
    pairs: dict = {}
    for q, d, s in run_rows:
        pairs.setdefault(q, []).append((s, d.encode()))  # ids are bytes on the small path
    plain_run = {q: ranking([s for s, _ in p], [d for _, d in p]) for q, p in pairs.items()}
    plain_qrels: dict = {}
    for q, d, g in qrels_rows:
        plain_qrels.setdefault(q, {})[d.encode()] = g
    _assert_same(
        _polars_rows(qrels, run, MEASURES_, *cut),
        _small_rows(plain_qrels, plain_run, MEASURES_, *cut),
    )


def _goldset(capsys, *argv) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().out


@pytest.mark.parametrize(
    "options",
    [
        [],
        ["-q", "--format", "json"],
        ["--trec-eval-compat", "-q"],
        ["-c", "-q", "-l", "2"],
        ["--trec-eval-compat", "-c", "-J", "-M", "50", "-q"],
    ],
    ids=["default", "json", "compat", "complete_l2", "compat_cJM"],
)
def test_command_prints_the_same_on_both_paths(peers, tmp_path, capsys, monkeypatch, options):
    qrels, run = peers / "trectools/robust03_cs_qrels.txt.gz", peers / "trectools/input.uic0301.gz"
    measures = [a for m in ["nDCG@10", "AP", "RR", "R@100", "P@10", "Bpref"] for a in ("-m", m)]
    argv = ["eval", qrels, run, *measures, *options]
    code, fast = _goldset(capsys, *argv)
    monkeypatch.setattr(small, "SMALL_INPUT_BYTES", 0)  # every input is "large": Polars
    code_polars, slow = _goldset(capsys, *argv)
    assert code == code_polars == 0
    if "json" in options:
        fast_doc, slow_doc = json.loads(fast), json.loads(slow)
        assert fast_doc.keys() == slow_doc.keys()
        for name, entry in fast_doc["runs"].items():
            other = slow_doc["runs"][name]
            assert entry["queries"] == other["queries"]
            for key, value in entry["mean"].items():
                assert value == pytest.approx(other["mean"][key], abs=1e-12)
    else:
        assert fast == slow


ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "sample_data"


@pytest.mark.parametrize(
    ("qrels", "run", "measures", "advice"),
    [
        ("trec_eval/qrels.test", "trec_eval/results.test", ["AP"], False),
        # bm25's top 100 is 68% unjudged in Alice's qrels: the unjudged advice is printed, and
        # printing it needs no store, so no Polars either.
        (
            SAMPLE / "judgments/alice.qrels",
            SAMPLE / "runs/bm25.run",
            ["nDCG@10", "R@100"],
            True,
        ),
    ],
    ids=["quiet", "advice"],
)
def test_small_evaluation_does_not_import_polars(peers, qrels, run, measures, advice):
    argv = ["eval", str(peers / qrels), str(peers / run), "-q"]
    argv += [a for m in measures for a in ("-m", m)]
    code = (
        "import sys\nfrom goldset_tui.cli import main\n"
        f"status = main({argv!r})\n"
        "assert status == 0\nprint('polars' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert ("is unjudged (above 20%)" in done.stderr) is advice, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"


# (qrels, run, options, whether the advice fires): the sample data, whose bm25 run fires it at
# 100, and peer pairs at other depths (a cutoff, -M), averagings (-c), cuts (-J), run names
# (from the file name, from the tag) and a warning printed beside it.
ADVICE_CASES = [
    (SAMPLE / "judgments/alice.qrels", SAMPLE / "runs/bm25.run", "-m nDCG@10 -m R@100", True),
    (SAMPLE / "judgments/bob.qrels", SAMPLE / "runs/minilm.run", "-m P@5 -M 30", True),
    ("trectools/robust03_cs_qrels.txt.gz", "trectools/input.uic0301.gz", "-m R@1000", True),
    ("trectools/robust03_cs_qrels.txt.gz", "trectools/input.uic0301.gz", "-M 500 -c", True),
    ("trectools/robust03_cs_qrels.txt.gz", "trectools/input.uic0301_top30", "-m P@10", False),
    ("trec_eval/qrels.test", "trec_eval/results.test", "-m R@1000 -q", True),
    ("trec_eval/qrels.test", "trec_eval/results.test", "-m AP -J", False),
    ("trectools/qrel1.txt", "trectools/r1.run", "-m nDCG@10", False),
    ("ir_measures/cwl.qrels", "ir_measures/cwl.run", "-m RR@5", True),
]


@pytest.mark.parametrize(
    ("qrels", "run", "options", "fires"),
    ADVICE_CASES,
    ids=[f"{Path(q).name}+{Path(r).name}{o.replace(' ', '')}" for q, r, o, _ in ADVICE_CASES],
)
def test_the_advice_is_the_same_on_both_paths(
    peers, capsys, monkeypatch, qrels, run, options, fires
):
    # The plain path counts the unjudged share over dicts, the Polars path over frames or lean
    # runs: what is printed (the advice's share, depth and command) must be the same, byte for
    # byte.
    argv = ["eval", str(peers / qrels), str(peers / run), *options.split()]
    code = main(argv)
    fast = capsys.readouterr()
    monkeypatch.setattr(small, "SMALL_INPUT_BYTES", 0)  # every input is "large": Polars
    code_polars = main(argv)
    slow = capsys.readouterr()
    assert code == code_polars == 0
    assert (fast.out, fast.err) == (slow.out, slow.err)
    assert ("is unjudged (above 20%)" in fast.err) is fires, fast.err


def test_a_bad_line_in_a_small_file_is_named_as_before(tmp_path, capsys):
    # The small reader only doubts; the message comes from read_run, with its line number.
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "bad.run").write_text("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 high t\n")
    code = main(["eval", str(tmp_path / "qrels.txt"), str(tmp_path / "bad.run")])
    err = capsys.readouterr().err
    assert code == 2 and f"{tmp_path / 'bad.run'}:2" in err and "'high'" in err


def _size(path: Path) -> int:
    return path.stat().st_size


def test_a_shuffled_run_is_grouped_or_left_to_polars(monkeypatch):
    lines = [f"q{i % 3} Q0 d{i} {i} {i / 7:.3f} t" for i in range(30)]  # queries interleaved
    src = Source("run", "\n".join(lines).encode())
    assert _small_run_set(read_run_small(src)) == _run_set(read_run(src, tag=False))
    from goldset_tui.io import small_trec

    monkeypatch.setattr(small_trec, "SHUFFLED_BYTES", 10)  # as if it were large
    with pytest.raises(Doubt):
        read_run_small(src)


# The fast paths of io/small_trec.py, each against the slow way it replaces.
PAIRS_WITH_TIES = st.lists(
    st.tuples(
        st.sampled_from([-1.0, -0.0, 0.0, 0.5, 1.0, 2.0]),
        st.sampled_from([b"d0", b"d1", b"d2", b"D3", b"d10", b"x", b"a#b"]),
    ),
    unique_by=lambda pair: pair[1],  # a document once per query, as the reader checks
    max_size=7,
)


@settings(max_examples=300, deadline=None)
@given(PAIRS_WITH_TIES, st.sampled_from(["shuffled", "ranked", "reversed"]))
def test_ranking_keeps_a_ranked_block_and_sorts_any_other(pairs, order):
    # trec_eval's order is a sort of (score, doc) pairs, descending: the check that keeps a
    # block as it is (score ties, -0.0 against 0.0 included) must agree with that sort.
    expected = sorted(pairs, reverse=True)
    given_pairs = {
        "shuffled": pairs,
        "ranked": expected,
        "reversed": expected[::-1],
    }[order]
    docs = [d for _, d in given_pairs]
    got = ranking([s for s, _ in given_pairs], docs)
    assert list(zip(got.scores, got.docs, strict=True)) == expected
    if order == "ranked":
        assert got.docs is docs  # recognised as ranked: kept, not sorted again


def test_ranking_in_file_order_and_in_trec_eval_order_score_alike(peers):
    # uic0301 is written in trec_eval's order (the reader keeps its blocks); the same lines
    # reversed must be sorted back, to the same values under every cut.
    src = open_source(peers / "trectools/input.uic0301_top30")
    qrels = read_qrels_small(open_source(peers / "trectools/robust03_cs_qrels.txt.gz"))
    lines = src.read_bytes().decode().splitlines()
    reverse = Source("reversed", "\n".join(reversed(lines)).encode())
    kept, rebuilt = read_run_small(src), read_run_small(reverse)
    assert all(kept[q].docs == rebuilt[q].docs for q in kept)
    for max_docs, judged_only in CUTS:
        assert _small_rows(qrels, kept, MEASURES_, max_docs, judged_only) == _small_rows(
            qrels, rebuilt, MEASURES_, max_docs, judged_only
        )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(trec_text(6), trec_text(4)), st.sampled_from([6, 4]))
def test_whole_text_split_equals_the_line_by_line_reading(data, fields):
    # _columns takes the whole-text split when the markers prove the layout; the line loop is
    # the definition. Whenever both give an answer they give the same tokens.
    from goldset_tui.io import small_trec

    try:
        careful = list(small_trec._careful(data, fields))
    except Doubt:
        return
    step = fields + 1
    got = small_trec._columns(data, fields)
    records = len(careful) // step
    assert [got[i * step : i * step + fields] for i in range(records)] == [
        careful[i * step : i * step + fields] for i in range(records)
    ]
    assert len(got) in (len(careful), len(careful) - 1)  # the last marker may be missing


@pytest.mark.parametrize(
    "score", ["nan", "inf", "-inf", "1e999", "1_0", "NaN", "infinity", "0x1", "1.5f"]
)
@pytest.mark.parametrize("doc", ["d2", "d_2"])  # an underscore elsewhere in the file, or not
def test_scores_float_reads_and_polars_does_not_are_doubted(score, doc):
    src = Source("run", f"q1 Q0 d1 1 0.5 t\nq1 Q0 {doc} 2 {score} t\n".encode())
    with pytest.raises(Doubt):
        read_run_small(src)
    with pytest.raises(InputError):
        read_run(src, tag=False)


@pytest.mark.parametrize(
    "text",
    [
        "q1  Q0 d1 1 0.5 t\n  q1 Q0 d2 2 0.25 t  \n",  # runs of spaces, padded lines
        "q1\t\tQ0\td1\t1\t0.5\tt\n\tq1\tQ0\td2\t2\t0.25\tt\n",  # runs of tabs, padded
        "q1 Q0 d1 1 0.5 t\n  # a comment\nq1 Q0 d2 2 0.25 t\n",  # an indented comment
        "q1 Q0 d1 1 0.5 t\n#q1 Q0 d2 2 0.25 t\n",  # a comment shaped like a record
        "q1 Q0 d#1 1 0.5 t\nq1 Q0 d2 2 0.25 t\n",  # '#' inside an id: not a comment
        "q1 Q0 d1 1 0.5 t\n\n\nq1 Q0 d2 2 0.25 t\n\n",  # blank lines
        "q1 Q0 d\x001 1 0.5 t\nq1 Q0 d2 2 0.25 t\n",  # a NUL byte (the marker's value)
        "q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.25\n",  # a short line
        "q1 Q0 d1 1 0.5 t x\nq1 Q0 d2 2 0.25\n",  # a long line, then a short one: as many fields
    ],
)
def test_layouts_read_as_polars_reads_them(text):
    src = Source("run", text.encode())
    try:
        expected = _run_set(read_run(src, tag=False))
    except InputError:
        with pytest.raises(Doubt):
            read_run_small(src)
        return
    assert _small_run_set(read_run_small(src)) == expected


@pytest.mark.parametrize("sep", [" ", "\t", "  ", "\t\t"])
def test_plain_layouts_take_the_whole_text_split(monkeypatch, sep):
    from goldset_tui.io import small_trec

    def no_loop(text, fields):
        raise AssertionError("read line by line")

    monkeypatch.setattr(small_trec, "_careful", no_loop)
    lines = [sep.join(["q1", "Q0", f"d{i}", str(i), str(1 / (i + 1)), "t"]) for i in range(5)]
    for text in ("\n".join(lines), "\n".join(lines) + "\n", " " * (sep == " ") + lines[0]):
        run = read_run_small(Source("run", text.encode()))
        assert run["q1"].docs[0] == b"d0"
