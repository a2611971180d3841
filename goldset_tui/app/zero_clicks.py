"""`goldset classify --clicks COLUMN`: the zero-click step over classify's output. The labels
gain a ``zero_click`` column (and the manifest the new sha256 of the labels and the column it
came from); per stratum, the share of searches with no click; the zero-click queries that recur;
candidate strata from the zero-click queries the rules fit badly, with a rule snippet
(``drift.zero_click``, ``drift.clusters``; docs/drift.md)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from goldset_tui.drift.result import ZeroClicks

__all__ = ["ZeroClicks", "zero_click_step"]


def zero_click_step(
    log: Path,
    labels_path: Path,
    manifest_path: Path,
    column: str,
    *,
    fallback: Sequence[str] = ("paraphrase",),
    rules: str | None = None,
    spotcheck: Path | None = None,
) -> ZeroClicks:
    """Read ``column`` of ``log``, add ``zero_click`` to the labels at ``labels_path`` (written
    again, atomically) and record it in the manifest at ``manifest_path``."""
    from goldset_tui.drift.clusters import candidates, rule_snippet
    from goldset_tui.drift.zero_click import (
        ZERO,
        read_zero_clicks,
        recurring,
        shares_by_stratum,
        with_zero_clicks,
    )
    from goldset_tui.sampling.files import write_frame
    from goldset_tui.sampling.labels import read_labels
    from goldset_tui.sampling.manifest import file_entry, read_manifest, write_manifest

    labels = with_zero_clicks(read_labels(labels_path), read_zero_clicks(log, column))
    write_frame(labels, labels_path)
    manifest = read_manifest(manifest_path)
    manifest["output"] = file_entry(labels_path)
    manifest["clicks"] = {
        "column": column,
        "zero_click_occurrences": int(labels.get_column(ZERO).sum()),
    }
    write_manifest(manifest, manifest_path)
    misfits: set[str] = set()
    pool = list(fallback)
    if spotcheck is not None:
        from goldset_tui.drift.clusters import often_corrected
        from goldset_tui.sampling.spotcheck import agreement, latest, load_answers

        if not spotcheck.is_file():
            from goldset_tui.errors import InputError

            raise InputError(spotcheck, "no such spot-check journal")
        answers, _ = load_answers(spotcheck)
        standing = latest(answers).values()
        misfits = {a.query for a in standing if a.correct is not None and a.correct != a.assigned}
        found_strata = sorted({a.assigned for a in standing})
        pool += [
            s for s in often_corrected(agreement(answers, found_strata).confusion) if s not in pool
        ]
    found = candidates(labels, pool, misfits=misfits)
    return ZeroClicks(
        column,
        shares_by_stratum(labels),
        recurring(labels),
        found,
        rule_snippet(found, rules) if found else None,
    )
