"""The report's shared defaults, in one Polars-free module: `goldset report`, the history hooks a
small `goldset eval` runs (which must not import Polars, tests/unit/eval/test_small_path.py) and
the unjudged-fraction advice all read them from here, so they cannot drift apart.
"""

from __future__ import annotations

# Seed 000: once more than about a fifth of a run's top k is unjudged, its numbers drift away
# from what the pool was built to measure. The report warns above it; `goldset eval` and
# `goldset report` print the `goldset pool --extend` advice above it.
UNJUDGED_WARNING = 0.20
# The report's measure, and the depth for a measure without a cutoff (AP, RR).
DEFAULT_METRIC = "Success@10"
DEFAULT_K = 10
