"""A store that is not there is said one way by every command that takes ``--store``: "no such
store folder" for a missing path, "is not a goldset store (no manifest.toml)" for a folder without
one (agreement and validate used to call a missing folder "not a goldset store")."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui.cli import main

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"


def commands(store: Path, tmp_path: Path) -> dict[str, list[str]]:
    s = str(store)
    return {
        "agreement": ["agreement", "--store", s],
        "validate": ["validate", "--store", s, "--labeller", "m", "--budget", "3",
                     "-o", str(tmp_path / "v.jsonl")],
        "history": ["history", "--store", s],
        "qrels": ["qrels", "--store", s],
        "regressions": ["regressions", "--store", s, "--promote", "q01", "--name", "n"],
        "import": ["import", "--store", s, "--labeller", "a",
                   "--human", str(SAMPLE / "judgments" / "alice.qrels")],
    }  # fmt: skip


@pytest.mark.parametrize(
    "command", ["agreement", "validate", "history", "qrels", "regressions", "import"]
)
@pytest.mark.parametrize(
    ("made", "said"),
    [(False, "no such store folder"), (True, "is not a goldset store (no manifest.toml)")],
)
def test_one_message_for_a_store_that_is_not_there(command, made, said, tmp_path, capsys) -> None:
    store = tmp_path / "store"
    if made:
        store.mkdir()
    assert main(commands(store, tmp_path)[command]) == 2
    err = capsys.readouterr().err
    assert err == f"goldset: error: {store}: {said}\n"
