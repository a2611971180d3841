"""Pending consensus pairs (no rule or adjudicator has decided them) are neither relevant nor
judged not relevant: `agreement --run` scores the consensus without them, `qrels --consensus`
says how many it left out."""

from __future__ import annotations

import json

import numpy as np
import pytest

from goldset_tui.adjudication.consensus import provenance_path
from goldset_tui.agreement.example import build_example_store
from goldset_tui.cli import main

# Two labellers over the same pairs: every disagreement is pending (no majority of two).
ALICE = {"q1": {"a": 3, "b": 0, "c": 2, "d": 0, "e": 1}, "q2": {"f": 2, "g": 3, "h": 0, "i": 1}}
BOB = {"q1": {"a": 0, "b": 0, "c": 2, "d": 1, "e": 1}, "q2": {"f": 0, "g": 3, "h": 0, "i": 2}}
RUN = {"q1": ["a", "b", "c", "d", "e"], "q2": ["f", "h", "g", "i"]}


def write_qrels(path, grades) -> str:
    path.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in grades.items() for d, g in docs.items())
    )
    return str(path)


def test_consensus_row_scores_pending_pairs_as_unjudged_like_trec_eval_J(tmp_path, capsys) -> None:
    import pytrec_eval

    run_path = tmp_path / "sys.run"
    run = {q: {d: float(10 - i) for i, d in enumerate(docs)} for q, docs in RUN.items()}
    run_path.write_text(
        "".join(f"{q} Q0 {d} 1 {s} sys\n" for q, docs in run.items() for d, s in docs.items())
    )
    argv = [
        "agreement",
        "--qrels",
        f"alice={write_qrels(tmp_path / 'a.qrels', ALICE)}",
        "--qrels",
        f"bob={write_qrels(tmp_path / 'b.qrels', BOB)}",
        "--scale",
        "0-3",
        "--samples",
        "0",
        "--run",
        f"sys={run_path}",
    ]
    assert main([*argv, "--format", "json"]) == 0
    rows = {r["qrels"]: r for r in json.loads(capsys.readouterr().out)["runs"]}
    consensus = rows["consensus"]
    assert (consensus["pending"], consensus["pending_retrieved"]) == (4, 4)  # a, d, f, i
    agreed = {q: {d: g for d, g in docs.items() if BOB[q][d] == g} for q, docs in ALICE.items()}
    # Every retrieved document was judged by someone, so the only unjudged ones are the pending
    # pairs, and trec_eval -J (judged documents only) is the independent reference.
    measures = {"ndcg_cut_10", "P_10", "map", "recip_rank"}
    per_query = pytrec_eval.RelevanceEvaluator(
        agreed, measures, judged_docs_only_flag=True
    ).evaluate(run)
    mean = {m: np.mean([v[m] for v in per_query.values()]) for m in measures}
    got = consensus["scores"]
    assert got["nDCG@10"] == pytest.approx(mean["ndcg_cut_10"])
    assert got["P@10"] == pytest.approx(mean["P_10"])
    assert got["AP"] == pytest.approx(mean["map"])
    assert got["RR"] == pytest.approx(mean["recip_rank"])
    # By hand: the first agreed relevant document (q1 c, q2 g) moves from rank 3 up to rank 2;
    # counted as not relevant, the pending pairs would keep it at 3 (RR 1/3).
    assert got["RR"] == pytest.approx(0.5)
    assert "pending" not in rows["alice"]
    assert main([*argv, "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert "| sys | consensus (4 pending) |" in md
    assert "Consensus: 4 pairs pending adjudication" in md


def test_qrels_consensus_says_how_many_pending_pairs_it_left_out(tmp_path, capsys) -> None:
    store = build_example_store(tmp_path / "demo")
    out = tmp_path / "c.qrels"
    assert main(["qrels", "--store", str(store), "--consensus", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert len(out.read_text().splitlines()) == 10  # 12 pairs, 2 pending
    warning = [line for line in err.splitlines() if "pending" in line]
    assert len(warning) == 1
    assert "2 pairs pending adjudication were left out" in warning[0]
    assert str(provenance_path(store, "unanimous-majority-adjudicator")) in warning[0]
    assert "decide them with `goldset adjudicate" in warning[0]


def test_one_pending_pair_is_spoken_of_in_the_singular(tmp_path, capsys) -> None:
    """One pair left: "decide it", not "decide them" (the rest of the line already agreed)."""
    from goldset_tui.adjudication.consensus import open_pairs
    from goldset_tui.adjudication.decisions import AdjudicationWriter
    from goldset_tui.agreement.sources import from_store

    store = build_example_store(tmp_path / "demo")
    first = open_pairs(from_store(store).ratings).row(0, named=True)
    with AdjudicationWriter(store, "dee", "unanimous-majority-adjudicator") as writer:
        writer.decide(first["query_id"], first["doc_id"], 1)
    assert main(["qrels", "--store", str(store), "--consensus", "-o", str(tmp_path / "c")]) == 0
    err = capsys.readouterr().err.splitlines()
    (warning,) = [x for x in err if "pending adjudication" in x]
    assert "1 pair pending adjudication was left out" in warning
    assert "count it as not relevant); decide it with `goldset adjudicate" in warning
    assert "decide them" not in warning


def test_the_agreement_note_of_one_pending_pair_says_it(tmp_path, capsys) -> None:
    alice = {"q1": {"a": 3, "b": 0}}
    bob = {"q1": {"a": 0, "b": 0}}  # one disagreement: a
    run = tmp_path / "sys.run"
    run.write_text("q1 Q0 a 1 2 sys\nq1 Q0 b 2 1 sys\n")
    argv = ["agreement", "--qrels", f"alice={write_qrels(tmp_path / 'a.qrels', alice)}"]
    argv += ["--qrels", f"bob={write_qrels(tmp_path / 'b.qrels', bob)}", "--scale", "0-3"]
    assert main([*argv, "--samples", "0", "--run", f"sys={run}", "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert "Consensus: 1 pair pending adjudication" in md
    assert "Decide it with `goldset adjudicate`." in md and "Decide them" not in md
