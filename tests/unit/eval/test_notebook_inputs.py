"""The notebook API takes qrels and runs in the forms IR researchers hold, with the CLI's numbers.

Five kinds of input (Polars frames, pandas frames, pytrec_eval dicts, ir_measures named tuples,
paths), each built by an independent reader (pandas' read_csv, pytrec_eval's parse_qrel/parse_run,
ir_measures' read_trec_*), must give exactly what `goldset eval --format json` prints for the
same files, in its three averaging modes. Before the input layer only goldset's own Polars frames
worked: the rest failed with AttributeError ('DataFrame' object has no attribute 'group_by',
'dict' object has no attribute 'columns').
"""

from __future__ import annotations

import gzip
import json
import math
import subprocess
import sys
from pathlib import Path

import ir_measures
import pandas as pd
import polars as pl
import pytest
import pytrec_eval

import goldset_tui.eval as eval_api
from goldset_tui.cli import main
from goldset_tui.errors import InputError
from goldset_tui.eval import aggregate, evaluate, evaluate_wide, mean_scores, rrf
from goldset_tui.io.trec import read_qrels, read_run

ROOT = Path(__file__).resolve().parents[3]
PEERS = ROOT / "tests" / "data" / "peers"
MEASURES = ["nDCG@10", "AP", "RR", "R@100", "P@10", "GMAP", "NumRelRet"]
MODES = {"default": [], "complete": ["-c"], "trec_eval_compat": ["--trec-eval-compat"]}
QRELS_NAMES = ["query_id", "iter", "doc_id", "grade"]  # as a notebook names a qrels file
RUN_NAMES = ["query_id", "Q0", "doc_id", "rank", "score", "tag"]  # trec_eval's run fields


def cli_means(capsys: pytest.CaptureFixture[str], qrels: Path, run: Path, mode: str) -> dict:
    argv = ["eval", str(qrels), f"r={run}", "--format", "json", *MODES[mode]]
    for m in MEASURES:
        argv += ["-m", m]
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)["runs"]["r"]["mean"]


def _open(path: Path):
    return gzip.open(path, "rt") if path.suffix == ".gz" else path.open()


def split_lines(path: Path, names: list[str]) -> pl.DataFrame:
    """A Polars frame of a whitespace-separated file, typed as a notebook would (numbers as
    numbers), with the columns named ``names``: trectools' spelling, not goldset's."""
    with _open(path) as f:
        rows = [line.split() for line in f if line.strip()]
    frame = pl.DataFrame(rows, schema=names, orient="row")
    numeric = {"rel": pl.Int64, "rank": pl.Int64, "score": pl.Float64}
    return frame.with_columns([pl.col(c).cast(t) for c, t in numeric.items() if c in names])


def as_pandas(path: Path, names: list[str]) -> pd.DataFrame:
    # pandas reads the numeric query ids of Robust 2003 (303, ...) as integers: left so.
    return pd.read_csv(path, sep=r"\s+", header=None, names=names)


def as_table(frame: pl.DataFrame, path: Path) -> Path:
    frame.write_parquet(path) if path.suffix == ".parquet" else frame.write_csv(path)
    return path


def five_kinds(qrels: Path, run: Path, tmp: Path) -> dict[str, tuple[object, object]]:
    with _open(qrels) as q, _open(run) as r:
        dicts = (pytrec_eval.parse_qrel(q), pytrec_eval.parse_run(r))
    return {
        "polars, trectools' columns": (
            split_lines(qrels, ["query", "q0", "docid", "rel"]),
            split_lines(run, ["query", "q0", "docid", "rank", "score", "system"]),
        ),
        "pandas, trec_eval's columns": (
            as_pandas(qrels, QRELS_NAMES),
            as_pandas(run, RUN_NAMES),
        ),
        "pytrec_eval dicts": dicts,
        "ir_measures tuples": (
            ir_measures.read_trec_qrels(str(qrels)),
            ir_measures.read_trec_run(str(run)),
        ),
        "paths": (str(qrels), run),
        "goldset tables": (
            as_table(read_qrels(qrels), tmp / "qrels.csv"),
            as_table(read_run(run), tmp / "run.parquet"),
        ),
    }


