"""The decision block's options, shared by `goldset route` and `goldset report` (docs/report.md,
"Decisions"): how strata are routed, the router's precision, the baseline, another log's shares.
Parsed here once into an :class:`~goldset_tui.app.route.RouteRequest`; checked in the app layer
(``app.route.parse_request``)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goldset_tui.app.route import RouteRequest


def add_decision_arguments(p: argparse._ActionsContainer, *, rest_to_best: bool = False) -> None:
    """``rest_to_best``: strata no --route names go to their best run unless --default says
    otherwise (`goldset report`); else --default or --best-per-stratum is needed."""
    p.add_argument(
        "--route",
        action="append",
        default=[],
        metavar="STRATUM=SYSTEM",
        help="send the stratum's queries to that run, repeatable",
    )
    rest = p.add_mutually_exclusive_group()
    rest.add_argument(
        "--default",
        metavar="SYSTEM",
        help="the run every other stratum goes to"
        + (" (default: each to its best run)" if rest_to_best else ""),
    )
    rest.add_argument(
        "--best-per-stratum",
        action="store_true",
        help="every stratum without --route to the run that scored best on it",
    )
    p.add_argument(
        "--precision",
        action="append",
        default=[],
        metavar="STRATUM=P",
        help="the router's precision for a stratum (0.97 or 97%%), repeatable",
    )
    p.add_argument(
        "--spotcheck",
        type=Path,
        metavar="FILE",
        help="a spot-check's journal (.jsonl) or JSON: the router's confusion",
    )
    p.add_argument("--baseline", metavar="SYSTEM", help="the run the others are counted against")
    p.add_argument(
        "--traffic-now",
        type=Path,
        metavar="FILE",
        help="another log's stratum,share: the gaps under its shares",
    )
    p.add_argument(
        "--per", type=int, default=1000, metavar="N", help="count queries per N searches (1000)"
    )


def decision_request(args: argparse.Namespace) -> RouteRequest:
    from goldset_tui.app.route import RouteRequest

    return RouteRequest(
        routes=args.route,
        default=args.default,
        best_per_stratum=args.best_per_stratum,
        precision=args.precision,
        spotcheck=args.spotcheck,
        baseline=args.baseline,
        traffic_now=args.traffic_now,
        per=args.per,
    )
