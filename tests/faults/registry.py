"""Every workload of the fault sweep, by name, in the order the sweep runs them: the store API
and the writing commands (workloads.py), the commands that write files outside the store
(workloads_files.py), the commands that ask a model and the screens with a journal of their own
(workloads_more.py), then the consensus's rule and export (workloads_consensus.py). The last
three build on workloads.py's classes.

Only this module knows every file, so workloads.py imports none of the others (it once loaded
workloads_more.py from its own bottom, a cycle held together by import order). A new workload
is a class in one of them and a line here.
"""

from __future__ import annotations

from faults.workloads import (
    ImportHuman,
    ImportMachine,
    ImportPool,
    Merge,
    PoolExtend,
    ReportRelease,
    StoreApi,
    Workload,
)
from faults.workloads_consensus import AdjudicateRule, QrelsConsensusOut
from faults.workloads_files import ClassifyOut, FuseOut, QrelsOut, SampleDrawOut
from faults.workloads_more import Adjudicate, JudgeMachine, Spotcheck, SpotcheckExport, SynthOut

WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in (
        StoreApi(),
        ImportPool(),
        ImportHuman(),
        ImportMachine(),
        Merge(),
        PoolExtend(),
        ReportRelease(),
        QrelsOut(),
        ClassifyOut(),
        SampleDrawOut(),
        FuseOut(),
        JudgeMachine(),
        SynthOut(),
        Adjudicate(),
        Spotcheck(),
        SpotcheckExport(),
        AdjudicateRule(),
        QrelsConsensusOut(),
    )
}
