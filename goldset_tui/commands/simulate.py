"""`goldset simulate`: replay existing judgments in a judging order (depth, move-to-front or the
MaxMean bandit)."""

from __future__ import annotations

import argparse
import json
import sys

from goldset_tui.errors import InputError

NAME = "simulate"
HELP = "replay qrels as if the pool had been judged in depth, move-to-front or bandit order"
DESCRIPTION = """\
Replay existing judgments as if the depth-K pool of the runs had been judged in a given order,
up to a budget of judgments: how many relevant documents each budget finds (and their share of
all relevant pooled pairs), and how well the systems are already ranked by -m MEASURE (Kendall's
tau-b against the ranking with every pooled pair judged; three runs or more). A pooled pair the
qrels lack counts as judged not relevant; a query the qrels do not judge at all is left out
(stderr names how many).

  depth  rank 1 of every run, then rank 2, ... (queries in order, runs in the order given)
  mtf    move-to-front (Cormack, Palmer & Clarke 1998): per query, keep judging the run that
         last found a relevant document; a non-relevant one sends its run to the back
  mm     MaxMean multi-armed bandit (Losada, Parapar & Barreiro 2016/2017; stationary variant):
         per query, judge next from the run whose judged documents so far give the highest
         posterior mean chance of relevance, (relevant + 1) / (judged + 2); ties to the run
         given first

JSON: {"order", "depth", "budget", "measure", "queries", "queries_without_judgments", "pool",
       "relevant_in_pool", "steps": [{"judged", "relevant_found", "share", "kendall_tau"}]}

examples:
  goldset simulate --qrels sample_data/judgments/alice.qrels --run bm25=sample_data/runs/bm25.run \\
      --run minilm=sample_data/runs/minilm.run --depth 20 --order mtf --budget 500
  goldset simulate --qrels docs.qrels --run bm25=bm25.run --run dense=dense.run --depth 20 --order mtf --budget 500
  goldset simulate --qrels docs.qrels --run a=a.run --run b=b.run --run c=c.run --depth 10 \\
      --order depth --budget 200 --step 20
  goldset simulate --qrels docs.qrels --run a=a.run --run b=b.run --run c=c.run --depth 100 \\
      --order mm --budget 5000
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--qrels", metavar="QRELS", required=True, help="the judgments (TREC qrels)"
    )
    parser.add_argument(
        "--run", metavar="NAME=PATH", action="append", required=True, help="a TREC run (repeat)"
    )
    parser.add_argument(
        "--depth", type=int, default=10, metavar="K", help="pool depth per run (default 10)"
    )
    parser.add_argument(
        "--order",
        choices=("depth", "mtf", "mm"),  # judging.simulate.ORDERS (a test keeps them equal)
        default="mtf",
        help="judging order (default mtf)",
    )
    parser.add_argument("--budget", type=int, required=True, help="judgments to replay")
    parser.add_argument(
        "-m", "--measure", metavar="MEASURE", default="nDCG@10", help="ranks the systems"
    )
    parser.add_argument(
        "--step", type=int, default=None, help="report every N judgments (default: budget / 20)"
    )
    parser.add_argument(
        "--format", choices=("json",), default="json", help="json (the only output, default)"
    )


def run(args: argparse.Namespace) -> int:
    from goldset_tui.app.simulating import read_replay_inputs, replay
    from goldset_tui.eval.measures import arithmetic_measure
    from goldset_tui.specs import parse_named_paths
    from goldset_tui.text import visible

    if args.depth < 1:
        raise InputError(None, "--depth must be at least 1")
    if args.budget < 1:
        raise InputError(None, "--budget must be at least 1")
    if args.step is not None and args.step < 1:
        raise InputError(None, "--step must be at least 1")
    arithmetic_measure(args.measure, option="-m", does="simulate ranks the systems by")
    inputs = read_replay_inputs(args.qrels, parse_named_paths(args.run, "--run"))
    if unjudged := inputs.unjudged:
        some = ", ".join(visible(q) for q in unjudged[:5]) + (", ..." if len(unjudged) > 5 else "")
        print(
            f"goldset: note: {len(unjudged)} quer{'y' if len(unjudged) == 1 else 'ies'} of the "
            f"runs not judged in {visible(args.qrels)} left out of the replay ({some})",
            file=sys.stderr,
        )
    report = replay(
        inputs,
        depth=args.depth,
        order=args.order,
        budget=args.budget,
        measure=args.measure,
        step=args.step,
    )
    sys.stdout.write(json.dumps(report, indent=2, allow_nan=False) + "\n")
    return 0
