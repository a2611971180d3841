"""`goldset report` end to end from files, cross-checked against ir_measures (per-query Success@10),
a hand-written reciprocal rank fusion and plain-Python set arithmetic — never against itself."""

from __future__ import annotations

import csv
import json
import random

import pytest

pytest.importorskip("goldset_tui.eval.fusion")
pytest.importorskip("goldset_tui.eval.stats")
ir_measures = pytest.importorskip("ir_measures")

from goldset_tui.cli import main  # noqa: E402

from .paired_by_hand import tango_by_hand, weighted_tango_by_hand  # noqa: E402
from .worked_examples import TWO_RETRIEVERS, two_retrievers_frames  # noqa: E402

K = 10


def _rank_lists(hit: dict[str, bool], qid: str, prefix: str, rng: random.Random) -> list[str]:
    """20 documents for one query: the relevant one inside the top 10 on a hit, at 11-20 otherwise."""
    docs = [f"{prefix}-{qid}-{i}" for i in range(19)]
    pos = rng.randrange(0, 10) if hit[qid] else rng.randrange(10, 20)
    docs.insert(pos, f"rel-{qid}")
    return docs


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict:
    d = tmp_path_factory.mktemp("report")
    scores, strata = two_retrievers_frames()
    hits = {
        s: {r[1]: r[2] == 1.0 for r in scores.filter(scores["system"] == s).iter_rows()}
        for s in ("bm25", "dense")
    }
    rng = random.Random(4)
    runs = {s: {q: _rank_lists(hits[s], q, s, rng) for q in hits[s]} for s in hits}
    for s, per in runs.items():
        with open(d / f"{s}.run", "w") as f:
            for q, docs in per.items():
                for rank, doc in enumerate(docs, start=1):
                    f.write(f"{q} Q0 {doc} {rank} {100 - rank} {s}\n")
    qrels: dict[str, dict[str, int]] = {}
    for q in hits["bm25"]:
        qrels[q] = {f"rel-{q}": 1}
        # bm25's other top-10 documents were all judged not relevant; dense's only the even ones,
        # so about 45% of dense's top 10 is unjudged (over the 20% warning).
        for doc in runs["bm25"][q][:K]:
            qrels[q].setdefault(doc, 0)
        for i, doc in enumerate(runs["dense"][q][:K]):
            if i % 2 == 0:
                qrels[q].setdefault(doc, 0)
    with open(d / "qrels.txt", "w") as f:
        for q, docs in qrels.items():
            for doc, g in docs.items():
                f.write(f"{q} 0 {doc} {g}\n")
    strata.write_csv(d / "strata.csv")
    shares = {
        "exact_identifier": 0.18,
        "short_keyword": 0.2,
        "misspelled": 0.1,
        "paraphrase": 0.3,
        "multi_entity": 0.12,
        "negation": 0.1,
    }
    (d / "traffic.csv").write_text(
        "stratum,share\n" + "".join(f"{s},{v}\n" for s, v in shares.items())
    )
    return {
        "dir": d,
        "runs": runs,
        "qrels": qrels,
        "strata": dict(strata.iter_rows()),
        "shares": shares,
    }


def _report(files: dict, capsys, *extra: str) -> tuple[int, str, str]:
    d = files["dir"]
    code = main(
        [
            "report",
            "--qrels",
            str(d / "qrels.txt"),
            "--run",
            f"bm25={d / 'bm25.run'}",
            "--run",
            f"dense={d / 'dense.run'}",
            "--strata",
            str(d / "strata.csv"),
            "--samples",
            "200",
            *extra,
        ]
    )
    out = capsys.readouterr()
    return code, out.out, out.err


def _per_query_success(files: dict, run: dict[str, list[str]]) -> dict[str, float]:
    run_dict = {
        q: {doc: float(100 - r) for r, doc in enumerate(docs, start=1)} for q, docs in run.items()
    }
    return {
        m.query_id: m.value
        for m in ir_measures.iter_calc([ir_measures.Success @ K], files["qrels"], run_dict)
    }


def _rrf(runs: list[dict[str, list[str]]], depth: int | None = None) -> dict[str, list[str]]:
    fused: dict[str, list[str]] = {}
    for q in runs[0]:
        score: dict[str, float] = {}
        for run in runs:
            for rank, doc in enumerate(run[q][:depth], start=1):
                score[doc] = score.get(doc, 0.0) + 1.0 / (60 + rank)
        # trec_eval order: score descending, ties by doc id descending.
        fused[q] = sorted(score, key=lambda doc: (score[doc], doc), reverse=True)
    return fused


