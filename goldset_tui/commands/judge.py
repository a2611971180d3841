"""`goldset judge`: validate the pool, open the store, then the judging screen.

Everything that can be wrong with the input is found here, before any screen opens (one line,
exit 2): the pool (``load_pool``), the store, the lock on the labeller's journal, the assignment.
Textual is imported only inside ``run`` so that ``goldset --help`` stays fast and the command
module stays core.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from goldset_tui.errors import InputError
from goldset_tui.text import visible

if TYPE_CHECKING:
    from goldset_tui.io.pools import Pool
    from goldset_tui.store.project import Project

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

examples:
  goldset judge sample_data/pool.jsonl --labeller alice
  goldset judge pool.parquet --labeller bob --store ~/golden/docs-store
  goldset judge pool.jsonl --labeller cy --assign overlap=0.2 --team alice,bob,cy
  goldset judge pool.jsonl --labeller alice --repeat 0.02    # 2% of your judged pairs come back, blind
  goldset judge pool.jsonl --labeller alice --order adaptive  # likely-relevant candidates first
  goldset judge pool.jsonl --labeller alice --render markdown --text-width 88
  goldset judge pool+dense-v2.jsonl --labeller alice --store ~/golden/docs-store --only-new
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
    parser.add_argument(
        "--take-over",
        action="store_true",
        help="if your session is still open in another process (a dropped connection), end it "
        "(SIGHUP: it saves and closes) and judge here; without it goldset asks",
    )


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


@dataclass
class Prepared:
    project: Project
    pool: Pool
    labeller: str
    query_ids: list[str] | None
    warnings: list[str]


def parse_assign(spec: str) -> float:
    key, sep, value = spec.partition("=")
    try:
        overlap = float(value) if sep and key.strip() == "overlap" else None
    except ValueError:
        overlap = None
    if overlap is None or not 0.0 <= overlap <= 1.0:
        raise InputError(
            None, f"--assign {spec!r}: expected overlap=F with F between 0 and 1, e.g. overlap=0.2"
        )
    return overlap


def prepare(
    pool_path: str | Path,
    labeller: str | None,
    *,
    store: str | Path | None = None,
    corpus: str | Path | None = None,
    assign: str | None = None,
    team: str | None = None,
    seed: int | None = None,
    order: str = "blind",
    scale: str | None = None,
) -> Prepared:
    """Validate everything and open the store; raises InputError on bad input (nothing written).
    ``labeller`` None: for no labeller in particular (`goldset serve` at start-up, which then
    checks each of its labellers): nothing is checked or done in any labeller's name."""
    from goldset_tui.commands._args import refuse_other_scale, store_scale
    from goldset_tui.commands._store_choice import choose_store, remembered_overlap
    from goldset_tui.io.pools import load_pool
    from goldset_tui.store import Project
    from goldset_tui.store.machine import refuse_consensus, refuse_machine
    from goldset_tui.store.manifest import (
        manifest_path,
        new_store_fields,
        recorded_corpus,
        remember_corpus,
    )
    from goldset_tui.store.project import refuse_busy_folder

    # Every argument is checked before anything is created: a refused command leaves no store,
    # no manifest and no lock file behind.
    if labeller is not None and not labeller.strip():
        raise InputError(None, "--labeller must not be empty")
    if labeller is not None:
        refuse_consensus(labeller)  # before a store is made
    overlap = parse_assign(assign) if assign else None
    new_scale = store_scale(scale) if scale is not None else None
    chosen = None if store else choose_store(pool_path, labeller)  # store/registry.py
    store_path = chosen.store if chosen is not None else Path(store or "")
    existing = Project.open(store_path) if manifest_path(store_path).exists() else None
    if overlap is None and existing is not None and labeller is not None:
        overlap = remembered_overlap(existing.manifest, labeller)  # the share stays the share
    if existing is None:
        refuse_busy_folder(store_path)
    else:
        refuse_other_scale(store_path, existing.scale, new_scale)
    saved_team = existing.manifest.get("assignment", {}).get("labellers") if existing else None
    if overlap is not None and not (team and team.strip(" ,")) and not saved_team:
        raise InputError(
            None,
            "--assign needs the team: --team alice,bob,... (remembered in the store afterwards)",
        )
    # Without --corpus, the corpus the store records (an ids-only pool has no texts of its own).
    recorded = recorded_corpus(existing.manifest) if existing and corpus is None else None
    pool = load_pool(
        pool_path, corpus=corpus or recorded, scale=existing.scale if existing else new_scale
    )
    refuse_order(pool, order)  # before the store is made: a refused pool leaves no project
    saved = existing.manifest.get("assignment", {}) if existing else {}
    plan, query_ids = (
        _assignment(store_path, saved, pool, labeller, overlap, team, seed)
        if overlap is not None and labeller is not None
        else (None, None)
    )
    if existing is None:
        project = Project.open_or_create(
            store_path,
            pool_path=pool.path,
            pool_sha256=pool.sha256,
            **new_store_fields(new_scale, corpus),
        )
    else:
        project = existing
        if corpus is not None:  # made before, or with another corpus: remember this one
            project.manifest = remember_corpus(project.path, project.manifest, corpus)
    if labeller is not None:
        refuse_machine(project, labeller)
    warnings = [chosen.said] if chosen is not None and chosen.said else []
    warning = project.pool_warning(pool.sha256, Path(pool.path))
    if warning:
        warnings.append(warning)
    if plan is not None and plan != {k: saved.get(k) for k in plan}:
        # Only a new or deliberately changed plan is written (--team given, or the first time).
        project.update_manifest(assignment=plan)
    if pool.prior is not None and pool.prior.height:
        project.import_prior(pool.prior, labeller=pool.prior_labeller)
    return Prepared(project, pool, labeller or "", query_ids, warnings)


