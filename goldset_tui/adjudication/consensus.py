"""One consensus grade per pair, and a record of how each was decided and by whom.

Two rules (docs/agreement.md; why a rule at all: docs/background.md#agreement):

- ``unanimous-majority-adjudicator``: all labellers agree -> that grade; else a strict majority
  (more than half of the grades) -> the majority grade; else the adjudicator's decision; else the
  pair is *pending* and left out of the qrels (an unresolved pair must not silently count as 0).
- ``median``: the median grade. With an even number of grades whose two middle values differ the
  median is not a grade: the adjudicator decides if they have, otherwise the lower of the two
  (conservative: relevance that half the labellers denied is not credited).

A pair judged by one labeller only is decided by that labeller (``single``): under overlap by
design most pairs are.

A pair a labeller flagged "unsure / needs discussion" (``f`` on the judging screen) goes to the
adjudicator beside the disagreements; until the adjudicator decides it, the rule's grade stands
(a flag asks for a second look, it does not withdraw the grade), and once decided the
adjudicator's grade is the consensus, whatever the rule would have said.

Provenance columns: query_id, doc_id, grade (null when pending), how (single | unanimous | majority
| adjudicator | median | pending), by (comma-separated names), grades (``alice=3 bob=0``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from goldset_tui.adjudication.decisions import load_adjudications
from goldset_tui.agreement.units import ratings_from_judgments
from goldset_tui.errors import InputError
from goldset_tui.store.files import atomic_write

if TYPE_CHECKING:
    from goldset_tui.adjudication.decisions import AdjudicationWriter
    from goldset_tui.store.project import Project

UMA = "unanimous-majority-adjudicator"
MEDIAN = "median"
RULES = (UMA, MEDIAN)

PROVENANCE_COLUMNS = ("query_id", "doc_id", "grade", "how", "by", "grades")


def check_rule(rule: str) -> str:
    if rule not in RULES:
        raise ValueError(f"unknown consensus rule {rule!r}; expected one of {', '.join(RULES)}")
    return rule


def unit_summary(ratings: pl.DataFrame) -> pl.DataFrame:
    """Per pair: n, spread, the most common grade and its support, the two middle grades, labels."""
    by_grade = (
        ratings.group_by("query_id", "doc_id", "grade")
        .agg(pl.len().alias("support"), pl.col("labeller").sort().str.join(",").alias("who"))
        .sort(["query_id", "doc_id", "support", "grade"], descending=[False, False, True, False])
    )
    top = by_grade.group_by("query_id", "doc_id", maintain_order=True).agg(
        pl.col("grade").first().alias("top_grade"),
        pl.col("support").first().alias("top_support"),
        pl.col("who").first().alias("top_who"),
    )
    n = pl.len()
    per_unit = ratings.group_by("query_id", "doc_id").agg(
        n=n,
        spread=pl.col("grade").max() - pl.col("grade").min(),
        low_mid=pl.col("grade").sort().get((n - 1) // 2),
        high_mid=pl.col("grade").sort().get(n // 2),
        everyone=pl.col("labeller").sort().str.join(","),
        grades=pl.concat_str(pl.col("labeller"), pl.lit("="), pl.col("grade").cast(pl.Utf8))
        .sort_by("labeller")
        .str.join(" "),
    )
    return per_unit.join(top, on=["query_id", "doc_id"], how="left")


def needs_adjudication(summary: pl.DataFrame, rule: str) -> pl.Expr:
    """Which pairs the rule cannot decide by itself."""
    check_rule(rule)
    if rule == UMA:
        return (pl.col("spread") > 0) & (pl.col("top_support") * 2 <= pl.col("n"))
    return pl.col("low_mid") != pl.col("high_mid")


def decide(
    ratings: pl.DataFrame,
    adjudications: pl.DataFrame,
    rule: str = UMA,
    flagged: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Provenance frame (one row per pair anyone graded); ``grade`` is null for pending pairs.

    ``adjudications``: query_id, doc_id, grade, adjudicator — at most one row per pair (the latest).
    ``flagged``: query_id, doc_id of pairs a labeller flagged; an adjudicator's decision on one
    is the consensus even where the rule alone would decide.
    """
    summary = unit_summary(ratings)
    adj = adjudications.select(
        "query_id",
        "doc_id",
        pl.col("grade").alias("adj_grade"),
        pl.col("adjudicator").alias("adj_by"),
    )
    s = summary.join(adj, on=["query_id", "doc_id"], how="left").with_columns(
        open=needs_adjudication(summary, rule)
    )
    if flagged is not None and flagged.height:
        # A decided flagged pair is settled by its decision: open for the expressions below.
        marks = flagged.select("query_id", "doc_id").unique().with_columns(_flag=pl.lit(True))
        s = s.join(marks, on=["query_id", "doc_id"], how="left").with_columns(
            open=pl.col("open")
            | (pl.col("_flag").fill_null(False) & pl.col("adj_grade").is_not_null())
        )
    single = pl.col("n") == 1
    unanimous = pl.col("spread") == 0
    adjudicated = pl.col("open") & pl.col("adj_grade").is_not_null()
    if rule == UMA:
        how = (
            pl.when(single)
            .then(pl.lit("single"))
            .when(unanimous)
            .then(pl.lit("unanimous"))
            .when(~pl.col("open"))
            .then(pl.lit("majority"))
            .when(adjudicated)
            .then(pl.lit("adjudicator"))
            .otherwise(pl.lit("pending"))
        )
        grade = (
            pl.when(~pl.col("open"))
            .then(pl.col("top_grade"))
            .when(adjudicated)
            .then(pl.col("adj_grade"))
            .otherwise(None)
        )
        by = (
            pl.when(single | unanimous)
            .then(pl.col("everyone"))
            .when(~pl.col("open"))
            .then(pl.col("top_who"))
            .when(adjudicated)
            .then(pl.col("adj_by"))
            .otherwise(None)
        )
    else:
        how = (
            pl.when(single)
            .then(pl.lit("single"))
            .when(unanimous)
            .then(pl.lit("unanimous"))
            .when(adjudicated)
            .then(pl.lit("adjudicator"))
            .otherwise(pl.lit("median"))
        )
        grade = pl.when(adjudicated).then(pl.col("adj_grade")).otherwise(pl.col("low_mid"))
        by = pl.when(adjudicated).then(pl.col("adj_by")).otherwise(pl.col("everyone"))
    out = s.with_columns(grade=grade.cast(pl.Int64), how=how, by=by).select(PROVENANCE_COLUMNS)
    if flagged is not None and flagged.height:
        # Flagged without a grade (flagged, then skipped) and decided: the decision is the grade.
        ungraded = (
            flagged.select("query_id", "doc_id")
            .unique()
            .join(out.select("query_id", "doc_id"), on=["query_id", "doc_id"], how="anti")
            .join(adj, on=["query_id", "doc_id"], how="inner")
            .filter(pl.col("adj_grade").is_not_null())
            .select(
                "query_id",
                "doc_id",
                pl.col("adj_grade").cast(pl.Int64).alias("grade"),
                pl.lit("adjudicator").alias("how"),
                pl.col("adj_by").alias("by"),
                pl.lit("").alias("grades"),
            )
        )
        out = pl.concat([out, ungraded.cast(out.schema)])
    return out.sort("query_id", "doc_id")


