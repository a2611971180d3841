"""The decision block's model beyond the worked example: three systems (a misfiled query whose
own stratum goes to the same system costs nothing), precisions that cannot hold, the spot-check's
confusion read from its journal and its JSON, and the bad input of `goldset route` on one line."""

from __future__ import annotations

import json
from fractions import Fraction as F
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.app.route import read_confusion
from goldset_tui.decisions.block import decision_block
from goldset_tui.decisions.router_error import parse_precision, precisions
from goldset_tui.decisions.routing import Routing, parse_pairs
from goldset_tui.decisions.sensitivity import reversing_share
from goldset_tui.errors import InputError


def three_systems() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Strata a, b, c of 10 queries; x hits 9/2/6 of them, y 3/8/5, z 1/1/1."""
    hits = {
        "a": {"x": 9, "y": 3, "z": 1},
        "b": {"x": 2, "y": 8, "z": 1},
        "c": {"x": 6, "y": 5, "z": 1},
    }
    rows, strata = [], []
    for stratum, by in hits.items():
        for i in range(10):
            q = f"{stratum}{i}"
            strata.append((q, stratum))
            rows += [(s, q, 1.0 if i < h else 0.0) for s, h in by.items()]
    return (
        pl.DataFrame(rows, schema=["system", "query_id", "value"], orient="row"),
        pl.DataFrame(strata, schema=["query_id", "stratum"], orient="row"),
    )


SHARES = {"a": 0.5, "b": 0.3, "c": 0.2}


ROUTES = Routing({"a": "x", "b": "y", "c": "x"})


def block(precision, routing=ROUTES):
    scores, strata = three_systems()
    return decision_block(
        scores,
        strata,
        SHARES,
        metric="Success@10",
        estimand="e",
        systems=["x", "y", "z"],
        fused=None,
        routing=routing,
        precision=precision,
        table_method="wilson-cc",
        binary=True,
        bounded=True,
    )


def test_a_misfiled_query_whose_stratum_goes_to_the_same_system_costs_nothing() -> None:
    # a's route (x) takes misfiled queries from c only, which x serves anyway.
    given = precisions(["a", "b", "c"], SHARES, {"a": 0.9}, {"a": {"a": 9, "c": 1}})
    b = block(given)
    routed = b.option("routed")["overall"]["weighted_mean"]
    with_errors = b.option("routed_with_errors")["overall"]["weighted_mean"]
    assert routed == pytest.approx(0.5 * 0.9 + 0.3 * 0.8 + 0.2 * 0.6)
    assert with_errors == pytest.approx(routed)
    (flow,) = b.misrouting.flows
    assert (flow["served_by"], flow["instead_of"], flow["points_lost"]) == ("x", "x", 0.0)
    # The route's own mean mixes x on a and x on c: 0.9 x 0.9 + 0.1 x 0.6.
    route = next(r for r in b.option("routed_with_errors")["strata"] if r["stratum"] == "a")
    assert route["route_mean"] == pytest.approx(0.9 * 0.9 + 0.1 * 0.6)


def test_with_three_systems_the_other_system_is_the_one_of_the_route_filed_under() -> None:
    # b's route (y) takes misfiled queries from a and c by traffic share (0.5 : 0.2), each then
    # served by y instead of x.
    given = precisions(["a", "b", "c"], SHARES, {"b": 0.8})
    b = block(given)
    p, w = F(8, 10), {"a": F(1, 2), "b": F(3, 10), "c": F(1, 5)}
    misfiled = w["b"] * (1 - p) / p
    from_a, from_c = misfiled * F(5, 7), misfiled * F(2, 7)
    loss = from_a * (F(9, 10) - F(3, 10)) + from_c * (F(6, 10) - F(5, 10))
    routed = w["a"] * F(9, 10) + w["b"] * F(8, 10) + w["c"] * F(6, 10)
    got = b.option("routed_with_errors")["overall"]["weighted_mean"]
    assert got == pytest.approx(float(routed - loss), abs=1e-12)
    assert {(f["from_stratum"], f["served_by"], f["instead_of"]) for f in b.misrouting.flows} == {
        ("a", "y", "x"),
        ("c", "y", "x"),
    }


def test_a_route_with_no_error_reads_as_the_routed_stratum() -> None:
    b = block(precisions(["a", "b", "c"], SHARES, {}))
    for r, perfect in zip(
        b.option("routed_with_errors")["strata"], b.option("routed")["strata"], strict=True
    ):
        assert r["mean"] == pytest.approx(perfect["mean"])
        assert r["route_mean"] == pytest.approx(perfect["mean"])
    assert not b.misrouting.flows


def test_precisions_too_low_for_the_shares_are_refused() -> None:
    # a's route would need 0.5 x 0.8 / 0.2 = 2.0 of the traffic from b and c, which hold 0.5.
    with pytest.raises(InputError, match="too low"):
        block(precisions(["a", "b", "c"], SHARES, {"a": 0.2}))


def test_the_spot_check_confusion_keeps_the_golden_sets_strata() -> None:
    (a, *_rest) = precisions(["a", "b"], {"a": 0.5, "b": 0.5}, {}, {"a": {"a": 8, "b": 1, "zz": 1}})
    assert a.precision == pytest.approx(0.8)
    assert a.destinations == {"b": 1.0}
    assert a.dropped == ["zz"]


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (["a=1.2"], "lies in"),
        (["a=0"], "lies in"),
        (["a=x"], "not a number"),
        (["a"], "STRATUM=VALUE"),
        (["a=0.9", "a=0.8"], "twice"),
    ],
)
def test_bad_precisions_are_one_line(items: list[str], message: str) -> None:
    with pytest.raises(InputError, match=message) as err:
        parse_precision(parse_pairs(items, "--precision"))
    assert "\n" not in str(err.value)
    assert parse_precision({"a": "97%"}) == {"a": pytest.approx(0.97)}


def test_unrouted_and_unknown_names_are_one_line() -> None:
    with pytest.raises(InputError, match="has no route"):
        block(precisions(["a", "b", "c"], SHARES, {}), Routing({"a": "x"}))
    with pytest.raises(InputError, match="no run named"):
        block(precisions(["a", "b", "c"], SHARES, {}), Routing({"a": "w"}, "x"))


def test_reversing_share_ends() -> None:
    # Reaching 0 only at an end is a tie, not a reversal; a tie is decided by any move.
    assert reversing_share(0.2, 0.0, 0.1)["reversing_share"] is None
    assert reversing_share(0.2, 0.5, 0.0)["move"] == 0.0
    r = reversing_share(0.5, -0.2, 0.1)  # others +0.4: reverses at 0.4 / 0.6 = 2/3
    assert r["reversing_share"] == pytest.approx(2 / 3)


def test_read_confusion_from_spotchecks_journal_and_json(tmp_path: Path) -> None:
    from goldset_tui.sampling.spotcheck import SpotCheckSession

    items = pl.DataFrame({"query": ["ERR_1", "fix it", "ERR_2"], "stratum": ["ident"] * 3})
    journal = tmp_path / "spotcheck" / "ana.jsonl"
    session = SpotCheckSession.open(items, ["ident", "para"], journal, "ana")
    session.agree()
    session.answer("para")
    session.agree()
    session.close()
    assert read_confusion(journal) == {"ident": {"ident": 2, "para": 1}}
    printed = tmp_path / "check.json"
    printed.write_text(json.dumps({"confusion": {"ident": {"ident": 2, "para": 1}}}))
    assert read_confusion(printed) == {"ident": {"ident": 2, "para": 1}}
    printed.write_text(json.dumps({"confusion": {"ident": {"ident": -1}}}))
    with pytest.raises(InputError) as err:
        read_confusion(printed)
    assert err.value.path == printed and err.value.column == "confusion"
