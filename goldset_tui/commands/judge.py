"""`goldset judge`: validate the pool, open the store, then the judging screen.

Everything that can be wrong with the input is found before any screen opens (one line, exit 2):
the pool, the store, the lock on the labeller's journal, the assignment; the checks are the
application layer's (``goldset_tui.app.judging``), this module maps the arguments onto them.
Textual is imported only inside ``run`` so that ``goldset --help`` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from goldset_tui.app.judging import JudgingSetup
    from goldset_tui.ui.screens.judge import JudgeScreen

NAME = "judge"
HELP = "judge a pool in the terminal: keyboard-only graded judging, crash-safe"
DESCRIPTION = """\
Open the judging screen on POOL as labeller NAME. Judgments go to --store DIR; without it, to the
store goldset knows holds this pool and NAME has judged in (it says which; several are named and
nothing opens), else the pool's default store under the user data folder. Each one is on disk
before the screen says saved. Reopening resumes at the first candidate you have not judged.

Candidates are shown blind, in an order seeded by (labeller, query), without system names or
ranks; the position shown is recorded with each judgment. --reveal shows which systems returned
each candidate and at which rank (for an engineer reviewing, not for labelling).

keys: 0-3 grade and move on (the store's scale decides the digits) | j/k or arrows move |
  n/p next/previous query | u undo | d give near-duplicates the same grade | c note |
  f flag unsure / needs discussion | s skip with a reason |
  g go to query id | / search queries | ? guidelines and keys | m more of a long text |
  w reading width (remembered) | t term highlighting (remembered) | space/pgup/pgdn, home/end,
  shift+arrows scroll the text | ctrl+f find in the text | # go to a candidate |
  q or ctrl+q save and quit | ctrl+p command palette
Remap any key in the config file (see docs/judging.md), e.g.  [keymap] grade_0 = "0,a"

--machine MODEL: a model judges instead, without a screen (the llm extra: pip install
'goldset-tui[llm]'). Each pair goes to the model with an UMBRELA-style 0-3 prompt (--prompt FILE
replaces it); the grades, with each answer's rationale and confidence, go to the store as machine
labeller NAME, as goldset import --machine would put them, so goldset agreement and validate read
them unchanged. Every answer is on disk before it counts: a killed run keeps them, and the same
command resumes where it stopped; answers are cached by (prompt, model, pair), so a rerun costs
nothing. An answer with no grade on the scale is refused for that pair and counted. The key comes
from ANTHROPIC_API_KEY or OPENAI_API_KEY, or --api-key-file, and is never written anywhere.

examples:
  goldset judge sample_data/pool.jsonl --labeller alice
  goldset judge pool.parquet --labeller bob --store ~/golden/docs-store
  goldset judge pool.jsonl --labeller cy --assign overlap=0.2 --team alice,bob,cy
  goldset judge pool.jsonl --labeller alice --repeat 0.02    # 2% of your judged pairs come back, blind
  goldset judge pool.jsonl --labeller alice --order adaptive  # likely-relevant candidates first
  goldset judge pool.jsonl --labeller alice --render markdown --text-width 88
  goldset judge pool+dense-v2.jsonl --labeller alice --store ~/golden/docs-store --only-new
  goldset judge --machine claude-sonnet-4-5 pool.jsonl --store ~/golden/docs-store --labeller llm \\
      --max-cost 5
  goldset judge --machine llama3.1:8b pool.jsonl --store ~/golden/docs-store --labeller llama \\
      --provider openai --base-url http://localhost:11434/v1 --price 0,0 --concurrency 2
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "pool", metavar="POOL", help="the pool file (Parquet, CSV, TSV, JSONL, nested JSONL)"
    )
    parser.add_argument(
        "--labeller",
        metavar="NAME",
        required=True,
        help="who is judging (your judgments are kept under this name)",
    )
    parser.add_argument(
        "--store",
        metavar="DIR",
        help="the store (project folder); default: one per pool under the user data folder",
    )
    parser.add_argument(
        "--corpus",
        metavar="FILE",
        help="document texts for a pool that lists ids only (recorded in the store: later "
        "commands on it find the texts without --corpus)",
    )
    parser.add_argument(
        "--scale",
        metavar="LO-HI",
        help="the grade scale of a store being made, e.g. 0-4 or 1-5 (default 0-3; the keys, "
        "help and guidelines follow it); an existing store keeps its own",
    )
    parser.add_argument(
        "--reveal",
        action="store_true",
        help="show systems and ranks (not blind: for reviewing, not labelling)",
    )
    parser.add_argument(
        "--assign",
        metavar="overlap=F",
        help="judge only this labeller's share: a seeded share F of queries goes to everyone,"
        " the rest to one labeller each",
    )
    parser.add_argument(
        "--repeat",
        metavar="SHARE",
        type=float,
        default=0.0,
        help="self-consistency: serve a seeded share (e.g. 0.02) of your judged pairs again, blind, now and then",
    )
    parser.add_argument(
        "--order",
        choices=("blind", "adaptive"),  # judging.adaptive.ORDERS (a test keeps them equal)
        default="blind",
        help="blind: each query's candidates in a seeded order (default); adaptive: the next"
        " candidate picked by a multi-armed bandit (MaxMean) from your grades so far, for a"
        " budget that cannot cover the pool (needs the pool's systems and ranks; still blind)",
    )
    parser.add_argument(
        "--team",
        metavar="A,B,...",
        help="the labellers sharing the work with --assign (remembered in the store)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="N",
        help="seed of the --assign split and --repeat choice (default 0; the split's is remembered in the store)",
    )
    parser.add_argument(
        "--only-new",
        action="store_true",
        help="only the pairs the store's last `goldset pool --extend` added (they are marked "
        "+new on the screen either way)",
    )
    add_display_arguments(parser)
    add_machine_arguments(parser)
    parser.add_argument(
        "--take-over",
        action="store_true",
        help="if your session is still open in another process (a dropped connection), end it "
        "(SIGHUP: it saves and closes) and judge here; without it goldset asks",
    )


