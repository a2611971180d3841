"""Judging pace: judgments a minute over the recent ones, breaks left out."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

# Pace is measured over the most recent judgments so a lunch break does not drag it down forever.
PACE_WINDOW = 20
# No pace is shown before this many judgments spanning at least this many seconds.
PACE_MIN_JUDGMENTS = 3
PACE_MIN_SECONDS = 10.0
# Gaps longer than this between two judgments are breaks, not judging time.
PACE_MAX_GAP_SECONDS = 300.0


@dataclass
class Pace:
    times: deque[float] = field(default_factory=lambda: deque(maxlen=PACE_WINDOW))

    def add(self, t: float) -> None:
        self.times.append(t)

    def per_minute(self) -> float | None:
        ts = list(self.times)
        if len(ts) < PACE_MIN_JUDGMENTS:
            return None
        busy = sum(min(b - a, PACE_MAX_GAP_SECONDS) for a, b in zip(ts, ts[1:], strict=False))
        # A burst of keys (or a script) says nothing about the pace: wait for some real time.
        return (len(ts) - 1) / busy * 60.0 if busy >= PACE_MIN_SECONDS else None
