"""The decision block against hand arithmetic: the worked example of docs/report.md's
"Decisions" (two retrievers on 300 queries, the traffic at the set's proportions). Every figure
is recomputed here from the table's counts with fractions, not read back from the code."""

from __future__ import annotations

import json
from fractions import Fraction as F

import polars as pl
import pytest

from goldset_tui.decisions.of_report import report_decisions
from goldset_tui.decisions.routing import Routing
from goldset_tui.report.assemble import assemble_report

from .decisions_worked import EXACT, FUSED_HITS, frames, now_shares, traffic
from .worked_examples import TWO_RETRIEVERS

N = {s: v[0] for s, v in TWO_RETRIEVERS.items()}
BM25 = {s: v[1] for s, v in TWO_RETRIEVERS.items()}
DENSE = {s: v[2] for s, v in TWO_RETRIEVERS.items()}
OTHERS = [s for s in N if s != "exact_identifier"]
RULES = Routing({"exact_identifier": "bm25"}, "dense")


def report(shares: dict[str, float] | None = None):
    scores, strata = frames()
    return assemble_report(
        scores, strata, metric="Success@10", traffic=traffic(shares), fused="rrf", samples=20
    )


def option(block, name):
    return block.option(name)


def row(block, name, stratum):
    return next(r for r in option(block, name)["strata"] if r["stratum"] == stratum)


def test_routing_identifiers_to_bm25_and_the_rest_to_dense_by_hand() -> None:
    block = report_decisions(report(), routing=RULES)
    # 51 + 48 + 18 + 80 + 36 + 7 = 240 of 300, and the shares are the set's proportions.
    hits = BM25["exact_identifier"] + sum(DENSE[s] for s in OTHERS)
    assert hits == 240
    assert option(block, "routed")["overall"]["weighted_mean"] == pytest.approx(240 / 300)
    assert row(block, "routed", "exact_identifier")["mean"] == pytest.approx(51 / 54)
    assert row(block, "routed", "paraphrase")["hits"] == 80


def test_best_per_stratum_by_hand() -> None:
    block = report_decisions(report(), routing=Routing(best_per_stratum=True))
    # bm25 51>33, 53>48, 9<18, 65<80, 36=36 (a tie goes to the first run given), 8>7.
    assert block.routes == {
        "exact_identifier": "bm25",
        "short_keyword": "bm25",
        "misspelled": "dense",
        "paraphrase": "dense",
        "multi_entity": "bm25",
        "negation": "bm25",
    }
    assert option(block, "routed")["overall"]["weighted_mean"] == pytest.approx(
        (51 + 53 + 18 + 80 + 36 + 8) / 300
    )


def test_precision_097_with_the_misfiled_from_the_other_strata_by_traffic() -> None:
    block = report_decisions(report(), routing=RULES, precision={"exact_identifier": 0.97})
    p = F(97, 100)
    # The misfiled 3% come from the other strata by traffic share (n / 300 here), so bm25's mean
    # over them is its hits there over their queries: 171 of 246.
    bm25_others = F(sum(BM25[s] for s in OTHERS), sum(N[s] for s in OTHERS))
    assert bm25_others == F(171, 246)
    route = p * F(51, 54) + (1 - p) * bm25_others
    got = row(block, "routed_with_errors", "exact_identifier")
    assert got["route_mean"] == pytest.approx(float(route), abs=1e-12)
    assert 0.93 < got["route_mean"] < 0.94  # "a little over ninety-three percent"
    lo, hi = got["route_ci95"]
    assert lo < got["route_mean"] < hi
    # Overall: the routed headline less the misfiled traffic times what each such query loses
    # (dense's mean on the other strata minus bm25's there: 189 - 171 hits of 246).
    misfiled = EXACT["exact_identifier"] * (1 - p) / p
    dense_others = F(sum(DENSE[s] for s in OTHERS), 246)
    overall = F(240, 300) - misfiled * (dense_others - bm25_others)
    total = option(block, "routed_with_errors")["overall"]
    assert total["weighted_mean"] == pytest.approx(float(overall), abs=1e-12)
    assert total["weighted_ci95"][0] < total["weighted_mean"] < total["weighted_ci95"][1]
    lost = sum(f["headline_points_lost"] for f in block.misrouting.flows)
    assert lost == pytest.approx(float(misfiled * (dense_others - bm25_others)), abs=1e-12)
    assert block.misrouting.misfiled["exact_identifier"] == pytest.approx(float(misfiled))


