"""Opening judging: the one door `goldset judge`, `goldset demo`, `goldset serve` (and each of its
judging processes) and the home screen go through.

Everything that can be wrong with the input is found by :func:`open_judging`, before any screen
opens and before anything is written: the pool (``load_pool``), the store, the labeller's name,
the assignment. :func:`start_judging` then opens the labeller's writer (the lock: one session per
labeller) and gathers what the judging screen starts from; the screen itself is made by the UI
(``goldset_tui.ui.opening.judge_screen``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goldset_tui.errors import InputError
from goldset_tui.text import visible

if TYPE_CHECKING:
    import polars as pl

    from goldset_tui.io.pools import Pool
    from goldset_tui.judging import JudgingSession
    from goldset_tui.model import GradeScale
    from goldset_tui.store.project import Project
    from goldset_tui.store.writer import JudgmentWriter


@dataclass
class JudgingSetup:
    """A checked pool in an opened store, for one labeller ("" for none in particular)."""

    project: Project
    pool: Pool
    labeller: str
    query_ids: list[str] | None  # the labeller's share under a planned assignment; None: all
    warnings: list[str]


def parse_assign(spec: str) -> float:
    """``overlap=F``, F between 0 and 1: the share of queries everyone on the team judges."""
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


def open_judging(
    pool_path: str | Path,
    labeller: str | None,
    *,
    store: str | Path | None = None,
    corpus: str | Path | None = None,
    assign: str | None = None,
    team: str | None = None,
    seed: int | None = None,
    order: str = "blind",
    scale: GradeScale | None = None,
) -> JudgingSetup:
    """Validate everything and open the store; raises InputError on bad input (nothing written).
    ``labeller`` None: for no labeller in particular (`goldset serve` at start-up, which then
    checks each of its labellers): nothing is checked or done in any labeller's name. ``scale``
    is the grade scale of a store being made (an existing store keeps its own)."""
    from goldset_tui.app.scale import refuse_other_scale
    from goldset_tui.app.store_choice import choose_store, remembered_overlap
    from goldset_tui.io.pools import load_pool
    from goldset_tui.store import Project
    from goldset_tui.store.machine import refuse_machine
    from goldset_tui.store.manifest import manifest_path, recorded_corpus
    from goldset_tui.store.project import refuse_busy_folder

    # Every argument is checked before anything is created: a refused command leaves no store,
    # no manifest and no lock file behind.
    _check_name(labeller)
    overlap = parse_assign(assign) if assign else None
    chosen = None if store else choose_store(pool_path, labeller)  # store/registry.py
    store_path = chosen.store if chosen is not None else Path(store or "")
    existing = Project.open(store_path) if manifest_path(store_path).exists() else None
    if overlap is None and existing is not None and labeller is not None:
        overlap = remembered_overlap(existing.manifest, labeller)  # the share stays the share
    if existing is None:
        refuse_busy_folder(store_path)
    else:
        refuse_other_scale(store_path, existing.scale, scale)
    saved_team = existing.manifest.get("assignment", {}).get("labellers") if existing else None
    if overlap is not None and not (team and team.strip(" ,")) and not saved_team:
        raise InputError(
            None,
            "--assign needs the team: --team alice,bob,... (remembered in the store afterwards)",
        )
    # Without --corpus, the corpus the store records (an ids-only pool has no texts of its own).
    recorded = recorded_corpus(existing.manifest) if existing and corpus is None else None
    pool = load_pool(
        pool_path, corpus=corpus or recorded, scale=existing.scale if existing else scale
    )
    refuse_order(pool, order)  # before the store is made: a refused pool leaves no project
    saved: dict[str, Any] = existing.manifest.get("assignment", {}) if existing else {}
    plan, query_ids = (
        _assignment(store_path, saved, pool, labeller, overlap, team, seed)
        if overlap is not None and labeller is not None
        else (None, None)
    )
    project = _project(store_path, existing, pool, scale, corpus)
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
    return JudgingSetup(project, pool, labeller or "", query_ids, warnings)


def open_missing_judging(project: Project, labeller: str, frame: pl.DataFrame) -> JudgingSetup:
    """The report's missing pairs (a pool built in memory by ``report.pipeline.missing_pool``)
    to judge into the store the report reads, for ``labeller``: the name checked as for `goldset
    judge` (not empty, not the consensus's, not a machine's), then :func:`start_judging` as
    ever. The pool has no file of its own, so no extension's +new marks apply to it."""
    from goldset_tui.io.pools import Pool
    from goldset_tui.store.machine import refuse_machine

    _check_name(labeller)
    refuse_machine(project, labeller)
    return JudgingSetup(project, Pool(project.pool_path, "", frame), labeller, None, [])


def _check_name(labeller: str | None) -> None:
    """A labeller's name is not empty, nor the consensus's (None: no labeller in particular)."""
    from goldset_tui.store.machine import refuse_consensus

    if labeller is not None and not labeller.strip():
        raise InputError(None, "--labeller must not be empty")
    if labeller is not None:
        refuse_consensus(labeller)  # before a store is made