def open_pairs(ratings: pl.DataFrame, rule: str = UMA) -> pl.DataFrame:
    """The pairs an adjudicator must decide under ``rule``, biggest spread first."""
    summary = unit_summary(ratings)
    return (
        summary.filter(needs_adjudication(summary, rule))
        .sort(["spread", "query_id", "doc_id"], descending=[True, False, False])
        .select("query_id", "doc_id", "n", "spread", "grades")
    )


def provenance_path(store: Path, rule: str, include_machine: bool = False) -> Path:
    tail = "-with-machine" if include_machine else ""
    return Path(store) / "adjudication" / f"provenance-{rule}{tail}.tsv"


def store_rule(project: Project) -> str:
    """The rule the store's manifest names (set by ``goldset adjudicate --rule``), else the default."""
    table = getattr(project, "manifest", {}).get("consensus", {})
    rule = table.get("rule", UMA) if isinstance(table, dict) else UMA
    return rule if rule in RULES else UMA


def open_adjudication(project: Project, adjudicator: str, rule: str | None) -> AdjudicationWriter:
    """The adjudicator's writer; ``rule`` (None: the store's) recorded in the manifest once it is
    open. Recorded first, a failure to open the journal (a full disk, another session's lock) left
    the store on the new rule after a command that said it failed."""
    from goldset_tui.adjudication.decisions import AdjudicationWriter

    writer = AdjudicationWriter(Path(project.path), adjudicator, rule or store_rule(project))
    if rule and rule != store_rule(project):
        try:
            project.update_manifest(consensus={"rule": rule})
        except BaseException:
            writer.close()
            raise
    return writer