def _assignment(
    store_path: Path,
    saved: dict,
    pool,  # noqa: ANN001 - a loaded pool
    labeller: str,
    overlap: float,
    team: str | None,
    seed: int | None,
) -> tuple[dict, list[str]]:
    """(the plan to remember, this labeller's queries); checked before anything is written."""
    from goldset_tui.agreement.assignment import assigned_query_ids

    if team:
        members = sorted({t.strip() for t in team.split(",") if t.strip()} | {labeller})
    else:
        members = sorted(set(saved.get("labellers", [])))
        if not members:
            raise InputError(
                None,
                "--assign needs the team: --team alice,bob,... (remembered in the store afterwards)",
            )
        _check_remembered(store_path, saved, labeller, overlap, seed)
    seed = seed if seed is not None else int(saved.get("seed", 0))
    plan = {"overlap": overlap, "labellers": members, "seed": seed}
    query_ids = pool.frame.get_column("query_id").unique(maintain_order=True).to_list()
    mine = assigned_query_ids(query_ids, labeller, members, overlap, seed)
    if not mine:  # the judging screen has nothing to show (it failed on an empty list)
        raise InputError(
            pool.path,
            f"no query falls to {visible(labeller)!r}: {len(query_ids)} quer"
            f"{'y' if len(query_ids) == 1 else 'ies'}, overlap {overlap:g}, a team of "
            f"{len(members)}; raise the overlap or judge without --assign",
        )
    return plan, mine


def _check_remembered(
    store_path: Path, saved: dict, labeller: str, overlap: float, seed: int | None
) -> None:
    """Without --team, the split remembered in the store must not change under the judges who
    already started: an unknown name (often a typo) or a different overlap or seed is refused."""
    members = sorted(set(saved.get("labellers", [])))
    names = ",".join(members)
    if labeller not in members:
        raise InputError(
            store_path,
            f"labeller {labeller!r} is not in the team remembered here ({', '.join(map(repr, members))}); "
            f"check the name, or change the team on purpose with --team {names},{labeller}",
        )
    remembered = saved.get("overlap")
    if remembered is not None and float(remembered) != overlap:
        raise InputError(
            store_path,
            f"--assign overlap={overlap:g} differs from the overlap={float(remembered):g} remembered here; "
            f"pass --assign overlap={float(remembered):g}, or change it on purpose with --team {names} again",
        )
    if seed is not None and "seed" in saved and int(saved["seed"]) != seed:
        raise InputError(
            store_path,
            f"--seed {seed} differs from the assignment seed {int(saved['seed'])} remembered here; "
            f"leave --seed out, or change it on purpose with --team {names} again",
        )


