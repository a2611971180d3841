"""Closure checks: does a stratified table add up?

Seeds 000 and 004 check every table before reading it: the n column sums to the query count, the
hits sum to the overall hits, traffic shares sum to 1. Each check keeps what was expected, what was
found and the residual, so a failing one says by how much. Used by the report (eval) and by the
sampling table (sampling); the closure screen shows both.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class ClosureCheck:
    name: str
    expected: float
    actual: float
    tolerance: float = 1e-9

    @property
    def residual(self) -> float:
        return self.actual - self.expected

    @property
    def ok(self) -> bool:
        return abs(self.residual) <= self.tolerance

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("tolerance")
        d["residual"] = self.residual
        d["ok"] = self.ok
        return d


def all_ok(checks: list[ClosureCheck]) -> bool:
    return all(c.ok for c in checks)
