"""Every point of every workload: each call failing (EIO, ENOSPC, a persistent EIO) and a SIGKILL
at each, one test item per point (collected only with GOLDSET_FAULT_SWEEP=1, see conftest.py).

A point that breaks a promise fails (every workload keeps every promise at every point).
bench/fault_sweep.py prints the same points as one table."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from faults.injector import FAULTS
from faults.registry import WORKLOADS
from faults.sweep import Prepared, fault_point, kill_point, prepare

_prepared: dict[str, Prepared] = {}
_base = Path(
    tempfile.mkdtemp(
        prefix="goldset-faults-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None
    )
)


def prepared(name: str) -> Prepared:
    if name not in _prepared:
        _prepared[name] = prepare(WORKLOADS[name], _base / name.replace(" ", "_"))
    return _prepared[name]


def points() -> list[tuple[str, str, int]]:
    """(workload, fault, N) for every call of every workload, counted on a run without faults."""
    out = []
    for name in WORKLOADS:
        calls = prepared(name).calls
        out += [(name, fault, n) for fault in (*FAULTS, "KILL") for n in range(calls)]
    return out


@pytest.fixture(scope="module", autouse=True)
def _clean_up():
    yield
    shutil.rmtree(_base, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "fault", "at"), points())
def test_a_fault_at_this_call_breaks_no_promise(name: str, fault: str, at: int) -> None:
    p = prepared(name)
    point = kill_point(p, at) if fault == "KILL" else fault_point(p, fault, at)
    assert point.violations == []
