"""`goldset classify --compare REAL_LOG SYNTHETIC_QUERIES`: how a generated query set
differs from real traffic (goldset_tui.sampling.compare), printed as a table or JSON."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from goldset_tui.text import visible

if TYPE_CHECKING:
    from goldset_tui.app.classifying import QuerySetComparison


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--compare",
        nargs=2,
        metavar=("REAL_LOG", "SYNTHETIC_QUERIES"),
        help="compare a synthetic query set with a real log instead of labelling (no -o)",
    )
    from goldset_tui.commands._grammar import FlagChoice, old_option

    # --format json is stored as the flag --json set before, so run_compare reads args.json.
    parser.add_argument(
        "--format",
        dest="json",
        action=FlagChoice,
        const="json",
        choices=("text", "json"),
        default=False,
        help="with --compare: text (a table, the default) or json",
    )
    old_option(parser, "--json", now="--format json", dest="json", action="store_true")


def run_compare(args: argparse.Namespace) -> int:
    from goldset_tui.app.classifying import compare_query_sets
    from goldset_tui.errors import InputError

    if args.log is not None or args.output is not None:
        raise InputError(None, "--compare takes its two files itself: no LOG, no -o")
    real, synthetic = args.compare
    found = compare_query_sets(real, synthetic, args.vocab)
    if args.json:
        print(json.dumps(found.to_dict(), indent=2))
        return 0
    print_comparison(found)
    return 0


def print_comparison(found: QuerySetComparison) -> None:
    """The comparison as a table, its verdict and how to read it (also `goldset synth --log`)."""
    from goldset_tui.pvalue import p_value_text

    rows = found.rows
    width = max(len(r.feature) for r in rows)
    effects = [r.effect_text() for r in rows]
    wide = max(10, *(len(e) for e in effects))
    print(
        f"{'feature':<{width}}  {'odds ratio':>{wide}}  {'p':>6}  verdict          real | synthetic"
    )
    for r, effect in zip(rows, effects, strict=True):
        p = p_value_text(r.p_value, 3)
        print(
            visible(
                f"{r.feature:<{width}}  {effect:>{wide}}  {p:>6}  {r.verdict:<15}  "
                f"{r.real} | {r.synthetic}"
            )
        )
    print()
    print(visible(found.verdict))
    print(
        "odds ratio: the largest of one bin against the rest, real against synthetic (either "
        "way up); p: chi-square test of the bins, each side's occurrences as searches"
    )
    if not found.vocabulary_measured:
        print("note: no --vocab given, so the vocabulary share was not measured", file=sys.stderr)