def test_precision_097_with_the_misfiled_from_paraphrase_as_a_spot_check_says() -> None:
    # The seed's "they arrive at a ranker scoring 0.68": every misfiled query a paraphrase one.
    confusion = {"exact_identifier": {"exact_identifier": 97, "paraphrase": 3}}
    block = report_decisions(report(), routing=RULES, confusion=confusion)
    p = F(97, 100)
    route = p * F(51, 54) + (1 - p) * F(65, 96)
    got = row(block, "routed_with_errors", "exact_identifier")
    assert got["route_mean"] == pytest.approx(float(route), abs=1e-12)
    (given,) = [x for x in block.precision if x.stratum == "exact_identifier"]
    assert (given.source, given.checked, given.agree) == ("spot-check", 100, 97)
    assert given.destinations == {"paraphrase": 1.0}
    # Paraphrase's users: a share of them served by bm25 (65 of 96) instead of dense (80).
    f = EXACT["exact_identifier"] * (1 - p) / p / EXACT["paraphrase"]
    users = (1 - f) * F(80, 96) + f * F(65, 96)
    assert row(block, "routed_with_errors", "paraphrase")["mean"] == pytest.approx(float(users))


def test_fused_rows_in_queries_losing_two_to_gain_eighteen() -> None:
    block = report_decisions(report(), routing=RULES)
    assert block.baseline == "bm25"  # tied with dense at 222: the first run given
    fused = option(block, "rrf")
    assert fused["overall"]["weighted_mean"] == pytest.approx(258 / 300)  # 0.86
    vs = {r["stratum"]: r for r in fused["vs_baseline"]["strata"]}
    # Three points on 54 queries is two queries; eighteen points on 96 is eighteen.
    assert vs["exact_identifier"]["set_queries"] == pytest.approx(49 - 51)
    assert vs["paraphrase"]["set_queries"] == pytest.approx(83 - 65)
    assert vs["exact_identifier"]["points"] == pytest.approx(-2 / 54)
    # Per 1000 searches, with shares n / 300: the hit difference over 300, times 1000.
    assert vs["exact_identifier"]["per_n"] == pytest.approx(-2 / 300 * 1000)
    assert vs["paraphrase"]["per_n"] == pytest.approx(18 / 300 * 1000)
    gained = sum(FUSED_HITS[s] - BM25[s] for s in N if FUSED_HITS[s] > BM25[s])
    lost = sum(BM25[s] - FUSED_HITS[s] for s in N if FUSED_HITS[s] < BM25[s])
    assert (gained, lost) == (38, 2)
    assert fused["vs_baseline"]["gained_per_n"] == pytest.approx(gained / 300 * 1000)
    assert fused["vs_baseline"]["lost_per_n"] == pytest.approx(lost / 300 * 1000)
    assert fused["vs_baseline"]["points"] == pytest.approx(0.86 - 0.74)
    oracle = option(block, "oracle")["overall"]["weighted_mean"]
    assert oracle == pytest.approx(1 - 31 / 300)  # 0.897


def test_eighteen_to_forty_five_percent_shifts_the_gap_nine_points_from_one_row() -> None:
    block = report_decisions(report(), routing=RULES, now=now_shares())
    (pair,) = block.traffic_now["pairs"]
    assert (pair["a"], pair["b"], pair["gap"]) == ("bm25", "dense", 0.0)  # 222 each
    rows = {r["stratum"]: r for r in pair["strata"]}
    d = F(51 - 33, 54)  # bm25 leads by 0.333 on identifiers
    assert rows["exact_identifier"]["contribution"] == pytest.approx(
        float((F(45, 100) - F(18, 100)) * d)
    )
    assert rows["exact_identifier"]["contribution"] == pytest.approx(0.09)  # nine points
    # The whole gap under the new shares: 45% x 1/3 plus the others' 55%, split among them by
    # their old proportions (n / 246), times their gap (171 - 189 hits over 246).
    gap_now = F(45, 100) * d + F(55, 100) * F(171 - 189, 246)
    assert pair["gap_now"] == pytest.approx(float(gap_now))
    assert pair["shift"] == pytest.approx(sum(r["contribution"] for r in pair["strata"]))
    assert pair["reversed"] is False  # from a tie, not a reversal
    assert pair["ci95_now"][0] < pair["gap_now"] < pair["ci95_now"][1]


