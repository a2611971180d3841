"""Spot-checking the stratum classifier's labels by hand (`goldset spotcheck`): the labels, the
labeller's journal in the store, and the planned stratum sizes the verdict is measured against
(docs/sampling.md); the answers read back for the report, and the session for the screen."""

from __future__ import annotations

import getpass
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from goldset_tui.errors import InputError

if TYPE_CHECKING:
    import polars as pl

    from goldset_tui.sampling.spotcheck import Agreement, Answer, SpotCheckSession


def default_labeller() -> str:
    try:
        return getpass.getuser() or "labeller"
    except Exception:  # no user name in some containers
        return "labeller"


@dataclass(frozen=True)
class SpotCheck:
    """What a spot-check works on: the labels, whose journal (and where), the strata in their
    order, and the planned sizes per stratum with where they came from (None: no verdict)."""

    labels: pl.DataFrame
    labeller: str
    path: Path
    strata: list[str]
    sizes: dict[str, int] | None
    source: str | None


def open_spotcheck(
    labels_path: Path,
    *,
    labeller: str | None,
    store: Path | None,
    targets: str | None,
    total: int | None,
    min_per_stratum: int | None,
    manifest: Path | None,
) -> SpotCheck:
    """The labels of ``labels_path`` and the labeller's journal (default: the login name, the
    store one per LABELS file); the planned sizes from one of ``targets`` (``STRATUM=N,...``),
    ``total`` (split as `goldset sample plan` splits it) or ``manifest``, else the sample
    manifest beside LABELS."""
    from goldset_tui.sampling.allocation import parse_targets
    from goldset_tui.sampling.labels import read_labels
    from goldset_tui.sampling.rules import STRATA
    from goldset_tui.sampling.sample import check_known_strata
    from goldset_tui.sampling.spotcheck import journal_path, strata_order
    from goldset_tui.sampling.verdict import golden_sizes
    from goldset_tui.store.project import default_store_for

    labels = read_labels(labels_path)
    name = labeller or default_labeller()
    path = journal_path(store or default_store_for(labels_path), name)
    planned = parse_targets(targets) if targets else None
    if planned:
        # --targets are the golden set's sizes: with classify's strata, one may have no rows here.
        check_known_strata(planned, labels, labels_path, scheme=STRATA)
    given = [
        o
        for o, v in (("--targets", planned), ("--total", total), ("--manifest", manifest))
        if v is not None
    ]
    if len(given) > 1:
        raise InputError(None, f"give the planned sizes once: {' and '.join(given)} both say them")
    if min_per_stratum is not None and total is None:
        raise InputError(None, "--min-per-stratum goes with --total")
    sizes, source = golden_sizes(
        labels_path,
        labels,
        targets=planned,
        total=total,
        min_per_stratum=min_per_stratum,
        manifest=manifest,
    )
    return SpotCheck(labels, name, path, strata_order(labels), sizes, source)


@dataclass(frozen=True)
class SpotCheckAnswers:
    """The answers so far and the journal's warnings (a torn or unreadable line)."""

    check: SpotCheck
    answers: list[Answer]
    warnings: list[str]

    def agreement(self) -> Agreement:
        from goldset_tui.sampling.spotcheck import agreement

        return agreement(self.answers, self.check.strata)

    def corrected_labels(self) -> pl.DataFrame:
        """The labels with each answered stratum corrected (the latest answer counts)."""
        from goldset_tui.sampling.spotcheck import corrected_labels

        return corrected_labels(self.check.labels, self.answers)


def read_answers(check: SpotCheck) -> SpotCheckAnswers:
    from goldset_tui.sampling.spotcheck import load_answers

    answers, warnings = load_answers(check.path)
    return SpotCheckAnswers(check, answers, warnings)


def start_spotcheck(check: SpotCheck, sample: int | None, seed: int) -> SpotCheckSession:
    """The session the screen runs: a seeded sample of ``sample`` queries (None: all); a journal
    another process holds fails here, on one line."""
    from goldset_tui.sampling.spotcheck import SpotCheckSession, check_items

    items = check_items(check.labels, sample, seed)
    return SpotCheckSession.open(items, check.strata, check.path, check.labeller)
