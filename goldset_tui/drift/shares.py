"""Stratum shares then and now: each stratum's share of the old and the new traffic, the change,
its 95% interval and a test of no change, Holm-adjusted over the strata.

A share here is occurrences of the stratum's queries over all occurrences (what `goldset sample`
weights the headline by). Old and new are two independent logs, so the change of one stratum's
share is a difference of two independent proportions:

- the interval is Newcombe's hybrid score interval (Newcombe 1998, method 10): each share's
  Wilson interval (l, u), then d - sqrt((p_new - l_new)^2 + (u_old - p_old)^2) to
  d + sqrt((u_new - p_new)^2 + (p_old - l_old)^2). It stays inside [-1, 1] and holds its coverage
  where a share is near 0, which the plain Wald interval does not;
- the test is the pooled two-proportion z-test, two-sided; Holm's step-down adjustment
  (``eval.stats.holm``) over the strata compared, since with six strata one of them moving by
  chance is likely.

Both treat every search as an independent draw. They are not (one person repeats a query; a
bot repeats thousands), so on a log of 200,000 searches a change of half a point is
"significant" while meaning nothing for the headline: read the change against what it does to
the headline (``headline``), not against its p-value alone. docs/drift.md works an example.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from goldset_tui.eval.intervals import DEFAULT_CONFIDENCE, wilson, z_value
from goldset_tui.eval.stats import holm


@dataclass(frozen=True)
class ShareChange:
    """One stratum: occurrences and share in each log, the change (new - old), its interval,
    the z-test's p-value and its Holm-adjusted value."""

    stratum: str
    old_occurrences: int
    new_occurrences: int
    old_share: float
    new_share: float
    change: float
    ci95: tuple[float, float]
    p_value: float
    p_holm: float

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["ci95"] = [_clean(x) for x in self.ci95]
        return {k: _clean(v) if isinstance(v, float) else v for k, v in out.items()}


def _clean(x: float) -> float | None:
    return x if math.isfinite(x) else None


def newcombe_difference(
    new_hits: int,
    new_n: int,
    old_hits: int,
    old_n: int,
    confidence: float = DEFAULT_CONFIDENCE,
) -> tuple[float, float]:
    """Newcombe's hybrid score interval for new_hits / new_n - old_hits / old_n (module doc)."""
    if new_n <= 0 or old_n <= 0:
        return (math.nan, math.nan)
    p1, p2 = new_hits / new_n, old_hits / old_n
    l1, u1 = wilson(new_hits, new_n, confidence)
    l2, u2 = wilson(old_hits, old_n, confidence)
    d = p1 - p2
    return (d - math.hypot(p1 - l1, u2 - p2), d + math.hypot(u1 - p1, p2 - l2))


def two_proportion_p(new_hits: int, new_n: int, old_hits: int, old_n: int) -> float:
    """The pooled two-proportion z-test's two-sided p-value (nan when it is undefined)."""
    if new_n <= 0 or old_n <= 0:
        return math.nan
    pooled = (new_hits + old_hits) / (new_n + old_n)
    var = pooled * (1.0 - pooled) * (1.0 / new_n + 1.0 / old_n)
    d = new_hits / new_n - old_hits / old_n
    if var <= 0.0:
        return 1.0 if d == 0 else 0.0
    return math.erfc(abs(d) / math.sqrt(var) / math.sqrt(2.0))


def share_changes(
    old: Mapping[str, int], new: Mapping[str, int], confidence: float = DEFAULT_CONFIDENCE
) -> list[ShareChange]:
    """Per stratum (old's order, then strata only the new log has), from occurrences per stratum
    in each log. A stratum missing from one log has 0 occurrences there."""
    z_value(confidence)  # validates it
    names = list(old) + [s for s in new if s not in old]
    old_total, new_total = sum(old.values()), sum(new.values())
    raw = []
    for s in names:
        a, b = int(old.get(s, 0)), int(new.get(s, 0))
        raw.append(
            (
                s,
                a,
                b,
                newcombe_difference(b, new_total, a, old_total, confidence),
                two_proportion_p(b, new_total, a, old_total),
            )
        )
    adjusted = holm([p for *_, p in raw])
    return [
        ShareChange(
            stratum=s,
            old_occurrences=a,
            new_occurrences=b,
            old_share=a / old_total if old_total else math.nan,
            new_share=b / new_total if new_total else math.nan,
            change=(b / new_total if new_total else math.nan)
            - (a / old_total if old_total else math.nan),
            ci95=ci,
            p_value=p,
            p_holm=q,
        )
        for (s, a, b, ci, p), q in zip(raw, adjusted, strict=True)
    ]
