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
    from goldset_tui.decisions.routing import Routing
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


@dataclass(frozen=True)
class ParsedRequest:
    """A :class:`RouteRequest` read and checked: the routing, the precisions given, the
    spot-check's confusion and the other log's shares (each file read once, before any work)."""

    routing: Routing
    precision: dict[str, float]
    confusion: dict[str, dict[str, int]] | None
    now: dict[str, float] | None
    baseline: str | None
    per: int


def asked(request: RouteRequest) -> bool:
    """Whether the request says anything the default block (each stratum to its best run, the
    router never wrong, per 1000 searches) does not."""
    return request != RouteRequest()


def parse_request(request: RouteRequest, *, rest_to_best: bool = False) -> ParsedRequest:
    """Check and read the request: `goldset route` and `goldset report` share it. Without
    ``rest_to_best`` the request must say where every stratum goes (`goldset route`); with it,
    the strata no ``--route`` names go to their best run unless ``--default`` says otherwise
    (`goldset report`, whose default block routes every stratum so)."""
    from goldset_tui.decisions.router_error import parse_precision
    from goldset_tui.decisions.routing import Routing, parse_pairs
    from goldset_tui.io.strata_and_traffic import read_traffic

    if request.per < 1:
        raise InputError(None, "--per must be at least 1")
    rules = parse_pairs(request.routes, "--route")
    if request.default and request.best_per_stratum:
        raise InputError(None, "--default and --best-per-stratum both say where the rest goes")
    best = request.best_per_stratum or (rest_to_best and not request.default)
    if not (rules or request.default or best):
        raise InputError(
            None,
            "say how to route: --route STRATUM=SYSTEM with --default SYSTEM, or --best-per-stratum",
        )
    given = parse_precision(parse_pairs(request.precision, "--precision"))
    confusion = read_confusion(request.spotcheck) if request.spotcheck else None
    now = None
    if request.traffic_now is not None:
        frame = read_traffic(request.traffic_now)
        now = {str(s): float(w) for s, w in frame.select("stratum", "share").iter_rows()}
    return ParsedRequest(
        routing=Routing(rules, request.default, best),
        precision=given,
        confusion=confusion,
        now=now,
        baseline=request.baseline,
        per=request.per,
    )


def decisions_of(report: Report, parsed: ParsedRequest) -> DecisionBlock | None:
    """The report's decision block as the request asks (None without traffic or two runs)."""
    from goldset_tui.decisions.of_report import report_decisions

    return report_decisions(
        report,
        routing=parsed.routing,
        precision=parsed.precision,
        confusion=parsed.confusion,
        baseline=parsed.baseline,
        now=parsed.now,
        per=parsed.per,
    )


def route_decisions(inputs: ReportInputs, request: RouteRequest) -> tuple[Report, DecisionBlock]:
    """Check the request, compute the report and its decision block."""
    from goldset_tui.app.report import build_report

    if inputs.traffic is None:
        raise InputError(None, "goldset route needs --traffic FILE: routes are weighed by share")
    if len(inputs.runs) < 2:
        raise InputError(None, "goldset route needs at least two --run NAME=PATH to route between")
    parsed = parse_request(request)
    report = build_report(inputs)
    block = decisions_of(report, parsed)
    if block is None or not block.strata:  # traffic and two runs were checked above
        raise InputError(None, "no stratum of the golden set has a traffic share to weigh")
    report.decisions = block
    return report, block


def report_request(request: RouteRequest, *, traffic: bool) -> ParsedRequest | None:
    """`goldset report`'s decision options checked before any work: None when none was given
    (the report's default block); refused without --traffic, which every option is weighed by."""
    if not asked(request):
        return None
    if not traffic:
        raise InputError(
            None, "the decision options (--route, --precision, --spotcheck...) need --traffic FILE"
        )
    return parse_request(request, rest_to_best=True)