def check_repeat(share: float) -> None:
    """--repeat is a share: 0 (off) up to 1; NaN is neither."""
    if not 0.0 <= share <= 1.0:
        raise InputError(None, f"--repeat {share}: expected a share between 0 and 1, e.g. 0.02")


def repeat_candidates(
    project, labeller: str, judged, share: float, seed: int
) -> list[tuple[str, str]]:  # noqa: ANN001
    """Judged pairs to serve again (seeded share), minus those already repeated."""
    check_repeat(share)
    if share <= 0:
        return []
    from goldset_tui.agreement.repeats import repeat_pairs

    history = project.judgments(labeller, history=True)
    done = set(history.filter(history["kind"] == "repeat").select("query_id", "doc_id").rows())
    pairs = repeat_pairs(judged.select("query_id", "doc_id").rows(), labeller, share, seed)
    return [p for p in pairs if p not in done]


def check_order(prepared: Prepared, order: str) -> None:
    refuse_order(prepared.pool, order)


def refuse_order(pool, order: str) -> None:  # noqa: ANN001 - a loaded pool
    """--order adaptive needs to know which systems returned each candidate, at which rank."""
    from goldset_tui.judging.adaptive import has_systems

    if order == "adaptive" and not has_systems(pool.frame):
        raise InputError(
            pool.path,
            "--order adaptive needs the pool's systems and ranks columns (a pool made by"
            " goldset pool has them); this pool has none",
        )


def make_screen(
    prepared: Prepared,
    *,
    reveal: bool = False,
    repeat: float = 0.0,
    seed: int | None = None,
    order: str = "blind",
    render: str | None = None,
    text_width: int | None = None,
    only_new: bool = False,
):  # noqa: ANN201
    """The judging screen for a prepared project; the writer opens here (lock: one per labeller)."""
    from goldset_tui.commands._judge_marks import keep_only_new, marks_for
    from goldset_tui.judging import JudgingSession
    from goldset_tui.store.annotations import notes_of, reasons_of
    from goldset_tui.store.human import judged_on_screen
    from goldset_tui.ui.screens.judge import JudgeScreen

    project = prepared.project
    check_repeat(repeat)
    check_order(prepared, order)
    marks = marks_for(prepared)  # on the whole pool: the overlap is the whole pool's
    if only_new:
        keep_only_new(prepared)
    writer = project.writer(prepared.labeller)  # StoreLockedError -> one line, exit 2
    judged = project.judgments(prepared.labeller)
    # Opening the writer may have cut a torn journal tail (kept in .torn): the labeller is told.
    warnings = list(dict.fromkeys([*prepared.warnings, *project.warnings]))
    repeats = repeat_candidates(project, prepared.labeller, judged, repeat, seed or 0)
    notes = notes_of(project, prepared.labeller)  # flags and skips: store/annotations.py
    # The guidelines open on the first sitting at the screen, even when imported grades (which
    # count as judged) came before it.
    first_sitting = not judged_on_screen(project, prepared.labeller)

    history = project.judgments(prepared.labeller, history=True)

    def build() -> JudgingSession:
        return JudgingSession(
            prepared.pool.frame,
            prepared.labeller,
            writer=writer,
            judged=judged,
            scale=project.scale,
            query_ids=prepared.query_ids,
            repeats=repeats,
            notes=notes,
            order=order,
            # Undo picks up where the last session left off (an SSH drop loses no undo).
            history=history,
            flags=reasons_of(history, "flag"),
            skips=reasons_of(history, "skip"),
        )

    screen = JudgeScreen(
        build,
        guidelines=project.guidelines,
        show_guidelines=first_sitting,
        reveal=reveal,
        warnings=warnings,
        writer=writer,
        render=render,
        text_width=text_width,
        background=True,  # the grade's fsync off the key's path, "saving…" until it returns
    )
    screen.marks = marks  # +new and shared (ui/widgets/marks.py)
    screen.store = project.path  # said under ? (where the judgments are kept)
    return screen


def run(args: argparse.Namespace) -> int:
    from goldset_tui.commands._judge_exit import said_at_exit
    from goldset_tui.commands._take_over import take_over_session
    from goldset_tui.commands._terminal import require_terminal

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
        print(f"goldset: warning: {warning}", file=sys.stderr)
    take_over_session(prepared, args)  # still open elsewhere: offer to end it (_take_over.py)
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
