"""The report's shared defaults, in one Polars-free module: `goldset report`, the history hooks a
small `goldset eval` runs (which must not import Polars, tests/unit/eval/test_small_path.py) and
the unjudged-fraction advice all read them from here, so they cannot drift apart. The resample
counts of every command are here too: the commands' option defaults (whose modules must not
import Polars just to build a parser) and the library functions' defaults are the same numbers.
"""

from __future__ import annotations

# Once more than about a fifth of a run's top k is unjudged, its numbers drift away from what
# the pool was built to measure (docs/background.md#unjudged-fraction). The report warns above
# it; `goldset eval` and `goldset report` print the `goldset pool --extend` advice above it.
UNJUDGED_WARNING = 0.20
# The report's measure, and the depth for a measure without a cutoff (AP, RR).
DEFAULT_METRIC = "Success@10"
DEFAULT_K = 10

# Resamples, one count per use. The report's bootstrap intervals and its paired tests per stratum,
# and the history's change tests (`goldset report/history --samples`): enough for a stable 95%
# interval's ends, quick enough to run at every release.
REPORT_SAMPLES = 2000
# `goldset compare`'s paired randomization test, and agreement's system-ranking tests, which ask
# compare's question once per label set: its p-value is never below 1 / (1 + samples), so more
# samples than the report's, for the small p-values a comparison of two systems may need.
COMPARE_SAMPLES = 10_000
# Agreement's cluster bootstrap over queries (`goldset agreement --samples`), used only for a
# figure undefined with a query left out (docs/agreement.md).
AGREEMENT_REPLICATES = 1000


def percent_against(value: float, threshold: float, *, most: int = 6) -> str:
    """``value`` as a percentage with as few decimals as make it read differently from
    ``threshold`` at the same precision: a share just over the warning line prints "20.5%", not
    "20%", so the sentence "(above 20%)" beside it never contradicts itself. Whole percents when
    they already differ; at most ``most`` decimals."""
    for digits in range(most + 1):
        shown, line = f"{value:.{digits}%}", f"{threshold:.{digits}%}"
        if shown != line:
            return shown
    return f"{value:.{most}%}"