def test_report_json_matches_independent_computation(files, capsys, tmp_path) -> None:
    code, out, err = _report(
        files,
        capsys,
        "--traffic",
        str(files["dir"] / "traffic.csv"),
        "--format",
        "json",
        "-o",
        str(tmp_path),
    )
    assert code == 0
    d = json.loads(out)
    assert (d["metric"], d["k"], d["n"]) == ("Success@10", 10, 300)
    bm25 = _per_query_success(files, files["runs"]["bm25"])
    dense = _per_query_success(files, files["runs"]["dense"])
    for row in d["strata"]:
        qs = [q for q, s in files["strata"].items() if s == row["stratum"]]
        assert row["n"] == len(qs) == TWO_RETRIEVERS[row["stratum"]][0]
        assert (
            row["systems"]["bm25"]["hits"]
            == sum(bm25[q] for q in qs)
            == TWO_RETRIEVERS[row["stratum"]][1]
        )
        assert (
            row["systems"]["dense"]["hits"]
            == sum(dense[q] for q in qs)
            == TWO_RETRIEVERS[row["stratum"]][2]
        )
    assert d["closure"]["ok"] is True
    miss_a = {q for q, v in bm25.items() if v == 0}
    miss_b = {q for q, v in dense.items() if v == 0}
    pair = next(o for o in d["overlap"] if (o["a"], o["b"]) == ("bm25", "dense"))
    assert (
        (pair["miss_a"], pair["miss_b"], pair["both_miss"], pair["either_miss"])
        == (len(miss_a), len(miss_b), len(miss_a & miss_b), len(miss_a | miss_b))
        == (78, 78, 31, 125)
    )
    assert pair["oracle"] == pytest.approx(1 - 31 / 300)
    # The report fuses each run's top 10 (the oracle's bound): the relevant document of a query
    # both runs miss sits at ranks 11-20 in both, and fusing the full depth would promote it (all
    # 300 hit).
    runs = [files["runs"]["bm25"], files["runs"]["dense"]]
    assert sum(_per_query_success(files, _rrf(runs)).values()) == 300
    fused = _per_query_success(files, _rrf(runs, depth=K))
    fused_mean = sum(fused.values()) / 300
    assert d["fusion"]["rrf"]["mean"] == pytest.approx(fused_mean)
    assert {q for q in miss_a & miss_b if fused[q] > 0} == set()  # shared misses are never rescued
    share = d["fusion"]["rrf"]["headroom_collected"]
    assert share == pytest.approx((fused_mean - 0.74) / ((1 - 31 / 300) - 0.74))
    assert share <= 1.0 and fused_mean <= 1 - 31 / 300 + 1e-12
    # Weighted headline: the sum of share x stratum rate.
    rates = {r["stratum"]: r["systems"]["bm25"]["mean"] for r in d["strata"]}
    assert d["overall"]["bm25"]["weighted_mean"] == pytest.approx(
        sum(files["shares"][s] * rates[s] for s in rates)
    )
    # Judged fraction of the top 10, counted by hand from the files.
    for name in ("bm25", "dense"):
        slots = [(q, doc) for q, docs in files["runs"][name].items() for doc in docs[:K]]
        judged = sum(1 for q, doc in slots if doc in files["qrels"][q]) / len(slots)
        assert d["judged"][name] == pytest.approx(judged)
    assert d["judged"]["bm25"] == 1.0 and d["judged"]["dense"] < 0.8
    assert "dense:" in err and "unjudged" in err and "bm25: " not in err.split("unjudged")[0][-40:]
    keys = {"a", "b", "mean_diff", "ci95", "ci_method", "p_value", "wins", "losses", "ties"}
    keys |= {"p_adjusted", "weighted_mean_diff", "weighted_ci95"}
    bd = next(p for p in d["paired"] if (p["a"], p["b"]) == ("bm25", "dense"))
    assert set(bd) == keys
    # The paired interval of a 0/1 measure is Tango's score interval for paired rates
    # (docs/report.md), written out by hand from the wins and losses counted below.
    assert bd["ci_method"] == "paired-score-t"
    tango = tango_by_hand(len(miss_b - miss_a), len(miss_a - miss_b), 300)
    assert bd["ci95"] == pytest.approx(list(tango), abs=1e-6)
    _check_issue_10_statistics(files, d, bm25, dense, fused)
    assert bd["mean_diff"] == pytest.approx(0.0)
    assert (bd["wins"], bd["losses"], bd["ties"]) == (
        len(miss_b - miss_a),
        len(miss_a - miss_b),
        300 - 94,
    )
    # Failing queries per system per stratum, under -o.
    with open(tmp_path / "failing_queries.csv") as f:
        rows = list(csv.DictReader(f))
    assert {r["query_id"] for r in rows if r["system"] == "bm25"} == miss_a
    assert all(files["strata"][r["query_id"]] == r["stratum"] for r in rows)
    assert json.loads((tmp_path / "report.json").read_text()) == d
    md = (tmp_path / "report.md").read_text()
    assert md.startswith("# Report: Success@10")
    assert "each run's top 10" in md and "rescues none of them" in md and "can rescue" not in md


