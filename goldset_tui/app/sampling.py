"""Drawing the golden set's queries (`goldset sample`): the labels (or a log classified on the
way), the sizes per stratum, the seeded stratified draw written with its manifest and the files
`goldset report` reads, the sample-size plan, and the warehouse's round trip (the SQL emitted,
its results finished into a sample). docs/sampling.md gives the reasoning."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    import polars as pl

    from goldset_tui.sampling.plan import PlanRow
    from goldset_tui.sampling.sample import SampleResult


def sample_labels(path: Path, *, log: bool, vocab: Path | None) -> tuple[pl.DataFrame, list[str]]:
    """The labels of ``path`` (query, count, stratum) or, with ``log``, the log classified by the
    default rules (the misspelled rule needs ``vocab``); and the notes to say."""
    from goldset_tui.progress import working
    from goldset_tui.sampling.labels import read_labels

    if not log:
        with working(f"reading {path}"):
            return read_labels(path), []
    from goldset_tui.sampling.classify import read_vocab

    words = read_vocab(vocab) if vocab else None
    with working(f"classifying {path}"):
        labels = _classified(path, words)
    notes = ["note: no --vocab given, so the misspelled rule was skipped"] if words is None else []
    return labels, notes


def _classified(path: Path, words: frozenset[str] | None) -> pl.DataFrame:
    """The log's labels as `goldset classify` writes them: a large log through its spill files."""
    from goldset_tui.sampling.classify import classified_labels

    return classified_labels(path, words)


@dataclass(frozen=True)
class SampleSizes:
    """Each stratum's counts (``stratum_counts``), the queries asked of each, and how they were
    allocated (as the manifest records it)."""

    counts: pl.DataFrame
    targets: dict[str, int]
    allocation: dict[str, Any]


def sample_sizes(
    labels: pl.DataFrame,
    path: Path,
    *,
    targets: str | None,
    total: int | None,
    min_per_stratum: int,
    log: bool,
) -> SampleSizes:
    """The sizes from ``targets`` (``STRATUM=N,...``), else ``total`` split by traffic with a
    floor of ``min_per_stratum``; labels that are already a sample are refused."""
    from goldset_tui.sampling.rules import STRATA
    from goldset_tui.sampling.sample import (
        allocate_total,
        check_known_strata,
        parse_targets,
        refuse_a_sample,
        stratum_counts,
    )

    refuse_a_sample(labels, path)
    counts = stratum_counts(labels)  # once: the allocation, the draw and the manifest share it
    if targets:
        asked = parse_targets(targets)
        # A log is classified here with the six default strata: any of them may be asked for.
        check_known_strata(asked, labels, path, scheme=STRATA if log else ())
        return SampleSizes(counts, asked, {"mode": "targets"})
    # The command refuses neither size given; an empty --targets comes here as it always did.
    asked = allocate_total(counts, cast("int", total), min_per_stratum)
    allocation = {"mode": "total", "total": total, "min_per_stratum": min_per_stratum}
    return SampleSizes(counts, asked, allocation)


@dataclass(frozen=True)
class Drawn:
    """The sample drawn, its strata and traffic files, and where its manifest went."""

    result: SampleResult
    companions: dict[str, Path]
    manifest: Path


def draw_sample(
    labels: pl.DataFrame,
    sizes: SampleSizes,
    *,
    seed: int,
    cap: int,
    source: Path,
    output: Path,
    manifest: Path | None,
) -> Drawn:
    """The seeded stratified draw, written to ``output`` with its manifest and companions."""
    from goldset_tui.sampling.sample import stratified_sample

    result = stratified_sample(labels, sizes.targets, seed, cap, sizes.counts)
    companions, where = write_sample(
        result,
        output,
        manifest,
        seed=seed,
        cap=cap,
        source=source,
        allocation=sizes.allocation,
    )
    return Drawn(result, companions, where)


def write_sample(
    result: SampleResult,
    output: Path,
    manifest: Path | None,
    *,
    seed: int,
    cap: int,
    source: Path,
    allocation: dict[str, Any] | None = None,
    engine: str = "polars",
) -> tuple[dict[str, Path], Path]:
    """SAMPLE, its strata and traffic files and its manifest (default: beside SAMPLE); returns
    the companions and where the manifest went."""
    from goldset_tui.sampling.files import write_frame
    from goldset_tui.sampling.manifest import (
        build_manifest,
        companion_paths,
        manifest_path,
        write_manifest,
    )
    from goldset_tui.sampling.sample import report_frames
    from goldset_tui.store.together import written_together

    companions = companion_paths(output)
    where = manifest or manifest_path(output)
    # SAMPLE, its companions and the manifest vouching for them: a failure leaves the earlier set.
    with written_together([output, *companions.values(), where]):
        write_frame(result.sample, output)
        for name, frame in report_frames(result).items():
            write_frame(frame, companions[name])
        built = build_manifest(
            result,
            seed=seed,
            cap=cap,
            labels_path=source,
            sample_path=output,
            allocation=allocation,
            companions=companions,
            engine=engine,
        )
        write_manifest(built, where)
    return companions, where


def plan_for(
    sizes: dict[str, int],
    counts: pl.DataFrame,
    *,
    rate: float,
    half_width: float | None,
    rho: float,
    power: float,
) -> list[PlanRow]:
    """The plan for ``sizes``: each stratum's population and traffic share from ``counts``."""
    from goldset_tui.sampling.plan import plan_rows

    populations, shares = {}, {}
    for row in counts.iter_rows(named=True):
        populations[row["stratum"]] = int(row["distinct"])
        shares[row["stratum"]] = float(row["share"])
    return plan_rows(
        sizes, rate, half_width, populations=populations, shares=shares, rho=rho, power=power
    )


def emit_sample_sql(
    output: Path,
    engine: str,
    *,
    table: str,
    query_column: str,
    count_column: str | None,
    vocab: Path | None,
    vocab_table: str,
    seed: int,
    cap: int,
    targets: str,
) -> dict[str, Path]:
    """The SQL that classifies and samples the log in the warehouse, and the files beside it
    (the vocabulary to load as ``vocab_table`` among them when ``vocab`` is given)."""
    from goldset_tui.sampling.allocation import parse_targets
    from goldset_tui.sampling.classify import read_vocab
    from goldset_tui.sampling.sql import LogTable
    from goldset_tui.sampling.warehouse import write_bundle

    words = read_vocab(vocab) if vocab else None
    log = LogTable(table, query_column, count_column, vocab_table if words else None)
    return write_bundle(
        output,
        engine,
        log,
        seed=seed,
        cap=cap,
        targets=parse_targets(targets),
        vocab=words,
        vocab_source=vocab,
    )


def finish_sample(
    sql: Path, rows: Path, weights: Path, output: Path, manifest: Path | None
) -> tuple[SampleResult, dict[str, Any]]:
    """SAMPLE made from the warehouse's results of the SQL ``sql`` (its seed, cap and engine),
    written as a drawn sample is; the result and the SQL bundle's record."""
    from goldset_tui.sampling.warehouse import finish_sample as finish_bundle

    result, bundle = finish_bundle(sql, rows, weights)
    write_sample(
        result,
        output,
        manifest,
        seed=int(bundle["seed"]),
        cap=int(bundle["cap"]),
        source=rows,
        engine=str(bundle["engine"]),
    )
    return result, bundle