def collections(tmp_path: Path) -> dict[str, tuple[Path, Path]]:
    ties = PEERS / "trec_eval" / "generated"
    # The ties run without q3: a judged query with a relevant document missing from the run.
    lines = (ties / "ties.run").read_text().splitlines(keepends=True)
    (tmp_path / "no_q3.run").write_text("".join(x for x in lines if not x.startswith("q3 ")))
    return {
        # Score ties, a judged query without a relevant document (q2), a -1 grade, a run-only q4.
        "ties": (ties / "ties.qrels", ties / "ties.run"),
        "ties without q3": (ties / "ties.qrels", tmp_path / "no_q3.run"),
        # A real run: TREC Robust 2003, 100 topics x 1,000 documents, tab-separated, ranks from 0.
        "robust03": (
            PEERS / "trectools" / "robust03_cs_qrels.txt.gz",
            PEERS / "trectools" / "input.uic0301.gz",
        ),
        "sample": (ROOT / "sample_data/judgments/alice.qrels", ROOT / "sample_data/runs/bm25.run"),
    }


@pytest.mark.parametrize("collection", ["ties", "ties without q3", "robust03", "sample"])
def test_every_kind_of_input_gives_the_cli_s_numbers(collection, tmp_path, capsys):
    qrels, run = collections(tmp_path)[collection]
    # Robust 2003's 100 topics each have a relevant document and are all in the run: the three
    # modes agree there, so one is enough for the large run (the ties fixtures tell them apart).
    modes = ["default"] if collection == "robust03" else list(MODES)
    expected = {mode: cli_means(capsys, qrels, run, mode) for mode in modes}
    for kind, (q, r) in five_kinds(qrels, run, tmp_path).items():
        if kind == "ir_measures tuples":  # generators: one pass each, so materialise them
            q, r = list(q), list(r)
        for mode, want in expected.items():
            flags = {mode: True} if mode != "default" else {}
            got = mean_scores(q, r, MEASURES, **flags)
            assert got == pytest.approx(want, abs=1e-12), (collection, kind, mode)
            # The obvious idiom: the mean of evaluate's rows is the CLI's `all` line.
            rows = evaluate(q, r, MEASURES, **flags)
            assert aggregate(rows) == pytest.approx(want, abs=1e-12), (collection, kind, mode)


def test_aggregate_of_evaluate_is_the_cli_s_all_line_where_a_judged_query_has_nothing_relevant(
    capsys,
):
    # trec_eval's own comment test: 31 judged queries, one without a relevant document. The mean
    # over the rows evaluate() gave counted that query as a 0 (AP 0.2689) where `goldset eval`
    # and mean_scores leave it out (0.2779).
    qrels, run = (
        PEERS / "trec_eval" / "qrels.comment.test",
        PEERS / "trec_eval" / "results.comment.test",
    )
    want = cli_means(capsys, qrels, run, "default")
    q, r = read_qrels(qrels), read_run(run)  # goldset's own frames: no conversion involved
    got = aggregate(evaluate(q, r, MEASURES))
    assert got == pytest.approx(want, abs=1e-12)
    assert round(got["AP"], 4) == 0.2779
    # -c is the other reading, and evaluate gives it when asked.
    complete = aggregate(evaluate(q, r, MEASURES, complete=True))
    assert complete == pytest.approx(cli_means(capsys, qrels, run, "complete"), abs=1e-12)
    assert round(complete["AP"], 4) == 0.2689


