"""`goldset agreement`: how far labellers agree, where they part, and what it does to the numbers."""

from __future__ import annotations

import argparse
import json
import sys

from goldset_tui.errors import InputError

NAME = "agreement"
HELP = "agreement between labellers: kappas, Krippendorff's alpha, disagreements"
DESCRIPTION = """\
Measure agreement between labellers on the pairs they both judged. A unit is a (query, document)
pair; a labeller who did not judge a unit is missing there (never a 0).

Reports, for every pair of labellers, the units in common, raw agreement, Cohen's kappa
(unweighted, linear and quadratic weighted, over the whole declared scale) and the confusion
matrix; over all labellers, Krippendorff's alpha at nominal, ordinal and interval levels (with a
seeded bootstrap 95% interval for the ordinal alpha) and Fleiss' kappa when every unit has the
same number of ratings; binary agreement at every cut-off (grade >= 1, >= 2, ...); alpha per
stratum (from the pool's stratum column, or --strata).

JSON keys are fixed (see docs/agreement.md); two are added only when asked for or when there is
data for them: "runs" with --run, and "self_consistency" when the store holds blind repeats
(judging with --repeat): per labeller, agreement of the repeat with the first judgment, its
quadratic kappa, the mean shift (repeat - first) and agreement in four slices of time (drift).
A store with a single labeller and blind repeats gets that self-consistency report alone.

Without a store or --scale the scale is inferred from the grades seen (0 to the highest), with a
warning: the binary cut-offs and confusion matrices follow the scale, so declare it.

With --run the consensus is scored with the pairs still pending adjudication taken out of the run
(as trec_eval -J does for unjudged documents), never counted as not relevant; the consensus row
says how many pairs are pending.

With --screen it opens the agreement screen (pairwise matrix, alpha by level and stratum, and the
disagreements ranked by size, each opening to the query, text and every labeller's grade).

examples:
  goldset agreement --store ~/stores/docs-pool
  goldset agreement --store ~/stores/docs-pool --format json > agreement.json
  goldset agreement --qrels alice=alice.qrels --qrels bob=bob.qrels --scale 0-3
  goldset agreement --store ~/stores/docs-pool --run bm25=bm25.run
  goldset agreement --store ~/stores/docs-pool --screen
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--store",
        metavar="DIR",
        help="a store with two or more labellers (or one, with blind repeats)",
    )
    source.add_argument(
        "--qrels",
        metavar="NAME=PATH",
        action="append",
        help="one labeller's TREC qrels (give two or more)",
    )
    parser.add_argument(
        "--scale",
        metavar="MIN-MAX",
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
        "--seed", type=int, default=0, help="seed of the bootstrap interval (default 0)"
    )
    parser.add_argument(
        "--replicates",
        type=int,
        default=1000,
        help="bootstrap replicates for the alpha interval (default 1000)",
    )
    parser.add_argument(
        "--rule",
        default=None,
        help="consensus rule for --run: unanimous-majority-adjudicator or median",
    )
    parser.add_argument(
        "--screen", action="store_true", help="open the agreement screen instead of printing"
    )


def load(args: argparse.Namespace):  # noqa: ANN201
    from goldset_tui.agreement.sources import from_qrels, from_store, parse_scale

    scale = parse_scale(args.scale) if args.scale else None
    if args.store:
        return from_store(args.store, scale)
    return from_qrels(args.qrels, scale)


def run(args: argparse.Namespace) -> int:
    from goldset_tui.agreement.markdown import to_markdown
    from goldset_tui.agreement.report import agreement_report, disagreements
    from goldset_tui.agreement.sources import self_consistency_of, strata_of

    if args.screen:
        from goldset_tui.commands._terminal import require_terminal

        require_terminal(NAME)  # the screen needs a terminal; the printed report does not
    if args.replicates < 0:
        raise InputError(None, "--replicates must be 0 or more")
    data = load(args)
    for warning in data.warnings or []:
        print(f"goldset: warning: {warning}", file=sys.stderr)
    if data.ratings.get_column("labeller").n_unique() < 2:
        return solo(args, data)
    strata = strata_of(data, args.strata)
    if args.screen:
        from goldset_tui.ui.app import run_app
        from goldset_tui.ui.screens.agreement import AgreementScreen

        return run_app(
            lambda: AgreementScreen(data, strata=strata, seed=args.seed, replicates=args.replicates)
        )
    report = agreement_report(
        data.ratings, data.scale, strata=strata, seed=args.seed, replicates=args.replicates
    )
    repeats = self_consistency_of(data)
    if repeats is not None:
        report["self_consistency"] = repeats
    return emit(args, data, report, lambda r: to_markdown(r, disagreements(data.ratings)))


def solo(args: argparse.Namespace, data) -> int:  # noqa: ANN001 - AgreementData
    """One labeller: nobody to agree with, but blind repeats measure agreement with oneself.

    The JSON keeps every fixed key (null or empty where two labellers are needed) so a script
    reading it does not break; "self_consistency" carries the figures."""
    from goldset_tui.agreement.markdown import solo_markdown
    from goldset_tui.agreement.sources import self_consistency_of

    where = args.store or "the qrels"
    repeats = self_consistency_of(data)
    if not repeats:
        raise InputError(
            where,
            "agreement needs judgments from at least two labellers; one labeller's self-consistency needs "
            "blind repeats (goldset judge POOL --labeller NAME --repeat 0.05)",
        )
    if args.screen:
        raise InputError(
            where,
            "the agreement screen needs two labellers; without --screen the report shows this "
            "labeller's self-consistency",
        )
    report = {
        "labellers": sorted(data.ratings.get_column("labeller").unique().to_list()),
        "units": data.ratings.height,
        "scale": [data.scale.min, data.scale.max],
        "pairs": [],
        "alpha": {"nominal": None, "ordinal": None, "interval": None, "ordinal_ci95": None},
        "fleiss_kappa": None,
        "binary": [],
        "strata": [],
        "self_consistency": repeats,
    }
    return emit(args, data, report, solo_markdown)


def emit(args: argparse.Namespace, data, report: dict, markdown) -> int:  # noqa: ANN001
    """Add the --run scores to ``report``, then print it as JSON or through ``markdown(report)``."""
    if args.run:
        from goldset_tui.agreement.runs import runs_by_labeller

        report["runs"] = runs_by_labeller(data, args.run, rule=args.rule)
    if args.format == "json":
        sys.stdout.write(json.dumps(report, indent=2, allow_nan=False) + "\n")
    else:
        sys.stdout.write(markdown(report))
    return 0
