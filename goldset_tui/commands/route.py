"""`goldset route`: route by query shape, fuse, or keep one system: the report's decision block."""

from __future__ import annotations

import argparse
import json
import sys

NAME = "route"
HELP = "route by query shape, with the router's error: every option side by side, in queries"
DESCRIPTION = """\
Sends each stratum to one system (--route STRATUM=SYSTEM, the rest to --default SYSTEM, or
--best-per-stratum) and sets the routed run beside each system alone, the fused run, the routed
run with the router's errors and the oracle: per stratum and traffic-weighted overall, each with
the report's interval, and against the best single system in queries (of the golden set, and
per --per searches: points of different denominators made comparable).

The router's error: --precision STRATUM=P (0.97: three in a hundred queries filed under that
stratum belong to another, and are served by its system), or --spotcheck FILE, the confusion of
`goldset spotcheck` on the same labels (its journal STORE/spotcheck/NAME.jsonl, or the JSON of
`goldset spotcheck --print --format json`). Then, per pair of systems, how far each stratum's
share must move to reverse the gap, and with --traffic-now the gap under another log's shares.

examples:
  goldset route --qrels sample_data/judgments/alice.qrels --run bm25=sample_data/runs/bm25.run \\
      --run minilm=sample_data/runs/minilm.run --strata sample_data/strata.csv \\
      --traffic sample_data/traffic.csv --route exact_identifier=bm25 --default minilm \\
      --precision exact_identifier=0.97
  goldset route --qrels q.qrels --run bm25=bm25.run --run dense=dense.run --strata strata.csv \\
      --traffic traffic.csv --best-per-stratum --spotcheck store/spotcheck/ana.jsonl \\
      --traffic-now traffic-2026q3.csv --format json
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    from goldset_tui.commands.report import add_input_arguments

    add_input_arguments(p, old_spellings=False)
    from goldset_tui.commands._decision_args import add_decision_arguments

    add_decision_arguments(p)
    # docs/cli.md: --print prints, --screen opens the screen.
    shown = p.add_mutually_exclusive_group()
    shown.add_argument(
        "--print",
        dest="screen",
        action="store_false",
        default=False,
        help="print the decisions (the default)",
    )
    shown.add_argument(
        "--screen", dest="screen", action="store_true", help="open the decision screen"
    )
    p.add_argument("--format", choices=("text", "json"), default="text", help="with --print")


def run(args: argparse.Namespace) -> int:
    from goldset_tui.app.route import route_decisions
    from goldset_tui.commands._decision_args import decision_request
    from goldset_tui.commands.report import load_inputs
    from goldset_tui.progress import working

    if args.screen:
        from goldset_tui.app.terminal import require_terminal

        require_terminal(NAME)
    request = decision_request(args)
    inputs = load_inputs(args)
    with working("computing the decisions"):
        report, block = route_decisions(inputs, request)
    if args.screen:
        from goldset_tui.ui.app import run_app
        from goldset_tui.ui.screens.decisions import DecisionScreen

        return run_app(lambda: DecisionScreen(block))
    if args.format == "json":
        print(json.dumps(block.to_json(), indent=2, ensure_ascii=False))
        return 0
    from goldset_tui.decisions.text import decision_text
    from goldset_tui.text import visible

    sys.stdout.write(visible(decision_text(block)) + "\n")
    return 0