def test_the_share_that_reverses_the_gap_by_hand() -> None:
    now = now_shares()
    block = report_decisions(report(now), routing=RULES)
    (pair,) = block.sensitivity
    rows = {r["stratum"]: r for r in pair["strata"]}
    w = {s: F(45, 100) if s == "exact_identifier" else F(55, 100) * F(N[s], 246) for s in N}
    d = {s: F(BM25[s] - DENSE[s], N[s]) for s in N}
    gap = sum(w[s] * d[s] for s in N)
    assert pair["gap"] == pytest.approx(float(gap))
    for s in ("paraphrase", "exact_identifier", "misspelled"):
        others = (gap - w[s] * d[s]) / (1 - w[s])
        star = others / (others - d[s])
        assert rows[s]["reversing_share"] == pytest.approx(float(star)), s
        # Independently: re-weigh with the stratum at w* and the others rescaled: the gap is 0.
        rest = {t: w[t] * (1 - star) / (1 - w[s]) for t in N if t != s}
        assert star * d[s] + sum(rest[t] * d[t] for t in rest) == 0
    # Back at 18% the identifier row ties the two again: the example's own table.
    assert rows["exact_identifier"]["reversing_share"] == pytest.approx(0.18)
    # Multi-entity ties (36 each) and the others lean to bm25: no share of it reverses anything.
    assert rows["multi_entity"]["reversing_share"] is None


def test_the_block_is_in_the_report_json_with_every_option() -> None:
    from goldset_tui.report.format import to_dict

    d = json.loads(json.dumps(to_dict(report())))
    names = [o["name"] for o in d["decisions"]["options"]]
    assert names == ["bm25", "dense", "rrf", "routed", "routed_with_errors", "oracle"]
    assert d["decisions"]["routing"]["best_per_stratum"] is True
    no_traffic = assemble_report(*frames(), metric="Success@10", fused="rrf", samples=20)
    assert to_dict(no_traffic)["decisions"] is None


def test_a_system_alone_carries_the_reports_own_weighted_headline() -> None:
    r = report()
    block = report_decisions(r, routing=RULES)
    for name in ("bm25", "dense", "rrf"):
        total = option(block, name)["overall"]
        assert total["weighted_mean"] == pytest.approx(r.weighted[name])
        assert total["weighted_ci95"] == pytest.approx(list(r.weighted_ci[name]))
    # The routed run's interval is what the report gives a run built by hand from the rules.
    scores, strata = frames()
    wide = scores.pivot(on="system", index="query_id", values="value").join(strata, on="query_id")
    by_hand = wide.select(
        pl.lit("byhand").alias("system"),
        "query_id",
        value=pl.when(pl.col("stratum") == "exact_identifier")
        .then(pl.col("bm25"))
        .otherwise(pl.col("dense")),
    )
    alone = assemble_report(by_hand, strata, metric="Success@10", traffic=traffic(), samples=20)
    total = option(block, "routed")["overall"]
    assert total["weighted_ci95"] == pytest.approx(list(alone.weighted_ci["byhand"]))


def test_notes_say_what_the_figures_lean_on() -> None:
    short = {s: v * 0.9 for s, v in now_shares().items()}
    confusion = {"exact_identifier": {"exact_identifier": 97, "paraphrase": 3}}
    notes = report_decisions(report(), routing=RULES, now=short, confusion=confusion).notes
    assert any("sum to 0.9000" in n for n in notes)
    assert any("per distinct query" in n and "exact_identifier" in n for n in notes)
    best = report_decisions(report(), routing=Routing(best_per_stratum=True)).notes
    assert any("flatters itself" in n for n in best)
    assert any("assumed never wrong" in n for n in best)


def test_a_stratum_without_a_share_is_left_out_and_said() -> None:
    shares = {s: v for s, v in now_shares().items() if s != "negation"}
    block = report_decisions(report(shares), routing=RULES)
    assert "negation" not in block.strata
    assert all(len(o["strata"]) == 5 for o in block.options)
    assert any("without a traffic share" in n and "negation" in n for n in block.notes)
