"""The fault sweep's workloads for the consensus: `adjudicate --rule` (the rule it records in the
store's manifest before the screen opens) and `qrels --consensus -o` (the qrels and the
provenance file that says how each pair was decided).

- `adjudicate --rule`: the screen itself is the adjudicator's journal, swept on its own
  (``Adjudicate`` in workloads_more.py); here the screen opens and is closed at once, and what
  the command changes is the rule. A failure leaves the store's rule as it was; a success
  records the new one.
- `qrels --consensus -o FILE`: over an earlier export made before the adjudicator decided, so
  the run replaces both files. They go together: a failure leaves the earlier qrels AND the
  earlier provenance (never new provenance beside the old qrels, which would describe pairs the
  qrels do not hold); a kill leaves each file whole, its old or its new version.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from faults.ledger import Ledger
from faults.workloads import Command, FileOutput
from faults.workloads_more import Adjudicate
from goldset_tui.store.files import TMP_PREFIX


@contextlib.contextmanager
def screen_closed_at_once() -> Iterator[None]:
    """`goldset adjudicate` as if at a terminal whose adjudicator quits at once: the command's
    own writes (the rule, the journal it opens) run, the screen's are swept elsewhere."""
    import goldset_tui.app.terminal as terminal
    import goldset_tui.ui.app as ui_app

    saved = terminal.require_terminal, ui_app.run_app
    terminal.require_terminal = lambda command="": None  # type: ignore[assignment]
    ui_app.run_app = lambda make_screen: 0  # type: ignore[assignment]
    try:
        yield
    finally:
        terminal.require_terminal, ui_app.run_app = saved  # type: ignore[assignment]


class AdjudicateRule(Command):
    """`adjudicate --rule median` on a store whose rule is the default."""

    name = "adjudicate --rule"

    def setup(self, root: Path) -> None:
        Adjudicate().setup(root)

    def argv(self, root: Path) -> list[str]:
        return ["adjudicate", "--store", str(root / "store"), "--labeller", "dana",
                "--rule", "median"]  # fmt: skip

    def run(self, root: Path, ledger: Ledger) -> None:
        with screen_closed_at_once():
            super().run(root, ledger)

    def effect(self, root: Path) -> Any:
        from goldset_tui.adjudication.consensus import store_rule
        from goldset_tui.adjudication.decisions import load_adjudications
        from goldset_tui.store import Project

        decided = load_adjudications(root / "store").select("query_id", "doc_id", "grade")
        return store_rule(Project.open(root / "store")), tuple(sorted(decided.iter_rows()))


class QrelsConsensusOut(FileOutput):
    """`qrels --consensus -o`: the consensus and its provenance, over an earlier export's."""

    name = "qrels --consensus"

    def setup(self, root: Path) -> None:
        from goldset_tui.adjudication.consensus import UMA
        from goldset_tui.adjudication.decisions import AdjudicationWriter

        Adjudicate().setup(root)
        super().setup(root)  # the earlier export: every disagreement pending
        # The adjudicator decides the first two pairs that export left pending.
        provenance = root / "store" / "adjudication" / f"provenance-{UMA}.tsv"
        rows = [r.split("\t") for r in provenance.read_text(encoding="utf-8").splitlines()]
        pending = [row[:2] for row in rows if row[3] == "pending"][:2]
        assert len(pending) == 2, pending
        with AdjudicationWriter(root / "store", "dana", UMA) as writer:
            for grade, (query, doc) in enumerate(pending, start=2):
                writer.decide(query, doc, grade)

    def earlier(self, root: Path) -> list[str]:
        return self.argv(root)

    def argv(self, root: Path) -> list[str]:
        return ["qrels", "--store", str(root / "store"), "--consensus",
                "-o", str(root / "out" / "consensus.qrels")]  # fmt: skip

    def effect(self, root: Path) -> Any:
        files = [*(root / "out").iterdir(), *(root / "store" / "adjudication").glob("provenance*")]
        return tuple(
            (p.name, hashlib.sha256(p.read_bytes()).hexdigest()[:16])
            for p in sorted(files)
            if p.is_file() and not p.name.startswith(TMP_PREFIX)
        )