def add_machine_arguments(parser: argparse.ArgumentParser) -> None:
    from goldset_tui.commands._judge_machine import add_machine_arguments as add

    add(parser)


def add_display_arguments(parser: argparse.ArgumentParser) -> None:
    """--render and --text-width: how documents are shown (judge and demo alike)."""
    from goldset_tui.config import RENDERS

    parser.add_argument(
        "--render",
        choices=RENDERS,
        default=None,
        help="show documents as plain text (default, reflowed to the screen) or render their "
        "Markdown or reStructuredText markup (never links, images or HTML: shown as text)",
    )
    parser.add_argument(
        "--text-width",
        metavar="COLUMNS",
        type=_text_width,
        default=None,
        help="reading width of documents, 0 for the whole width (default 100, or the config's "
        "ui.text_width; the key w changes it and remembers it)",
    )


def _text_width(value: str) -> int:
    from goldset_tui.config import MAX_TEXT_WIDTH, MIN_TEXT_WIDTH, valid_text_width

    try:
        width = int(value)
    except ValueError:
        width = -1
    if not valid_text_width(width):
        raise argparse.ArgumentTypeError(
            f"expected 0 (the whole width) or {MIN_TEXT_WIDTH}-{MAX_TEXT_WIDTH} columns, got {value!r}"
        )
    return width


def prepare(
    pool_path: str | Path, labeller: str | None, *, scale: str | None = None, **options: Any
) -> JudgingSetup:
    """``open_judging`` (its other ``options`` passed on as they are) with ``--scale LO-HI`` as
    the command line gives it."""
    from goldset_tui.app.judging import open_judging
    from goldset_tui.commands._args import store_scale

    grades = store_scale(scale) if scale is not None else None
    return open_judging(pool_path, labeller, scale=grades, **options)


def make_screen(setup: JudgingSetup, **options: Any) -> JudgeScreen:
    """The judging screen (``goldset_tui.ui.opening.judge_screen``) with these options."""
    from goldset_tui.ui.opening import judge_screen

    return judge_screen(setup, **options)


def run(args: argparse.Namespace) -> int:
    from goldset_tui.app.judging import check_repeat
    from goldset_tui.app.take_over import take_over_session
    from goldset_tui.app.terminal import require_terminal
    from goldset_tui.commands._judge_exit import quoted, said_at_exit
    from goldset_tui.commands._judge_machine import check_mode, run_machine
    from goldset_tui.text import visible

    check_mode(args)  # an option of the other mode is refused, not ignored
    if args.machine is not None:
        return run_machine(args)  # a model judges: no screen, no terminal needed
    require_terminal(NAME)  # before the store is created: a script gets one line, not a spin
    from goldset_tui.ui.app import checked_config, run_app

    checked_config()  # a bad keymap is refused before a store is created for nothing
    check_repeat(args.repeat)
    prepared = prepare(
        args.pool,
        args.labeller,
        store=args.store,
        corpus=args.corpus,
        assign=args.assign,
        team=args.team,
        seed=args.seed,
        order=args.order,
        scale=args.scale,
    )
    for warning in prepared.warnings:
        print(f"goldset: warning: {visible(warning, keep_newlines=False)}", file=sys.stderr)
    # Still open elsewhere (a dropped connection): offer to end it.
    again = quoted("goldset", "judge", args.pool, "--labeller", prepared.labeller)
    if args.store is not None:
        again += " " + quoted("--store", prepared.project.path)
    take_over_session(prepared, again, take_over=args.take_over)
    screen = make_screen(
        prepared,
        reveal=args.reveal,
        repeat=args.repeat,
        seed=args.seed,
        order=args.order,
        render=args.render,
        text_width=args.text_width,
        only_new=args.only_new,
    )
    try:
        return run_app(lambda: screen)
    finally:
        screen.flush()  # idempotent; also covers an exception inside the app
        said_at_exit(screen, prepared, args.pool)  # where it is kept (_judge_exit.py)
