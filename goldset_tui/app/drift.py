"""`goldset drift`: the quarterly re-check (docs/drift.md). The shares of the strata in an old
and a new labelled log, the headline of the golden set's systems reweighted under the new
shares (from qrels and runs, or from a store's recorded release), the decisions that flip, and
whether the golden set's sizes still match the plan. Also the strata-change note `goldset
report` gives when a store's last release was measured under other strata."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from goldset_tui.drift.result import Drift
from goldset_tui.errors import InputError

if TYPE_CHECKING:
    import polars as pl

__all__ = ["Drift", "run_drift", "strata_change", "strata_change_lines"]


def drift_labels(
    labels: list[str],
    log: str | None,
    *,
    vocab: str | None = None,
    rules: str | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame, str, str]:
    """The old and new labels (query, count, stratum) and their names: two LABELS files, or one
    and a LOG classified here (with ``vocab`` and ``rules`` as `goldset classify` takes them)."""
    from goldset_tui.sampling.labels import read_labels

    if len(labels) == 2 and log is None:
        return read_labels(labels[0]), read_labels(labels[1]), labels[0], labels[1]
    if len(labels) == 1 and log is not None:
        from goldset_tui.sampling.classify import classified_labels, read_vocab
        from goldset_tui.sampling.rules import load_rules

        rule = load_rules(rules) if rules else None
        words = read_vocab(vocab) if vocab else None
        old = read_labels(labels[0])
        # A large log goes through classify's spill files (docs/sampling.md), as the draw's.
        return old, classified_labels(log, words, rule), labels[0], log
    raise InputError(None, "give --labels OLD with --log NEW_LOG, or --labels OLD --labels NEW")


def scores_from_runs(
    qrels: str, runs: list[str], strata: str, metric: str, labeller: str | None = None
) -> tuple[pl.DataFrame, pl.DataFrame, str, bool, bool]:
    """Per-query scores of each run (system, query_id, value), the strata, the canonical measure
    and whether it is binary and bounded, as `goldset report` computes them (no fusion)."""
    import polars as pl

    from goldset_tui.app.qrels import report_qrels
    from goldset_tui.app.report import check_metric
    from goldset_tui.app.runs import open_runs
    from goldset_tui.eval.measure_kind import is_binary_measure, is_bounded_measure
    from goldset_tui.eval.metrics import relevant_queries
    from goldset_tui.io.strata_and_traffic import read_strata
    from goldset_tui.io.trec import read_run
    from goldset_tui.report.compute import per_query

    if not runs:
        raise InputError(None, "give at least one --run NAME=PATH")
    metric = check_metric(metric)
    frames = {
        name: read_run(r.source, tag=False, order=False) for name, r in open_runs(runs).items()
    }
    grades = report_qrels(qrels, labeller)
    table = read_strata(strata).select("query_id", "stratum")
    queries = relevant_queries(grades)
    if queries.len() == 0:
        raise InputError(qrels, "no query has a relevant document (grade >= 1): nothing to weigh")
    scores = pl.concat([per_query(grades, run, metric, queries, n) for n, run in frames.items()])
    binary = is_binary_measure(metric, grades, queries)
    return scores, table, metric, binary, is_bounded_measure(metric)


def scores_from_release(
    store: str, release: str, metric: str | None
) -> tuple[pl.DataFrame, pl.DataFrame, str, bool, bool]:
    """The same from a store's recorded release (its records keep every query's score and
    stratum): no runs are read again."""
    import polars as pl

    from goldset_tui.eval.measure_kind import is_bounded_measure
    from goldset_tui.history.records import load_records

    records = [r for r in load_records(Path(store)) if r.release == release]
    if not records:
        raise InputError(Path(store), f"no release {release!r} in this store's history")
    measures = list(dict.fromkeys(r.measure for r in records))
    if metric is None:
        if len(measures) > 1:
            raise InputError(
                Path(store),
                f"release {release!r} holds several measures ({', '.join(measures)}): name one "
                "with --measure",
            )
        metric = measures[0]
    mine = [r for r in records if r.measure == metric]
    if not mine:
        raise InputError(
            Path(store),
            f"release {release!r} has no {metric} (it has {', '.join(measures)})",
        )
    scores = pl.DataFrame(
        [(r.system, q, v) for r in mine for q, v in r.scores.items()],
        schema={"system": pl.String, "query_id": pl.String, "value": pl.Float64},
        orient="row",
    )
    strata = pl.DataFrame(
        list(dict((q, s) for r in mine for q, s in r.strata.items()).items()),
        schema={"query_id": pl.String, "stratum": pl.String},
        orient="row",
    )
    if strata.height == 0:
        raise InputError(Path(store), f"release {release!r} was recorded without strata")
    return scores, strata, metric, all(r.binary for r in mine), is_bounded_measure(metric)


def recorded_shares(store: str, release: str) -> dict[str, float] | None:
    """The traffic shares recorded with ``release`` (None: recorded without --traffic, or
    before shares were kept)."""
    from goldset_tui.history.records import load_records

    for r in load_records(Path(store)):
        if r.release == release and r.traffic is not None:
            return dict(r.traffic)
    return None


def run_drift(
    labels: list[str],
    log: str | None = None,
    *,
    vocab: str | None = None,
    rules: str | None = None,
    qrels: str | None = None,
    runs: list[str] | None = None,
    strata: str | None = None,
    metric: str | None = None,
    labeller: str | None = None,
    store: str | None = None,
    release: str | None = None,
    min_per_stratum: int | None = None,
) -> Drift:
    """The whole re-check; every input read and checked before anything is computed."""
    from goldset_tui.drift.headline import reweigh
    from goldset_tui.drift.replan import replan
    from goldset_tui.drift.shares import share_changes
    from goldset_tui.eval.defaults import DEFAULT_METRIC
    from goldset_tui.sampling.allocation import DEFAULT_MIN_PER_STRATUM, stratum_counts

    floor = DEFAULT_MIN_PER_STRATUM if min_per_stratum is None else min_per_stratum
    if floor < 0:
        raise InputError(None, "--min-per-stratum must not be negative")
    if (store is None) != (release is None):
        raise InputError(None, "--store and --release go together: the release to reweigh")
    if store is not None and (qrels or runs):
        raise InputError(None, "reweigh a recorded release (--store, --release) or runs, not both")
    if (qrels is None) != (strata is None) or (runs and qrels is None):
        raise InputError(None, "to reweigh runs give --qrels, --run and --strata together")
    old_labels, new_labels, old_name, new_name = drift_labels(labels, log, vocab=vocab, rules=rules)
    clicks = _clicks(labels) if log is None else None
    scored = None
    if qrels is not None and strata is not None:
        scored = scores_from_runs(qrels, runs or [], strata, metric or DEFAULT_METRIC, labeller)
    elif store is not None and release is not None:
        scored = scores_from_release(store, release, metric)
    old_counts, new_counts = stratum_counts(old_labels), stratum_counts(new_labels)
    old_occ = dict(zip(old_counts["stratum"], old_counts["occurrences"], strict=True))
    new_occ = dict(zip(new_counts["stratum"], new_counts["occurrences"], strict=True))
    out = Drift(old_name, new_name, share_changes(old_occ, new_occ))
    if clicks is not None:
        from goldset_tui.drift.zero_click import recurring_across, zero_click_changes

        out.zero_click = zero_click_changes(*clicks)
        out.zero_click_recurring = recurring_across(*clicks).head(20).to_dicts()
    if scored is None:
        return out
    scores, table, measure, binary, bounded = scored
    out.measure = measure
    old_share = dict(zip(old_counts["stratum"], old_counts["share"], strict=True))
    new_share = dict(zip(new_counts["stratum"], new_counts["share"], strict=True))
    if store is not None and release is not None:
        recorded = recorded_shares(store, release)
        if recorded is not None and _differ(recorded, old_share):
            out.notes.append(
                f"release {release!r} was recorded under other shares than {old_name}'s; "
                "the old headline uses the old labels' shares"
            )
    out.reweighted = reweigh(scores, table, old_share, new_share, bounded=bounded, binary=binary)
    golden = {
        str(s): int(n) for s, n in table.group_by("stratum", maintain_order=True).len().iter_rows()
    }
    unknown = [s for s in golden if s not in old_share and s not in new_share]
    if unknown:
        out.notes.append(
            "golden-set strata in neither log: " + ", ".join(unknown) + " (weight 0 in both)"
        )
    try:
        out.replan = replan(golden, old_counts, new_counts, min_per_stratum=floor)
    except InputError as exc:
        # The plan's size is the golden set's, not a --total drift takes: say it in those words.
        size = sum(golden.values())
        said = exc.message.replace(
            f"--total {size} is too small", f"the golden set's {size} queries are too few"
        ).replace("or raise --total", "or add queries to the golden set")
        out.notes.append(f"no plan: {said}")
    return out


def _clicks(labels: list[str]) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """Both labels files' zero_click columns, when both have one."""
    from goldset_tui.drift.zero_click import read_labels_with_clicks

    old, new = (read_labels_with_clicks(p) for p in labels)
    return (old, new) if old is not None and new is not None else None


