"""The shipped sample_data/ files are consistent with each other and with what they claim to be.

Numbers are checked against independent computations written here (a plain-Python BM25, a
plain-Python depth-20 pool), never against the build script's own output.
"""

from __future__ import annotations

import csv
import hashlib
import inspect
import json
import math
import platform
import re
import subprocess
import sys
from collections import Counter, defaultdict
from decimal import Decimal
from pathlib import Path

import pytest

from goldset_tui.io.trec import read_qrels, read_run

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
STRATA = {
    "exact_identifier",
    "misspelled",
    "negation",
    "short_keyword",
    "multi_entity",
    "paraphrase",
}
RUNS = ("bm25", "minilm")
POOL_DEPTH = 20
BUILD_INFO = json.loads((SAMPLE / "build_info.json").read_text(encoding="utf-8"))


def _corpus() -> dict[str, dict]:
    rows = [
        json.loads(line)
        for line in (SAMPLE / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    ids = [r["_id"] for r in rows]
    assert len(ids) == len(set(ids)), "duplicate _id in corpus.jsonl"
    return {r["_id"]: r for r in rows}


CORPUS = _corpus()


def _topics() -> dict[str, str]:
    lines = (SAMPLE / "topics.tsv").read_text(encoding="utf-8").splitlines()
    return dict(line.split("\t") for line in lines)


def _strata() -> dict[str, str]:
    with (SAMPLE / "strata.csv").open(encoding="utf-8", newline="") as f:
        return {row["query_id"]: row["stratum"] for row in csv.DictReader(f)}


def _run_lines(name: str) -> list[list[str]]:
    return [
        line.split()
        for line in (SAMPLE / "runs" / f"{name}.run").read_text(encoding="utf-8").splitlines()
    ]


def _pool_rows() -> list[dict]:
    return [
        json.loads(line)
        for line in (SAMPLE / "pool.jsonl").read_text(encoding="utf-8").splitlines()
    ]


# --- the corpus ---------------------------------------------------------------------------------


def test_corpus_is_small_beir_jsonl_with_stable_ids():
    assert (SAMPLE / "corpus.jsonl").stat().st_size < 3_000_000
    assert 1_000 <= len(CORPUS) <= 5_000
    for doc_id, row in CORPUS.items():
        assert set(row) == {"_id", "title", "text"}
        assert re.fullmatch(r"[a-z][\w.]*(/\d{4}|#[\w.]+(/\d+)?)", doc_id), doc_id
        assert row["text"].strip() and row["title"].strip()
        module = re.split(r"[#/]", doc_id)[0]
        assert row["title"] == module or row["title"].startswith(module + "."), doc_id


@pytest.mark.skipif(
    platform.python_version() != BUILD_INFO["python"],
    reason=f"docstrings differ between Python versions; the corpus was built on {BUILD_INFO['python']}",
)
def test_corpus_passages_are_this_pythons_own_docstrings():
    import json as json_module
    import os.path
    import shutil

    for doc_id, obj in [
        ("json#loads", json_module.loads),
        ("os.path#join", os.path.join),
        ("shutil#copytree", shutil.copytree),
    ]:
        first_paragraph = inspect.getdoc(obj).split("\n\n")[0]
        assert first_paragraph in CORPUS[doc_id]["text"], doc_id
    assert inspect.getdoc(json_module).split("\n\n")[0] in CORPUS["json/0000"]["text"]


# --- queries, strata, traffic -----------------------------------------------------------------


def test_topics_and_strata_cover_the_same_queries_and_all_six_strata():
    topics, strata = _topics(), _strata()
    assert 35 <= len(topics) <= 50
    assert set(topics) == set(strata)
    assert all(text.strip() for text in topics.values())
    counts = Counter(strata.values())
    assert set(counts) == STRATA
    assert min(counts.values()) >= 5


def test_traffic_shares_sum_to_exactly_one():
    with (SAMPLE / "traffic.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["stratum"] for r in rows} == STRATA and len(rows) == len(STRATA)
    shares = [Decimal(r["share"]) for r in rows]
    assert sum(shares) == Decimal(1)
    assert all(Decimal(0) < s < Decimal(1) for s in shares)


def test_query_log_is_synthetic_has_counts_and_contains_every_topic():
    with (SAMPLE / "query_log.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert 1_000 <= len(rows) <= 10_000
    assert {r["source"] for r in rows} == {"synthetic"}
    counts = [int(r["count"]) for r in rows]
    assert min(counts) >= 1 and max(counts) > 100 * min(counts)  # a heavy head and a long tail
    assert len({r["query"] for r in rows}) == len(rows)  # distinct raw strings, with counts
    normalised = {" ".join(r["query"].lower().split()) for r in rows}
    assert {t.lower() for t in _topics().values()} <= normalised


# --- runs ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", RUNS)
def test_runs_parse_are_depth_100_without_duplicates_and_name_corpus_docs(name):
    run = read_run(SAMPLE / "runs" / f"{name}.run")  # the project's reader also refuses duplicates
    lines = _run_lines(name)
    assert all(len(f) == 6 and f[1] == "Q0" and f[5] == name for f in lines)
    per_query = Counter(f[0] for f in lines)
    assert set(per_query) == set(_topics())
    assert max(per_query.values()) == 100
    pairs = [(f[0], f[2]) for f in lines]
    assert len(pairs) == len(set(pairs))
    assert set(run.get_column("doc_id").to_list()) <= set(CORPUS)


@pytest.mark.parametrize("name", RUNS)
def test_run_rank_column_is_trec_eval_order(name):
    by_query = defaultdict(list)
    for qid, _, doc, rank, score, _ in _run_lines(name):
        by_query[qid].append((int(rank), doc, float(score)))
    for qid, rows in by_query.items():
        in_file = [doc for _, doc, _ in sorted(rows)]
        # trec_eval: score descending, ties by document id descending
        expected = [doc for _, doc, _ in sorted(rows, key=lambda r: (r[2], r[1]), reverse=True)]
        assert in_file == expected, qid


def test_minilm_scores_are_cosines():
    scores = [float(f[4]) for f in _run_lines("minilm")]
    assert all(-1.0 <= s <= 1.0 for s in scores)


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


# Lucene's English stopwords, as documented in sample_data/README.md.
STOP = set(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)


def test_bm25_run_matches_an_independent_bm25():
    """A plain-Python Lucene BM25 (k1=0.9, b=0.4, title + text) gives the shipped scores."""
    k1, b = BUILD_INFO["bm25"]["k1"], BUILD_INFO["bm25"]["b"]
    docs = {
        d: [t for t in _tokens(r["title"] + " " + r["text"]) if t not in STOP]
        for d, r in CORPUS.items()
    }
    n = len(docs)
    avg = sum(len(t) for t in docs.values()) / n
    df = Counter(t for toks in docs.values() for t in set(toks))
    tfs = {d: Counter(toks) for d, toks in docs.items()}
    shipped = defaultdict(dict)
    for qid, _, doc, _, score, _ in _run_lines("bm25"):
        shipped[qid][doc] = float(score)
    topics = _topics()
    for qid in ("q01", "q16", "q22", "q36"):
        terms = {t for t in _tokens(topics[qid]) if t not in STOP}
        scores = {}
        for d, tf in tfs.items():
            s = sum(
                math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                * tf[t]
                * (k1 + 1)
                / (tf[t] + k1 * (1 - b + b * len(docs[d]) / avg))
                for t in terms
                if tf[t]
            )
            if s > 0:
                scores[d] = s
        top = sorted(scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:100]
        assert [d for d, _ in top[:10]] == list(shipped[qid])[:10], qid
        for d, s in top:
            assert shipped[qid][d] == pytest.approx(s, abs=2e-6), (qid, d)


def test_the_two_retrievers_are_genuinely_different():
    tops = {name: defaultdict(list) for name in RUNS}
    for name in RUNS:
        for qid, _, doc, rank, _, _ in _run_lines(name):
            if int(rank) <= 10:
                tops[name][qid].append(doc)
    overlaps = [len(set(tops["bm25"][q]) & set(tops["minilm"][q])) / 10 for q in _topics()]
    assert sum(overlaps) / len(overlaps) < 0.6


# --- the pool -----------------------------------------------------------------------------------


def test_pool_is_the_union_of_each_runs_top_20():
    expected = defaultdict(dict)  # qid -> doc -> {system: rank}
    for name in RUNS:
        by_query = defaultdict(list)
        for qid, _, doc, _, score, _ in _run_lines(name):
            by_query[qid].append((float(score), doc))
        for qid, rows in by_query.items():
            for rank, (_, doc) in enumerate(sorted(rows, reverse=True)[:POOL_DEPTH], start=1):
                expected[qid].setdefault(doc, {})[name] = rank
    rows = _pool_rows()
    got = defaultdict(dict)
    for row in rows:
        got[row["query_id"]][row["doc_id"]] = dict(zip(row["systems"], row["ranks"], strict=True))
    assert got == expected


def test_pool_rows_carry_query_text_stratum_and_corpus_text():
    topics, strata = _topics(), _strata()
    rows = _pool_rows()
    assert {r["query_id"] for r in rows} == set(topics)
    for r in rows:
        assert r["query"] == topics[r["query_id"]]
        assert r["stratum"] == strata[r["query_id"]]
        assert (
            r["text"] == CORPUS[r["doc_id"]]["text"] and r["title"] == CORPUS[r["doc_id"]]["title"]
        )
    sizes = Counter(r["query_id"] for r in rows)
    assert min(sizes.values()) >= POOL_DEPTH and max(sizes.values()) <= POOL_DEPTH * len(RUNS)


def test_pool_loads_with_the_project_reader():
    pools = pytest.importorskip(
        "goldset_tui.io.pools", reason="goldset_tui.io.pools is not written yet"
    )
    pool = pools.load_pool(SAMPLE / "pool.jsonl")
    queries = pool.queries()
    assert queries.height == len(_topics())
    assert set(queries.get_column("stratum").to_list()) == STRATA
    assert pool.systems() == list(RUNS)
    assert pool.frame.height == len(_pool_rows())


def test_the_package_ships_the_same_pool_the_demo_opens():
    """`goldset demo` reads the package's copy (package data); build.py writes both, and they
    must never drift apart."""
    from goldset_tui.commands.demo import sample_pool_bytes

    assert sample_pool_bytes() == (SAMPLE / "pool.jsonl").read_bytes()


def test_goldset_check_accepts_the_pool():
    result = subprocess.run(
        [sys.executable, "-m", "goldset_tui", "check", str(SAMPLE / "pool.jsonl")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if "invalid choice: 'check'" in result.stderr:
        pytest.skip("goldset check is not there yet")
    assert result.returncode == 0, result.stderr


# --- illustrative judgments ---------------------------------------------------------------------


def test_illustrative_qrels_parse_and_judge_pool_pairs_only():
    pool_pairs = {(r["query_id"], r["doc_id"]) for r in _pool_rows()}
    alice = read_qrels(SAMPLE / "judgments" / "alice.qrels")
    bob = read_qrels(SAMPLE / "judgments" / "bob.qrels")
    for qrels in (alice, bob):
        pairs = set(zip(qrels["query_id"].to_list(), qrels["doc_id"].to_list(), strict=True))
        assert pairs <= pool_pairs
        assert set(qrels["doc_id"].to_list()) <= set(CORPUS)
        assert set(qrels["grade"].to_list()) <= {0, 1, 2, 3}
    assert (
        set(zip(alice["query_id"], alice["doc_id"], strict=True)) == pool_pairs
    )  # alice judged the whole pool
    # They must disagree somewhere (or the agreement demo shows nothing) but not everywhere.
    a = dict(zip(zip(alice["query_id"], alice["doc_id"], strict=True), alice["grade"], strict=True))
    b = dict(zip(zip(bob["query_id"], bob["doc_id"], strict=True), bob["grade"], strict=True))
    same = sum(a[k] == g for k, g in b.items()) / len(b)
    assert 0.6 < same < 0.95
    assert set(bob["query_id"].to_list()) < set(alice["query_id"].to_list())


def test_illustrative_judgments_are_marked_as_such():
    notes = (SAMPLE / "judgments" / "README.md").read_text(encoding="utf-8")
    assert "ILLUSTRATIVE" in notes
    readme = (SAMPLE / "README.md").read_text(encoding="utf-8")
    assert "illustrative" in readme.lower() and "synthetic" in readme.lower()


# --- provenance ---------------------------------------------------------------------------------


def test_build_info_matches_the_shipped_files():
    assert re.fullmatch(r"3\.11\.\d+", BUILD_INFO["python"])
    assert BUILD_INFO["sha256"], "build_info.json lists no files"
    for name, digest in BUILD_INFO["sha256"].items():
        assert hashlib.sha256((SAMPLE / name).read_bytes()).hexdigest() == digest, (
            f"{name} changed since the build"
        )


@pytest.mark.skipif(
    platform.python_version() != BUILD_INFO["python"],
    reason=f"the corpus is this Python's docstrings; the files were built on {BUILD_INFO['python']}",
)
def test_build_script_reproduces_the_shipped_files(tmp_path):
    """`build.py --no-dense` (offline, no torch) rebuilds every file byte for byte."""
    result = subprocess.run(
        [sys.executable, str(SAMPLE / "build.py"), "--no-dense", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    rebuilt = json.loads((tmp_path / "build_info.json").read_text(encoding="utf-8"))
    assert set(rebuilt["sha256"]) == set(BUILD_INFO["sha256"])
    for name, digest in BUILD_INFO["sha256"].items():
        if name == "pool.jsonl":
            continue  # `goldset pool` orders rows its own way: compare the rows, below
        assert rebuilt["sha256"][name] == digest, f"{name} is not what build.py makes"
    shipped = sorted((SAMPLE / "pool.jsonl").read_text(encoding="utf-8").splitlines())
    assert sorted((tmp_path / "pool.jsonl").read_text(encoding="utf-8").splitlines()) == shipped
