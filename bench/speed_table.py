"""Where people wait, side by side: goldset and each reference in one table, with the goals.

Every row of the speed table in docs/eval.md ("Where people wait"), each measured beside its
reference in the same run:

- evaluation, 7,000 x 1,000 (246 MB run), 4 measures: against pytrec_eval, a bare Polars parse of
  the run, and the trec_eval binary when there is one;
- evaluation, 100 x 1,000 (Robust 2003, a shallow pool, with R@100): against pytrec_eval;
- pooling 4 runs x 7,000 x 1,000 at depth 20: against a bare Polars scan of the four files;
- the report, 3,000 queries x 100 x 2 runs: against two trec_eval runs;
- and the rows other benchmarks measure (classify on 6 M and 48 M lines, a keypress on a 1 M-row
  pool through a pty, long documents, opening a 1 M-row pool, serve's first frame), each run as
  its own script in a child process (bench/_speed_rows.py); a script that is missing or fails
  gives a row saying "not measured" and why.

Figures are CPU time (user + system, every thread) and peak memory of each whole process, from
``os.wait4``, medians of --repeats runs taken in turns; the load average is printed beside each
row. Ratios are goldset / reference, in CPU time unless the basis column says otherwise; a goal
is the largest ratio (or value) that passes.

trec_eval is not built here (its licence is for research use; build it with its own Makefile and
give its path with --trec-eval or TREC_EVAL); without it its rows say "not measured".

    python bench/speed_table.py                    # every row, full size, 5 repeats
    python bench/speed_table.py --quick            # small sizes, to try the table
    python bench/speed_table.py --rows eval-large,pool --repeats 3
    python bench/speed_table.py --list             # the rows' names
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _speed_measure import Line
from _speed_own import OWN, Setup, find_trec_eval
from _speed_rows import EXTERNAL, measure_external

ORDER = [
    "eval-large",
    "eval-small",
    "pool",
    "classify-6m",
    "classify-48m",
    "keys",
    "long-documents",
    "open-pool",
    "report",
    "serve",
]
assert set(ORDER) == set(OWN) | set(EXTERNAL), "every row is measured here or by a script"


def ratio_text(line: Line) -> str:
    if line.ratio is None:
        return "-"
    if line.basis in ("CPU", "wall", "RSS"):
        return f"{line.ratio:.2f}x {line.basis}"
    return f"{line.ratio:,.1f} {line.basis}"


def goal_text(line: Line) -> str:
    if line.goal is None:
        return "-"
    if line.basis in ("CPU", "wall", "RSS"):
        return f"<= {line.goal:g}x"
    return f"<= {line.goal:g} {line.basis.split()[0]}"


def print_line(line: Line) -> None:
    cells = [
        line.case,
        line.goldset,
        line.reference,
        ratio_text(line),
        goal_text(line),
        line.verdict(),
        f"{line.load:.1f}",
        line.note,
    ]
    print("| " + " | ".join(c.replace("|", "/") for c in cells) + " |", flush=True)


def compile_goldset() -> None:
    """goldset's bytecode written once, as ``pip install`` does for an installed package: in a
    checkout run with PYTHONDONTWRITEBYTECODE=1 every process would compile it again."""
    import importlib.util

    spec = importlib.util.find_spec("goldset_tui")
    if spec and spec.origin:
        folder = str(Path(spec.origin).parent)
        subprocess.run([sys.executable, "-m", "compileall", "-q", folder], check=False)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=5, help="runs per tool (median)")
    parser.add_argument("--quick", action="store_true", help="small sizes (a tenth or so)")
    parser.add_argument("--rows", help=f"comma-separated, of: {', '.join(ORDER)}")
    parser.add_argument("--list", action="store_true", help="print the rows' names and stop")
    parser.add_argument("--trec-eval", metavar="PATH", help="the trec_eval binary")
    parser.add_argument(
        "--folder",
        type=Path,
        default=Path(tempfile.gettempdir()) / "goldset-speed-table",
        help="where the generated data are kept between runs",
    )
    args = parser.parse_args()
    if args.list:
        print("\n".join(ORDER))
        return 0
    rows = args.rows.split(",") if args.rows else ORDER
    unknown = [r for r in rows if r not in ORDER]
    if unknown:
        parser.error(f"unknown rows: {', '.join(unknown)} (see --list)")
    args.folder.mkdir(parents=True, exist_ok=True)
    trec_eval = find_trec_eval(args.trec_eval)
    setup = Setup(args.folder, args.quick, args.repeats, trec_eval)
    compile_goldset()
    print(
        f"speed table: {'quick sizes' if args.quick else 'full sizes'}, median of {args.repeats};"
        f" {os.cpu_count()} cores; trec_eval: {trec_eval or 'not found'};"
        f" load average at the start {os.getloadavg()[0]:.1f}"
    )
    print("ratio = goldset / reference (CPU time of the whole process unless said otherwise)\n")
    print("| case | goldset | reference | ratio | goal | result | load | note |")
    print("|---|---|---|---|---|---|---|---|")
    for name in ORDER:
        if name not in rows:
            continue
        if name in OWN:
            try:
                lines = OWN[name](setup)
            except (OSError, subprocess.CalledProcessError) as error:
                lines = [Line(name, "not measured", "-", note=f"preparing the data: {error}")]
        else:
            lines = measure_external(name, args.quick, args.repeats, args.folder)
        for line in lines:
            print_line(line)
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
