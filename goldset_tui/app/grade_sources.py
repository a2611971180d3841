"""Whose grades the review shows, and switching them (and the metric) without leaving it.

A review reads one of: a qrels file; one labeller's grades in a store (laid over the file, or over
the pool's prior judgments, as `goldset report --qrels DIR` does); or the store's consensus (as
`goldset qrels --consensus` decides it, undecided disagreements left out, so they show as holes).
:class:`GradeSources` names the source in force for the screen's header and rebuilds the report on
another source or metric. Judging from the review always writes as ``--labeller``: switching the
grades shown never changes whose grades J records.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from goldset_tui.app.qrels import merge_qrels, store_grades_in_force
from goldset_tui.app.report import ReportInputs, build_report, check_metric

if TYPE_CHECKING:
    from goldset_tui.report.pipeline import Report
    from goldset_tui.store.project import Project

CONSENSUS = "consensus"
# The header's word for a consensus rule: the rule's own name ("unanimous-majority-adjudicator",
# 30 characters) wrapped the header at 80 columns. `goldset adjudicate --help` spells it out.
RULE_WORDS = {"unanimous-majority-adjudicator": "majority"}


@dataclass
class GradeSources:
    inputs: ReportInputs  # runs, strata, traffic, settings; its qrels are the first frame's
    project: Project | None = None  # when a store is reviewed
    base: pl.DataFrame | None = None  # the --qrels file's grades, under the store's
    file_name: str | None = None  # how the header names that file (file_name below)
    judge_as: str | None = None  # --labeller: whose grades J writes

    def keys(self) -> list[str]:
        """The sources to cycle through: the store's labellers with grades, then the consensus
        (none without a store: a file is the only source)."""
        if self.project is None:
            return []
        summary = self.project.summary()
        graded = summary.filter(pl.col("judged") > 0).get_column("labeller").to_list()
        names = list(dict.fromkeys([*graded, *([self.judge_as] if self.judge_as else [])]))
        return [*names, CONSENSUS]

    def qrels(self, key: str | None, said: list[str] | None = None) -> pl.DataFrame:
        """The grades of source ``key`` (a labeller, CONSENSUS, or None: the file alone).
        ``said`` collects what reading them said (a labeller without grades of their own gets
        the consensus, with its pending pairs): a running screen shows it, never stderr."""
        if self.project is None or key is None:
            assert self.base is not None
            return self.base
        if key == CONSENSUS:
            from goldset_tui.adjudication.consensus import consensus_with_provenance

            grades = consensus_with_provenance(self.project)[0]
        elif self.base is None:
            if said is None:
                return store_grades_in_force(self.project, key)
            return store_grades_in_force(self.project, key, said.append, said.append)
        else:
            grades = (
                self.project.qrels(key) if key in self.project.labellers() else self.base.head(0)
            )
        return grades if self.base is None else merge_qrels(self.base, grades)

    def labelled(self) -> pl.DataFrame:
        """Every labeller's grades in force (query_id, doc_id, labeller, grade), the --qrels
        file's under its name first: what the reading view shows beside each document."""
        frames = []
        if self.base is not None:
            frames.append(
                self.base.select(
                    pl.col("query_id").cast(pl.Utf8),
                    pl.col("doc_id").cast(pl.Utf8),
                    pl.lit(self.file_name or "qrels").alias("labeller"),
                    pl.col("grade").cast(pl.Int64),
                )
            )
        if self.project is not None:
            got = self.project.judgments().filter(pl.col("grade") >= 0)
            frames.append(
                got.select("query_id", "doc_id", "labeller", pl.col("grade").cast(pl.Int64))
            )
        return pl.concat(frames) if frames else pl.DataFrame()

    def label(self, key: str | None) -> str:
        """The header's words for source ``key``."""
        over = f" over {self.file_name}" if self.base is not None and self.file_name else ""
        if self.project is None or key is None:
            return self.file_name or "qrels"
        if key == CONSENSUS:
            from goldset_tui.adjudication.consensus import store_rule

            return f"consensus ({RULE_WORDS.get(rule := store_rule(self.project), rule)}){over}"
        return f"{key}'s grades{over}"

    def build(self, key: str | None, metric: str) -> tuple[Report, str]:
        """(the report on source ``key`` and ``metric``, its label); InputError when that source
        has nothing to report (no relevant grade) or the metric is unknown."""
        said: list[str] = []
        qrels = self.qrels(key, said)
        # What this source said joins the report's warnings (w, and their count under the
        # table), after those the review opened with, each once.
        told = list(dict.fromkeys([*self.inputs.qrels_warnings, *said]))
        inputs = replace(self.inputs, qrels=qrels, metric=check_metric(metric), qrels_warnings=told)
        return build_report(inputs), self.label(key)


def file_name(value: str | None, labeller: str | None = None) -> str | None:
    """How the header names --qrels: ``qrels NAME`` for a file; for a store given as --qrels,
    whose grades from which store (as `goldset report --qrels DIR --labeller NAME` reads it)."""
    if not value:
        return None
    path = Path(value)
    if path.is_dir():
        whose = f"{labeller}'s grades" if labeller else "grades"
        return f"{whose} (store {path.name})"
    return f"qrels {path.name}"
