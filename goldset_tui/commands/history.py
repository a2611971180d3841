"""`goldset history`: every recorded release of a store, paired changes, recurring failures."""

from __future__ import annotations

import argparse
import json
import sys

from goldset_tui.errors import InputError
from goldset_tui.eval.defaults import REPORT_SAMPLES
from goldset_tui.text import visible

NAME = "history"
HELP = "the golden set over time: releases, paired changes between them, recurring failures"
DESCRIPTION = """\
Every evaluation recorded in a store (`goldset report ... --store DIR --release NAME`, or the
same on `goldset eval`), per system, release by release, in the order the releases were first
recorded: the mean with its 95% interval (Wilson with continuity correction for 0/1 measures,
score-t for graded ones) and per stratum; the paired difference from the previous release on the queries
both were evaluated on (Tango's score interval for paired rates on a 0/1 measure, else the score
interval of the per-query differences; randomization p-value; `*` when the interval
excludes 0, `‡` when the interval and the p-value disagree, with a line saying why); and, where
the golden set's version changed between the two, what changed ("14 judgments added, pool
extended by run X"), so that a drop is not read as a regression when the set moved.

Recurring failures: queries that scored 0 in at least K of a system's last N releases
(--recurring K/N, default 3/5). Name one with `goldset regressions --promote`.

examples:
  goldset import --pool sample_data/pool.jsonl --store docs-store --labeller alice \\
      --human sample_data/judgments/alice.qrels
  goldset report --qrels docs-store --run bm25=sample_data/releases/2026.1/bm25.run \\
      --strata sample_data/strata.csv -m nDCG@10 --store docs-store --release 2026.1
  goldset report --qrels docs-store --run bm25=sample_data/releases/2026.2/bm25.run \\
      --strata sample_data/strata.csv -m nDCG@10 --store docs-store --release 2026.2
  goldset history --store docs-store
  goldset history --store ~/stores/docs-pool
  goldset history --store ~/stores/docs-pool -m nDCG@10 --system bm25 --format md
  goldset history --store ~/stores/docs-pool --recurring 2/3 --format json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", required=True, metavar="DIR", help="the goldset store")
    from goldset_tui.commands._grammar import old_name

    measure = parser.add_argument(
        "-m",
        "--measure",
        dest="metric",
        metavar="MEASURE",
        help="the measure (default: the one recorded most often)",
    )
    old_name(parser, "--metric", like=measure)
    parser.add_argument("--system", metavar="S", help="only this system")
    parser.add_argument(
        "--format", choices=("text", "md", "json"), default="text", help="default text"
    )
    parser.add_argument(
        "--recurring",
        default="3/5",
        metavar="K/N",
        help="a recurring failure scored 0 in at least K of the last N releases (default 3/5)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="N", help="seed of the paired tests (default 0)"
    )
    parser.add_argument(
        "--samples",
        type=int,
        default=REPORT_SAMPLES,
        metavar="N",
        help="bootstrap / permutation samples (default %(default)s)",
    )


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from goldset_tui.app.history import store_history
    from goldset_tui.history.format import to_markdown, to_text
    from goldset_tui.history.timeline import parse_recurring

    try:
        recurring = parse_recurring(args.recurring)
    except ValueError as exc:
        raise InputError(None, f"--recurring {exc}") from None
    if args.samples < 1:
        raise InputError(None, "--samples must be at least 1")
    history = store_history(
        Path(args.store),
        metric=args.metric,
        system=args.system,
        recurring=recurring,
        seed=args.seed,
        samples=args.samples,
    )
    if args.format == "json":
        print(json.dumps(history.to_json(), indent=2))
    elif args.format == "md":
        sys.stdout.write(visible(to_markdown(history, recurring=recurring, store=args.store)))
    else:
        sys.stdout.write(visible(to_text(history, recurring=recurring, store=args.store)))
    return 0
