"""`goldset judge` checks the user's config before it creates anything on disk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from goldset_tui.cli import main


def test_bad_keymap_is_refused_before_the_store_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = Path(os.environ["GOLDSET_CONFIG_DIR"]) / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[keymap]\nno_such_binding = "x"\n')
    pool = tmp_path / "pool.csv"
    pool.write_text("query_id,query,doc_id,text\nq1,hello,d1,some text\n")
    store = tmp_path / "store"
    status = main(["judge", str(pool), "--labeller", "ana", "--store", str(store)])
    err = capsys.readouterr().err
    assert status == 2
    assert "no_such_binding" in err and err.count("\n") == 1
    assert not store.exists()
