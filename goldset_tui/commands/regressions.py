"""`goldset regressions`: name a recurring failure as a regression case, list the cases."""

from __future__ import annotations

import argparse
import sys

from goldset_tui.errors import InputError
from goldset_tui.text import visible

NAME = "regressions"
HELP = "name a recurring failure as a regression case; list the cases and how each last fared"
DESCRIPTION = """\
A query that keeps failing across releases (see `goldset history`) is worth a name: promoted, it
lives in the store's regressions.toml, travels with the golden set, and every later
`goldset report`/`eval --store DIR --release NAME` says, per named case, whether it passes that
release (scored above 0) or fails (scored 0).

Without --promote, lists the cases and their status in the latest release of each system.

examples:
  goldset import --pool sample_data/pool.jsonl --store docs-store --labeller alice \\
      --human sample_data/judgments/alice.qrels
  goldset report --qrels docs-store --run bm25=sample_data/releases/2026.1/bm25.run \\
      --strata sample_data/strata.csv -m nDCG@10 --store docs-store --release 2026.1
  goldset regressions --store docs-store --promote q36 --name stop-a-thread
  goldset regressions --store ~/stores/docs-pool --promote q_0147 --name rotate-api-key \\
      --note "the rotation page loses to the overview since the chunker change"
  goldset regressions --store ~/stores/docs-pool
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", required=True, metavar="DIR", help="the goldset store")
    parser.add_argument("--promote", metavar="QUERY_ID", help="the query to name")
    parser.add_argument("--name", help="the case's name (with --promote)")
    parser.add_argument("--note", default="", help="why it matters (with --promote)")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from goldset_tui.app.history import case_statuses, promote_case, store_records

    store = Path(args.store)
    records = store_records(store)
    if args.promote is not None:
        if not args.name:
            raise InputError(None, "--promote needs --name NAME")
        case, wrote = promote_case(store, args.promote, args.name, args.note, records)
        what = "named" if wrote else "already named (nothing written)"
        print(
            visible(f"{what}: {case.name!r} is query {case.query_id} ({case.stratum})"),
            file=sys.stderr,
        )
        return 0
    if args.name or args.note:
        raise InputError(None, "--name and --note go with --promote QUERY_ID")
    statuses = case_statuses(store, records)
    if not statuses:
        print("no named regression cases in this store")
        return 0
    for each in statuses:
        case = each.case
        print(visible(f"{case.name}  query {case.query_id} ({case.stratum})  {case.note}".rstrip()))
        for row in each.rows:
            print(
                visible(
                    f"  {row['status']:<13} {row['system']} in {row['release']} ({row['measure']})"
                )
            )
    return 0