def _differ(a: dict[str, float], b: dict[str, float]) -> bool:
    return any(abs(a.get(s, 0.0) - b.get(s, 0.0)) > 5e-4 for s in set(a) | set(b))


def strata_change_lines(store: Path, strata: pl.DataFrame | None) -> list[str]:
    """One line when the store's last recorded release was measured under other strata than
    ``strata`` (query_id, stratum): what changed. Nothing when nothing did or nothing is recorded."""
    found = strata_change(store, strata)
    return [found["note"]] if found else []


def strata_change(store: Path, strata: pl.DataFrame | None) -> dict[str, Any] | None:
    """The release the store last recorded, what changed in the strata since (a list of short
    phrases) and the note saying so (the report's ``strata_changed``); None when nothing did or
    nothing is recorded.

    Only the newest record is read (by its file's time: records are written once and never
    again), so a report on a store with a long history does not read all of it."""
    from goldset_tui.drift.definition import describe_change, strata_definition
    from goldset_tui.history.records import HISTORY_DIR, read_record

    if strata is None or strata.height == 0:
        return None
    folder = Path(store) / HISTORY_DIR
    try:
        files = sorted(folder.glob("*.json"), key=lambda p: (p.stat().st_mtime_ns, p.name))
        rec = read_record(files[-1]) if files else None
    except (InputError, OSError):
        return None  # a damaged record is `goldset history`'s to name; the report goes on
    if rec is None or not rec.strata:
        return None
    last = rec.release
    current = {str(q): str(s) for q, s in strata.select("query_id", "stratum").iter_rows()}
    changes = describe_change(rec.strata_definition, rec.strata, strata_definition(strata), current)
    if not changes:
        return None
    note = (
        f"the strata changed after release {last!r} was recorded ({'; '.join(changes)}): "
        "compare per-stratum numbers with that release with care"
    )
    return {"release": last, "changes": list(changes), "note": note}
