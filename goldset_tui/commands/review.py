"""`goldset review`: the report and closure screens, with judging of the holes they find.

The review is opened by the application layer (``goldset_tui.app.review``); two ways in:
- the same arguments as `goldset report` (qrels, runs, strata, traffic), plus optionally a store
  and a labeller to judge the missing pairs into, and a corpus/topics to show their texts;
- a store alone (`--store DIR`): qrels are its judgments, the runs are rebuilt from the systems and
  ranks its pool recorded, the strata and texts come from the pool too.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from goldset_tui.commands.report import add_input_arguments

if TYPE_CHECKING:
    from goldset_tui.ui.review_context import ReviewContext
    from goldset_tui.ui.screens.report import ReportScreen

NAME = "review"
HELP = "open the report and closure screens; drill into failing queries and judge the missing pairs"
DESCRIPTION = """\
Opens the stratified report (each interval drawn as a bar). Enter on a cell lists that stratum's
failing queries for that system; Enter on a query shows every system's top k with each document's
grade, unjudged ones marked [?] (n/p: the next/previous failing query), beside the highlighted
document's text with the query's terms marked (t hides it; ] and [ turn its pages), its grades
by labeller (≠: they disagree, a opens the disagreement; =: a tied score decided its rank) and
the relevant documents outside every top k with each system's rank; i lists the ids in full. J judges the missing pairs
(with --store and --labeller) and the report is recomputed when you come back (Escape).
c opens the closure screen (with the sampling manifest's checks when --sampling-manifest is
given); s the whole report beyond the table (headlines with intervals, fusion against the best
single run and the oracle, failure overlap, judged shares, paired tests), every figure as
`goldset report --format json` gives it; o the failure overlap of every pair (Enter: its queries,
with what fusion rescues). The header names the measure and whose grades are in force; l
switches to the store's next labeller or its consensus, m to the next measure. A golden-set
query with no relevant grade yet but unjudged documents in a top k stays in the failing lists,
marked unjudged, for J to reach. On every screen: y copies the highlighted id and Y the list's
ids (OSC 52: over SSH too), e and E write the table as Markdown and CSV into -o DIR (never over
a file), / or g finds a query, ? lists the keys.

examples:
  goldset review --qrels sample_data/judgments/alice.qrels --run bm25=sample_data/runs/bm25.run \\
      --run minilm=sample_data/runs/minilm.run --strata sample_data/strata.csv
  goldset review --qrels qrels.txt --run bm25=bm25.run --run dense=dense.run --strata strata.csv
  goldset review --store ~/.local/share/goldset/projects/mypool --labeller ana -m Success@10
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p, runs_required=False)
    p.add_argument(
        "--store",
        metavar="DIR",
        help="goldset store: the --labeller's grades in it are in force from the first screen "
        "(over --qrels, or over the pool's prior judgments); missing pairs are judged into it; "
        "alone, review it",
    )
    p.add_argument(
        "--corpus", metavar="FILE", help="document texts (BEIR corpus.jsonl or doc_id,text table)"
    )
    p.add_argument(
        "--topics", metavar="FILE", help="query texts (BEIR queries.jsonl or TSV qid<TAB>text)"
    )
    p.add_argument(
        "--sampling-manifest",
        metavar="FILE",
        help="sampling manifest whose [[closure]] checks to show",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="DIR",
        help="where e (Markdown) and E (CSV) write a screen's table or list (default: the current "
        "folder); a file already there is never overwritten",
    )
    p.add_argument(
        "--pairs-out",
        metavar="FILE",
        default="missing_pairs.csv",
        help="where missing pairs go when they cannot be judged here (default missing_pairs.csv in "
        "the current folder; the screen names the full path)",
    )
    from goldset_tui.commands._decision_args import add_decision_arguments

    # The decision view (d) as `goldset report` and `goldset route` make it.
    add_decision_arguments(p.add_argument_group("decisions"), rest_to_best=True)


def build_context(args: argparse.Namespace) -> ReviewContext:
    """Read and check every input, compute the report: the ReviewContext the screens share."""
    from goldset_tui.app.review import review_setup
    from goldset_tui.app.route import decisions_of, report_request
    from goldset_tui.commands._decision_args import decision_request
    from goldset_tui.ui.opening import review_context

    asked = report_request(decision_request(args), traffic=args.traffic is not None)
    setup = review_setup(
        qrels=args.qrels,
        runs=args.run,
        strata=args.strata,
        traffic=args.traffic,
        metric=args.metric,
        seed=args.seed,
        samples=args.samples,
        fuse=not args.no_fusion,
        store=args.store,
        labeller=args.labeller,
        corpus=args.corpus,
        topics=args.topics,
        sampling_manifest=args.sampling_manifest,
        out_dir=args.output,
        pairs_out=args.pairs_out,
    )
    context = review_context(setup)
    if asked is not None:
        context.decide = lambda report: decisions_of(report, asked)
    return context


def review_screen_for_store(
    store: str | Path, labeller: str, *, metric: str | None = None
) -> ReportScreen:
    """The report screen on a store, as the home screen opens it (app.review.review_for_store)."""
    from goldset_tui.app.review import METRIC, review_for_store
    from goldset_tui.ui.opening import review_context
    from goldset_tui.ui.screens.report import ReportScreen

    setup = review_for_store(store, labeller, metric=metric or METRIC)
    return ReportScreen(review_context(setup))


def run(args: argparse.Namespace) -> int:
    from goldset_tui.app.terminal import require_terminal

    require_terminal(NAME)  # before the report is computed for a screen that cannot open
    from goldset_tui.ui.app import run_app
    from goldset_tui.ui.screens.report import ReportScreen

    context = build_context(args)
    return run_app(lambda: ReportScreen(context))
