"""`goldset classify --compare REAL_LOG SYNTHETIC_QUERIES` (issue 14): how a generated query set
differs from real traffic (goldset_tui.sampling.compare), printed as a table or JSON."""

from __future__ import annotations

import argparse
import json
import sys

from goldset_tui.text import visible


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--compare",
        nargs=2,
        metavar=("REAL_LOG", "SYNTHETIC_QUERIES"),
        help="compare a synthetic query set with a real log instead of labelling (no -o)",
    )
    parser.add_argument(
        "--json", action="store_true", help="with --compare: print JSON instead of a table"
    )


def run_compare(args: argparse.Namespace) -> int:
    from goldset_tui.errors import InputError
    from goldset_tui.sampling.classify import read_vocab
    from goldset_tui.sampling.compare import compare_logs, summary

    if args.log is not None or args.output is not None:
        raise InputError(None, "--compare takes its two files itself: no LOG, no -o")
    real, synthetic = args.compare
    vocab = read_vocab(args.vocab) if args.vocab else None
    rows = compare_logs(real, synthetic, vocab)
    if args.json:
        doc = {"rows": [r.to_dict() for r in rows], "verdict": summary(rows)}
        print(json.dumps(doc, indent=2))
        return 0
    width = max(len(r.feature) for r in rows)
    print(f"{'feature':<{width}}  {'divergence':>10}  verdict          real | synthetic")
    for r in rows:
        div = "-" if r.divergence != r.divergence else f"{r.divergence:.3f}"
        print(
            visible(f"{r.feature:<{width}}  {div:>10}  {r.verdict:<15}  {r.real} | {r.synthetic}")
        )
    print()
    print(visible(summary(rows)))
    if vocab is None:
        print("note: no --vocab given, so the vocabulary share was not measured", file=sys.stderr)
    return 0
