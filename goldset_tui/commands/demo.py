"""`goldset demo`: judge the bundled sample pool in a throwaway store."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from goldset_tui.errors import InputError

NAME = "demo"
HELP = "try the judging screen on the bundled sample pool (a throwaway store)"
DESCRIPTION = """\
Open the judging screen on sample_data/pool.jsonl (42 real queries over the Python standard
library's documentation, pooled from a BM25 and a MiniLM run) as labeller "demo". The pool is
copied into a new temporary folder with its own store, so nothing you do touches your projects;
that folder is removed on exit (one line says so). To keep what you judged, give a folder:

  goldset demo --dir ~/goldset-demo
  goldset qrels --store ~/goldset-demo/store

examples:
  goldset demo
  goldset demo --reveal            # show which system returned each candidate, at which rank
  goldset demo --dir demo-run      # keep the store in demo-run/ (reused on the next run)
"""


def sample_pool() -> Path:
    """The sample pool of a source checkout or an editable install."""
    here = Path(__file__).resolve().parents[2] / "sample_data" / "pool.jsonl"
    if not here.is_file():
        raise InputError(
            here,
            "the sample pool is missing: goldset demo needs a source checkout (pip install -e .)",
        )
    return here


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--labeller", metavar="NAME", default="demo", help="labeller name (default demo)"
    )
    parser.add_argument("--reveal", action="store_true", help="show systems and ranks")
    parser.add_argument(
        "--dir",
        metavar="DIR",
        help="keep the pool copy and store in this folder instead of a throwaway one",
    )


def run(args: argparse.Namespace) -> int:
    from goldset_tui.commands.judge import make_screen, prepare
    from goldset_tui.ui.app import run_app

    source = sample_pool()
    throwaway = not args.dir
    folder = Path(tempfile.mkdtemp(prefix="goldset-demo-")) if throwaway else Path(args.dir)
    screen = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        pool = folder / "pool.jsonl"
        if not pool.exists():
            shutil.copyfile(source, pool)
        prepared = prepare(pool, args.labeller, store=folder / "store")
        screen = make_screen(prepared, reveal=args.reveal)
        try:
            status = run_app(lambda: screen)
        finally:
            screen.flush()
    finally:
        if throwaway:
            # A throwaway by design, but say so: the grades go with it, and nothing is left in /tmp.
            shutil.rmtree(folder, ignore_errors=True)
            if screen is not None:
                judged = screen.session.judged_count if screen.session is not None else 0
                print(
                    f"goldset demo: removed the throwaway store {folder} ({judged:,} judgment(s); "
                    "use --dir DIR to keep one)",
                    file=sys.stderr,
                )
    if not throwaway:
        print(
            f"goldset demo: judgments are in {folder / 'store'}  (goldset qrels --store {folder / 'store'})",
            file=sys.stderr,
        )
    return status
