"""Every figure `goldset drift` computes, against statsmodels or a hand calculation: the share
change's Newcombe interval, its z-test and Holm's adjustment; the headline under old and new
shares (the 18% -> 45% identifier stratum of docs/drift.md moves the gap by 0.27 x 0.33); the
plan re-run under the new shares."""

from __future__ import annotations

import math

import polars as pl
import pytest
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import confint_proportions_2indep, proportions_ztest

from goldset_tui.drift.headline import reweigh
from goldset_tui.drift.replan import replan
from goldset_tui.drift.shares import newcombe_difference, share_changes, two_proportion_p
from goldset_tui.sampling.sample import stratum_counts


@pytest.mark.parametrize(
    ("b", "nb", "a", "na"),
    [(45, 100, 18, 100), (0, 50, 3, 80), (22, 100, 22, 100), (900, 214_000, 1_200, 180_000)],
)
def test_newcombe_interval_and_z_test_match_statsmodels(b: int, nb: int, a: int, na: int) -> None:
    lo, hi = newcombe_difference(b, nb, a, na)
    ref = confint_proportions_2indep(b, nb, a, na, method="newcomb", compare="diff")
    assert lo == pytest.approx(float(ref[0]), abs=1e-12)
    assert hi == pytest.approx(float(ref[1]), abs=1e-12)
    if b == a and nb == na:
        assert two_proportion_p(b, nb, a, na) == 1.0
    else:
        _, p = proportions_ztest([b, a], [nb, na])
        assert two_proportion_p(b, nb, a, na) == pytest.approx(float(p), rel=1e-9)


def test_share_changes_by_hand_and_holm_as_statsmodels() -> None:
    old = {"exact_identifier": 18, "negation": 60, "paraphrase": 22}
    new = {"exact_identifier": 45, "negation": 33, "paraphrase": 22, "new_kind": 0}
    rows = share_changes(old, new)
    assert [r.stratum for r in rows] == ["exact_identifier", "negation", "paraphrase", "new_kind"]
    ident = rows[0]
    assert (ident.old_share, ident.new_share) == (0.18, 0.45)
    assert ident.change == pytest.approx(0.27)
    # By hand: Wilson for 45/100 is [0.3561, 0.5476], for 18/100 [0.1169, 0.2666];
    # 0.27 - sqrt(0.0939^2 + 0.0866^2) = 0.1422 and 0.27 + sqrt(0.0976^2 + 0.0631^2) = 0.3861.
    assert ident.ci95 == pytest.approx((0.1422, 0.3861), abs=5e-4)
    ps = [r.p_value for r in rows]
    assert math.isnan(ps[3]) is False  # 0 of 100 then and 0 now: no change, p = 1
    held = multipletests(ps, method="holm")[1]
    assert [r.p_holm for r in rows] == pytest.approx(list(held), rel=1e-9)


