"""`goldset adjudicate`: decide, with the keyboard, the disagreements the consensus rule leaves open."""

from __future__ import annotations

import argparse
import sys

from goldset_tui.errors import InputError

NAME = "adjudicate"
HELP = "walk the labellers' disagreements and decide them (the consensus)"
DESCRIPTION = """\
Walk the disagreements that the consensus rule cannot settle, biggest first (a 3 against a 0
before a 2 against a 1), showing the query, the candidate and every labeller's grade, note and
time. A digit decides; each decision is fsynced to STORE/adjudication/<NAME>.jsonl before the
screen says saved, so quitting at any point loses nothing and the next session resumes at the
first undecided pair.

Rules: unanimous-majority-adjudicator (default: all agree, else a strict majority, else the
adjudicator) or median (the median grade; with an even number of grades whose middle two differ,
the adjudicator decides, else the lower). Pairs a labeller flagged "unsure / needs discussion"
(f on the judging screen) come after the disagreements, with the flags' reasons; deciding one
makes the decision the consensus grade. --rule is recorded in the store, so `goldset qrels
--consensus` exports with the same rule; the provenance of every pair is written next to it.

keys: 0-9 decide, j/k or arrows move, x withdraw a decision, t every system's top k for the
query (with --run, or a pool that records systems and ranks: the screen then says when deciding
a pair decides whether a system fails the query), q quit.

examples:
  goldset import --pool sample_data/pool.jsonl --store docs-store --labeller alice \\
      --human sample_data/judgments/alice.qrels
  goldset import --store docs-store --labeller bob \\
      --human sample_data/judgments/bob.qrels
  goldset adjudicate --store docs-store --labeller dana
  goldset adjudicate --store ~/stores/docs-pool --labeller dana
  goldset adjudicate --store ~/stores/docs-pool --labeller dana --run bm25=bm25.run --run dense=dense.run
  goldset qrels --store ~/stores/docs-pool --consensus -o consensus.qrels
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from goldset_tui.adjudication.consensus import RULES

    parser.add_argument(
        "--store", required=True, metavar="DIR", help="the project folder holding the judgments"
    )
    parser.add_argument("--labeller", required=True, metavar="NAME", help="the adjudicator's name")
    parser.add_argument(
        "--rule",
        choices=RULES,
        help="consensus rule (default: the store's, else unanimous-majority-adjudicator)",
    )
    parser.add_argument(
        "--run",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="a TREC run, repeatable: t opens each system's top k and the screen says when a "
        "decision decides whether a system fails the query (default: the systems and ranks the "
        "store's pool recorded, if any)",
    )


def run(args: argparse.Namespace) -> int:
    from goldset_tui.adjudication.consensus import open_adjudication, store_rule
    from goldset_tui.agreement.sources import from_store, without_machines
    from goldset_tui.app.terminal import require_terminal

    require_terminal(NAME)  # a screen command: no terminal, one line instead of a spin
    if not args.labeller.strip():
        raise InputError(args.store, "the adjudicator's name cannot be empty", column="labeller")
    data = without_machines(from_store(args.store))  # the consensus leaves machines out too
    for warning in data.warnings or []:
        print(f"goldset: warning: {warning}", file=sys.stderr)
    project = data.project
    assert project is not None  # from_store opens the store's project
    rule = args.rule or store_rule(project)
    from goldset_tui.adjudication.consensus import flagged_pairs

    people = data.ratings.get_column("labeller").unique().to_list()
    flags = flagged_pairs(project, people).select("query_id", "doc_id", "flag").rows()
    flagged = {(q, d): reason for q, d, reason in flags}
    if len(people) < 2 and not flagged:
        raise InputError(
            args.store,
            "nothing to adjudicate: the store has judgments from fewer than two labellers, and "
            "no flagged pair",
        )
    from goldset_tui.app.agreement import named_runs
    from goldset_tui.ui.app import run_app
    from goldset_tui.ui.screens.adjudicate import AdjudicateScreen

    # Read (and refused, one line) before the screen opens.
    runs = named_runs(args.run) if args.run else None
    writer = open_adjudication(project, args.labeller, args.rule)
    try:
        return run_app(
            lambda: AdjudicateScreen(
                data, writer, store=project.path, rule=rule, runs=runs, flagged=flagged
            )
        )
    finally:
        writer.close()
