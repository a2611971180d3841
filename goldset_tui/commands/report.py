"""`goldset report`: the stratified table with intervals, closure, overlap, fusion headroom."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

from goldset_tui.app.report import ReportInputs, build_report, check_metric, load_report_inputs
from goldset_tui.errors import InputError
from goldset_tui.eval.defaults import DEFAULT_METRIC, REPORT_SAMPLES
from goldset_tui.progress import working
from goldset_tui.text import for_terminal, visible

NAME = "report"
HELP = "stratified report: per-stratum intervals, closure checks, failure overlap, fusion headroom"
DESCRIPTION = """\
Per stratum and system: n, hits (binary measures), mean and a 95% interval (Wilson with
continuity correction for 0/1 measures; for graded ones in [0, 1] a score interval with the
observed dispersion and a Student t quantile, which holds its coverage at 7 queries where a
bootstrap does not); strata under 40
queries flagged as counts, not rates. The interval's name is in every format (ci_method).

Closure is checked against the golden set (every query of the strata file): a query with no
judgments or no relevant document is dropped from the table, and the report says it does not
close, naming each such query, its stratum and why.

Then the unweighted headline and, with --traffic, the traffic-weighted one with a stratified
interval (a population column in the traffic file adds the finite-population correction); with
an inclusion_probability column in the strata file, the design-weighted (Hajek) headline beside
it. Failure-set overlap and the oracle for every pair of runs; reciprocal rank fusion of the
runs (of each run's top k for a measure with cutoff k) with the share of the oracle headroom it
collects; the unjudged fraction of each run's top k (warned above 20%) with the mean it would
have were its unjudged documents relevant; paired comparisons of every pair overall (with the
traffic-weighted difference) and per stratum (exact McNemar for 0/1 measures, randomization
otherwise), with Holm-adjusted p-values beside the raw ones.

Queries evaluated: every query in the qrels with at least one relevant document (grade >= 1); a
query missing from a run counts 0 for it.

examples:
  goldset report --qrels sample_data/judgments/alice.qrels --run bm25=sample_data/runs/bm25.run \\
      --run minilm=sample_data/runs/minilm.run --strata sample_data/strata.csv \\
      --traffic sample_data/traffic.csv -m Success@10 -o out/
  goldset report --qrels ~/golden/docs-store --run bm25=bm25.run --strata strata.csv \\
      -m nDCG@10 -m P@10 --store ~/golden/docs-store --release 2026.4
"""


def add_input_arguments(
    p: argparse.ArgumentParser,
    *,
    runs_required: bool = True,
    several: bool = False,
    old_spellings: bool = True,
) -> None:
    """Arguments shared with `goldset review` and `goldset route` (``several``: -m repeats, for
    `goldset report`; ``old_spellings``: False for a command too new to have had them)."""
    p.add_argument(
        "--qrels",
        required=runs_required,
        metavar="QRELS",
        help="TREC qrels file, or a goldset store folder (its judgments become the qrels)",
    )
    p.add_argument(
        "--labeller",
        metavar="NAME",
        help="with a store as --qrels: whose judgments are the qrels (laid over the pool's prior "
        "judgments when the store has them)",
    )
    p.add_argument(
        "--run",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="a TREC run, repeatable; NAME defaults to the file name without .gz and extension, "
        "or to the run's tag when the file name says nothing (- and pipes too, as eval)",
    )
    p.add_argument(
        "--strata",
        required=runs_required,
        metavar="FILE",
        help="query_id,stratum[,inclusion_probability] (CSV, TSV or Parquet): the golden set",
    )
    p.add_argument(
        "--traffic",
        metavar="FILE",
        help="stratum,share (0.31 or 31%%)[,population] for the weighted headline and its interval",
    )
    from goldset_tui.commands._grammar import old_name

    if several:
        measure = p.add_argument(
            "-m",
            "--measure",
            dest="metric",
            metavar="MEASURE",
            action="append",
            help=f"measure to report (default {DEFAULT_METRIC}); repeat it for one report per measure, "
            "each recorded with --release",
        )
    else:
        measure = p.add_argument(
            "-m",
            "--measure",
            dest="metric",
            metavar="MEASURE",
            default=DEFAULT_METRIC,
            help=f"measure to report (default {DEFAULT_METRIC})",
        )
    if old_spellings:
        old_name(p, "--metric", like=measure)
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="N",
        help="seed of the bootstrap and randomisation tests (default 0)",
    )
    p.add_argument(
        "--samples",
        type=int,
        default=REPORT_SAMPLES,
        metavar="N",
        help="bootstrap / permutation samples (default %(default)s)",
    )
    p.add_argument(
        "--no-fusion", action="store_true", help="leave out the reciprocal rank fusion system"
    )


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p, several=True)
    p.add_argument(
        "--format", choices=("md", "json", "csv"), default="md", help="what to print (default md)"
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="DIR",
        help="also write report.md, report.json, report.csv and failing_queries.csv here",
    )
    from goldset_tui.commands._history_hooks import add_release_arguments

    add_release_arguments(p)  # --store DIR --release NAME: the golden set's history
    from goldset_tui.commands._decision_args import add_decision_arguments

    # The decision block (JSON `decisions`, the Markdown's section): as `goldset route`.
    add_decision_arguments(p.add_argument_group("decisions"), rest_to_best=True)


def load_inputs(args: argparse.Namespace) -> ReportInputs:
    """Read and check every input before anything is computed or any screen opens."""
    manifest = getattr(args, "sampling_manifest", None)
    return load_report_inputs(
        args.qrels,
        args.run,
        args.strata,
        traffic=args.traffic,
        metric=args.metric,
        seed=args.seed,
        samples=args.samples,
        fuse=not args.no_fusion,
        labeller=getattr(args, "labeller", None),
        sampling_manifest=manifest,
    )


def write_outputs(report, out: Path) -> list[Path]:
    from goldset_tui.commands.eval import output_folder
    from goldset_tui.report.pipeline import failing_csv, to_csv, to_json, to_markdown
    from goldset_tui.store.files import atomic_write_bytes

    out = output_folder(out)
    files = {
        "report.md": to_markdown(report),
        "report.json": to_json(report),
        "report.csv": to_csv(report),
        "failing_queries.csv": failing_csv(report),
    }
    written = []
    for name, text in files.items():
        path = out / name
        try:
            atomic_write_bytes(
                path, text.encode("utf-8")
            )  # never a half-written report beside a whole one
        except OSError as exc:
            raise InputError(path, f"cannot write: {exc.strerror or exc}") from None
        written.append(path)
    return written


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from goldset_tui.commands import _history_hooks
    from goldset_tui.report.pipeline import to_csv, to_json, to_markdown

    _history_hooks.check(args)  # a wrong --store/--release is refused before the work
    # Every measure checked before any run is read; the runs are read once for all of them.
    metrics = list(dict.fromkeys(check_metric(m) for m in (args.metric or [DEFAULT_METRIC])))
    from goldset_tui.app.route import decisions_of, report_request
    from goldset_tui.commands._decision_args import decision_request

    asked = report_request(decision_request(args), traffic=args.traffic is not None)
    args.metric = metrics[0]
    inputs = load_inputs(args)
    if args.output:
        from goldset_tui.commands.eval import output_folder

        output_folder(args.output)  # a bad -o is refused before the work, not after it
    render = {"md": to_markdown, "json": to_json, "csv": to_csv}[args.format]
    texts = []
    pending: list = []  # every measure's records, recorded as one release after the last
    for metric in metrics:
        each = replace(inputs, metric=metric)
        _warn_scale(args.qrels, metric)
        with working(f"computing the report ({metric})"):
            report = build_report(each)
        _history_hooks.note_strata_change(args, report)
        if asked is not None:
            report.decisions = decisions_of(report, asked)
        texts.append(render(report))
        if args.output:
            # One measure: DIR as always; several: DIR/<measure>/ each, side by side.
            out = Path(args.output) / (slug(metric) if len(metrics) > 1 else "")
            written = write_outputs(report, out)
            print(f"wrote {', '.join(visible(p) for p in written)}", file=sys.stderr)
        for warning in report.warnings:
            # Warnings name strata and systems from the data: shown, never interpreted.
            print(f"goldset: warning: {visible(warning, keep_newlines=False)}", file=sys.stderr)
        _history_hooks.after_report(args, each, report, pending)
    _history_hooks.record_pending(args, pending)
    sys.stdout.write(for_terminal(joined(texts, metrics, args.format), sys.stdout))
    return 0


def slug(metric: str) -> str:
    from goldset_tui.store.files import slug as file_slug

    return file_slug(metric) or "measure"


def joined(texts: list[str], metrics: list[str], form: str) -> str:
    """One measure: its report as ever. Several: Markdown one after another; JSON a list; CSV
    one table with the measure first on each row."""
    if len(texts) == 1:
        return texts[0]
    if form == "md":
        return "\n".join(texts)
    if form == "json":
        import json

        return json.dumps([json.loads(t) for t in texts], indent=2) + "\n"
    import io

    frames = [
        pl.read_csv(io.StringIO(t), infer_schema=False).select(pl.lit(m).alias("measure"), pl.all())
        for t, m in zip(texts, metrics, strict=True)
    ]
    return pl.concat(frames).write_csv()


def _warn_scale(qrels: str, metric: str) -> None:
    """As `goldset eval`: one warning when the store's lowest grade would count as relevant
    (a 1-5 scale) and the metric (canonical: ``check_metric``) did not set its own level (the
    report has no -l)."""
    from goldset_tui.commands.eval import scale_misread
    from goldset_tui.eval.measures import parse_measure, with_rel_level

    if (found := scale_misread(Path(qrels), 1)) is None:
        return
    scale, why = found
    measure = parse_measure(metric)
    example = with_rel_level(measure, scale.min + 1)
    if example == measure:
        return  # relevance is set by the metric itself, or the measure reads grades as gains
    print(
        f"goldset: warning: {qrels}: {why}; if grade {scale.min} means not relevant, give the "
        f"metric its level: --measure '{example}'",
        file=sys.stderr,
    )
