"""What `goldset drift` found (:class:`Drift`) and what `goldset classify --clicks` adds
(:class:`ZeroClicks`), with their JSON (the keys docs/drift.md documents)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import polars as pl

from goldset_tui.drift.clusters import Candidate
from goldset_tui.drift.headline import Reweighted
from goldset_tui.drift.replan import Replan
from goldset_tui.drift.shares import ShareChange
from goldset_tui.drift.zero_click import ZeroClickShare


@dataclass
class Drift:
    """Everything `goldset drift` prints (``to_json``: the keys docs/drift.md documents)."""

    old_source: str
    new_source: str
    shares: list[ShareChange]
    replan: Replan | None = None
    reweighted: Reweighted | None = None
    measure: str | None = None
    notes: list[str] = field(default_factory=list)
    # Both labels with zero_click: per stratum its zero-click share then and now
    # (drift.zero_click.zero_click_changes), and the queries zero-click in both.
    zero_click: list[dict[str, Any]] | None = None
    zero_click_recurring: list[dict[str, Any]] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "old": self.old_source,
            "new": self.new_source,
            "shares": [s.to_json() for s in self.shares],
            "measure": self.measure,
            "headline": self.reweighted.to_json() if self.reweighted else None,
            "plan": self.replan.to_json() if self.replan else None,
            "zero_click": self.zero_click,
            "zero_click_recurring": self.zero_click_recurring,
            "notes": self.notes,
        }


@dataclass(frozen=True)
class ZeroClicks:
    column: str
    shares: list[ZeroClickShare]
    recurring: pl.DataFrame  # query, stratum, count, zero_click
    candidates: list[Candidate]
    snippet: str | None  # the rules with the candidates in front (None: no candidate)

    def to_json(self) -> dict[str, Any]:
        return {
            "column": self.column,
            "by_stratum": [s.to_json() for s in self.shares],
            "recurring": self.recurring.to_dicts(),
            "candidates": [c.to_json() for c in self.candidates],
            "rule_snippet": self.snippet,
        }
