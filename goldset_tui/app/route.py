"""`goldset route`: the report's decisions with a given routing, the router's precision (given,
or from a spot-check of the same labels) and, optionally, another log's traffic shares
(docs/report.md, "Decisions: route, fuse or keep both")."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from goldset_tui.errors import InputError

if TYPE_CHECKING:
    from goldset_tui.app.report import ReportInputs
    from goldset_tui.decisions.block import DecisionBlock
    from goldset_tui.report.model import Report


@dataclass(frozen=True)
class RouteRequest:
    """What `goldset route` was asked, as plain values: ``routes`` and ``precision`` as
    ``STRATUM=VALUE`` items, the spot-check's file, the second traffic file."""

    routes: list[str] = field(default_factory=list)
    default: str | None = None
    best_per_stratum: bool = False
    precision: list[str] = field(default_factory=list)
    spotcheck: Path | None = None
    baseline: str | None = None
    traffic_now: Path | None = None
    per: int = 1000


def read_confusion(path: Path) -> dict[str, dict[str, int]]:
    """The spot-check's confusion (stratum filed under -> stratum it belongs to -> count): from the
    labeller's journal `goldset spotcheck` keeps (``STORE/spotcheck/NAME.jsonl``), or from the
    JSON `goldset spotcheck --print --format json` prints (its ``confusion``)."""
    from goldset_tui.io.tables import check_file

    check_file(path)
    if path.suffix == ".jsonl":
        from goldset_tui.sampling.spotcheck import agreement, load_answers

        answers, _ = load_answers(path)
        found = agreement(answers, []).confusion
        if not found:
            raise InputError(path, "no checked query in this spot-check journal")
        return found
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(path, f"not spot-check JSON: {exc}") from None
    confusion = data.get("confusion") if isinstance(data, dict) else None
    if not isinstance(confusion, dict) or not all(
        isinstance(row, dict)
        and all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in row.values())
        for row in confusion.values()
    ):
        raise InputError(
            path,
            "no confusion (stratum -> stratum -> count), as `goldset spotcheck --print "
            "--format json` writes it",
            column="confusion",
        )
    return {str(h): {str(g): int(c) for g, c in row.items()} for h, row in confusion.items()}


def route_decisions(inputs: ReportInputs, request: RouteRequest) -> tuple[Report, DecisionBlock]:
    """Check the request, compute the report and its decision block."""
    from goldset_tui.app.report import build_report
    from goldset_tui.decisions.of_report import report_decisions
    from goldset_tui.decisions.router_error import parse_precision
    from goldset_tui.decisions.routing import Routing, parse_pairs
    from goldset_tui.eval.strata import read_traffic

    if inputs.traffic is None:
        raise InputError(None, "goldset route needs --traffic FILE: routes are weighed by share")
    if len(inputs.runs) < 2:
        raise InputError(None, "goldset route needs at least two --run NAME=PATH to route between")
    if request.per < 1:
        raise InputError(None, "--per must be at least 1")
    rules = parse_pairs(request.routes, "--route")
    if not (rules or request.default or request.best_per_stratum):
        raise InputError(
            None,
            "say how to route: --route STRATUM=SYSTEM with --default SYSTEM, or --best-per-stratum",
        )
    if request.default and request.best_per_stratum:
        raise InputError(None, "--default and --best-per-stratum both say where the rest goes")
    given = parse_precision(parse_pairs(request.precision, "--precision"))
    confusion = read_confusion(request.spotcheck) if request.spotcheck else None
    now = None
    if request.traffic_now is not None:
        frame = read_traffic(request.traffic_now)
        now = {str(s): float(w) for s, w in frame.select("stratum", "share").iter_rows()}
    report = build_report(inputs)
    block = report_decisions(
        report,
        routing=Routing(rules, request.default, request.best_per_stratum),
        precision=given,
        confusion=confusion,
        baseline=request.baseline,
        now=now,
        per=request.per,
    )
    if block is None or not block.strata:  # traffic and two runs were checked above
        raise InputError(None, "no stratum of the golden set has a traffic share to weigh")
    report.decisions = block
    return report, block
