"""Where agreement data comes from: a store (judgments, scale, pool) or named qrels files,
and strata (the pool's ``stratum`` column, or a ``--strata`` file)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from goldset_tui import specs
from goldset_tui.agreement.units import (
    check_scale,
    infer_scale,
    ratings_from_judgments,
    ratings_from_qrels,
    with_unit_ids,
)
from goldset_tui.errors import InputError
from goldset_tui.io.strata_file import refuse_two_strata
from goldset_tui.io.tables import read_table
from goldset_tui.model import GradeScale

if TYPE_CHECKING:
    from goldset_tui.store.project import Project


@dataclass
class AgreementData:
    ratings: pl.DataFrame
    scale: GradeScale
    pool: pl.DataFrame | None = None  # query_id, query, doc_id, text, title, stratum
    project: Project | None = None
    warnings: list[str] | None = None
    history: pl.DataFrame | None = None  # the store's event log (blind repeats live only here)


def parse_scale(text: str) -> GradeScale:
    """``MIN-MAX`` (``0-3``, ``1-5``, ``-1-2``) as a scale."""
    import re

    m = re.fullmatch(r"\s*(-?\d+)\s*-\s*(-?\d+)\s*", text or "")
    if not m or int(m.group(1)) >= int(m.group(2)):
        raise InputError(
            None, f"--scale {text!r}: expected MIN-MAX with MIN < MAX, for example 0-3"
        )
    return GradeScale.from_range(int(m.group(1)), int(m.group(2)))


def parse_named_path(text: str, option: str) -> tuple[str, Path]:
    """NAME=PATH (the rules: goldset_tui.specs)."""
    return specs.parse_named_path(text, option)


def from_store(store: str | Path, scale: GradeScale | None = None) -> AgreementData:
    from goldset_tui.store.frames import latest
    from goldset_tui.store.manifest import read_manifest
    from goldset_tui.store.project import Project

    path = Path(store)
    read_manifest(path)  # a missing folder, or one that is no store, said as every command says it
    project = Project.open(path)
    history = project.judgments(history=True)
    ratings = ratings_from_judgments(
        latest(history), history
    )  # the grades in force, from the one read
    scale = scale or project.scale
    check_scale(ratings, scale, str(path))
    return AgreementData(
        ratings, scale, store_pool(project), project, list(project.warnings), history
    )


def without_machines(data: AgreementData) -> AgreementData:
    """The human labellers' data: the labellers a store's manifest marks as machines (``goldset
    import --machine``) taken out of the ratings and the history. A machine is one more rater,
    reported apart; as a vote it would settle human disagreements that the consensus (which
    leaves machines out) still counts as pending."""
    if data.project is None:
        return data
    from dataclasses import replace

    from goldset_tui.store.machine import machine_labellers

    machines = machine_labellers(data.project.manifest)
    if not machines:
        return data
    keep = ~pl.col("labeller").is_in(machines)
    humans = with_unit_ids(data.ratings.filter(keep).drop("unit", strict=False))
    history = data.history.filter(keep) if data.history is not None else None
    return replace(data, ratings=humans, history=history)


def self_consistency_of(data: AgreementData) -> list[dict[str, Any]] | None:
    """Intra-labeller agreement from blind repeats, or None when the store holds no repeats."""
    from goldset_tui.agreement.repeats import self_consistency

    history = data.history
    if history is None or history.filter(pl.col("kind") == "repeat").height == 0:
        return None
    return self_consistency(history, data.scale)


def from_qrels(
    named: list[str] | Mapping[str, str | Path], scale: GradeScale | None = None
) -> AgreementData:
    """Each labeller's qrels file: ``NAME=PATH`` specs as ``--qrels`` takes them, or (from a
    notebook) a dict ``{name: path}``; a dict's keys were read as specs before, each refused
    as lacking ``=PATH``."""
    from goldset_tui.io.trec import read_qrels

    frames: dict[str, pl.DataFrame] = {}
    paths = (
        {str(k): Path(v) for k, v in named.items()}
        if isinstance(named, Mapping)
        else specs.parse_named_paths(named, "--qrels")
    )
    for name, path in paths.items():
        qrels = read_qrels(path)
        if scale is None or scale.min >= 0:
            # trec_eval: a negative grade means "in the pool but not judged", so it is missing here
            # (unless the declared scale itself has negative grades).
            qrels = qrels.filter(pl.col("grade") >= 0)
        if scale is not None:
            outside = qrels.filter((pl.col("grade") < scale.min) | (pl.col("grade") > scale.max))
            if outside.height:
                raise grade_outside_scale(path, name, scale, outside.height)
        frames[name] = qrels
    if len(frames) < 2:
        raise InputError(
            None, "agreement needs at least two labellers: give --qrels NAME=PATH twice or more"
        )
    ratings = ratings_from_qrels(frames)
    if scale is not None:
        return AgreementData(ratings, scale)
    # The scale decides the binary cut-offs reported (>= 1, >= 2, ...) and the confusion matrices'
    # size; a guess (0-1 when the guidelines say 0-3) silently drops cut-offs. Kappas and alpha do
    # not move: a grade nobody used adds nothing to them (checked against sklearn and krippendorff).
    inferred = infer_scale(ratings)
    warning = (
        f"no --scale given: the scale {inferred.min}-{inferred.max} was inferred from the grades seen; "
        "the binary cut-offs and confusion matrices follow it, so declare the real one (e.g. --scale 0-3)"
    )
    return AgreementData(ratings, inferred, warnings=[warning])


def grade_outside_scale(path: Path, name: str, scale: GradeScale, count: int) -> InputError:
    """The error naming the first line whose grade is off the scale. read_qrels keeps no line
    numbers (a 7-million-line file), so the file is scanned again, only on this error path."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        for number, text in enumerate(fh, 1):
            fields = text.split()
            try:
                grade = int(fields[3])
            except (IndexError, ValueError):
                continue
            dropped = grade < 0 <= scale.min  # "pooled but unjudged" (see from_qrels), not a grade
            if not dropped and not scale.min <= grade <= scale.max:
                return InputError(
                    path,
                    f"grade {grade} for ({fields[0]}, {fields[2]}) by {name} is outside the scale "
                    f"{scale.min}-{scale.max} ({count} such grade{'s' * (count != 1)})",
                    line=number,
                )
    return InputError(
        path, f"{count} grades by {name} are outside the scale {scale.min}-{scale.max}"
    )


def store_pool(project: Project) -> pl.DataFrame | None:
    """The store's pool frame, or None when the pool file is gone or unreadable (agreement does
    not need it; only strata and the candidate texts come from it)."""
    from goldset_tui.io.pools import load_pool
    from goldset_tui.store.manifest import recorded_corpus

    pool_table = project.manifest.get("pool", {})
    try:
        pool = load_pool(pool_table["path"], corpus=recorded_corpus(project.manifest))
    except (InputError, KeyError, OSError):
        return None
    return pool.frame


def strata_of(data: AgreementData, strata_path: str | None) -> pl.DataFrame | None:
    """``--strata FILE`` (query_id, stratum; optionally doc_id) if given, else the pool's column."""
    if strata_path:
        table = read_table(
            strata_path,
            required=("query_id", "stratum"),
            non_empty=("query_id", "stratum"),
            string_columns=("query_id", "doc_id", "stratum"),
        )
        refuse_two_strata(table, Path(strata_path))
        return table
    pool = data.pool
    if (
        pool is not None
        and "stratum" in pool.columns
        and pool.get_column("stratum").drop_nulls().len()
    ):
        return pool.select("query_id", "doc_id", "stratum").filter(pl.col("stratum").is_not_null())
    return None