def _stratified_by_hand(
    values: dict[str, float], files: dict, *, difference: bool = False
) -> tuple[float, float, float]:
    """The report's bounded stratified interval, written out with numpy and scipy.

    Per stratum h (share W_h, n_h values x): the rate pulled in by z^2/2 pseudo-observations each
    side, r_h = (sum x + z^2/2) / (n_h + z^2); for graded values a dispersion phi_h = s^2 /
    (m(1 - m)) shrunk by c x (share of discrete values) pseudo-observations (a binary headline:
    phi = 1). var = sum W_h^2 phi_h r_h (1 - r_h) / n_h; n_eff = r (1 - r) / var with r = sum
    W_h r_h; q = t quantile at the Welch-Satterthwaite df (floored to a tenth); the interval is
    Wilson's formula at the weighted mean with n_eff and q. A difference d in [-1, 1] is carried
    to u = (d + 1) / 2 (discrete values 0, 0.5, 1; c = 1) and back."""
    import numpy as np
    from scipy import stats

    z = stats.norm.ppf(0.975)
    mean = var = den = centre = 0.0
    for stratum, share in files["shares"].items():
        x = np.array([values[q] for q, s in files["strata"].items() if s == stratum])
        if difference:
            x = (x + 1) / 2
        n, m, s2 = len(x), x.mean(), x.var(ddof=1)
        if difference:
            discrete = np.isin(x, [0.0, 0.5, 1.0]).mean()
            c = 1.0 * (1.0 if s2 == 0 else discrete)
            phi = (n * (s2 / (m * (1 - m)) if 0 < m < 1 else 1.0) + c) / (n + c)
        else:
            phi = 1.0  # 0/1 values: Wilson's own binomial variance
        r = (x.sum() + z * z / 2) / (n + z * z)
        term = share**2 * phi * r * (1 - r) / n
        mean += share * m
        centre += share * r
        var += term
        den += term**2 / (n - 1)
    n_eff = centre * (1 - centre) / var
    q = stats.t.ppf(0.975, np.floor(var**2 / den * 10) / 10)
    mid = (mean + q * q / (2 * n_eff)) / (1 + q * q / n_eff)
    half = q / (1 + q * q / n_eff) * np.sqrt(mean * (1 - mean) / n_eff + q * q / (4 * n_eff**2))
    lo, hi = max(0.0, mid - half), min(1.0, mid + half)
    if difference:
        return 2 * mean - 1, 2 * lo - 1, 2 * hi - 1
    return mean, lo, hi


