"""The fast ranking and fusion paths against exact, independent references: Python's own sort in
trec_eval order, and reciprocal rank fusion summed in exact rational arithmetic (fractions)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import polars as pl
from hypothesis import example, given, settings
from hypothesis import strategies as st

from goldset_tui.eval.fusion import fuse, rrf
from goldset_tui.io.trec import rank_run, read_run

SCHEMA = {"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}
IDS = st.text(alphabet="aAbé9\u00e4z\U0001f600", min_size=0, max_size=3)
SCORES = st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, 2.5, float("inf"), float("-inf"), 1e-300])


def trec_eval_ranks(rows: list[tuple[str, str, float]]) -> dict[tuple[str, str], int]:
    """Score descending, ties by doc id descending in strcmp (UTF-8 byte) order."""
    ranks = {}
    for qid, group in itertools.groupby(sorted(rows, key=lambda r: r[0]), key=lambda r: r[0]):
        ordered = sorted(group, key=lambda r: (r[2], r[1].encode()), reverse=True)
        ranks.update({(qid, doc): i for i, (_, doc, _) in enumerate(ordered, start=1)})
    return ranks


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["q1", "q2", "10"]), IDS, SCORES),
        min_size=1,
        max_size=40,
        unique_by=lambda r: (r[0], r[1]),
    )
)
def test_rank_run_is_trec_eval_order(rows):
    ranked = rank_run(pl.DataFrame(rows, schema=SCHEMA, orient="row"), order=False)
    assert {(q, d): r for q, d, _, r in ranked.rows()} == trec_eval_ranks(rows)


def test_read_run_ranks_ties_by_doc_id_descending_in_a_file_out_of_order(tmp_path):
    path = tmp_path / "r.run"
    path.write_text(
        "q1 Q0 b 9 1.5 t\nq1 Q0 c 1 1.5 t\nq2 Q0 x 1 0.1 t\nq1 Q0 a 2 3 t\nq1 Q0 ab 3 1.5 t\n"
    )
    run = read_run(path)
    assert run.select("query_id", "doc_id", "rank").rows() == [
        ("q1", "a", 1),
        ("q1", "c", 2),
        ("q1", "b", 3),
        ("q1", "ab", 4),
        ("q2", "x", 1),
    ]


def exact_rrf(
    lists: list[dict[str, list[str]]], k: int
) -> dict[str, dict[str, tuple[Fraction, tuple]]]:
    """Per query and document: the exact RRF score (Fractions) and the multiset of its terms."""
    terms: dict[str, dict[str, list[Fraction]]] = {}
    for ranking in lists:
        for qid, docs in ranking.items():
            for rank, doc in enumerate(docs, start=1):
                terms.setdefault(qid, {}).setdefault(doc, []).append(Fraction(1, k + rank))
    return {
        q: {d: (sum(t), tuple(sorted(t))) for d, t in docs.items()} for q, docs in terms.items()
    }


def as_frame(ranking: dict[str, list[str]]) -> pl.DataFrame:
    rows = [(q, d, float(len(docs) - i)) for q, docs in ranking.items() for i, d in enumerate(docs)]
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")


rankings = st.dictionaries(
    st.sampled_from(["q1", "q2"]),
    st.lists(st.sampled_from("abcdefghijkl"), min_size=1, max_size=12, unique=True),
    min_size=1,
)


@settings(max_examples=60, deadline=None)
@given(st.lists(rankings, min_size=1, max_size=5), st.sampled_from([0, 1, 60]))
@example(
    [
        {"q": ["g"]},
        {"q": ["a", "b", "i", "c", "d", "e", "h", "j", "k", "l", "g"]},
        {"q": ["a", "i"]},
    ],
    1,
)
def test_rrf_order_matches_exact_rational_sums_whatever_the_run_order(lists, k):
    exact = exact_rrf(lists, k)
    frames = [as_frame(r) for r in lists]
    fused = rrf(frames, k=k)
    assert rrf(frames[::-1], k=k).equals(fused)  # the order of the runs changes nothing
    for q, scores in exact.items():
        docs = fused.filter(pl.col("query_id") == q).get_column("doc_id").to_list()
        assert sorted(docs) == sorted(scores)
        for upper, lower in itertools.pairwise(docs):
            (su, tu), (sl, tl) = scores[upper], scores[lower]
            assert su >= sl
            # The same terms: an exact tie, broken by doc id descending. (Different terms with an
            # equal exact sum, like 1/2 + 1/12 and 1/3 + 1/4, may round apart in floating point.)
            if tu == tl:
                assert upper.encode() > lower.encode()


def test_rrf_equal_contributions_tie_exactly_in_any_run_order():
    # Ranks (1, 2, 7) and (7, 1, 2): in floating point, 1/61 + 1/62 + 1/67 depends on the order
    # of the additions. Exactly equal, so the larger id ("y") must come first, every time.
    fill = [f"f{i}" for i in range(5)]
    a = {"q": ["x", "f0", "f1", "f2", "f3", "f4", "y"]}
    b = {"q": ["y", "x"] + fill}
    c = {"q": ["f0", "y", "f1", "f2", "f3", "f4", "x"]}
    for lists in itertools.permutations([a, b, c]):
        fused = rrf([as_frame(r) for r in lists])
        top = fused.filter(pl.col("doc_id").is_in(["x", "y"])).sort("rank")
        assert top.get_column("doc_id").to_list() == ["y", "x"]
        assert top.get_column("score")[0] == top.get_column("score")[1]


def test_unordered_fusion_has_the_same_rows_and_ranks():
    lists = [
        {"q2": ["a", "b", "c"], "q1": ["c", "d"]},
        {"q1": ["d", "a"], "q2": ["c", "e"]},
        {"q1": ["a"]},
    ]
    frames = [as_frame(r) for r in lists]
    for method in ("rrf", "combsum", "combmnz"):
        ordered = fuse(frames, method)
        assert ordered.select("query_id", "rank").rows() == sorted(
            ordered.select("query_id", "rank").rows()
        )
        assert fuse(frames, method, order=False).sort("query_id", "rank").equals(ordered)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["q1", "q2"]),
            st.text("abcdef", min_size=1, max_size=2),
            st.sampled_from([0.0, 0.5, 1.0, 2.0]),
        ),
        min_size=1,
        max_size=30,
        unique_by=lambda r: (r[0], r[1]),
    ),
    st.integers(1, 6),
)
def test_read_run_depth_keeps_the_trec_eval_top_k_ties_at_the_boundary_included(
    tmp_path_factory, rows, depth
):
    path = tmp_path_factory.mktemp("depth") / "r.run"
    path.write_text("".join(f"{q} Q0 {d} 0 {s} t\n" for q, d, s in rows))
    top = read_run(path, tag=False, order=False, depth=depth)
    expected = {key: rank for key, rank in trec_eval_ranks(rows).items() if rank <= depth}
    assert {(q, d): r for q, d, _, r in top.rows()} == expected
