"""`goldset spotcheck LABELS`: check the stratum classifier's labels by hand, durably."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goldset_tui.sampling.spotcheck import Agreement

NAME = "spotcheck"
HELP = "spot-check the stratum labels by hand: agreement, confusion, and whether the errors matter"
DESCRIPTION = """\
Shows one query at a time with the stratum the classifier gave it: y agrees, a digit (or letter)
picks the right stratum, s skips, u undoes. Every answer is fsynced to the labeller's journal in the
store before the screen says saved; run the same command again to resume. The screen shows
agreement k of n with a Wilson interval (continuity-corrected), the confusion between strata, and the verdict: per
stratum, its own misfile rate (with the same interval), the misfiled queries that puts in the
golden set and the shift they can cause, against that stratum's sampling band. Strata with too few
checks to tell are named as such. The band needs each stratum's PLANNED size in the golden set:
--targets, --total (as planned with `goldset sample plan`), --manifest of the sample, or the
sample manifest beside LABELS; without one there is no verdict (the labels file is the whole log).

examples:
  goldset classify sample_data/query_log.csv --vocab sample_data/corpus.jsonl -o labels.csv
  goldset spotcheck labels.csv --queries 200 --seed 1 --store checks/ --labeller ana
  goldset spotcheck labels.csv --print --store checks/ --labeller ana --format json \\
      --targets exact_identifier=54,negation=18,misspelled=22,short_keyword=61
  goldset spotcheck labels.csv --print --store checks/ --labeller ana --total 160
  goldset spotcheck labels.csv --print --store checks/ --labeller ana \\
      --manifest golden.manifest.toml
  goldset spotcheck labels.csv --store checks/ --labeller ana --export labels.corrected.csv
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from goldset_tui.commands._grammar import old_name
    from goldset_tui.sampling.plan import DEFAULT_RATE
    from goldset_tui.sampling.spotcheck import DEFAULT_SAMPLE

    parser.add_argument("labels", type=Path, metavar="LABELS", help="LABELS: query, count, stratum")
    queries = parser.add_argument(
        "--queries",
        dest="sample",
        type=int,
        default=DEFAULT_SAMPLE,
        metavar="N",
        help=f"check a seeded uniform sample of N distinct queries (default {DEFAULT_SAMPLE}; 0 for all)",
    )
    # --sample was one letter from --samples, the resample count of other commands.
    old_name(parser, "--sample", like=queries)
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="N",
        help="seed for the sample and its order (default 0)",
    )
    parser.add_argument(
        "--store",
        type=Path,
        metavar="DIR",
        help="store folder (default: one per LABELS file in the data folder)",
    )
    parser.add_argument(
        "--labeller", default=None, metavar="NAME", help="your name (default: the login name)"
    )
    parser.add_argument(
        "--targets",
        metavar="STRATUM=N,...",
        help="the golden set's planned stratum sizes, for the verdict",
    )
    parser.add_argument(
        "--total",
        type=int,
        metavar="N",
        help="the planned set size, split by traffic as `goldset sample plan --total` splits it",
    )
    parser.add_argument(
        "--min-per-stratum",
        type=int,
        metavar="M",
        help="with --total: the floor per stratum it was planned with (default 15)",
    )
    parser.add_argument(
        "--manifest",
        type=Path,
        metavar="FILE",
        help="a sample's manifest: its sampled sizes per stratum, for the verdict",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=DEFAULT_RATE,
        help=f"assumed rate for the bands (default {DEFAULT_RATE})",
    )
    # docs/cli.md: --print prints, --screen opens the screen, on every command that can do both.
    shown = parser.add_mutually_exclusive_group()
    printed = shown.add_argument(
        "--print",
        dest="report",
        action="store_true",
        help="print the numbers instead of opening the screen",
    )
    old_name(shown, "--report", like=printed)
    shown.add_argument(
        "--screen",
        dest="report",
        action="store_false",
        default=False,
        help="open the checking screen (the default)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text", help="with --print")
    parser.add_argument(
        "--export",
        type=Path,
        metavar="FILE",
        help="write LABELS with the corrected strata (.csv/.parquet)",
    )