def _check_issue_10_statistics(files: dict, d: dict, bm25: dict, dense: dict, fused: dict) -> None:
    from statsmodels.stats.contingency_tables import mcnemar
    from statsmodels.stats.multitest import multipletests

    # The traffic-weighted headline's interval, and the weighted paired difference.
    mean, lo, hi = _stratified_by_hand(bm25, files)
    assert d["overall"]["bm25"]["weighted_mean"] == pytest.approx(mean)
    assert d["overall"]["bm25"]["weighted_ci95"] == pytest.approx([lo, hi], abs=1e-9)
    # The paired difference of a 0/1 measure: each stratum's Tango interval, combined by MOVER.
    diff = {q: bm25[q] - dense[q] for q in bm25}
    cells = []
    for stratum, share in files["shares"].items():
        x = [diff[q] for q, s in files["strata"].items() if s == stratum]
        cells.append((share, len(x), sum(v > 0 for v in x), sum(v < 0 for v in x)))
    mean, lo, hi = weighted_tango_by_hand(cells)
    bd = next(p for p in d["paired"] if (p["a"], p["b"]) == ("bm25", "dense"))
    assert bd["weighted_mean_diff"] == pytest.approx(mean)
    assert bd["weighted_ci95"] == pytest.approx([lo, hi], abs=1e-9)
    # Holm over the three pairs (bm25, dense and their fusion), against statsmodels.
    raw = [p["p_value"] for p in d["paired"]]
    assert [p["p_adjusted"] for p in d["paired"]] == pytest.approx(
        list(multipletests(raw, method="holm")[1])
    )
    assert d["paired_note"] and "not independent" in d["paired_note"]
    # Per stratum: exact McNemar on ir_measures' per-query hits, against statsmodels.
    systems = {"bm25": bm25, "dense": dense, "rrf": fused}
    by = d["paired_by_stratum"]
    assert len(by) == 6 * 3 and {r["test"] for r in by} == {"mcnemar-exact"}
    for r in by:
        qs = [q for q, s in files["strata"].items() if s == r["stratum"]]
        a, b = systems[r["a"]], systems[r["b"]]
        only_a = sum(1 for q in qs if a[q] == 1 and b[q] == 0)
        only_b = sum(1 for q in qs if a[q] == 0 and b[q] == 1)
        both = sum(1 for q in qs if a[q] == 1 and b[q] == 1)
        table = [[both, only_a], [only_b, len(qs) - both - only_a - only_b]]
        assert (r["n"], r["only_a"], r["only_b"]) == (len(qs), only_a, only_b)
        assert r["p_value"] == pytest.approx(mcnemar(table, exact=True).pvalue)
    for stratum in files["shares"]:
        rows = [r for r in by if r["stratum"] == stratum]
        adjusted = multipletests([r["p_value"] for r in rows], method="holm")[1]
        assert [r["p_adjusted"] for r in rows] == pytest.approx(list(adjusted))
    # The worked example's negation row (8 and 7 hits of 18): the set cannot tell bm25 and dense
    # apart.
    neg = next(
        r for r in by if r["stratum"] == "negation" and (r["a"], r["b"]) == ("bm25", "dense")
    )
    assert neg["p_adjusted"] > 0.05
    # Unjudged bounds: bm25's top 10 is fully judged; dense's unjudged top-10 documents counted
    # relevant turn every query with one into a hit (Success@10), counted by hand.
    bounds = d["unjudged_bounds"]
    assert bounds["bm25"]["unjudged"] == 0
    assert bounds["bm25"]["unjudged_as_relevant"] == bounds["bm25"]["unjudged_as_nonrelevant"]
    holes = {
        q: [doc for doc in docs[:K] if doc not in files["qrels"][q]]
        for q, docs in files["runs"]["dense"].items()
    }
    assert bounds["dense"]["unjudged"] == sum(len(h) for h in holes.values())
    as_relevant = sum(1 for q in dense if dense[q] == 1 or holes[q]) / 300
    assert bounds["dense"]["unjudged_as_relevant"] == pytest.approx(as_relevant)
    assert bounds["dense"]["unjudged_as_nonrelevant"] == pytest.approx(sum(dense.values()) / 300)


def test_headroom_is_null_for_a_measure_without_cutoff(files, capsys) -> None:
    code, out, _ = _report(files, capsys, "--measure", "AP", "--format", "json")
    assert code == 0
    d = json.loads(out)
    assert (
        set(d["fusion"]["rrf"])
        == {"mean", "headroom_collected", "best_single", "best_single_mean", "oracle"}
        and d["fusion"]["rrf"]["headroom_collected"] is None
    )
    code, md, _ = _report(files, capsys, "--measure", "AP")
    assert "AP has no cutoff" in md and "every document each run retrieved" in md


