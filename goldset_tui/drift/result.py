"""What `goldset drift` found: :class:`Drift`, and its JSON (the keys docs/drift.md documents)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from goldset_tui.drift.headline import Reweighted
from goldset_tui.drift.replan import Replan
from goldset_tui.drift.shares import ShareChange


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

    def to_json(self) -> dict[str, Any]:
        return {
            "old": self.old_source,
            "new": self.new_source,
            "shares": [s.to_json() for s in self.shares],
            "measure": self.measure,
            "headline": self.reweighted.to_json() if self.reweighted else None,
            "plan": self.replan.to_json() if self.replan else None,
            "notes": self.notes,
        }
