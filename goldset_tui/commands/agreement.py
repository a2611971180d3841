"""`goldset agreement`: how far labellers agree, where they part, and what it does to the numbers."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from goldset_tui.errors import InputError
from goldset_tui.eval.defaults import AGREEMENT_REPLICATES

if TYPE_CHECKING:
    from goldset_tui.app.agreement_report import AgreementParts

NAME = "agreement"
HELP = "agreement between labellers: kappas, Krippendorff's alpha with intervals, position bias"
DESCRIPTION = """\
Measure agreement between labellers on the pairs they both judged. A unit is a (query, document)
pair; a labeller who did not judge a unit is missing there (never a 0).

Reports, for every pair of labellers, the units in common, raw agreement, Cohen's kappa
(unweighted, linear and quadratic weighted, over the whole declared scale) and the confusion
matrix; over all labellers, Krippendorff's alpha at nominal, ordinal and interval levels and
Fleiss' kappa when every unit has the same number of ratings; binary agreement at every cut-off
(grade >= 1, >= 2, ...); alpha per stratum (from the pool's stratum column, or --strata).

Every kappa, alpha and agreement carries a 95% interval made by leaving each whole query out in
turn and recomputing the figure (a jackknife with Student t; docs/agreement.md): documents of one
query are judged alike more often than documents of different queries, so leaving documents out
one by one would give intervals that are too narrow. A figure undefined with some query left out
takes its interval from redrawing whole queries with replacement (--samples times). Each
stratum uses its own queries.

From a store, position bias per labeller: mean grade and relevant rate by the position a document
was shown at (1-5, 6-10, 11-20, 21+) and by minutes into a sitting, with a test for a trend
within queries (the shown order is random per labeller and query, so a trend is the labeller's).

JSON keys are fixed (see docs/agreement.md); two are added only when asked for or when there is
data for them: "runs" with --run, and "self_consistency" when the store holds blind repeats
(judging with --repeat): per labeller, agreement of the repeat with the first judgment, its
quadratic kappa, the mean shift (repeat - first) and agreement in four slices of time (drift).
A store with a single labeller gets its self-consistency and position bias alone.

Without a store or --scale the scale is inferred from the grades seen (0 to the highest), with a
warning: the binary cut-offs and confusion matrices follow the scale, so declare it.

With --run the consensus is scored with the pairs still pending adjudication taken out of the run
(as trec_eval -J does for unjudged documents), never counted as not relevant; the consensus row
says how many pairs are pending.

Machine judges (goldset import --machine, or --machine NAME with --qrels) are left out of the
human figures and reported under "machine": agreement with each human and with the human
consensus (kappas, ordinal alpha, intervals), and leniency (mean grade machine minus human) with
the confusion matrix, overall and per stratum. With --run, "system_ranking" compares how each set
of labels orders the runs by -m MEASURE: Kendall's tau-b, tau_AP (the first set is the reference)
and every pair of runs whose order flips, with a paired test of the reference difference.

With --screen it opens the agreement screen (pairwise matrix, alpha by level and stratum with their
intervals, position bias, and the disagreements ranked by size, each opening to the query, text and
every labeller's grade).

examples:
  goldset agreement --qrels alice=sample_data/judgments/alice.qrels \\
      --qrels bob=sample_data/judgments/bob.qrels --scale 0-3
  goldset agreement --store ~/stores/docs-pool
  goldset agreement --store ~/stores/docs-pool --format json > agreement.json
  goldset agreement --qrels alice=alice.qrels --qrels bob=bob.qrels --scale 0-3
  goldset agreement --store ~/stores/docs-pool --run bm25=bm25.run
  goldset agreement --store ~/stores/docs-pool --screen
  goldset agreement --qrels human=h.qrels --qrels llm=l.qrels --machine llm --scale 0-3
  goldset agreement --qrels human=h.qrels --qrels llm=l.qrels --run a=a.run --run b=b.run \\
      --run c=c.run -m nDCG@10 --format json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--store",
        metavar="DIR",
        help="a store with two or more labellers (or one: self-consistency, position bias)",
    )
    source.add_argument(
        "--qrels",
        metavar="NAME=QRELS",
        action="append",
        help="one labeller's TREC qrels (give two or more)",
    )
    parser.add_argument(
        "--scale",
        metavar="LO-HI",
        help="the grade scale (default: the store's, or 0 to the highest grade)",
    )
    parser.add_argument(
        "--format", choices=("md", "json"), default="md", help="md (default) or json"
    )
    parser.add_argument(
        "--run",
        metavar="NAME=PATH",
        action="append",
        default=[],
        help="evaluate this TREC run against each labeller's judgments and the consensus",
    )
    parser.add_argument(
        "--strata", metavar="FILE", help="a table of query_id (optionally doc_id) and stratum"
    )
    parser.add_argument(
        "--seed",
        type=int,
        metavar="N",
        default=0,
        help="random seed for redrawing queries (default 0): the same seed gives the same intervals",
    )
    from goldset_tui.commands._grammar import old_name

    samples = parser.add_argument(
        "--samples",
        dest="replicates",
        type=int,
        metavar="N",
        default=AGREEMENT_REPLICATES,
        help="how many times the queries are redrawn for a figure undefined with a query left out "
        "(default %(default)s; 0: no intervals at all)",
    )
    old_name(parser, "--replicates", like=samples)
    parser.add_argument(
        "--rule",
        metavar="RULE",
        default=None,
        help="consensus rule for --run: unanimous-majority-adjudicator or median",
    )
    # docs/cli.md: --print prints, --screen opens the screen, on every command that can do both.
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument(
        "--screen", action="store_true", help="open the agreement screen instead of printing"
    )
    shown.add_argument(
        "--print",
        dest="screen",
        action="store_false",
        default=False,
        help="print the report (the default)",
    )
    parser.add_argument(
        "-m",
        "--measure",
        metavar="MEASURE",
        default="nDCG@10",
        help="with --run: the measure the systems are ranked by in system_ranking (default nDCG@10)",
    )
    parser.add_argument(
        "--machine",
        metavar="NAME",
        action="append",
        default=[],
        help="with --qrels: the labeller NAME is a machine judge (a store marks its own)",
    )


def run(args: argparse.Namespace) -> int:
    from goldset_tui.agreement.markdown import solo_markdown, to_markdown
    from goldset_tui.agreement.report import disagreements
    from goldset_tui.agreement.sources import strata_of
    from goldset_tui.app.agreement import load_agreement, refuse_consensus_name
    from goldset_tui.app.agreement_report import agreement_parts, full_report, solo_report

    if args.screen:
        from goldset_tui.app.terminal import require_terminal

        require_terminal(NAME)  # the screen needs a terminal; the printed report does not
    if args.replicates < 0:
        raise InputError(None, "--samples must be 0 or more")
    everyone = load_agreement(args.store, args.qrels, args.scale)
    refuse_consensus_name(everyone)
    for warning in everyone.warnings or []:
        print(f"goldset: warning: {warning}", file=sys.stderr)
    parts = agreement_parts(
        everyone,
        machine_names=args.machine,
        rule=args.rule,
        strata=args.strata,
        seed=args.seed,
        replicates=args.replicates,
        runs=args.run,
        measure=args.measure,
        qrels=args.qrels,
    )
    if parts.solo:
        report = solo_report(parts, args.store or "the qrels", screen=args.screen)
        return emit(args, parts, report, lambda r: with_machine_md(solo_markdown(r), r))
    data = parts.data
    strata = strata_of(data, args.strata)
    if args.screen:
        from goldset_tui.app.agreement import named_runs
        from goldset_tui.ui.app import run_app
        from goldset_tui.ui.screens.agreement import AgreementScreen

        return run_app(
            lambda: AgreementScreen(
                data,
                strata=strata,
                seed=args.seed,
                replicates=args.replicates,
                ranking=parts.extra.get("system_ranking"),
                # --run's runs for the top k view (None: the store pool's systems, if any)
                runs=named_runs(args.run) if args.run else None,
                rule=args.rule,
            )
        )
    report = full_report(parts, strata, seed=args.seed, replicates=args.replicates)
    return emit(
        args,
        parts,
        report,
        lambda r: with_machine_md(to_markdown(r, disagreements(data.ratings)), r),
    )


def with_machine_md(text: str, report: dict[str, Any]) -> str:
    from goldset_tui.machine.markdown import machine_markdown, ranking_markdown

    if "machine" in report:
        text += machine_markdown(report["machine"])
    if "system_ranking" in report:
        text += ranking_markdown(report["system_ranking"])
    return text


def emit(
    args: argparse.Namespace,
    parts: AgreementParts,
    report: dict[str, Any],
    markdown: Callable[[dict[str, Any]], str],
) -> int:
    """Add the --run scores to ``report``, then print it as JSON or through ``markdown(report)``."""
    from goldset_tui.app.agreement_report import add_runs

    add_runs(report, parts, args.run, args.rule)
    if args.format == "json":
        sys.stdout.write(json.dumps(report, indent=2, allow_nan=False) + "\n")
    else:
        sys.stdout.write(markdown(report))
    return 0
