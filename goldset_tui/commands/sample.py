"""`goldset sample LABELS -o SAMPLE --seed N (--targets ... | --total N)`: the stratified golden set."""

from __future__ import annotations

import argparse
import math
import sys
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from goldset_tui.sampling.plan import PlanRow
    from goldset_tui.sampling.sample import SampleResult

NAME = "sample"
HELP = "plan, draw, emit as SQL or finish a seeded stratified sample of queries from LABELS"
DESCRIPTION = """\
Sample queries per stratum, weighted by min(count, CAP) so the head is represented without swamping
the tail, never the same query twice. Four modes, each with its own options (MODE --help):

  plan      print, per stratum and for the set, the 95% half-width at an assumed rate (with the
            finite-population correction), the smallest change one query makes, the size a
            requested half-width needs, the band of the traffic-weighted headline, and the
            smallest difference between two systems the planned queries can detect (95%
            confidence, 80% power) when both run on the same queries with per-query correlation
            --rho, and unpaired; --format json for a program
  draw      write SAMPLE: LABELS's columns with a stable query_id first and each query's
            inclusion_probability (its chance of being drawn) last; the same LABELS and seed give
            a byte-identical SAMPLE. Beside it: SAMPLE's stem + .manifest.toml (seed, targets,
            per-stratum counts and traffic shares, every sampled query with its count and
            probability, sha256 of inputs and outputs, closure checks), + .strata.csv and
            + .traffic.csv, the files `goldset report --strata/--traffic` reads; --plan also
            prints the plan for the sizes drawn
  emit-sql  write the SQL that classifies and samples the log inside DuckDB, Spark or BigQuery
            and draws the same queries (each query's random key comes from SHA-256 of the seed
            and the query), with a query for the strata's weights, the --vocab words as a table
            to load, and a manifest naming the engine
  finish    make SAMPLE from the warehouse's results of emit-sql's SQL (--rows, --weights)

Sizes come from --targets, or from --total split in proportion to traffic with a floor of
--min-per-stratum per stratum. --log reads a query log (streamed, any size) and classifies it
with the default rules first. An option the chosen mode would ignore is refused.

examples:
  goldset classify sample_data/query_log.csv --vocab sample_data/corpus.jsonl -o labels.csv
  goldset sample draw labels.csv -o golden.csv --seed 20240301 \\
      --targets exact_identifier=30,misspelled=25,negation=20,short_keyword=35,multi_entity=25,paraphrase=25
  goldset sample draw labels.csv -o golden.csv --seed 7 --total 160 --min-per-stratum 15
  goldset sample plan labels.csv --total 160 --rate 0.7 --half-width 0.1
  goldset sample plan labels.csv --total 160 --rho 0.6 --format json
  goldset sample draw queries.txt --log --vocab corpus.parquet -o golden.csv --seed 7 \\
      --targets negation=20,paraphrase=30
  goldset sample emit-sql duckdb --table query_log --seed 7 --targets negation=20,paraphrase=30 \\
      -o golden.sql
  goldset sample finish golden.sql --rows rows.csv --weights weights.csv -o golden.csv
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from goldset_tui.commands._sample_modes import add_modes

    add_modes(parser)


def old_spellings(argv: list[str]) -> list[str]:
    """The modes' old flag spellings (``--plan``, ``--emit-sql``, ``--finish``, none to draw) as
    the mode they chose: `goldset_tui.cli` calls this before parsing."""
    from goldset_tui.commands._sample_modes import old_spellings as as_modes

    return as_modes(argv)


def run(args: argparse.Namespace) -> int:
    from goldset_tui.app.sampling import draw_sample, plan_for, sample_labels, sample_sizes
    from goldset_tui.errors import InputError
    from goldset_tui.report.closure import all_ok
    from goldset_tui.sampling.files import check_folder, output_format
    from goldset_tui.sampling.manifest import manifest_path
    from goldset_tui.text import visible

    if args.emit_sql:
        return emit_sql(args)
    if args.finish:
        return finish(args)
    if args.labels is None:
        raise InputError(None, "give LABELS (or a log with --log)")
    if args.targets is None and args.total is None:
        raise InputError(None, "give the sizes: --targets STRATUM=N,... or --total N")
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
    if not -1 <= args.rho < 1:
        raise InputError(None, "--rho must lie between -1 and 1 (1 would mean no noise at all)")
    if not 0 < args.power < 1:
        raise InputError(None, "--power must lie between 0 and 1 (0.8 is usual)")
    if args.vocab and not args.log:
        raise InputError(None, "--vocab is for a log (--log) or --emit-sql; LABELS has strata")
    labels, notes = sample_labels(args.labels, log=args.log, vocab=args.vocab)
    for note in notes:
        print(note, file=sys.stderr)
    planned = sample_sizes(
        labels,
        args.labels,
        targets=args.targets,
        total=args.total,
        min_per_stratum=args.min_per_stratum,
        log=args.log,
    )
    sizes = dict(planned.targets)
    if args.output is not None:
        drawn = draw_sample(
            labels,
            planned,
            seed=args.seed,
            cap=args.cap,
            source=args.labels,
            output=args.output,
            manifest=args.manifest,
        )
        result, companions = drawn.result, drawn.companions
        # With --format json, stdout is the plan's JSON alone; the human table goes to stderr.
        human = sys.stderr if args.format == "json" else sys.stdout
        print_table(result, human)
        print(
            f"wrote {result.sample.height} queries to {visible(args.output)} and the manifest to "
            f"{visible(drawn.manifest)}",
            file=human,
        )
        print(
            f"for goldset report: --strata {visible(companions['strata'])}"
            f" --traffic {visible(companions['traffic'])}",
            file=human,
        )
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
        rows = plan_for(
            sizes,
            planned.counts,
            rate=args.rate,
            half_width=args.half_width,
            rho=args.rho,
            power=args.power,
        )
        if args.format == "json":
            print_plan_json(rows, args.rate, args.rho, args.power, args.half_width)
        else:
            print_plan(rows, args.rate, args.half_width, args.rho, args.power)
    return 0


def emit_sql(args: argparse.Namespace) -> int:
    from goldset_tui.app.sampling import emit_sample_sql
    from goldset_tui.errors import InputError
    from goldset_tui.text import visible

    if args.output is None or args.output.suffix.lower() != ".sql":
        raise InputError(args.output, "--emit-sql writes -o FILE.sql")
    if args.seed is None:
        raise InputError(None, "--seed is required: the SQL draws with it")
    if not args.targets:
        raise InputError(
            None,
            "--emit-sql needs --targets: --total splits by the log's traffic, which is in the "
            "warehouse (`goldset sample plan LABELS --total N` prints sizes to give)",
        )
    if args.labels is not None or args.log or args.plan:
        raise InputError(
            None, "--emit-sql reads the log in the warehouse: give no LABELS or --plan"
        )
    if args.cap < 1:
        raise InputError(None, f"--cap must be at least 1, got {args.cap}")
    written = emit_sample_sql(
        args.output,
        args.emit_sql,
        table=args.table,
        query_column=args.query_column,
        count_column=args.count_column,
        vocab=args.vocab,
        vocab_table=args.vocab_table,
        seed=args.seed,
        cap=args.cap,
        targets=args.targets,
    )
    for name, path in written.items():
        print(f"wrote {name}: {visible(path)}")
    if args.vocab:
        print(
            f"load {visible(written['vocab'])} as the table {args.vocab_table} before running the SQL"
        )
    return 0


def finish(args: argparse.Namespace) -> int:
    from goldset_tui.app.sampling import finish_sample
    from goldset_tui.errors import InputError
    from goldset_tui.sampling.files import output_format
    from goldset_tui.text import visible

    if args.rows is None or args.weights is None or args.output is None:
        raise InputError(None, "--finish needs --rows, --weights and -o SAMPLE")
    output_format(args.output)
    result, bundle = finish_sample(args.finish, args.rows, args.weights, args.output, args.manifest)
    print_table(result)
    print(
        f"wrote {result.sample.height} queries drawn by {bundle['engine']} to {visible(args.output)}"
    )
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    return 0


def print_table(result: SampleResult, out: TextIO | None = None) -> None:
    # sys.stdout looked up per call, not bound once at import (a test's captured stream).
    out = out or sys.stdout
    print(
        f"{'stratum':<18} {'distinct':>9} {'occurrences':>12} {'share':>7} {'target':>7} "
        f"{'sampled':>8}",
        file=out,
    )
    for r in result.rows:
        short = "  (short)" if r.shortfall > 0 else ""
        print(
            f"{r.stratum:<18} {r.distinct:>9} {r.occurrences:>12} {r.share:>7.1%} {r.target:>7} "
            f"{r.sampled:>8}{short}",
            file=out,
        )
    rows = result.rows
    print(
        f"{'(all)':<18} {sum(r.distinct for r in rows):>9} {sum(r.occurrences for r in rows):>12} "
        f"{sum(r.share for r in rows):>7.1%} {sum(r.target for r in rows):>7} "
        f"{sum(r.sampled for r in rows):>8}",
        file=out,
    )


def _pts(value: float | None) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value * 100:.1f} pts"


def print_plan(
    rows: list[PlanRow], rate: float, want: float | None, rho: float, power: float
) -> None:
    print(
        f"\nplan at an assumed rate of {rate:g}: +-95% = 1.96 * sqrt(p(1-p)/n * (1 - n/N)); "
        f"'detect' = the smallest difference between two systems found at 95% confidence with "
        f"{power:.0%} power, on the same queries (correlation {rho:g}) and unpaired"
    )
    head = (
        f"{'stratum':<18} {'n':>5} {'N':>7} {'se':>6} {'+-95%':>9} {'1 query':>9} "
        f"{'detect':>9} {'unpaired':>9}"
    )
    if want:
        head += f" {'n for +-' + format(want * 100, 'g') + ' pts':>16}"
    print(head)
    for row in rows:
        se = f"{row.se:.3f}" if row.n and math.isfinite(row.se) else "-"
        population = str(row.population) if row.population else "-"
        line = (
            f"{row.stratum:<18} {row.n:>5} {population:>7} {se:>6} {_pts(row.half_width):>9} "
            f"{_pts(row.step if row.n else None):>9} {_pts(row.mde_paired):>9} "
            f"{_pts(row.mde_unpaired):>9}"
        )
        if want and row.needed is not None:
            line += f" {row.needed:>16}"
        print(line)
    weighted = next((r for r in rows if r.stratum == "(weighted)"), None)
    if weighted is not None and weighted.n_effective is not None:
        effective = weighted.n_effective
        shown = f"{effective:.0f}" if math.isfinite(effective) else "all"
        print(
            f"(weighted) is the traffic-weighted headline: its band is that of a simple random "
            f"sample of {shown} queries (the set has {weighted.n}); sampling strata out of "
            f"proportion to their traffic widens it, the finite population narrows it."
        )
        uncovered = 1.0 - (weighted.share or 0.0)
        if uncovered > 1e-9:
            print(f"note: {uncovered:.1%} of the traffic is in strata with no planned queries.")


def print_plan_json(
    rows: list[PlanRow], rate: float, rho: float, power: float, half_width: float | None
) -> None:
    import json

    data = {
        "rate": rate,
        "rho": rho,
        "power": power,
        "alpha": 0.05,
        "half_width_wanted": half_width,
        "strata": [r.to_json() for r in rows if not r.stratum.startswith("(")],
        "all": next(r.to_json() for r in rows if r.stratum == "(all)"),
        "weighted": next((r.to_json() for r in rows if r.stratum == "(weighted)"), None),
    }
    print(json.dumps(data, indent=2))