def run(args: argparse.Namespace) -> int:
    from goldset_tui.app.spotcheck import open_spotcheck, read_answers, start_spotcheck
    from goldset_tui.errors import InputError
    from goldset_tui.sampling.files import output_format, write_frame

    if not (args.report or args.export):
        from goldset_tui.app.terminal import require_terminal

        require_terminal(NAME)  # the screen needs a terminal; --print and --export do not
    if args.sample < 0:
        raise InputError(None, "--queries must not be negative")
    if not 0 <= args.rate <= 1:
        raise InputError(None, "--rate must lie between 0 and 1")
    if args.export is not None:
        output_format(args.export)
    check = open_spotcheck(
        args.labels,
        labeller=args.labeller,
        store=args.store,
        targets=args.targets,
        total=args.total,
        min_per_stratum=args.min_per_stratum,
        manifest=args.manifest,
    )
    if args.report or args.export:
        from goldset_tui.text import visible

        answers = read_answers(check)
        for warning in answers.warnings:
            print(f"warning: {visible(warning, keep_newlines=False)}", file=sys.stderr)
        if args.export:
            write_frame(answers.corrected_labels(), args.export)
            print(f"wrote the corrected labels to {visible(args.export)}", file=sys.stderr)
        if args.report:
            print_report(
                answers.agreement(),
                check.sizes,
                check.source,
                args.rate,
                args.format,
                check.labeller,
                check.path,
            )
        return 0

    from goldset_tui.ui.app import run_app
    from goldset_tui.ui.screens.spotcheck import SpotCheckScreen

    session = start_spotcheck(check, args.sample or None, args.seed)
    sizes = check.sizes
    try:
        code = run_app(lambda: SpotCheckScreen(session, sizes=sizes, rate=args.rate))
    finally:
        session.close()
    print(f"answers saved in {check.path}", file=sys.stderr)
    return code


def print_report(
    result: Agreement,
    sizes: dict[str, int] | None,
    source: str | None,
    rate: float,
    fmt: str,
    labeller: str,
    path: Path,
) -> None:
    from goldset_tui.sampling.verdict import verdict_text, verdicts
    from goldset_tui.text import visible

    if fmt == "json":
        data = result.to_json()
        data["labeller"] = labeller
        data["verdict"] = {
            "text": verdict_text(result, sizes, rate),
            "sizes_from": source,
            "needs_sizes": not sizes,
            "rate": rate,
            "strata": [v.to_json() for v in verdicts(result, sizes, rate)],
        }
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return
    print(f"spot-check by {visible(labeller)} ({visible(path)})")
    if result.n and result.ci95:
        lo, hi = result.ci95
        print(
            f"agreement {result.agree} of {result.n} = {result.agree / result.n:.1%}"
            f" (95% Wilson-cc {lo:.1%} to {hi:.1%}); skipped {result.skipped}"
        )
    else:
        print(f"no checks yet; skipped {result.skipped}")
    print(f"{'stratum':<20} {'checked':>7} {'agree':>6} {'precision':>9}  {'95% Wilson-cc':>15}")
    for s in result.per_stratum:
        precision = f"{s.precision:.1%}" if s.precision is not None else "-"
        ci = f"{s.ci95[0]:.1%} to {s.ci95[1]:.1%}" if s.ci95 else "-"
        name = visible(s.stratum, keep_newlines=False)
        print(f"{name:<20} {s.n:>7} {s.agree:>6} {precision:>9}  {ci:>15}")
    where = f"stratum sizes from {source}" if source else "no planned stratum sizes"
    print(f"\nverdict ({where}, assumed rate {rate:g}):")
    print(visible(verdict_text(result, sizes, rate)))