def _scores(
    per_stratum: dict[str, dict[str, tuple[int, int]]],
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """stratum -> system -> (hits, n): 0/1 scores for queries named stratum:i."""
    rows, strata = [], []
    for stratum, systems in per_stratum.items():
        for system, (hits, n) in systems.items():
            for i in range(n):
                rows.append((system, f"{stratum}:{i}", 1.0 if i < hits else 0.0))
        n = next(iter(systems.values()))[1]
        strata += [(f"{stratum}:{i}", stratum) for i in range(n)]
    return (
        pl.DataFrame(rows, schema=["system", "query_id", "value"], orient="row"),
        pl.DataFrame(strata, schema=["query_id", "stratum"], orient="row"),
    )


def test_the_identifier_stratum_moving_from_18_to_45_moves_the_gap_nine_points() -> None:
    # The identifier row: BM25 51 of 54 (0.94), dense 33 of 54 (0.61); everything else a tie.
    scores, strata = _scores(
        {
            "exact_identifier": {"bm25": (51, 54), "dense": (33, 54)},
            "rest": {"bm25": (171, 246), "dense": (171, 246)},
        }
    )
    r = reweigh(
        scores,
        strata,
        {"exact_identifier": 0.18, "rest": 0.82},
        {"exact_identifier": 0.45, "rest": 0.55},
        binary=True,
    )
    (pair,) = r.pairs
    gap = 51 / 54 - 33 / 54  # 0.333
    assert pair["change"] == pytest.approx(0.27 * gap)  # 0.09: "roughly nine points"
    assert pair["by_stratum"]["exact_identifier"] == pytest.approx(0.27 * gap)
    assert pair["by_stratum"]["rest"] == pytest.approx(0.0)
    assert pair["gap_old"] == pytest.approx(0.18 * gap)
    lo, hi = pair["gap_new_ci95"]
    assert lo < pair["gap_new"] < hi


def test_the_worked_example_flips_the_winner() -> None:
    # docs/drift.md: three queries a stratum; bm25 3/2/1 hits, dense 2/3/1.
    scores, strata = _scores(
        {
            "exact_identifier": {"bm25": (3, 3), "dense": (2, 3)},
            "paraphrase": {"bm25": (2, 3), "dense": (3, 3)},
            "negation": {"bm25": (1, 3), "dense": (1, 3)},
        }
    )
    old = {"exact_identifier": 0.18, "paraphrase": 0.22, "negation": 0.60}
    new = {"exact_identifier": 0.45, "paraphrase": 0.22, "negation": 0.33}
    r = reweigh(scores, strata, old, new, binary=True)
    # bm25: 0.18 x 1 + 0.22 x 2/3 + 0.60 x 1/3 = 0.5267; dense: 0.18 x 2/3 + 0.22 + 0.20 = 0.54.
    assert r.systems["bm25"]["old"] == pytest.approx(0.18 + 0.22 * 2 / 3 + 0.60 / 3)
    assert r.systems["dense"]["old"] == pytest.approx(0.12 + 0.22 + 0.20)
    # Under the new shares: bm25 0.45 + 0.1467 + 0.11 = 0.7067; dense 0.30 + 0.22 + 0.11 = 0.63.
    assert r.systems["bm25"]["new"] == pytest.approx(0.45 + 0.22 * 2 / 3 + 0.11)
    assert r.systems["dense"]["new"] == pytest.approx(0.30 + 0.22 + 0.11)
    assert (r.winner_old, r.winner_new, r.winner_flips) == (["dense"], ["bm25"], True)
    (pair,) = r.pairs
    assert pair["flips"] is True
    assert pair["gap_old"] == pytest.approx(-0.04 / 3)
    assert pair["gap_new"] == pytest.approx(0.23 / 3)
    assert r.covered == pytest.approx({"old": 1.0, "new": 1.0})
    assert r.to_json()["winner"] == {"old": ["dense"], "new": ["bm25"], "flips": True}


def _counts(per: dict[str, list[int]]) -> pl.DataFrame:
    rows = [(f"{s}{i}", c, s) for s, cs in per.items() for i, c in enumerate(cs)]
    return stratum_counts(pl.DataFrame(rows, schema=["query", "count", "stratum"], orient="row"))


def test_the_plan_rerun_under_the_new_shares_by_hand() -> None:
    old = _counts(
        {
            "exact_identifier": [6, 5, 4, 3],
            "paraphrase": [7, 6, 5, 4],
            "negation": [18, 16, 14, 12],
        }
    )
    new = _counts(
        {
            "exact_identifier": [15, 12, 10, 8],
            "paraphrase": [7, 6, 5, 4],
            "negation": [10, 9, 8, 6],
        }
    )
    golden = {"exact_identifier": 3, "paraphrase": 3, "negation": 3}
    plan = replan(golden, old, new, min_per_stratum=1)
    by = {r["stratum"]: r for r in plan.rows}
    # Old: 9 x (0.18, 0.22, 0.60) = 1.62, 1.98, 5.4; negation capped at its 4 distinct queries,
    # the other 5 split 18:22 = 2.25, 2.75, rounded by largest remainder to 2 and 3.
    assert [by[s]["plan_old"] for s in golden] == [2, 3, 4]
    # New: 9 x 0.45 = 4.05 > 4, capped; 5 split 22:33 = 2 and 3 exactly.
    assert [by[s]["plan_new"] for s in golden] == [4, 2, 3]
    assert [by[s]["moved"] for s in golden] == [True, True, False]
    assert plan.matches is False

    # The weighted half-width: 1.96 sqrt(sum W^2 0.21 / 3 x (1 - 3/4)).
    def half(ws: list[float]) -> float:
        return 1.959964 * math.sqrt(sum(w * w * 0.21 / 3 * 0.25 for w in ws))

    assert plan.half_width_old == pytest.approx(half([0.18, 0.22, 0.60]), rel=1e-5)
    assert plan.half_width_new == pytest.approx(half([0.45, 0.22, 0.33]), rel=1e-5)