def test_a_pandas_frame_gives_what_ir_measures_gives_for_the_same_frame(tmp_path):
    # ir_measures.calc_aggregate takes this very frame. It averages over every query in the
    # qrels, one missing from the run counting 0: trec_eval -c, goldset's complete=True. The run
    # leaves out q2 (judged, nothing relevant) and q3 (relevant), so the three modes differ.
    ties = PEERS / "trec_eval" / "generated"
    lines = (ties / "ties.run").read_text().splitlines(keepends=True)
    (tmp_path / "q1_q4.run").write_text("".join(x for x in lines if x[:3] in ("q1 ", "q4 ")))
    qrels = as_pandas(ties / "ties.qrels", ["query_id", "iteration", "doc_id", "relevance"])
    run = as_pandas(tmp_path / "q1_q4.run", ["query_id", "Q0", "doc_id", "rank", "score", "tag"])
    names = ["nDCG@10", "AP", "RR", "R@100", "P@10"]
    theirs = ir_measures.calc_aggregate([ir_measures.parse_measure(n) for n in names], qrels, run)
    ours = mean_scores(qrels, run, names, complete=True)
    assert ours == pytest.approx({str(m): v for m, v in theirs.items()}, abs=1e-9)
    assert round(ours["AP"], 4) == 0.2519
    assert round(mean_scores(qrels, run, "AP")["AP"], 4) == 0.3778
    assert round(mean_scores(qrels, run, "AP", trec_eval_compat=True)["AP"], 4) == 0.7556


def test_a_frame_s_rank_column_is_ignored_as_trec_eval_ignores_it():
    # trec_eval orders by score (ties by doc id descending) whatever the rank field says.
    qrels = {"q": {"a": 1, "b": 0}}
    truthful = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    lying = truthful.assign(rank=[2, 1])
    assert mean_scores(qrels, lying, "RR") == mean_scores(qrels, truthful, "RR") == {"RR": 1.0}
    # A Polars frame read with trec_eval's field names (Q0 among them) is not one of goldset's:
    # its ranks are the file's and are ignored too.
    read = pl.from_dict(lying.assign(Q0="Q0", tag="t").to_dict("list"))
    assert mean_scores(qrels, read, "RR") == {"RR": 1.0}
    # goldset's own run frame (only its columns, as read_run and the fusions give it) is passed
    # through as it is: its rank is trec_eval's order by contract (a lean or cut run relies on it).
    own = pl.from_dict(lying.to_dict("list"))
    assert mean_scores(qrels, own, "RR") == {"RR": 0.5}


def test_one_measure_name_alone_is_one_measure():
    assert mean_scores({"q": {"a": 1}}, {"q": {"a": 1.0}}, "AP") == {"AP": 1.0}


def test_fusion_takes_the_same_kinds():
    a = {"q": {"x": 3.0, "y": 2.0}}
    b = {"q": {"y": 9.0, "z": 1.0}}
    fused = rrf({"a": a, "b": b})
    frames = rrf({"a": pl.DataFrame(rows(a)), "b": pl.DataFrame(rows(b))})
    assert fused.equals(frames)
    assert fused.get_column("doc_id").to_list() == ["y", "x", "z"]  # 1/62 + 1/61 first


def rows(nested: dict[str, dict[str, float]]) -> dict[str, list]:
    out: dict[str, list] = {"query_id": [], "doc_id": [], "score": []}
    for q, docs in nested.items():
        for d, s in docs.items():
            out["query_id"].append(q), out["doc_id"].append(d), out["score"].append(s)
    return out


def test_evaluate_wide_rows_pair_up_between_runs():
    qrels = {"q1": {"a": 1}, "q2": {"b": 0}, "q3": {"c": 2}}
    run_a, run_b = {"q1": {"a": 1.0}}, {"q3": {"c": 1.0}, "q1": {"z": 1.0}}
    wide_a, wide_b = evaluate_wide(qrels, run_a, "RR"), evaluate_wide(qrels, run_b, "RR")
    # q2 has nothing relevant: left out, as `goldset eval` and `goldset compare` leave it out.
    assert wide_a.get_column("query_id").to_list() == wide_b.get_column("query_id").to_list()
    assert wide_a.get_column("query_id").to_list() == ["q1", "q3"]
    assert wide_a.get_column("RR").to_list() == [1.0, 0.0]


NOT_ACCEPTED: dict[str, object] = {
    "a number": 3,
    "None": None,
    "bytes": b"q1 0 d1 1",
    "a list of dicts": [{"query_id": "q", "doc_id": "d", "grade": 1}],
    "a list of plain tuples": [("q", "d", 1)],
    "a dict of lists": {"q": ["d1", "d2"]},
}


