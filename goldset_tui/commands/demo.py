"""`goldset demo`: judge the sample pool that ships inside the package, in a store that is kept.

The pool is package data (``goldset_tui/sample/pool.jsonl``, a byte-for-byte copy of
``sample_data/pool.jsonl`` that a test keeps equal), read with ``importlib.resources``, so the
demo works from a wheel in any folder, not only from a source checkout. Its store lives under the
user data folder and is reused: judgments made in the demo are work like any other, and a ``q``
must never throw them away. ``--fresh`` starts over, on purpose.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from importlib import resources
from pathlib import Path

from goldset_tui import locations
from goldset_tui.errors import InputError

NAME = "demo"
HELP = "try the judging screen on the sample pool that comes with goldset"
DESCRIPTION = """\
Open the judging screen on the sample pool that ships with goldset (42 real queries over the
Python standard library's documentation, pooled from a BM25 and a MiniLM run) as labeller "demo".
The demo has its own store under your data folder, apart from your projects; what you judge is
kept there, the next `goldset demo` resumes it, and the home screen (`goldset`) lists it. On exit
one line says where it is. --fresh starts over.

examples:
  goldset demo
  goldset demo --reveal            # show which system returned each candidate, at which rank
  goldset demo --fresh             # forget the demo's judgments and start over
  goldset demo --render rst        # the sample's documents are reStructuredText: render them
  goldset demo --dir demo-run      # keep the pool copy and store in demo-run/ instead
  goldset qrels --store "$(goldset demo --where)"   # export what you judged in the demo
  goldset check "$(goldset demo --pool-path)"      # the sample pool itself, for scripts
"""

# The package folder holding the sample pool (package data; see pyproject.toml).
SAMPLE_PACKAGE = "goldset_tui"
SAMPLE_PATH = ("sample", "pool.jsonl")


def sample_pool_bytes() -> bytes:
    """The bundled sample pool, from the installed package (wheel, zip or checkout alike)."""
    resource = resources.files(SAMPLE_PACKAGE).joinpath(*SAMPLE_PATH)
    try:
        return resource.read_bytes()
    except OSError as exc:  # a broken install: say which file, not a traceback
        raise InputError(
            "/".join((SAMPLE_PACKAGE, *SAMPLE_PATH)),
            f"the sample pool is missing from this installation ({exc.strerror or exc}); "
            "reinstall goldset-tui",
        ) from exc


def demo_dir() -> Path:
    """Where the demo keeps its copy of the pool unless --dir says otherwise."""
    return locations.data_dir() / "demo"


def demo_store() -> Path:
    """The demo's store: among the projects, so the home screen lists it with its progress."""
    return locations.projects_dir() / "demo"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--labeller", metavar="NAME", default="demo", help="labeller name (default demo)"
    )
    parser.add_argument("--reveal", action="store_true", help="show systems and ranks")
    from goldset_tui.commands.judge import add_display_arguments

    add_display_arguments(parser)  # --render, --text-width
    parser.add_argument(
        "--dir",
        metavar="DIR",
        help="keep the pool copy and store in this folder (default: the demo folder under your "
        "data folder)",
    )
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="remove the demo's store first and start over (only the demo's own folder)",
    )
    parser.add_argument(
        "--where", action="store_true", help="print the demo's store folder and exit"
    )
    parser.add_argument(
        "--pool-path",
        action="store_true",
        help="copy the sample pool into the demo folder, print its path and exit (no terminal "
        "needed: for goldset check, pool or scripts)",
    )


def place_pool(folder: Path) -> Path:
    """The sample pool copied into ``folder`` (refreshed when this version ships another one)."""
    data = sample_pool_bytes()
    pool = folder / "pool.jsonl"
    if not pool.is_file() or pool.read_bytes() != data:
        folder.mkdir(parents=True, exist_ok=True)
        partial = pool.with_name(pool.name + ".part")
        partial.write_bytes(data)
        partial.replace(pool)  # never a half-written pool, even if interrupted
    return pool


def start_over(store: Path) -> None:
    """--fresh: remove the demo's store (only a store, only in the demo's own folder)."""
    from goldset_tui.store.manifest import manifest_path

    if not store.exists():
        return
    if not manifest_path(store).exists():
        raise InputError(store, "is not a goldset store; --fresh removes only the demo's store")
    shutil.rmtree(store)
    print(f"goldset demo: started over (removed {store})", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    folder = Path(args.dir).expanduser() if args.dir else demo_dir()
    store = folder / "store" if args.dir else demo_store()
    if args.where:
        print(store)
        if not store.is_dir():  # said, so that `qrels --store "$(goldset demo --where)"` explains
            print(
                "goldset: note: no demo judged yet: `goldset demo` makes its store there",
                file=sys.stderr,
            )
        return 0
    if args.pool_path:
        print(place_pool(folder))
        return 0
    from goldset_tui.app.terminal import require_terminal

    require_terminal(NAME)  # before anything is copied or created
    from goldset_tui.app.judging import open_judging
    from goldset_tui.store import Project
    from goldset_tui.store.files import sha256_file
    from goldset_tui.store.manifest import manifest_path
    from goldset_tui.ui.app import checked_config, run_app

    checked_config()  # a bad keymap is refused before the demo's store is touched
    if args.fresh:
        start_over(store)
    pool = place_pool(folder)
    if not manifest_path(store).exists():
        # Named "demo" on the home screen, not after the pool file ("pool" says nothing).
        Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool), name="demo")
    from goldset_tui.ui.opening import judge_screen

    prepared = open_judging(pool, args.labeller, store=store)
    screen = judge_screen(
        prepared, reveal=args.reveal, render=args.render, text_width=args.text_width
    )
    try:
        status = run_app(lambda: screen)
    finally:
        screen.flush()
        from goldset_tui.commands._judge_exit import exit_line

        # Said on every exit, a failed one too: the judgments are kept, and here is where.
        resume = "goldset demo resumes, --fresh starts over"
        print(
            exit_line("demo", screen, store, resume, f"goldset qrels --store {store}"),
            file=sys.stderr,
        )
    return status