def _project(
    store_path: Path,
    existing: Project | None,
    pool: Pool,
    scale: GradeScale | None,
    corpus: str | Path | None,
) -> Project:
    """The store opened before, else made now for ``pool`` (with ``scale`` and ``corpus``)."""
    from goldset_tui.store import Project
    from goldset_tui.store.manifest import new_store_fields, remember_corpus

    if existing is None:
        return Project.open_or_create(
            store_path,
            pool_path=pool.path,
            pool_sha256=pool.sha256,
            **new_store_fields(scale, corpus),
        )
    if corpus is not None:  # made before, or with another corpus: remember this one
        existing.manifest = remember_corpus(existing.path, existing.manifest, corpus)
    return existing


def _assignment(
    store_path: Path,
    saved: dict[str, Any],
    pool: Pool,
    labeller: str,
    overlap: float,
    team: str | None,
    seed: int | None,
) -> tuple[dict[str, Any], list[str]]:
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
    plan: dict[str, Any] = {"overlap": overlap, "labellers": members, "seed": seed}
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
    store_path: Path, saved: dict[str, Any], labeller: str, overlap: float, seed: int | None
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
    project: Project, labeller: str, judged: pl.DataFrame, share: float, seed: int
) -> list[tuple[str, str]]:
    """Judged pairs to serve again (seeded share), minus those already repeated."""
    check_repeat(share)
    if share <= 0:
        return []
    from goldset_tui.agreement.repeats import repeat_pairs

    history = project.judgments(labeller, history=True)
    done = set(history.filter(history["kind"] == "repeat").select("query_id", "doc_id").rows())
    pairs = repeat_pairs(judged.select("query_id", "doc_id").rows(), labeller, share, seed)
    return [p for p in pairs if p not in done]


def refuse_order(pool: Pool, order: str) -> None:
    """--order adaptive needs to know which systems returned each candidate, at which rank."""
    from goldset_tui.judging.adaptive import has_systems

    if order == "adaptive" and not has_systems(pool.frame):
        raise InputError(
            pool.path,
            "--order adaptive needs the pool's systems and ranks columns (a pool made by"
            " goldset pool has them); this pool has none",
        )


@dataclass
class JudgingStart:
    """What the judging screen starts from: the open writer and the labeller's state so far."""

    setup: JudgingSetup
    writer: JudgmentWriter
    judged: pl.DataFrame
    history: pl.DataFrame
    warnings: list[str]
    repeats: list[tuple[str, str]]
    notes: dict[tuple[str, str], str]
    first_sitting: bool  # no grade given on a screen yet: the guidelines open first
    order: str = "blind"
    new_pairs: frozenset[tuple[str, str]] = field(default_factory=frozenset)  # marked +new
    shared_queries: frozenset[str] = field(default_factory=frozenset)  # the planned overlap's
    team: int = 0  # how many labellers judge the shared queries

    def session(self) -> JudgingSession:
        """A judging session on this start (built when the screen mounts)."""
        from goldset_tui.judging import JudgingSession
        from goldset_tui.store.annotations import reasons_of

        setup = self.setup
        return JudgingSession(
            setup.pool.frame,
            setup.labeller,
            writer=self.writer,
            judged=self.judged,
            scale=setup.project.scale,
            query_ids=setup.query_ids,
            repeats=self.repeats,
            notes=self.notes,
            order=self.order,
            # Undo picks up where the last session left off (an SSH drop loses no undo).
            history=self.history,
            flags=reasons_of(self.history, "flag"),
            skips=reasons_of(self.history, "skip"),
        )


def start_judging(
    setup: JudgingSetup,
    *,
    repeat: float = 0.0,
    seed: int | None = None,
    order: str = "blind",
    only_new: bool = False,
) -> JudgingStart:
    """Open the labeller's writer (StoreLockedError when another session holds it) and read what
    judging resumes from. ``only_new`` cuts the pool to the last extension's pairs."""
    from goldset_tui.app.judge_marks import keep_only_new, marks_for
    from goldset_tui.store.annotations import notes_of
    from goldset_tui.store.human import judged_on_screen

    project = setup.project
    check_repeat(repeat)
    refuse_order(setup.pool, order)
    marks = marks_for(setup)  # on the whole pool: the overlap is the whole pool's
    if only_new:
        keep_only_new(setup)
    writer = project.writer(setup.labeller)  # StoreLockedError -> one line, exit 2
    judged = project.judgments(setup.labeller)
    # Opening the writer may have cut a torn journal tail (kept in .torn): the labeller is told.
    warnings = list(dict.fromkeys([*setup.warnings, *project.warnings]))
    repeats = repeat_candidates(project, setup.labeller, judged, repeat, seed or 0)
    notes = notes_of(project, setup.labeller)  # flags and skips: store/annotations.py
    # The guidelines open on the first sitting at the screen, even when imported grades (which
    # count as judged) came before it.
    first_sitting = not judged_on_screen(project, setup.labeller)
    history = project.judgments(setup.labeller, history=True)
    return JudgingStart(
        setup,
        writer,
        judged,
        history,
        warnings,
        repeats,
        notes,
        first_sitting,
        order,
        marks.new_pairs,
        marks.shared_queries,
        marks.team,
    )
