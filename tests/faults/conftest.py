"""The whole fault sweep (every workload, every call, every fault) is collected only when asked
for: GOLDSET_FAULT_SWEEP=1 python -m pytest tests/faults. It takes several minutes; the suite runs
test_fault_sweep.py's store API points, bench/fault_sweep.py prints the whole table."""

from __future__ import annotations

import os

collect_ignore = [] if os.environ.get("GOLDSET_FAULT_SWEEP") == "1" else ["test_fault_sweep_all.py"]