@pytest.mark.parametrize("what", NOT_ACCEPTED)
def test_anything_else_is_a_type_error_listing_what_is_accepted(what):
    with pytest.raises(TypeError) as caught:
        mean_scores(NOT_ACCEPTED[what], {"q": {"d": 1.0}}, "AP")
    text = str(caught.value)
    assert text.startswith("qrels ")
    for accepted in ("Polars or pandas DataFrame", "{query_id: {doc_id: grade}}", "Qrel(", "path"):
        assert accepted in text
    with pytest.raises(TypeError, match=r"^run .*ScoredDoc\("):
        mean_scores({"q": {"d": 1}}, NOT_ACCEPTED[what], "AP")


BAD_VALUES: dict[str, tuple[object, object, str]] = {
    "no doc column": (
        pd.DataFrame({"query_id": ["q"], "grade": [1]}),
        {"q": {"d": 1.0}},
        r"qrels: no column for doc_id \(looked for doc_id, docid",
    ),
    "a fractional grade": ({"q": {"d": 1.5}}, {"q": {"d": 1.0}}, r"grade 1.5 is not a whole"),
    "a missing score": (
        {"q": {"d": 1}},
        pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["d", "e"], "score": [1.0, None]}),
        r"run: column 'score': empty value \(row 2\)",
    ),
    "an infinite score": ({"q": {"d": 1}}, {"q": {"d": math.inf}}, r"score inf is not finite"),
    "a document twice": (
        {"q": {"d": 1}},
        pl.DataFrame({"qid": ["q", "q"], "docno": ["d", "d"], "score": [1.0, 2.0]}),
        r"document 'd' is ranked twice for query 'q'",
    ),
    "two grades": (
        pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["d", "d"], "relevance": [1, 0]}),
        {"q": {"d": 1.0}},
        r"document 'd' has two different grades for query 'q'",
    ),
}


@pytest.mark.parametrize("what", BAD_VALUES)
def test_bad_values_are_a_value_error_naming_the_column(what):
    qrels, run, message = BAD_VALUES[what]
    with pytest.raises(ValueError, match=message):
        mean_scores(qrels, run, "AP")


def test_the_same_judgment_twice_is_kept_once_as_read_qrels_does():
    twice = pd.DataFrame(
        {"query_id": ["q", "q", "q"], "doc_id": ["d", "d", "e"], "grade": [1, 1, 1]}
    )
    assert mean_scores(twice, {"q": {"d": 2.0, "e": 1.0}}, "NumRel") == {"NumRel": 2.0}