def consensus_with_provenance(
    project: Project, rule: str | None = None, *, include_machine: bool = False
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(qrels, provenance) for a store ``project``; ``rule`` None means the store's rule.

    Machine labellers (``goldset import --machine``) are left out unless ``include_machine``:
    the consensus is the humans' unless someone decides otherwise on purpose."""
    from goldset_tui.store.machine import machine_labellers

    rule = check_rule(rule or store_rule(project))
    judgments = project.judgments()
    if not include_machine:
        judgments = judgments.filter(
            ~pl.col("labeller").is_in(machine_labellers(getattr(project, "manifest", {})))
        )
    ratings = ratings_from_judgments(judgments)
    flags = flagged_pairs(project, judgments.get_column("labeller").unique().to_list())
    provenance = decide(ratings, load_adjudications(store_dir(project)), rule, flags)
    qrels = provenance.filter(pl.col("grade").is_not_null()).select("query_id", "doc_id", "grade")
    return qrels, provenance


def flagged_pairs(project: Project, labellers: list[str] | None = None) -> pl.DataFrame:
    """query_id, doc_id, flag: the pairs flagged by any of ``labellers`` (default all), each
    with its flags as "name: reason"."""
    from goldset_tui.store.frames import latest_marks

    history = project.judgments(history=True)
    if labellers is not None:
        history = history.filter(pl.col("labeller").is_in(labellers))
    marks = latest_marks(history, "flag")
    return (
        marks.sort("labeller", maintain_order=True)
        .group_by("query_id", "doc_id", maintain_order=True)
        .agg(pl.concat_str("labeller", pl.lit(": "), "reason").str.join("; ").alias("flag"))
        .sort("query_id", "doc_id")
    )


@dataclass
class ConsensusExport:
    qrels: pl.DataFrame  # query_id, doc_id, grade: the decided pairs only
    pending: int  # pairs left out because no rule or adjudicator has decided them yet
    provenance: Path  # the provenance file just written (or to write: ``table``)
    table: pl.DataFrame | None = None  # the provenance, when the caller writes it (write=False)


def consensus_export(
    project: Project, rule: str | None = None, *, include_machine: bool = False, write: bool = True
) -> ConsensusExport:
    """Consensus qrels for ``goldset qrels --consensus``, with the pending count and provenance.

    ``rule`` None uses the rule recorded in the store's manifest (``[consensus] rule``), which
    ``goldset adjudicate --rule`` sets, so the export follows the rule the adjudicator worked to.

    Also writes the provenance file next to the adjudications
    (``STORE/adjudication/provenance-<rule>.tsv``, atomically), so every exported consensus set has
    its record of how each pair was decided. Pending pairs are in the provenance, not in the qrels.
    With ``write`` False the provenance is returned as ``table`` instead, for a caller that
    writes it together with the qrels file (``goldset qrels --consensus -o``).
    """
    rule = rule or store_rule(project)
    qrels, provenance = consensus_with_provenance(project, rule, include_machine=include_machine)
    path = provenance_path(store_dir(project), rule, include_machine)
    if write:
        write_provenance(provenance, path)
    table = None if write else provenance
    return ConsensusExport(qrels, provenance.height - qrels.height, path, table)


def consensus_qrels(project: Project, rule: str | None = None) -> pl.DataFrame:
    """The consensus qrels alone (see ``consensus_export``)."""
    return consensus_export(project, rule).qrels


def write_provenance(provenance: pl.DataFrame, path: Path) -> None:
    """Atomically (temp file, fsync, rename), with the umask's mode like every file goldset writes."""
    try:
        atomic_write(path, lambda tmp: provenance.write_csv(tmp, separator="\t", null_value=""))
    except OSError as exc:
        raise InputError(
            path.parent, f"cannot write the provenance file here ({exc.strerror})"
        ) from None


def store_dir(project: Project) -> Path:
    return Path(project.path)