def test_markdown_and_csv(files, capsys) -> None:
    code, md, _ = _report(files, capsys)
    assert (
        code == 0
        and "| negation † | 18 | 8/18 · 0.444 [0.224, 0.687]" in md
        and "The table closes." in md
    )
    code, table, _ = _report(files, capsys, "--format", "csv")
    rows = list(csv.DictReader(table.splitlines()))
    assert rows[-1]["stratum"] == "ALL" and rows[-1]["hits"] in {
        "222",
        str(round(float(rows[-1]["mean"]) * 300)),
    }


def test_bad_inputs_are_one_line_exit_2(files, capsys, tmp_path) -> None:
    d = files["dir"]
    bad = tmp_path / "traffic.csv"
    bad.write_text("stratum,share\nnegation,lots\n")
    code, _, err = _report(files, capsys, "--traffic", str(bad))
    assert code == 2 and err.count("\n") == 1 and "traffic.csv:2" in err
    code = main(
        [
            "report",
            "--qrels",
            str(d / "qrels.txt"),
            "--run",
            f"x={d / 'bm25.run'}",
            "--run",
            f"x={d / 'dense.run'}",
            "--strata",
            str(d / "strata.csv"),
        ]
    )
    assert code == 2 and "given twice" in capsys.readouterr().err
    code = main(
        [
            "report",
            "--qrels",
            str(d / "qrels.txt"),
            "--run",
            f"x={d / 'bm25.run'}",
            "--strata",
            str(d / "strata.csv"),
            "--measure",
            "success@10",
        ]
    )
    assert code == 2 and "did you mean" in capsys.readouterr().err
    code = main(
        [
            "report",
            "--qrels",
            str(d / "nope.txt"),
            "--run",
            f"x={d / 'bm25.run'}",
            "--strata",
            str(d / "strata.csv"),
        ]
    )
    assert code == 2 and "no such file" in capsys.readouterr().err


def test_qrels_without_relevant_documents(files, capsys, tmp_path) -> None:
    d = files["dir"]
    q = tmp_path / "zero.qrels"
    q.write_text("q001 0 x 0\n")
    code = main(
        [
            "report",
            "--qrels",
            str(q),
            "--run",
            f"x={d / 'bm25.run'}",
            "--strata",
            str(d / "strata.csv"),
        ]
    )
    assert code == 2 and "no query in the qrels has a relevant document" in capsys.readouterr().err


def test_runs_are_named_as_eval_names_them(files, capsys) -> None:
    d = files["dir"]
    code = main(
        [
            "report",
            "--qrels",
            str(d / "qrels.txt"),
            "--run",
            str(d / "bm25.run"),
            "--run",
            str(d / "dense.run"),
            "--strata",
            str(d / "strata.csv"),
            "--samples",
            "50",
            "--format",
            "json",
        ]
    )
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and list(doc["overall"]) == [
        "bm25",
        "dense",
        "rrf",
    ]  # the stem, as `goldset eval` -q shows
    assert main(["eval", str(d / "qrels.txt"), str(d / "bm25.run"), "--format", "json"]) == 0
    assert list(json.loads(capsys.readouterr().out)["runs"]) == ["bm25"]


def test_escapes_in_strata_never_reach_the_terminal(files, capsys, tmp_path) -> None:
    strata = tmp_path / "escs.csv"
    rows = [(q, "\x1b[31mred" if s == "negation" else s) for q, s in files["strata"].items()]
    strata.write_text("query_id,stratum\n" + "".join(f"{q},{s}\n" for q, s in rows))
    d = files["dir"]
    code = main(
        [
            "report",
            "--qrels",
            str(d / "qrels.txt"),
            "--run",
            f"bm25={d / 'bm25.run'}",
            "--run",
            f"dense={d / 'dense.run'}",
            "--strata",
            str(strata),
            "--samples",
            "50",
        ]
    )
    out = capsys.readouterr()
    assert code == 0
    # The stratum has 18 queries: named in the small-strata warning (stderr) and the table (stdout).
    assert "\u241b[31mred" in out.err and "| \u241b\\[31mred † | 18 |" in out.out
    assert "\x1b" not in out.out and "\x1b" not in out.err


def test_bad_output_folder_is_refused_before_the_report(files, capsys, tmp_path) -> None:
    taken = tmp_path / "ro.txt"
    taken.write_text("x\n")
    for out in (taken, taken / "sub"):
        code, stdout, err = _report(files, capsys, "-o", str(out))
        assert code == 2 and stdout == "" and err.count("\n") == 1 and str(out) in err
