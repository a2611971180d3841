"""The plain-Python engine: each measure's kernel, for one query at a time, for small inputs.

A second implementation on purpose: ``goldset eval`` on Robust 2003 (100 topics) spent more
time importing Polars than evaluating, so below a size threshold the evaluation runs here. Each
kernel sits beside the Polars expression of the same measure in its registry entry
(``goldset_tui.measures``), restating it with the same inputs and order of operations, and
tests/unit/eval/test_small_path.py holds the two equal, measure by measure, on every peer file
and on generated inputs: that test is what keeps them from drifting. A measure without a kernel
(Compat, alpha_nDCG: they need whole frames) sends the evaluation to Polars.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from goldset_tui import measures as registry
from goldset_tui.measures.entry import Measure
from goldset_tui.measures.query import ABSENT as ABSENT  # re-exported
from goldset_tui.measures.query import ELEVEN_POINTS as ELEVEN_POINTS
from goldset_tui.measures.query import ERR_MAX_GRADE as ERR_MAX_GRADE
from goldset_tui.measures.query import INFAP_EPSILON as INFAP_EPSILON
from goldset_tui.measures.query import Query

Kernel = Callable[[Measure, Query], float]


class _Kernels(Mapping[str, Kernel]):
    """name -> kernel, for the registered measures that have one (read live)."""

    def __getitem__(self, name: str) -> Kernel:
        kernel = registry.lookup(name).kernel if registry.known(name) else None
        if kernel is None:
            raise KeyError(name)
        return kernel

    def __iter__(self) -> Iterator[str]:
        return (e.name for e in registry.entries() if e.kernel is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


KERNELS: Mapping[str, Kernel] = _Kernels()


def has_kernels(measures: Iterable[Measure]) -> bool:
    return all(m.name in KERNELS for m in measures)


def evaluate_query(measures: Sequence[Measure], q: Query) -> list[float]:
    kernels = [KERNELS[m.name] for m in measures]
    return [kernel(m, q) for kernel, m in zip(kernels, measures, strict=True)]


__all__ = ["ABSENT", "KERNELS", "Query", "evaluate_query", "has_kernels"]
