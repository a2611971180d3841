"""`goldset drift`: the quarterly re-check of stratum shares, the headline reweighted, what flips."""

from __future__ import annotations

import argparse
import json
import sys

NAME = "drift"
HELP = (
    "compare stratum shares of an old and a new log: the reweighted headline, what flips, the plan"
)
DESCRIPTION = """\
The quarterly re-check (docs/drift.md). --labels OLD with --log NEW_LOG (classified here, with
--vocab and --rules as `goldset classify` takes them), or --labels OLD --labels NEW: each
stratum's share of the searches then and now, the change with Newcombe's 95% interval and a
two-proportion test (p and Holm-adjusted p).

Given the golden set's systems (--qrels, --run and --strata as `goldset report` takes them, or
--store DIR --release NAME for a recorded release), the headline of each system under the old and
the new shares, each pair's gap with its interval under the new shares, which stratum moved it,
and whether the best system or a pair's order flips. And the plan: the golden set's size split
by `goldset sample plan`'s rule (--min-per-stratum, default 15) under each log's shares, each
stratum marked where the golden set no longer matches it. --screen shows the same on a
scrolling screen.

examples:
  goldset classify sample_data/query_log.csv -o labels.csv --vocab sample_data/corpus.jsonl
  goldset drift --labels labels.csv --log sample_data/query_log.csv --vocab sample_data/corpus.jsonl \\
      --qrels sample_data/judgments/alice.qrels --run bm25=sample_data/runs/bm25.run \\
      --run minilm=sample_data/runs/minilm.run --strata sample_data/strata.csv
  goldset drift --labels old.csv --labels new.csv --qrels qrels.txt --run bm25=bm25.run \\
      --run dense=dense.run --strata strata.csv -m Success@10
  goldset drift --labels old.csv --log new_log.csv --store ~/golden/docs-store --release 2026.4
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--labels",
        action="append",
        default=[],
        metavar="LABELS",
        help="query, count, stratum (from `goldset classify`): the old log's, then the new's",
    )
    p.add_argument("--log", metavar="NEW_LOG", help="the new query log, classified here")
    p.add_argument("--vocab", help="with --log: word list or corpus for the misspelled rule")
    p.add_argument("--rules", metavar="MODULE:FUNCTION", help="with --log: the rules that made OLD")
    p.add_argument("--qrels", metavar="QRELS", help="TREC qrels file, or a goldset store folder")
    p.add_argument("--labeller", metavar="NAME", help="with a store as --qrels: whose judgments")
    p.add_argument(
        "--run", action="append", default=[], metavar="NAME=PATH", help="a TREC run, repeatable"
    )
    p.add_argument("--strata", metavar="FILE", help="query_id,stratum: the golden set")
    from goldset_tui.eval.defaults import DEFAULT_METRIC

    p.add_argument(
        "-m",
        "--measure",
        dest="metric",
        metavar="MEASURE",
        help=f"measure (default {DEFAULT_METRIC})",
    )
    p.add_argument("--store", metavar="DIR", help="with --release: a store whose release to weigh")
    p.add_argument("--release", metavar="NAME", help="the recorded release to reweigh")
    p.add_argument(
        "--min-per-stratum",
        type=int,
        metavar="M",
        help="the plan's floor per stratum (default 15, as `goldset sample`)",
    )
    p.add_argument("--format", choices=("text", "json"), default="text", help="what to print")
    # docs/cli.md: --print prints, --screen opens the screen, on every command that can do both.
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("--screen", action="store_true", help="open the re-check on a screen")
    shown.add_argument(
        "--print", dest="screen", action="store_false", default=False, help="print (the default)"
    )


def run(args: argparse.Namespace) -> int:
    from goldset_tui.app.drift import run_drift
    from goldset_tui.drift.text import drift_lines
    from goldset_tui.text import for_terminal, visible

    if args.screen:
        from goldset_tui.app.terminal import require_terminal

        require_terminal(NAME)  # before the work: the screen needs a terminal
    result = run_drift(
        args.labels,
        args.log,
        vocab=args.vocab,
        rules=args.rules,
        qrels=args.qrels,
        runs=args.run,
        strata=args.strata,
        metric=args.metric,
        labeller=args.labeller,
        store=args.store,
        release=args.release,
        min_per_stratum=args.min_per_stratum,
    )
    if args.screen:
        from goldset_tui.ui.app import run_app
        from goldset_tui.ui.screens.drift import DriftScreen

        return run_app(lambda: DriftScreen(result))
    if args.format == "json":
        out = json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n"
        sys.stdout.write(for_terminal(out, sys.stdout))
        return 0
    for line in drift_lines(result):
        print(visible(line, keep_newlines=False))
    return 0
