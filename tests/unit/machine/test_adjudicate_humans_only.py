"""`goldset adjudicate` on a store holding a machine judge: the adjudicator settles the humans'
disagreements, the ones `goldset qrels --consensus` leaves pending, and never sees a machine
grade as a vote."""

from __future__ import annotations

from pathlib import Path

from goldset_tui.adjudication.consensus import consensus_with_provenance, open_pairs
from goldset_tui.cli import main
from goldset_tui.machine.example import build_sample_machine_store
from goldset_tui.store import Project

SAMPLE = Path(__file__).parents[3] / "sample_data"


def test_the_adjudicator_gets_every_pair_the_consensus_leaves_pending(
    tmp_path: Path, monkeypatch
) -> None:
    import goldset_tui.app.terminal as terminal
    import goldset_tui.ui.app as app
    import goldset_tui.ui.screens.adjudicate as screen

    store = build_sample_machine_store(tmp_path / "mj", SAMPLE)
    labels = SAMPLE / "judgments" / "llm.jsonl"
    assert (
        main(["import", "--store", str(store), "--labeller", "llm", "--machine", str(labels)]) == 0
    )
    shown = []
    monkeypatch.setattr(terminal, "require_terminal", lambda command="": None)
    monkeypatch.setattr(screen, "AdjudicateScreen", lambda data, *a, **k: shown.append(data))
    monkeypatch.setattr(app, "run_app", lambda make: make() or 0)
    assert main(["adjudicate", "--store", str(store), "--labeller", "dana"]) == 0
    (data,) = shown
    assert sorted(data.ratings.get_column("labeller").unique()) == ["alice", "bob"]
    _, provenance = consensus_with_provenance(Project.open(store))
    pending = provenance.filter(provenance["how"] == "pending").height
    # On the sample: 43 pending without the machine; with its vote as a third labeller the
    # screen offered 7, and the other 36 stayed pending with nobody asked to decide them.
    assert pending == 43
    assert open_pairs(data.ratings).height == pending
