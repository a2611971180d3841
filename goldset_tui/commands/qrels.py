"""`goldset qrels`: export a store's judgments as TREC qrels, CSV or Parquet."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.text import visible

NAME = "qrels"
HELP = "export judgments from a store as TREC qrels (or CSV/Parquet)"
DESCRIPTION = """\
Export the judgments in a store: the latest grade of every judged (query, document) pair; a
re-judged pair counts once with its last grade; undoing a grade brings back the one before it, or
leaves the pair unjudged.

TREC qrels by default (`qid 0 docid grade`, one line per judged pair, sorted by query then
document, numeric ids in numeric order), ready for trec_eval, pytrec_eval, ir_measures or
`goldset eval`. CSV and Parquet have the columns query_id, doc_id, grade, note, flag: the
labeller's note on the pair and the reason it was flagged "unsure / needs discussion" (empty when
none; with --consensus each labeller's, as "name: text"). Without --format the
extension of -o decides (.csv, .parquet; anything else is TREC). Without -o, TREC and CSV go to
standard output.

A store with several labellers needs --labeller NAME (the command lists them), or --consensus
for the adjudicated consensus of the human labellers; machine labellers (goldset import
--machine) join it only with --include-machine.

--pool POOL exports the default store that `goldset judge POOL` uses (no --store needed).

examples:
  goldset import --pool sample_data/pool.jsonl --labeller alice --human sample_data/judgments/alice.qrels
  goldset qrels --pool sample_data/pool.jsonl -o docs.qrels
  goldset qrels --pool pool.parquet -o docs.qrels
  goldset qrels --store ~/stores/docs-pool -o docs.qrels
  goldset qrels --store ~/stores/docs-pool --labeller alice --format csv > alice.csv
  goldset qrels --store ~/stores/docs-pool --consensus -o consensus.qrels
  goldset qrels --store ~/stores/docs-pool --consensus --include-machine -o with-llm.qrels
"""

FORMATS = ("trec", "csv", "parquet")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--store", metavar="DIR", help="the project folder holding the judgments")
    where.add_argument(
        "--pool",
        metavar="POOL",
        help="use the default store of this pool file (as `goldset judge POOL`)",
    )
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--labeller", metavar="NAME", help="export this labeller's judgments")
    who.add_argument(
        "--consensus",
        action="store_true",
        help="export the consensus of all human labellers (agreement rules and adjudications)",
    )
    parser.add_argument(
        "--include-machine",
        action="store_true",
        help="with --consensus: count machine labellers (goldset import --machine) as raters too",
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write here (atomically) instead of standard output"
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="trec (default), csv or parquet; default from the -o extension",
    )


def choose_format(explicit: str | None, output: str | None) -> str:
    if explicit:
        return explicit
    suffix = Path(output).suffix.lower() if output else ""
    return {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}.get(suffix, "trec")


def trec_text(qrels: pl.DataFrame, store: Path) -> str:
    """``qid 0 docid grade`` lines. An id with whitespace cannot be written in this format."""
    for column in ("query_id", "doc_id"):
        spaced = qrels.filter(pl.col(column).str.contains(r"\s"))
        if spaced.height:
            raise InputError(
                store,
                f"{column} {spaced[column][0]!r} contains whitespace, which TREC qrels cannot hold; "
                "use --format csv or parquet",
                column=column,
            )
    if qrels.height == 0:
        return ""
    lines = qrels.select(
        pl.concat_str(
            [pl.col("query_id"), pl.lit("0"), pl.col("doc_id"), pl.col("grade").cast(pl.String)],
            separator=" ",
        )
    ).to_series()
    return "\n".join(lines.to_list()) + "\n"


def render(qrels: pl.DataFrame, fmt: str, store: Path) -> bytes:
    if fmt == "trec":
        return trec_text(qrels, store).encode("utf-8")
    buffer = io.BytesIO()
    if fmt == "csv":
        qrels.write_csv(buffer)
    else:
        qrels.write_parquet(buffer)
    return buffer.getvalue()


def run(args: argparse.Namespace) -> int:
    from goldset_tui.app.qrels import consensus_for_export, write_export
    from goldset_tui.store import Project
    from goldset_tui.store.frames import sort_pairs

    if args.store is None:
        from goldset_tui.store import default_store_for

        store = default_store_for(args.pool)
        if not store.exists():
            raise InputError(
                args.pool, f"no judgments for this pool yet (no store at {store}); give --store DIR"
            )
    else:
        store = Path(args.store)
    project = Project.open(store)
    fmt = choose_format(args.format, args.output)
    if fmt == "parquet" and not args.output:
        raise InputError(None, "Parquet is binary: give -o FILE")
    if args.include_machine and not args.consensus:
        raise InputError(None, "--include-machine goes with --consensus")
    export = None
    if args.consensus:  # with -o, its provenance is written with the qrels file
        export = consensus_for_export(project, args.include_machine, write=not args.output)
        qrels = export.qrels
        who = "consensus"
    else:
        current = project.judgments(args.labeller)
        if args.labeller is None:
            judged = current["labeller"].unique().sort().to_list()
            if len(judged) > 1:
                raise InputError(
                    project.path,
                    f"{len(judged)} labellers have judgments here ({', '.join(map(repr, judged))}): choose one with "
                    "--labeller NAME, or export --consensus",
                )
        qrels = current.select(
            "query_id", "doc_id", "grade"
        )  # what project.qrels gives, sorted once below
        who = args.labeller or "the only labeller"
    qrels = sort_pairs(qrels.select("query_id", "doc_id", pl.col("grade").cast(pl.Int64)))
    if qrels.height == 0:
        raise InputError(project.path, "no judgments to export yet")
    if fmt != "trec":  # TREC qrels stay four columns; the tables carry notes and flags
        from goldset_tui.store.annotations import with_annotations

        history = project.judgments(None if args.consensus else args.labeller, history=True)
        qrels = with_annotations(qrels, history, by_name=args.consensus)
    data = render(qrels, fmt, project.path)
    if args.output:
        write_export(Path(args.output), data, export)
        queries = qrels["query_id"].n_unique()
        print(
            f"wrote {qrels.height} judgment{'s' * (qrels.height != 1)} over {queries} "
            f"quer{'ies' if queries != 1 else 'y'} ({visible(who)}) to {visible(args.output)}",
            file=sys.stderr,
        )
    elif fmt != "parquet" and sys.stdout.isatty():  # ids shown, never obeyed, on a screen
        sys.stdout.write(visible(data.decode("utf-8")))
        sys.stdout.flush()
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    for warning in project.warnings:
        print(f"goldset: warning: {visible(warning, keep_newlines=False)}", file=sys.stderr)
    if (why := project.scale.all_relevant_at()) is not None:
        advice = f"; evaluate with trec_eval -l {project.scale.min + 1} (goldset eval -l)"
        print(f"goldset: warning: {why}{advice}", file=sys.stderr)
    return 0
