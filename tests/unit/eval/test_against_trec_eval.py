"""Every per-query value and every `all` line trec_eval 10 printed on the peer files, to 1e-4.

The reference outputs are trec_eval's own (its test folder) or were produced by trec_eval 10.0
(``peers/trec_eval/generated/README.txt`` has the commands). Nothing here is computed by goldset.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from goldset_tui.eval.metrics import aggregate, evaluate
from goldset_tui.io.trec import read_qrels, read_run

NAMES = {
    "num_ret": "NumRet",
    "num_rel": "NumRel",
    "num_rel_ret": "NumRelRet",
    "map": "AP",
    "Rprec": "Rprec",
    "bpref": "Bpref",
    "recip_rank": "RR",
    "infAP": "infAP",
    "ndcg": "nDCG",
    "gm_map": "GMAP",
    "num_q": "NumQ",
    "11pt_avg": "IPrecAvg",
    "set_P": "SetP",
    "set_recall": "SetR",
    "set_F": "SetF",
}
PREFIXES = {"P_": "P", "recall_": "R", "ndcg_cut_": "nDCG", "map_cut_": "AP", "success_": "Success"}
NO_REL = {"nDCG", "NumRet", "NumQ"}  # trec_eval's -l leaves these alone


def ours(trec_name: str, rel: int) -> str | None:
    """Our measure name for a trec_eval one (None: a measure we do not offer)."""
    base, cutoff = NAMES.get(trec_name), None
    for prefix, name in PREFIXES.items():
        rest = trec_name[len(prefix) :]
        if trec_name.startswith(prefix) and rest.isdigit():
            base, cutoff = name, int(rest)
    if trec_name.startswith("iprec_at_recall_"):
        level = float(trec_name.rsplit("_", 1)[1])
        return f"IPrec{f'(rel={rel})' if rel != 1 else ''}@{level:g}"
    if trec_name.startswith("ndcg_1=1,2=3,3=7,4=15"):
        return "nDCG(dcg='exp-log2')"  # custom gains 2^rel - 1: the exp-log2 gain
    if base is None:
        return None
    params = f"(rel={rel})" if rel != 1 and base not in NO_REL else ""
    return base + params + (f"@{cutoff}" if cutoff is not None else "")


def load(path: Path) -> dict[tuple[str, str], str]:
    opener = gzip.open if path.suffix == ".gz" else open
    out = {}
    with opener(path, "rt") as fh:
        for line in fh:
            name, qid, value = line.rstrip("\n").split("\t")
            out[(name.strip(), qid)] = value.strip()
    return out


CASES = [
    # (qrels, run, expected output, relevance level, -c)
    ("trec_eval/qrels.test", "trec_eval/results.test", "trec_eval/out.test", 1, False),
    ("trec_eval/qrels.test", "trec_eval/results.test", "trec_eval/out.test.aq", 1, False),
    ("trec_eval/qrels.test", "trec_eval/results.trunc", "trec_eval/out.test.aqc", 1, True),
    ("trec_eval/qrels.rel_level", "trec_eval/results.test", "trec_eval/out.test.aql", 2, False),
    ("trec_eval/qrels.test", "trec_eval/results.test", "trec_eval/out.test.meas_params", 1, False),
    (
        "trec_eval/qrels.comment.test",
        "trec_eval/results.comment.test",
        "trec_eval/out.comment.test",
        1,
        False,
    ),
    (
        "trec_eval/generated/ties.qrels",
        "trec_eval/generated/ties.run",
        "trec_eval/generated/ties.out.all_trec_q.txt",
        1,
        False,
    ),
    (
        "trec_eval/generated/ties.qrels",
        "trec_eval/generated/ties.run",
        "trec_eval/generated/ties.out.all_trec_qc.txt",
        1,
        True,
    ),
    (
        "trec_eval/generated/ties.qrels",
        "trec_eval/generated/ties.run",
        "trec_eval/generated/ties.out.all_trec_q_l2.txt",
        2,
        False,
    ),
    (
        "trec_eval/qrels.rel_level",
        "trec_eval/results.test",
        "trec_eval/generated/rel_level.all_trec_q_l1.txt",
        1,
        False,
    ),
    (
        "trec_eval/qrels.rel_level",
        "trec_eval/results.test",
        "trec_eval/generated/rel_level.ndcg_cut_linear_gain.txt",
        1,
        False,
    ),
    (
        "trec_eval/qrels.rel_level",
        "trec_eval/results.test",
        "trec_eval/generated/rel_level.ndcg_linear_gain.txt",
        1,
        False,
    ),
    (
        "trec_eval/qrels.rel_level",
        "trec_eval/results.test",
        "trec_eval/generated/rel_level.ndcg_exp_gain_2pow_minus1.txt",
        1,
        False,
    ),
    (
        "trectools/robust03_cs_qrels.txt.gz",
        "trectools/input.uic0301.gz",
        "trec_eval/generated/robust03_uic0301.all_trec_q.txt.gz",
        1,
        False,
    ),
    (
        "trectools/robust03_cs_qrels.txt.gz",
        "trectools/input.uic0301.gz",
        "trec_eval/generated/robust03_uic0301.l2_q.txt.gz",
        2,
        False,
    ),
]


@pytest.mark.parametrize(
    ("qrels", "run", "expected", "rel", "complete"), CASES, ids=[c[2].split("/")[-1] for c in CASES]
)
def test_matches_trec_eval(peers, qrels, run, expected, rel, complete):
    ref = load(peers / expected)
    measures = {tn: ours(tn, rel) for tn, _ in ref if ours(tn, rel)}
    assert measures, "no comparable measure in the reference file"
    per_query = evaluate(
        read_qrels(peers / qrels),
        read_run(peers / run),
        sorted(set(measures.values())),
        only_run_queries=not complete,
    )
    values = {(r["measure"], r["query_id"]): r["value"] for r in per_query.iter_rows(named=True)}
    means = aggregate(per_query)
    checked = 0
    for (trec_name, qid), text in ref.items():
        name = measures.get(trec_name)
        if name is None:
            continue
        got = means[name] if qid == "all" else values[(name, qid)]
        assert got == pytest.approx(float(text), abs=1e-4 + 1e-9), (trec_name, qid)
        checked += 1
    # The per-query lines are all there (with -q), and the means too.
    assert checked == sum(1 for tn, _ in ref if tn in measures)
    if "all" in {q for _, q in ref} and ("num_q", "all") in ref:
        assert per_query.get_column("query_id").n_unique() == int(ref[("num_q", "all")])


@pytest.mark.parametrize(
    ("expected", "rel"), [("ties.out.all_trec_q.txt", 1), ("ties.out.all_trec_q_l2.txt", 2)]
)
def test_judged_is_trec_eval_unj_over_min_k_and_run_length(peers, expected, rel):
    # ir_measures' Judged@k = judged in top k / min(k, returned); trec_eval's unj_k = unjudged
    # in top k / k. So Judged@k = 1 - unj_k * k / min(k, num_ret), query by query.
    g = peers / "trec_eval" / "generated"
    ref = load(g / expected)
    per_query = evaluate(
        read_qrels(g / "ties.qrels"),
        read_run(g / "ties.run"),
        ["Judged@1", "Judged@2", "Judged@3"],
        only_run_queries=True,
    )
    checked = 0
    for r in per_query.iter_rows(named=True):
        k = int(re.sub(r"\D", "", r["measure"]))
        num_ret = int(ref[("num_ret", r["query_id"])])
        unj = float(ref[(f"unj_{k}", r["query_id"])])
        assert r["value"] == pytest.approx(1 - unj * k / min(k, num_ret), abs=1e-4)
        checked += 1
    assert checked == 9
