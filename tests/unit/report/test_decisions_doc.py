"""docs/report.md's "Decisions" section: every key of the JSON block is in its table (and every
row of the table is a key), and the worked example's figures are the ones the code gives."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from goldset_tui.decisions.of_report import report_decisions
from goldset_tui.decisions.routing import Routing
from goldset_tui.report.assemble import assemble_report

from .decisions_worked import frames, now_shares, traffic

PAGE = Path(__file__).resolve().parents[3] / "docs" / "report.md"
# Dicts keyed by data (strata, runs), not by documented names.
DATA_KEYED = {"routing.rules", "routing.routes", "precision[].misfiled_from", "traffic_now.shares"}


def section() -> str:
    text = PAGE.read_text(encoding="utf-8")
    start = text.index("## Decisions: route, fuse or keep both")
    return text[start : text.index("\n## ", start + 1)]


def documented() -> set[str]:
    table = section().split("### The `decisions` keys", 1)[1]
    keys: set[str] = set()
    for line in table.splitlines():
        if line.startswith("| `"):
            keys.update(re.findall(r"`([a-z_\[\].0-9]+)`", line.split("|")[1]))
    return keys


def paths(value: Any, prefix: str = "", leaves: bool = False) -> set[str]:
    """Every key's path (``options[].strata[].mean``); with ``leaves``, only those holding a
    value, a data-keyed dict or a list of plain values (a parent is documented by its keys)."""
    out: set[str] = set()
    if isinstance(value, dict):
        for k, v in value.items():
            path = f"{prefix}.{k}" if prefix else k
            parent = path not in DATA_KEYED and (
                (isinstance(v, dict) and v)
                or (isinstance(v, list) and any(isinstance(i, dict) for i in v))
            )
            if not (leaves and parent):
                out.add(path)
            if path not in DATA_KEYED:
                out |= paths(v, path, leaves)
    elif isinstance(value, list):
        for item in value:
            out |= paths(item, f"{prefix}[]", leaves)
    return out


def block(now: bool = True, shares=None, **kw):
    scores, strata = frames()
    report = assemble_report(
        scores, strata, metric="Success@10", traffic=traffic(shares), fused="rrf", samples=20
    )
    return report_decisions(
        report,
        routing=kw.pop("routing", Routing({"exact_identifier": "bm25"}, "dense")),
        now=now_shares() if now else None,
        **kw,
    )


def test_every_key_is_documented_and_every_documented_key_exists() -> None:
    jsons = [
        block(precision={"exact_identifier": 0.97}).to_json(),
        block(confusion={"exact_identifier": {"exact_identifier": 9, "x": 1}}).to_json(),
    ]
    leaves = set().union(*(paths(j, leaves=True) for j in jsons))
    every = set().union(*(paths(j) for j in jsons))
    doc = documented()
    assert sorted(leaves - doc) == []
    assert sorted(doc - every) == []


def test_the_worked_example_quotes_the_codes_figures() -> None:
    text = section()
    b = block(precision={"exact_identifier": 0.97})
    row = {r["stratum"]: r for r in b.option("routed_with_errors")["strata"]}
    figures = [
        f"{b.option('routed')['overall']['weighted_mean']:.3f}",
        f"{block(routing=Routing(best_per_stratum=True)).option('routed')['overall']['weighted_mean']:.3f}",
        f"{row['exact_identifier']['route_mean']:.3f}",
        f"{b.option('routed_with_errors')['overall']['weighted_mean']:.4f}",
        f"{sum(f['headline_points_lost'] for f in b.misrouting.flows) * 1000:.2f} searches in 1000",
        f"+{b.option('rrf')['vs_baseline']['gained_per_n']:.1f} and "
        f"-{b.option('rrf')['vs_baseline']['lost_per_n']:.1f} per 1000",
        f"{b.option('oracle')['overall']['weighted_mean']:.3f}",
    ]
    pair = b.traffic_now["pairs"][0]
    ident = next(r for r in pair["strata"] if r["stratum"] == "exact_identifier")
    figures += [
        f"{ident['contribution']:.3f}",
        f"{pair['gap_now']:+.3f}** [{pair['ci95_now'][0]:.3f}, {pair['ci95_now'][1]:.3f}]",
    ]
    spot = block(confusion={"exact_identifier": {"exact_identifier": 97, "paraphrase": 3}})
    spot_rows = {r["stratum"]: r for r in spot.option("routed_with_errors")["strata"]}
    figures.append(f"{spot_rows['exact_identifier']['route_mean']:.3f}")
    moved = {
        r["stratum"]: r for r in block(now=False, shares=now_shares()).sensitivity[0]["strata"]
    }
    figures += [
        f"{moved['paraphrase']['reversing_share']:.3f}**, a move of {moved['paraphrase']['move']:+.3f}",
        f"{moved['exact_identifier']['reversing_share']:.3f}",
    ]
    for figure in figures:
        assert figure in text, figure


@pytest.mark.parametrize("key", ["set_queries", "route_mean", "reversing_share", "contribution"])
def test_the_key_names_the_text_uses_are_real(key: str) -> None:
    assert f"`{key}`" in section()