def test_pandas_is_imported_only_for_a_pandas_frame():
    qrels = ROOT / "sample_data/judgments/alice.qrels"
    code = (
        "import sys; from goldset_tui.eval import mean_scores; "
        "assert mean_scores({'q': {'d': 1}}, {'q': {'d': 1.0}}, 'AP') == {'AP': 1.0}; "
        f"mean_scores({str(qrels)!r}, {str(qrels.parent.parent / 'runs/bm25.run')!r}, 'AP'); "
        "print('pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_pandas_frame_needs_no_pyarrow():
    # pl.from_pandas would need pyarrow, which goldset does not install: block it and convert.
    code = (
        "import sys; sys.modules['pyarrow'] = None\n"
        "import pandas as pd\n"
        "from goldset_tui.eval import mean_scores\n"
        "q = pd.DataFrame({'query_id': [301, 302], 'doc_id': ['a', 'b'], 'grade': [1, 2]})\n"
        "r = pd.DataFrame({'query_id': [301, 302], 'doc_id': ['a', 'c'], 'score': [1.0, 2.0]})\n"
        "print(mean_scores(q, r, 'AP'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "{'AP': 0.5}"


def test_a_table_without_the_columns_is_an_input_error_naming_the_file(tmp_path):
    table = tmp_path / "qrels.csv"
    table.write_text("topic,passage,grade\nq,d,1\n")
    with pytest.raises(InputError) as caught:
        mean_scores(table, {"q": {"d": 1.0}}, "AP")
    assert caught.value.path == table and "no column for doc_id" in caught.value.message


class FakeRanx:
    """Stands for ranx's Qrels and Run (importing ranx compiles numba code for a minute): what
    goldset relies on is the module name and ``to_dict()``, checked by hand against ranx 0.3."""

    __module__ = "ranx.data_structures.qrels"

    def __init__(self, nested: dict) -> None:
        self.nested = nested

    def to_dict(self) -> dict:
        return self.nested


def test_ranx_objects_are_taken_through_their_dicts():
    qrels, run = FakeRanx({"q": {"a": 1, "b": 0}}), FakeRanx({"q": {"b": 2.0, "a": 1.0}})
    assert mean_scores(qrels, run, "RR") == {"RR": 0.5}


QRELS_DICT = {"q1": {"a": 1, "b": 0}, "q2": {"c": 0}, "q3": {"d": 2}}
RUN_DICT = {"q1": {"b": 2.0, "a": 1.0}, "q2": {"c": 1.0}, "q4": {"z": 1.0}}
QRELS_FRAME = pl.DataFrame(
    rows({q: {d: float(g) for d, g in ds.items()} for q, ds in QRELS_DICT.items()})
)
QRELS_FRAME = QRELS_FRAME.select(
    "query_id", "doc_id", pl.col("score").cast(pl.Int64).alias("grade")
)
RUN_FRAME = pl.DataFrame(rows(RUN_DICT))

# Every public function of goldset_tui.eval that takes qrels or runs, called on dicts and on
# goldset's own frames: the input layer sits in front of each of them.
CALLS = {
    "evaluate": lambda q, r: eval_api.evaluate(q, r, "RR"),
    "evaluate_wide": lambda q, r: eval_api.evaluate_wide(q, r, ["RR", "P@1"]),
    "mean_scores": lambda q, r: eval_api.mean_scores(q, r, "RR"),
    "relevant_queries": lambda q, r: eval_api.relevant_queries(q),
    "query_sets": lambda q, r: eval_api.query_sets(q, ["q1", "q2", "q4"], "complete"),
    "cut_run": lambda q, r: eval_api.cut_run(r, q, max_docs=1, judged_only=True),
    "rrf": lambda q, r: eval_api.rrf([r, r]),
    "combsum": lambda q, r: eval_api.combsum({"a": r, "b": r}),
    "combmnz": lambda q, r: eval_api.combmnz([r]),
    "fuse": lambda q, r: eval_api.fuse([r], "combsum"),
    "qrels_frame": lambda q, r: eval_api.qrels_frame(q),
    "run_frame": lambda q, r: eval_api.run_frame(r),
    "compare": lambda q, r: eval_api.compare(q, r, r, "RR", samples=50),
}


@pytest.mark.parametrize("name", CALLS)
def test_every_public_function_takes_the_same_inputs(name):
    from_dicts = CALLS[name](QRELS_DICT, RUN_DICT)
    from_frames = CALLS[name](QRELS_FRAME, RUN_FRAME)
    if isinstance(from_dicts, pl.DataFrame):
        assert from_dicts.sort(from_dicts.columns).equals(from_frames.sort(from_frames.columns))
    elif isinstance(from_dicts, pl.Series):
        assert from_dicts.to_list() == from_frames.to_list()
    else:
        assert from_dicts == from_frames
    with pytest.raises(TypeError, match="must be"):
        CALLS[name](3, 3)


def test_the_public_functions_with_qrels_or_runs_are_all_in_the_list_above():
    import inspect

    takes = {
        name
        for name in eval_api.__all__
        if inspect.isfunction(getattr(eval_api, name))
        and {"qrels", "run", "runs"} & set(inspect.signature(getattr(eval_api, name)).parameters)
    }
    assert takes == set(CALLS)


def test_an_empty_run_scores_zero_and_pandas_nullable_integers_are_grades():
    # An empty dict has no column types to read: its columns are typed as goldset's, not refused.
    assert mean_scores({"q": {"a": 1}}, {}, ["AP", "NumRet"]) == {"AP": 0.0, "NumRet": 0.0}
    grades = pd.array([1, 0], dtype="Int64")  # pandas' nullable integers (what read_csv can give)
    qrels = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "grade": grades})
    assert mean_scores(qrels, {"q": {"b": 2.0, "a": 1.0}}, "RR") == {"RR": 0.5}
