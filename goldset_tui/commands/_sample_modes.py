"""`goldset sample`'s four modes as subcommands: plan, draw, emit-sql, finish.

They were one command whose mode a flag chose (``--plan``, ``--emit-sql``, ``--finish``, or none
to draw), and options of one mode given to another were silently ignored (``--rate`` under
``--emit-sql``, ``--seed`` under ``--finish``). Each mode now takes only its own options, and an
option it would ignore is refused on one line naming it, exit status 2. The flag spellings still
work for one release (:func:`old_spellings` turns them into the mode, with a note).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from goldset_tui.commands._grammar import NOTE

MODES = ("plan", "draw", "emit-sql", "finish")
# The note an old spelling gets, said once the mode's own parsing has accepted the rest (a refusal
# is then the one line said).
_NOTES: list[str] = []
ENGINES = ("duckdb", "spark", "bigquery")


class ModeParser(argparse.ArgumentParser):
    """One mode's parser: an unknown option is refused on one line that says which modes take it,
    and an option that only matters beside another (``--rate`` with ``--plan``) is refused without
    it (``needs``: dest -> (its option, the dest it needs, that option, the default))."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.siblings: dict[str, argparse.ArgumentParser] = {}
        self.needs: dict[str, tuple[str, str, str, Any]] = {}

    def refuse(self, message: str) -> None:
        _NOTES.clear()  # the refusal alone: one line
        self.exit(2, f"goldset: error: {self.prog.removeprefix('goldset ')}: {message}\n")

    def parse_known_args(  # type: ignore[override]
        self, args: Any = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            option = next((e.split("=")[0] for e in extras if e.startswith("-")), None)
            if option is None:
                self.refuse(f"unrecognized arguments: {' '.join(extras)}")
            takers = [
                f"sample {name}"
                for name, sibling in self.siblings.items()
                if option in sibling._option_string_actions
            ]
            where = f" (it is an option of {' and '.join(takers)})" if takers else ""
            self.refuse(f"{option} is not an option of this mode{where}")
        for dest, (option, needed, needed_option, default) in self.needs.items():
            if getattr(parsed, dest) is None:
                setattr(parsed, dest, default)
            elif not getattr(parsed, needed):
                self.refuse(f"{option} goes with {needed_option} (without it, it would be ignored)")
        for note in _NOTES:
            print(note, file=sys.stderr)
        _NOTES.clear()
        return parsed, extras


def _labels(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "labels",
        type=Path,
        metavar="LABELS",
        help="query, count, stratum (from `goldset classify` or your own); with --log, a query log",
    )
    p.add_argument(
        "--log",
        action="store_true",
        help="LABELS is a query log: classify it first with the default rules (streamed)",
    )
    p.add_argument("--vocab", type=Path, help="with --log: the vocabulary for the misspelled rule")


def _sizes(p: ModeParser, *, floor: bool = True) -> None:
    from goldset_tui.sampling.allocation import DEFAULT_MIN_PER_STRATUM

    sizes = p.add_mutually_exclusive_group()  # one is needed: said by `run`, in its words
    sizes.add_argument("--targets", metavar="STRATUM=N,...", help="queries per stratum")
    sizes.add_argument("--total", type=int, metavar="N", help="set size, split by traffic share")
    if floor:
        p.add_argument(
            "--min-per-stratum",
            type=int,
            metavar="M",
            help=f"with --total: at least M per stratum (default {DEFAULT_MIN_PER_STRATUM})",
        )
        p.needs["min_per_stratum"] = (
            "--min-per-stratum",
            "total",
            "--total",
            DEFAULT_MIN_PER_STRATUM,
        )


def _cap(p: argparse.ArgumentParser) -> None:
    from goldset_tui.sampling.sample import DEFAULT_CAP

    p.add_argument(
        "--cap",
        type=int,
        default=DEFAULT_CAP,
        help=f"weight = min(count, CAP) (default {DEFAULT_CAP})",
    )


def _planning(p: ModeParser, *, after_draw: bool) -> None:
    """The plan's options; in draw they go with --plan (``after_draw``) and are refused without."""
    from goldset_tui.sampling.plan import DEFAULT_POWER, DEFAULT_RATE, DEFAULT_RHO

    with_plan = "with --plan: " if after_draw else ""
    options = [
        ("--rate", "rate", float, None, DEFAULT_RATE, f"assumed rate (default {DEFAULT_RATE})"),
        ("--half-width", "half_width", float, "H", None, "the size a 95%% half-width of H needs"),
        (
            "--rho",
            "rho",
            float,
            None,
            DEFAULT_RHO,
            "correlation of two systems' per-query scores on the same queries "
            f"(default {DEFAULT_RHO}; measure it on two past runs; 0 is unpaired)",
        ),
        ("--power", "power", float, None, DEFAULT_POWER, f"power (default {DEFAULT_POWER})"),
    ]
    for option, dest, kind, metavar, default, text in options:
        p.add_argument(
            option,
            type=kind,
            metavar=metavar,
            default=None if after_draw else default,
            help=with_plan + text,
        )
        if after_draw:
            p.needs[dest] = (option, "plan", "--plan", default)
    p.add_argument(
        "--format",
        choices=("text", "json"),
        default=None if after_draw else "text",
        help=with_plan
        + "text, or JSON on stdout"
        + (" (the sample's table then goes to stderr)" if after_draw else ""),
    )
    if after_draw:
        p.needs["format"] = ("--format", "plan", "--plan", "text")


def _output(p: argparse.ArgumentParser, what: str, *, manifest: bool = True) -> None:
    # Not required here: `run` says what is missing in one line, after the checks of every command.
    p.add_argument("-o", "--output", type=Path, metavar="PATH", help=what)
    if manifest:
        p.add_argument(
            "--manifest", type=Path, help="where to write the manifest (default: beside SAMPLE)"
        )


def add_modes(parser: argparse.ArgumentParser) -> None:
    raw = argparse.RawDescriptionHelpFormatter
    modes = parser.add_subparsers(
        dest="mode", metavar="MODE", required=True, parser_class=ModeParser
    )
    plan = modes.add_parser(
        "plan",
        help="print the sample-size plan per stratum (nothing is drawn)",
        description="examples:\n  goldset sample plan labels.csv --total 160 --half-width 0.1",
        formatter_class=raw,
    )
    _labels(plan)
    _sizes(plan)
    _planning(plan, after_draw=False)
    plan.set_defaults(plan=True)

    draw = modes.add_parser(
        "draw",
        help="draw the seeded sample and write SAMPLE, its manifest and the files report reads",
        description="examples:\n  goldset sample draw labels.csv -o golden.csv --seed 7 --total 160",
        formatter_class=raw,
    )
    _labels(draw)
    _output(draw, "SAMPLE file to write (.csv or .parquet)")
    draw.add_argument(
        "--seed", type=int, metavar="N", help="random seed (required: a sample is redrawn by it)"
    )
    _sizes(draw)
    _cap(draw)
    draw.add_argument("--plan", action="store_true", help="also print the plan for the sizes drawn")
    _planning(draw, after_draw=True)

    emit = modes.add_parser(
        "emit-sql",
        help="write the SQL that classifies and samples the log in a warehouse",
        description="examples:\n  goldset sample emit-sql duckdb --table query_log --seed 7 "
        "--targets negation=20,paraphrase=30 -o golden.sql",
        formatter_class=raw,
    )
    emit.add_argument(
        "emit_sql", metavar="ENGINE", choices=ENGINES, help=f"one of {', '.join(ENGINES)}"
    )
    _output(emit, "the SQL file to write (FILE.sql)", manifest=False)
    emit.add_argument("--seed", type=int, metavar="N", help="random seed (required)")
    _sizes(emit, floor=False)
    _cap(emit)
    emit.add_argument("--table", default="query_log", help="the log's table (default query_log)")
    emit.add_argument("--query-column", default="query", help="the raw query column")
    emit.add_argument("--count-column", help="the occurrences column (default: one per row)")
    emit.add_argument("--vocab", type=Path, help="the vocabulary for the misspelled rule")
    emit.add_argument(
        "--vocab-table", help="the table (column word) to load --vocab into (default goldset_vocab)"
    )
    emit.needs["vocab_table"] = ("--vocab-table", "vocab", "--vocab", "goldset_vocab")

    finish = modes.add_parser(
        "finish",
        help="make SAMPLE from the warehouse's results of the SQL emit-sql wrote",
        description="examples:\n  goldset sample finish golden.sql --rows rows.csv "
        "--weights weights.csv -o golden.csv",
        formatter_class=raw,
    )
    finish.add_argument("finish", type=Path, metavar="FILE.sql", help="the SQL file emit-sql wrote")
    finish.add_argument("--rows", type=Path, help="the sample query's result (required)")
    finish.add_argument("--weights", type=Path, help="the weights query's result (required)")
    _output(finish, "SAMPLE file to write (.csv or .parquet)")

    mode_parsers: dict[str, ModeParser] = {
        "plan": plan,
        "draw": draw,
        "emit-sql": emit,
        "finish": finish,
    }
    # Every mode's namespace holds every name `run` reads (the others' at their "not given").
    absent = {"plan": False, "log": False, "emit_sql": None, "finish": None, "labels": None}
    for name, mode in mode_parsers.items():
        mode.siblings = {k: v for k, v in mode_parsers.items() if k != name}
        mine = {a.dest for a in mode._actions}
        others = {
            a.dest: absent.get(a.dest)
            for other in mode_parsers.values()
            for a in other._actions
            if a.dest not in mine and a.dest not in mode._defaults and a.dest != "help"
        }
        mode.set_defaults(**others)


def _at(argv: list[str], flag: str) -> int | None:
    return next((i for i, a in enumerate(argv) if a == flag or a.startswith(flag + "=")), None)


def old_spellings(argv: list[str]) -> list[str]:
    """The flag spellings of the modes (``sample LABELS --plan``, ``sample --emit-sql ENGINE``,
    ``sample --finish FILE.sql``, ``sample LABELS -o SAMPLE``) as the mode they chose, with one
    note; two modes at once are refused on one line, exit 2."""
    _NOTES.clear()
    if not argv or argv[0] in MODES or argv[0] in ("-h", "--help"):
        return argv
    plan, emit, finish = (_at(argv, f) for f in ("--plan", "--emit-sql", "--finish"))
    chosen = [
        f
        for f, at in (("--plan", plan), ("--emit-sql", emit), ("--finish", finish))
        if at is not None
    ]
    if len(chosen) > 1:
        print(
            f"goldset: error: sample: {' and '.join(chosen)} are different modes: give one "
            "(goldset sample plan|draw|emit-sql|finish)",
            file=sys.stderr,
        )
        raise SystemExit(2)
    rest = list(argv)

    def take(at: int, flag: str) -> list[str]:
        token = rest.pop(at)
        if token.startswith(flag + "="):
            return [token.split("=", 1)[1]]
        return [rest.pop(at)] if at < len(rest) else []

    if emit is not None:
        mode = ["emit-sql", *take(emit, "--emit-sql")]
        old, new = "sample --emit-sql ENGINE", "sample emit-sql ENGINE"
    elif finish is not None:
        mode = ["finish", *take(finish, "--finish")]
        old, new = "sample --finish FILE.sql", "sample finish FILE.sql"
    elif plan is not None and not any(_is_output(a) for a in rest):
        rest.pop(plan)
        mode, old, new = ["plan"], "sample LABELS --plan", "sample plan LABELS"
    else:
        also = " --plan" if plan is not None else ""
        mode, old = ["draw"], f"sample LABELS -o SAMPLE{also}"
        new = f"sample draw LABELS -o SAMPLE{also}"
    _NOTES.append(NOTE.format(old=f"`{old}`", new=f"`{new}`"))
    return mode + rest


def _is_output(token: str) -> bool:
    return token == "--output" or token.startswith(("--output=", "-o"))
