"""`goldset sample LABELS -o SAMPLE --seed N (--targets ... | --total N)`: the stratified golden set."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from goldset_tui.progress import working

NAME = "sample"
HELP = "draw a seeded stratified sample of queries from LABELS (weighted, without replacement)"
DESCRIPTION = """\
Sample queries per stratum, weighted by min(count, CAP) so the head is represented without swamping
the tail, never the same query twice. Sizes come from --targets, or from --total split in proportion
to traffic with a floor of --min-per-stratum per stratum. The same LABELS and seed give a
byte-identical SAMPLE (same columns as LABELS) and, beside it, SAMPLE's stem + .manifest.toml with
the seed, targets, per-stratum counts and traffic shares, sha256 of the inputs and closure checks.
--plan prints, per stratum, the 95% half-width at an assumed rate, the size a requested half-width
needs, and the smallest change one query makes.

examples:
  goldset sample labels.csv -o golden.csv --seed 20240301 \\
      --targets exact_identifier=30,misspelled=25,negation=20,short_keyword=35,multi_entity=25,paraphrase=25
  goldset sample labels.csv -o golden.csv --seed 7 --total 160 --min-per-stratum 15
  goldset sample labels.csv --plan --total 160 --rate 0.7 --half-width 0.1
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from goldset_tui.sampling.plan import DEFAULT_RATE
    from goldset_tui.sampling.sample import DEFAULT_CAP, DEFAULT_MIN_PER_STRATUM

    parser.add_argument(
        "labels",
        type=Path,
        help="LABELS: query, count, stratum (from `goldset classify` or your own)",
    )
    parser.add_argument("-o", "--output", type=Path, help="SAMPLE file to write (.csv or .parquet)")
    parser.add_argument("--seed", type=int, help="random seed (required to write a sample)")
    sizes = parser.add_mutually_exclusive_group(required=True)
    sizes.add_argument("--targets", metavar="STRATUM=N,...", help="queries per stratum")
    sizes.add_argument("--total", type=int, metavar="N", help="set size, split by traffic share")
    parser.add_argument(
        "--min-per-stratum",
        type=int,
        default=DEFAULT_MIN_PER_STRATUM,
        metavar="M",
        help=f"with --total: at least M per stratum (default {DEFAULT_MIN_PER_STRATUM})",
    )
    parser.add_argument(
        "--cap",
        type=int,
        default=DEFAULT_CAP,
        help=f"weight = min(count, CAP) (default {DEFAULT_CAP})",
    )
    parser.add_argument(
        "--manifest", type=Path, help="where to write the manifest (default: beside SAMPLE)"
    )
    parser.add_argument(
        "--plan", action="store_true", help="print the sample-size plan per stratum"
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=DEFAULT_RATE,
        help=f"assumed rate for --plan (default {DEFAULT_RATE})",
    )
    parser.add_argument(
        "--half-width",
        type=float,
        metavar="H",
        help="for --plan: the size that gives a 95%% half-width of H (e.g. 0.1)",
    )


def run(args: argparse.Namespace) -> int:
    from goldset_tui.closure import all_ok
    from goldset_tui.errors import InputError
    from goldset_tui.sampling.files import check_folder, output_format, write_frame
    from goldset_tui.sampling.labels import read_labels
    from goldset_tui.sampling.manifest import build_manifest, manifest_path, write_manifest
    from goldset_tui.sampling.sample import (
        allocate_total,
        check_known_strata,
        parse_targets,
        stratified_sample,
        stratum_counts,
    )

    if args.output is None and not args.plan:
        raise InputError(None, "give -o SAMPLE to write a sample, or --plan to plan one")
    if args.output is not None:
        output_format(args.output)  # the extension and the folder: fail before the work, not after
        check_folder(args.manifest or manifest_path(args.output))
        if args.seed is None:
            raise InputError(
                None,
                "--seed is required: a sample you cannot regenerate cannot be compared against later",
            )
    if args.half_width is not None and not 0 < args.half_width < 1:
        raise InputError(None, "--half-width must lie between 0 and 1 (0.1 is ten points)")
    if not 0 <= args.rate <= 1:
        raise InputError(None, "--rate must lie between 0 and 1")
    with working(f"reading {args.labels}"):
        labels = read_labels(args.labels)
    if args.targets:
        targets = parse_targets(args.targets)
        check_known_strata(targets, labels, args.labels)
        allocation = {"mode": "targets"}
    else:
        targets = allocate_total(stratum_counts(labels), args.total, args.min_per_stratum)
        allocation = {"mode": "total", "total": args.total, "min_per_stratum": args.min_per_stratum}
    sizes = dict(targets)
    if args.output is not None:
        result = stratified_sample(labels, targets, args.seed, args.cap)
        write_frame(result.sample, args.output)
        where = args.manifest or manifest_path(args.output)
        manifest = build_manifest(
            result,
            seed=args.seed,
            cap=args.cap,
            labels_path=args.labels,
            sample_path=args.output,
            allocation=allocation,
        )
        write_manifest(manifest, where)
        print_table(result)
        print(f"wrote {result.sample.height} queries to {args.output} and the manifest to {where}")
        for note in result.notes:
            print(f"note: {note}", file=sys.stderr)
        for check in result.closure:
            if not check.ok:
                print(
                    f"closure: {check.name}: expected {check.expected:g}, got {check.actual:g}",
                    file=sys.stderr,
                )
        sizes = {r.stratum: r.sampled for r in result.rows if r.target or r.sampled}
        if not all_ok(result.closure):
            print(
                "note: the sampling table does not close (see the manifest's [[closure]])",
                file=sys.stderr,
            )
    if args.plan:
        print_plan(sizes, args.rate, args.half_width)
    return 0


def print_table(result) -> None:  # noqa: ANN001 - SampleResult
    print(
        f"{'stratum':<18} {'distinct':>9} {'occurrences':>12} {'share':>7} {'target':>7} {'sampled':>8}"
    )
    for r in result.rows:
        short = "  (short)" if r.shortfall > 0 else ""
        print(
            f"{r.stratum:<18} {r.distinct:>9} {r.occurrences:>12} {r.share:>7.1%} {r.target:>7} {r.sampled:>8}{short}"
        )
    total_share = sum(r.share for r in result.rows)
    print(
        f"{'(all)':<18} {sum(r.distinct for r in result.rows):>9} {sum(r.occurrences for r in result.rows):>12} "
        f"{total_share:>7.1%} {sum(r.target for r in result.rows):>7} {sum(r.sampled for r in result.rows):>8}"
    )


def print_plan(sizes: dict[str, int], rate: float, want: float | None) -> None:
    from goldset_tui.sampling.plan import plan_rows

    print(f"\nplan at an assumed rate of {rate:g} (95% half-width = 1.96 * sqrt(p(1-p)/n)):")
    head = f"{'stratum':<18} {'n':>5} {'se':>7} {'+-95%':>8} {'1 query':>8}"
    if want:
        head += f" {'n for +-' + format(want * 100, 'g') + ' pts':>16}"
    print(head)
    for row in plan_rows(sizes, rate, want):
        hw = f"{row.half_width * 100:.1f} pts" if row.n else "-"
        step = f"{row.step * 100:.1f} pts" if row.n else "-"
        se = f"{row.se:.3f}" if row.n else "-"
        line = f"{row.stratum:<18} {row.n:>5} {se:>7} {hw:>8} {step:>8}"
        if want:
            line += f" {row.needed:>16}"
        print(line)
